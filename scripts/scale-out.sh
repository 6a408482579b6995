#!/usr/bin/env bash
# Broadsheet scaled out on one machine, the deployment shape for publishers that outgrow one process of each
# (README, "Scale-out"): HAProxy in front of two API processes, two worker processes, and a two-node
# Elasticsearch cluster whose publications index has one replica; all on loopback, all under one folder.
#
#   bash scripts/scale-out.sh start           build when stale, start everything, print the URL
#   bash scripts/scale-out.sh stop            stop everything it started (the folder stays: rm -rf it after)
#   bash scripts/scale-out.sh status          each process, its pid and whether it runs; the cluster's health
#   bash scripts/scale-out.sh restart NAME    start one process again (after it died): es1 es2 api1 api2
#                                             worker1 worker2 balancer
#   bash scripts/scale-out.sh pid NAME        the pid of one process (for kill -9 drills)
#
# Ports, from SCALE_PORT (8080): the balancer on SCALE_PORT, the APIs on +1 and +2, Elasticsearch's HTTP on
# +3 and +4 and its transport on +5 and +6, HAProxy's stats page on +7 (/stats).
#
# Reads: SCALE_DIR (the folder, .scale-out in the repository), SCALE_PORT, SCALE_DATABASE_URL (the database,
# created and migrated when missing: postgres://postgres@127.0.0.1:5432/broadsheet_scale), SCALE_ES_HEAP (512m
# per node), SCALE_ES_JAVA_OPTS (more JVM options for both nodes), and services.sh's BROADSHEET_CACHE and
# ES_JAVA_HOME.
# Handed on to the API and worker processes when set: JWT_SECRET (else a random one, kept in the folder),
# SEARCH_CACHE, INDEXER_BATCH_SIZE, RATE_LIMIT_DEFAULT, AUTH_FAILURE_LIMIT, AUTH_FAILURE_LIMIT_PER_CLIENT. The
# processes log at info, each to its file in logs/. TRUST_PROXY is loopback: HAProxy says the client's address.
set -euo pipefail
cd "$(dirname "$0")/.."
readonly ROOT="$PWD"

# Elasticsearch's download, unpacking, JDK and unprivileged user are services.sh's; its functions are reused.
# shellcheck source=scripts/services.sh
source scripts/services.sh

readonly DIR="$(mkdir -p "${SCALE_DIR:-$ROOT/.scale-out}" && cd "${SCALE_DIR:-$ROOT/.scale-out}" && pwd)"
readonly PORT_BASE="${SCALE_PORT:-8080}"
readonly BALANCER_PORT="$PORT_BASE"
readonly STATS_PORT=$((PORT_BASE + 7))
readonly SCALE_DB_URL="${SCALE_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/broadsheet_scale}"
readonly NODE_HEAP="${SCALE_ES_HEAP:-512m}"
readonly CLUSTER="broadsheet-scale-${PORT_BASE}"
readonly API_VERSION=2026-03
readonly ENV_FILE="$DIR/broadsheet.env"
readonly NODE_BIN="$ROOT/node_modules/.bin/node"

api_port() { echo $((PORT_BASE + $1)); }           # api1, api2
es_http_port() { echo $((PORT_BASE + 2 + $1)); }   # es1, es2
es_transport_port() { echo $((PORT_BASE + 4 + $1)); }
es_url() { echo "http://127.0.0.1:$(es_http_port "$1")"; }

# --- processes: one pidfile and one log each -----------------------------------------------------------------

pidfile() {
  case "$1" in
    es[12]) echo "$DIR/$1/elasticsearch.pid" ;; # written by Elasticsearch itself, in its own folder
    *) echo "$DIR/run/$1.pid" ;;
  esac
}

pid_of() { cat "$(pidfile "$1")" 2>/dev/null || true; }

running() {
  local pid
  pid="$(pid_of "$1")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# spawn NAME COMMAND...: detached from this shell (setsid, nohup), its own pid in the pidfile (the shell writes
# $$ and becomes the command), output in logs/NAME.log. fd 9 (services.sh's lock) is not handed on.
spawn() {
  local name="$1"
  shift
  mkdir -p "$DIR/run" "$DIR/logs"
  (
    exec 9>&-
    sh -c 'echo $$ >"$0"; exec setsid nohup "$@"' "$(pidfile "$name")" "$@" \
      >>"$DIR/logs/$name.log" 2>&1 </dev/null &
  )
  local deadline=$((SECONDS + 5))
  until [ -s "$(pidfile "$name")" ]; do
    ((SECONDS < deadline)) || die "$name did not start (log: $DIR/logs/$name.log)"
    sleep 0.1
  done
}

wait_http() {
  local name="$1" url="$2" timeout="$3" deadline=$((SECONDS + $3))
  until curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; do
    if ! running "$name"; then
      say "$name exited; end of $DIR/logs/$name.log:"
      tail -n 20 "$DIR/logs/$name.log" >&2 || true
      exit 1
    fi
    ((SECONDS < deadline)) || die "$name did not answer $url within ${timeout}s (log: $DIR/logs/$name.log)"
    sleep 0.2
  done
}

stop_one() {
  local name="$1" pid
  pid="$(pid_of "$name")"
  if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$(pidfile "$name")"
    return
  fi
  kill "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      say "$name (pid $pid) did not stop within 30s: killing it"
      kill -9 "$pid" 2>/dev/null || true
    fi
    sleep 0.2
  done
  rm -f "$(pidfile "$name")"
}

# --- Elasticsearch: two nodes of one cluster, from services.sh's unpacked distribution -------------------------

es_home() { echo "$(es_base_dir)/elasticsearch-${ES_VERSION}"; }

# The distribution is shared with services.sh's own node: fetched and unpacked once, under its lock.
prepare_es() {
  mkdir -p "$CACHE"
  is_root && ensure_es_user
  if [ ! -x "$(es_home)/bin/elasticsearch" ]; then
    (
      flock 9
      fetch_es_zip
      mkdir -p "$(es_base_dir)"
      unpack_es "$(es_base_dir)"
    ) 9>"$CACHE/services.lock"
  fi
  if is_root; then
    chmod 755 "$DIR"
    runuser -u "$ES_USER" -- test -x "$DIR" ||
      die "$ES_USER cannot reach $DIR (a parent folder is closed to other users); choose another SCALE_DIR"
    chown -R "$ES_USER:" "$(es_home)"
  fi
}

# Each node has its own config folder (a copy of the distribution's, with its own elasticsearch.yml), data and
# logs. The first start of the cluster names both nodes as the initial masters; a node that has data already
# rejoins the cluster it belongs to and must not be told to bootstrap again.
write_node_config() {
  local n="$1" node="$DIR/es$1" bootstrap=""
  mkdir -p "$node/config" "$node/data" "$node/logs"
  cp -r "$(es_home)/config/." "$node/config/"
  if [ -z "$(ls -A "$node/data")" ]; then
    bootstrap="cluster.initial_master_nodes: [scale-es1, scale-es2]"
  fi
  cat >"$node/config/elasticsearch.yml" <<EOF
# Written by scripts/scale-out.sh on every start of this node: edit the script, not this file.
cluster.name: ${CLUSTER}
node.name: scale-es${n}
network.host: 127.0.0.1
http.port: $(es_http_port "$n")
transport.port: $(es_transport_port "$n")
discovery.seed_hosts: ["127.0.0.1:$(es_transport_port 1)", "127.0.0.1:$(es_transport_port 2)"]
${bootstrap}
path.data: ${node}/data
path.logs: ${node}/logs
xpack.security.enabled: false
cluster.routing.allocation.disk.threshold_enabled: false
EOF
  is_root && chown -R "$ES_USER:" "$node"
  return 0
}

# Starts node N and returns once its HTTP port answers (not yet that the cluster has formed).
start_node() {
  local n="$1" node="$DIR/es$1" java_home started=$SECONDS
  running "es$n" && return
  java_home="$(find_java_home)"
  write_node_config "$n"
  rm -f "$(pidfile "es$n")"
  # -d returns once the node has started; the node must not inherit fd 9 (a lock held by a caller).
  if ! (cd "$(es_home)" && as_es_user env ES_JAVA_HOME="$java_home" \
    ES_JAVA_OPTS="-Xms$NODE_HEAP -Xmx$NODE_HEAP ${SCALE_ES_JAVA_OPTS:-}" ES_PATH_CONF="$node/config" \
    bin/elasticsearch -d -p "$(pidfile "es$n")") >"$node/logs/launcher.out" 2>&1 9>&-; then
    say "Elasticsearch node es$n failed to start (output: $node/logs/launcher.out):"
    without_stack_frames <"$node/logs/launcher.out" | tail -n 25 >&2
    exit 1
  fi
  # The node's own view (local=true): it answers before the cluster has formed, which waits for both.
  local deadline=$((SECONDS + ES_START_TIMEOUT))
  until curl -fsS -o /dev/null --max-time 5 "$(es_url "$n")/_cluster/health?local=true" 2>/dev/null; do
    ((SECONDS < deadline)) || die "es$n did not answer within ${ES_START_TIMEOUT}s (log: $node/logs/$CLUSTER.log)"
    sleep 0.5
  done
  say "es$n answers on $(es_url "$n") after $((SECONDS - started))s"
}

# wait_for_health STATUS TIMEOUT: both nodes in the cluster and the given status (yellow or green).
wait_for_health() {
  local deadline=$((SECONDS + $2))
  until curl -fsS -o /dev/null --max-time 35 \
    "$(es_url 1)/_cluster/health?wait_for_nodes=2&wait_for_status=$1&timeout=30s" 2>/dev/null ||
    curl -fsS -o /dev/null --max-time 35 \
      "$(es_url 2)/_cluster/health?wait_for_nodes=2&wait_for_status=$1&timeout=30s" 2>/dev/null; do
    ((SECONDS < deadline)) || die "the cluster did not reach $1 with both nodes within $2s"
    sleep 1
  done
}

# --- the application ---------------------------------------------------------------------------------------

build_if_stale() {
  if [ ! -f dist/src/main.js ] || [ -n "$(find src workers -newer dist/src/main.js -name '*.ts' -print -quit)" ]; then
    say "building (npm run build)"
    PATH="$ROOT/node_modules/.bin:$PATH" npm run -s build
  fi
}

# The configuration every API and worker process shares (node --env-file). The file is the whole truth: the
# processes are started without the caller's own values of these variables (see app_command).
write_env() {
  local secret
  secret="${JWT_SECRET:-$(sed -n 's/^JWT_SECRET=//p' "$ENV_FILE" 2>/dev/null || true)}"
  [ -n "$secret" ] || secret="$(openssl rand -hex 32)"
  (
    umask 077
    cat >"$ENV_FILE" <<EOF
# Written by scripts/scale-out.sh start: shared by both APIs, both workers and the CLI.
JWT_SECRET=${secret}
DATABASE_URL=${SCALE_DB_URL}
ELASTICSEARCH_URL=$(es_url 1),$(es_url 2)
ELASTICSEARCH_INDEX_PREFIX=scale
ELASTICSEARCH_REPLICAS=1
MEDIA_STORAGE_DIR=${DIR}/media
HOST=127.0.0.1
LOG_LEVEL=info
# HAProxy (on loopback) appends each client's address to X-Forwarded-For: req.ip is the client, not the balancer.
TRUST_PROXY=loopback
EOF
    local name
    for name in SEARCH_CACHE INDEXER_BATCH_SIZE RATE_LIMIT_DEFAULT AUTH_FAILURE_LIMIT AUTH_FAILURE_LIMIT_PER_CLIENT; do
      [ -z "${!name:-}" ] || echo "${name}=${!name}"
    done >>"$ENV_FILE"
  )
}

# APP_CMD: node on the shared file, with the caller's values of the file's variables unset (node --env-file
# never overrides a variable that is set, and a caller's DATABASE_URL must not point a process elsewhere).
app_command() {
  local name
  APP_CMD=(env)
  for name in $(sed -n 's/^\([A-Z_][A-Z0-9_]*\)=.*/\1/p' "$ENV_FILE"); do APP_CMD+=(-u "$name"); done
  APP_CMD+=("$NODE_BIN" --env-file="$ENV_FILE" "$@")
}

cli() {
  app_command dist/src/cli/main.js "$@"
  "${APP_CMD[@]}"
}

start_api() {
  local n="$1" port
  port="$(api_port "$n")"
  running "api$n" && return
  app_command dist/src/main.js
  PORT="$port" spawn "api$n" "${APP_CMD[@]}"
  wait_http "api$n" "http://127.0.0.1:${port}/api/${API_VERSION}/health" 60
}

start_worker() {
  local n="$1" log="$DIR/logs/worker$1.log" before deadline=$((SECONDS + 60))
  running "worker$n" && return
  before="$(stat -c %s "$log" 2>/dev/null || echo 0)"
  app_command dist/workers/main.js
  spawn "worker$n" "${APP_CMD[@]}"
  # The workers log this line once every queue handler is in place (looked for past the earlier runs' lines).
  until tail -c +$((before + 1)) "$log" | grep -q 'Broadsheet workers running'; do
    running "worker$n" || die "worker$n exited; see $log"
    ((SECONDS < deadline)) || die "worker$n did not start within 60s (log: $log)"
    sleep 0.2
  done
}

# HAProxy: round robin over the two APIs. A health check every second on GET health (liveness: the process
# answers); two failures take a process out, two successes put it back. A request whose connection to a process
# fails is retried (up to 3 times) and, with `option redispatch`, on the other process: it never reached the
# first, so even a write is safe to send again. Nothing is retried once a process has the request.
write_haproxy_config() {
  cat >"$DIR/haproxy.cfg" <<EOF
# Written by scripts/scale-out.sh start: edit the script, not this file.
global
  maxconn 2048
  log stderr format short local0 notice

defaults
  mode http
  log global
  option httplog
  option dontlog-normal
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  timeout queue 10s
  retries 3
  option redispatch
  option forwardfor

frontend broadsheet
  bind 127.0.0.1:${BALANCER_PORT}
  default_backend api

backend api
  balance roundrobin
  option httpchk GET /api/${API_VERSION}/health
  http-check expect status 200
  default-server inter 1s fall 2 rise 2
  server api1 127.0.0.1:$(api_port 1) check
  server api2 127.0.0.1:$(api_port 2) check

frontend stats
  bind 127.0.0.1:${STATS_PORT}
  stats enable
  stats uri /stats
  stats refresh 5s
EOF
}

ensure_haproxy() {
  command -v haproxy >/dev/null || bash scripts/ensure-installed.sh
  command -v haproxy >/dev/null || die "haproxy is needed (Debian's package: apt-get install haproxy)"
}

start_balancer() {
  running balancer && return
  ensure_haproxy
  write_haproxy_config
  haproxy -c -q -f "$DIR/haproxy.cfg" || die "haproxy refused $DIR/haproxy.cfg"
  spawn balancer haproxy -db -f "$DIR/haproxy.cfg"
  # Both APIs in rotation (HAProxy's stats as CSV: column 18 is the status).
  local deadline=$((SECONDS + 30))
  until [ "$(curl -fsS --max-time 2 "http://127.0.0.1:${STATS_PORT}/stats;csv" 2>/dev/null |
    awk -F, '$1 == "api" && $2 ~ /^api[12]$/ && $18 == "UP"' | wc -l)" -eq 2 ]; do
    running balancer || die "haproxy exited; see $DIR/logs/balancer.log"
    ((SECONDS < deadline)) || die "the balancer did not see both APIs up within 30s"
    sleep 0.2
  done
}

# --- commands ----------------------------------------------------------------------------------------------

start_all() {
  local started=$SECONDS
  # A start that fails half-way leaves nothing running (the folder stays, with the logs).
  trap 'code=$?; if [ "$code" -ne 0 ]; then say "start failed: stopping what it started"; stop_all; fi' EXIT
  mkdir -p "$DIR/run" "$DIR/logs" "$DIR/media"
  prepare_es
  build_if_stale
  write_env
  # Both nodes at once: each waits for the other to form the cluster.
  start_node 1 &
  local first=$!
  start_node 2
  wait "$first"
  wait_for_health green 120
  say "Elasticsearch cluster $CLUSTER: 2 nodes, green"
  cli migrate >/dev/null
  # Creates the publications index now, with ELASTICSEARCH_REPLICAS=1 (verify makes it when missing), and
  # brings it level with the database when the database is older than this folder's cluster.
  cli index verify --repair >"$DIR/logs/index-verify.log"
  wait_for_health green 120
  start_api 1
  start_api 2
  start_worker 1
  start_worker 2
  start_balancer
  trap - EXIT
  say "ready in $((SECONDS - started))s"
  cat <<INFO

Broadsheet scaled out (folder: $DIR)
  Base URL:      http://127.0.0.1:${BALANCER_PORT}/api/${API_VERSION}      (HAProxy over api1 :$(api_port 1), api2 :$(api_port 2))
  Balancer:      http://127.0.0.1:${STATS_PORT}/stats
  Elasticsearch: $(es_url 1), $(es_url 2)  (cluster ${CLUSTER}, index scale-publications, 1 replica)
  Postgres:      ${SCALE_DB_URL}
  A token:       $NODE_BIN --env-file=$ENV_FILE dist/src/cli/main.js client create --project <name> --name me
  Stop:          bash scripts/scale-out.sh stop
INFO
  echo "http://127.0.0.1:${BALANCER_PORT}/api/${API_VERSION}"
}

stop_all() {
  local name
  for name in balancer api1 api2 worker1 worker2; do stop_one "$name"; done
  stop_one es1 &
  stop_one es2
  wait
  say "stopped everything of $DIR (rm -rf it to drop the data too)"
}

status() {
  local name
  for name in balancer api1 api2 worker1 worker2 es1 es2; do
    if running "$name"; then echo "$name running (pid $(pid_of "$name"))"; else echo "$name stopped"; fi
  done
  curl -fsS --max-time 5 "$(es_url 1)/_cluster/health" 2>/dev/null ||
    curl -fsS --max-time 5 "$(es_url 2)/_cluster/health" 2>/dev/null || echo "cluster: no node answers"
  echo
}

restart() {
  case "${1:-}" in
    es1 | es2)
      prepare_es
      start_node "${1#es}"
      ;;
    api1 | api2) start_api "${1#api}" ;;
    worker1 | worker2) start_worker "${1#worker}" ;;
    balancer) start_balancer ;;
    *) die "restart what? es1 es2 api1 api2 worker1 worker2 balancer" ;;
  esac
}

case "${1:-}" in
  start) start_all ;;
  stop) stop_all ;;
  status) status ;;
  restart) restart "${2:-}" ;;
  pid)
    [ -n "${2:-}" ] || die "pid of what? es1 es2 api1 api2 worker1 worker2 balancer"
    pid_of "$2"
    ;;
  *) die "usage: scripts/scale-out.sh start|stop|status|restart NAME|pid NAME (see the top of the script)" ;;
esac
