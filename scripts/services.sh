#!/usr/bin/env bash
# Makes the backing services the tests, the bench and the demo need answer: Elasticsearch, Postgres, and
# s3mock (an S3-compatible server: the tests and the bench run the S3 media store against it).
#
#   bash scripts/services.sh          start (or reuse) them, then return; quiet when there is nothing to do
#   bash scripts/services.sh --stop   stop the Elasticsearch and the s3mock this script started
#
# No Docker here: Elasticsearch is the integ-test-zip distribution from Maven Central (server + transport +
# security modules, no bundled JDK), run on a local JDK >= 21. Elasticsearch refuses to run as root, so as root
# it runs as the system user broadsheet-es, which owns the unpacked tree, the data and the logs.
#
# s3mock is Adobe's runnable jar from Maven Central (com.adobe.testing:s3mock:<version>:jar:exec), on the same
# JDK, as the same unprivileged user when run as root; its objects live in a folder it empties when it stops.
#
# Reads: ELASTICSEARCH_URL, ES_PORT, ES_HEAP, ES_JAVA_HOME, BROADSHEET_CACHE, DATABASE_URL, S3MOCK_URL (an
# S3-compatible server to use instead of starting one), S3MOCK_PORT (9090), S3MOCK_HTTPS_PORT (9191).
set -euo pipefail

readonly ES_VERSION=9.5.4
readonly ES_ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:${ES_VERSION}:zip"
# Pinned so that mvn does not look up the newest plugin version on every cold start.
readonly MVN_DEPENDENCY_PLUGIN=org.apache.maven.plugins:maven-dependency-plugin:3.8.1
readonly ES_USER=broadsheet-es
readonly ES_PORT="${ES_PORT:-9200}"
readonly ES_HEAP="${ES_HEAP:-1g}"
readonly CACHE="${BROADSHEET_CACHE:-$HOME/.cache/broadsheet}"
readonly ES_ZIP="$CACHE/elasticsearch-${ES_VERSION}.zip"
readonly LOCAL_ES_URL="http://127.0.0.1:${ES_PORT}"
readonly ES_START_TIMEOUT=180
readonly ES_EXTERNAL_TIMEOUT=120
readonly PG_TIMEOUT=60
readonly PG_ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres
readonly PG_DATABASE=broadsheet
readonly S3MOCK_VERSION=5.2.0
readonly S3MOCK_ARTIFACT="com.adobe.testing:s3mock:${S3MOCK_VERSION}:jar:exec"
readonly S3MOCK_PORT="${S3MOCK_PORT:-9090}"
# s3mock always opens an https port too; only the http one is used.
readonly S3MOCK_HTTPS_PORT="${S3MOCK_HTTPS_PORT:-9191}"
readonly S3MOCK_JAR="$CACHE/s3mock-${S3MOCK_VERSION}-exec.jar"
readonly LOCAL_S3MOCK_URL="http://127.0.0.1:${S3MOCK_PORT}"
readonly S3MOCK_START_TIMEOUT=180

say() { echo "broadsheet: $*" >&2; }
die() {
  say "$*"
  exit 1
}

# --- Elasticsearch -----------------------------------------------------------------------------------------

# Not `GET /`: this distribution does not serve it (405), nor ping/info.
answers() { curl -fsS -o /dev/null --max-time 5 "${1%/}/_cluster/health" 2>/dev/null; }

# Blocks until the cluster behind $1 is at least yellow, or $2 seconds have passed.
wait_for_cluster() {
  local url="${1%/}" deadline=$((SECONDS + $2))
  while ((SECONDS < deadline)); do
    if curl -fsS -o /dev/null --max-time 10 "$url/_cluster/health?wait_for_status=yellow&timeout=5s" 2>/dev/null; then
      return 0
    fi
    sleep 1
  done
  return 1
}

is_root() { [ "$(id -u)" -eq 0 ]; }

ensure_es_user() {
  if ! id -u "$ES_USER" >/dev/null 2>&1; then
    say "creating system user $ES_USER (Elasticsearch refuses to run as root)"
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$ES_USER"
  fi
}

as_es_user() {
  if is_root; then runuser -u "$ES_USER" -- "$@"; else "$@"; fi
}

# Where the unpacked tree, data, logs and pidfile live. Normally the cache, but a root-owned cache under
# /root (mode 700) cannot be entered by the es user, and opening root's home is not ours to do, so the
# es user's own directory takes its place.
es_base_dir() {
  if ! is_root; then
    echo "$CACHE"
  elif id -u "$ES_USER" >/dev/null 2>&1 && runuser -u "$ES_USER" -- test -x "$CACHE" 2>/dev/null; then
    echo "$CACHE"
  else
    echo "/var/lib/$ES_USER"
  fi
}

java_major() { sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null; }

find_java_home() {
  if [ -n "${ES_JAVA_HOME:-}" ]; then
    [ -x "$ES_JAVA_HOME/bin/java" ] || die "ES_JAVA_HOME=$ES_JAVA_HOME has no bin/java"
    echo "$ES_JAVA_HOME"
    return
  fi
  # Any JDK there (Temurin, Debian's openjdk-21-jdk ...): the README's prerequisite is a JDK 21+ under /usr/lib/jvm.
  local dir major best="" best_major=0
  for dir in /usr/lib/jvm/*; do
    [ -x "$dir/bin/java" ] || continue
    major="$(java_major "$dir")"
    if [ -n "$major" ] && ((major >= 21 && major > best_major)); then
      best="$dir"
      best_major="$major"
    fi
  done
  [ -n "$best" ] || die "no JDK >= 21 under /usr/lib/jvm (found: $(ls /usr/lib/jvm 2>/dev/null | tr '\n' ' ')); install one or set ES_JAVA_HOME"
  echo "$best"
}

# fetch_from_maven ARTIFACT FILE_NAME DESTINATION: one artifact from Maven Central into the cache.
fetch_from_maven() {
  local artifact="$1" name="$2" destination="$3"
  [ -f "$destination" ] && return
  command -v mvn >/dev/null || die "mvn is needed to fetch $artifact from Maven Central"
  say "fetching $artifact from Maven Central"
  local tmp="$CACHE/.download.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  local output
  # From the download folder, so that no project pom gets picked up; mvn -q still prints colour codes.
  if ! output="$(cd "$tmp" && mvn -q -B "$MVN_DEPENDENCY_PLUGIN:copy" -Dartifact="$artifact" \
    -DoutputDirectory="$tmp" 2>&1)"; then
    echo "$output" >&2
    rm -rf "$tmp"
    die "mvn dependency:copy of $artifact failed"
  fi
  mv "$tmp/$name" "$destination"
  rm -rf "$tmp"
}

fetch_es_zip() { fetch_from_maven "$ES_ARTIFACT" "elasticsearch-${ES_VERSION}.zip" "$ES_ZIP"; }

unpack_es() {
  local base="$1"
  [ -x "$base/elasticsearch-${ES_VERSION}/bin/elasticsearch" ] && return
  say "unpacking Elasticsearch $ES_VERSION into $base"
  local tmp="$base/.unpack.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  unzip -q "$ES_ZIP" -d "$tmp"
  mv "$tmp/elasticsearch-${ES_VERSION}" "$base/elasticsearch-${ES_VERSION}"
  rm -rf "$tmp"
}

write_es_config() {
  local home="$1" state="$2"
  cat >"$home/config/elasticsearch.yml" <<EOF
# Written by scripts/services.sh on every start: edit the script, not this file.
cluster.name: broadsheet
node.name: broadsheet-local
discovery.type: single-node
network.host: 127.0.0.1
http.port: ${ES_PORT}
path.data: ${state}/data
path.logs: ${state}/logs
xpack.security.enabled: false
# A nearly full disk must not turn the test indices read-only.
cluster.routing.allocation.disk.threshold_enabled: false
EOF
}

pid_is_elasticsearch() {
  [ -n "$1" ] && [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q org.elasticsearch
}

start_es() {
  local base home state pidfile java_home
  mkdir -p "$CACHE"
  is_root && ensure_es_user
  base="$(es_base_dir)"
  home="$base/elasticsearch-${ES_VERSION}"
  state="$base/elasticsearch-state"
  pidfile="$state/elasticsearch.pid"

  # Started by an earlier run that gave up waiting: wait for it rather than start a second node on the same data.
  if [ -f "$pidfile" ] && pid_is_elasticsearch "$(cat "$pidfile")"; then
    local running_port
    running_port="$(sed -n 's/^http\.port: *//p' "$home/config/elasticsearch.yml")"
    [ "$running_port" = "$ES_PORT" ] ||
      die "Elasticsearch from $base already runs on port $running_port; run scripts/services.sh --stop first"
    wait_for_cluster "$LOCAL_ES_URL" "$ES_START_TIMEOUT" && return
    die "Elasticsearch (pid $(cat "$pidfile")) runs but $LOCAL_ES_URL does not answer; run scripts/services.sh --stop"
  fi

  java_home="$(find_java_home)"
  fetch_es_zip
  mkdir -p "$base"
  unpack_es "$base"
  mkdir -p "$state/data" "$state/logs"
  rm -f "$pidfile"
  write_es_config "$home" "$state"
  if is_root; then
    [ "$base" = "$CACHE" ] || chown "$ES_USER:" "$base"
    chown -R "$ES_USER:" "$home" "$state"
  fi

  say "starting Elasticsearch $ES_VERSION on $LOCAL_ES_URL (java $(java_major "$java_home"), heap $ES_HEAP)"
  local started=$SECONDS launcher_output="$state/launcher.out"
  # -d returns once the node has started (or failed to); health is awaited below. The node must not inherit
  # the lock (fd 9), or it would hold it for as long as it runs.
  if ! (cd "$home" && as_es_user env ES_JAVA_HOME="$java_home" ES_JAVA_OPTS="-Xms$ES_HEAP -Xmx$ES_HEAP" \
    ES_PATH_CONF="$home/config" bin/elasticsearch -d -p "$pidfile") >"$launcher_output" 2>&1 9>&-; then
    say "Elasticsearch failed to start (full output: $launcher_output, log: $state/logs/broadsheet.log):"
    without_stack_frames <"$launcher_output" | tail -n 25 >&2
    exit 1
  fi
  if ! wait_for_cluster "$LOCAL_ES_URL" "$ES_START_TIMEOUT"; then
    say "Elasticsearch did not become healthy within ${ES_START_TIMEOUT}s"
    print_es_log "$state"
    exit 1
  fi
  say "Elasticsearch ready in $((SECONDS - started))s"
}

print_es_log() {
  local log="$1/logs/broadsheet.log"
  if [ -s "$log" ]; then
    say "end of $log:"
    without_stack_frames <"$log" | tail -n 40 >&2
  fi
}

without_stack_frames() { grep -vE '^[[:space:]]+(at |\.\.\. [0-9]+ more)|^[[:space:]]*$' || true; }

# stop_pidfile NAME PIDFILE IS_OURS SECONDS: stops the process in PIDFILE when IS_OURS says it is still the one
# we started (a pid may have been reused), waiting up to SECONDS for it to go; removes the pidfile either way.
stop_pidfile() {
  local name="$1" pidfile="$2" is_ours="$3" wait_seconds="$4" pid
  pid="$(cat "$pidfile" 2>/dev/null || true)"
  if ! "$is_ours" "$pid"; then
    rm -f "$pidfile"
    return
  fi
  say "stopping $name (pid $pid)"
  kill "$pid"
  local deadline=$((SECONDS + wait_seconds))
  while kill -0 "$pid" 2>/dev/null; do
    ((SECONDS < deadline)) || die "$name (pid $pid) did not stop within ${wait_seconds}s"
    sleep 1
  done
  rm -f "$pidfile"
}

stop_es() {
  stop_pidfile Elasticsearch "$(es_base_dir)/elasticsearch-state/elasticsearch.pid" pid_is_elasticsearch 60
}

ensure_elasticsearch() {
  if [ -n "${ELASTICSEARCH_URL:-}" ]; then
    wait_for_cluster "$ELASTICSEARCH_URL" "$ES_EXTERNAL_TIMEOUT" ||
      die "ELASTICSEARCH_URL=$ELASTICSEARCH_URL did not become healthy within ${ES_EXTERNAL_TIMEOUT}s"
    return
  fi
  answers "$LOCAL_ES_URL" && return
  start_es
}

# --- s3mock ------------------------------------------------------------------------------------------------

# An S3 answer to ListBuckets: the list (s3mock) or an S3 error document (a store that wants credentials).
s3_answers() { curl -sS --max-time 5 "${1%/}/" 2>/dev/null | grep -qE '<(ListAllMyBucketsResult|Error)'; }

wait_for_s3() {
  local url="$1" deadline=$((SECONDS + $2))
  while ((SECONDS < deadline)); do
    s3_answers "$url" && return 0
    sleep 1
  done
  return 1
}

pid_is_s3mock() {
  [ -n "$1" ] && [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q "s3mock-${S3MOCK_VERSION}"
}

start_s3mock() {
  local base state pidfile java_home jar
  mkdir -p "$CACHE"
  is_root && ensure_es_user
  base="$(es_base_dir)"
  state="$base/s3mock-${S3MOCK_PORT}"
  pidfile="$state/s3mock.pid"
  if [ -f "$pidfile" ] && pid_is_s3mock "$(cat "$pidfile")"; then
    wait_for_s3 "$LOCAL_S3MOCK_URL" "$S3MOCK_START_TIMEOUT" && return
    die "s3mock (pid $(cat "$pidfile")) runs but $LOCAL_S3MOCK_URL does not answer; run scripts/services.sh --stop"
  fi
  java_home="$(find_java_home)"
  fetch_from_maven "$S3MOCK_ARTIFACT" "s3mock-${S3MOCK_VERSION}-exec.jar" "$S3MOCK_JAR"
  mkdir -p "$state/objects"
  jar="$S3MOCK_JAR"
  if [ "$base" != "$CACHE" ]; then
    jar="$base/s3mock-${S3MOCK_VERSION}-exec.jar"
    [ -f "$jar" ] || cp "$S3MOCK_JAR" "$jar"
  fi
  if is_root; then
    [ "$base" = "$CACHE" ] || chown "$ES_USER:" "$base"
    chown -R "$ES_USER:" "$state"
    chmod a+r "$jar"
  fi
  say "starting s3mock $S3MOCK_VERSION on $LOCAL_S3MOCK_URL"
  local started=$SECONDS log="$state/s3mock.log"
  local runner=()
  is_root && runner=(runuser -u "$ES_USER" --)
  # The subshell drops the lock (fd 9) before anything starts: the server and whatever waits on it outlive this
  # script, and a lock they held would block every later services.sh. The shell writes its own pid and becomes
  # the server (exec), so the pidfile names the java process; setsid + nohup detach it from this session.
  (
    exec 9>&-
    cd "$state"
    "${runner[@]}" sh -c 'echo $$ >"$0"; exec setsid nohup "$@"' "$pidfile" \
      "$java_home/bin/java" -Xms64m -Xmx384m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar "$jar" \
      --http.port="$S3MOCK_PORT" --server.port="$S3MOCK_HTTPS_PORT" --server.address=127.0.0.1 \
      --spring.jmx.enabled=false --com.adobe.testing.s3mock.store.root="$state/objects" \
      --com.adobe.testing.s3mock.max-payload-size=64MB >"$log" 2>&1 </dev/null &
  )
  if ! wait_for_s3 "$LOCAL_S3MOCK_URL" "$S3MOCK_START_TIMEOUT"; then
    say "s3mock did not answer within ${S3MOCK_START_TIMEOUT}s; end of $log:"
    without_stack_frames <"$log" | tail -n 25 >&2
    exit 1
  fi
  say "s3mock ready in $((SECONDS - started))s"
}

stop_s3mock() {
  stop_pidfile s3mock "$(es_base_dir)/s3mock-${S3MOCK_PORT}/s3mock.pid" pid_is_s3mock 30
}

ensure_s3mock() {
  if [ -n "${S3MOCK_URL:-}" ]; then
    wait_for_s3 "$S3MOCK_URL" 60 || die "S3MOCK_URL=$S3MOCK_URL did not answer within 60s"
    return
  fi
  s3_answers "$LOCAL_S3MOCK_URL" && return
  start_s3mock
}

# --- Postgres ----------------------------------------------------------------------------------------------

wait_for_postgres() {
  local url="$1" deadline=$((SECONDS + PG_TIMEOUT)) error=""
  while ((SECONDS < deadline)); do
    error="$(psql "$url" -Atqc 'select 1' 2>&1 >/dev/null)" && return 0
    sleep 1
  done
  die "Postgres did not answer within ${PG_TIMEOUT}s: $error"
}

# The server of a URL accepting connections, whether or not the URL's database exists yet: `broadsheet migrate`
# creates it, and the tests create databases of their own beside it (waiting for the database itself waited out
# PG_TIMEOUT and failed on a DATABASE_URL that names a database to be created).
wait_for_postgres_server() {
  local url="$1" deadline=$((SECONDS + PG_TIMEOUT)) status=""
  while ((SECONDS < deadline)); do
    status="$(pg_isready -d "$url" 2>&1)" && return 0
    sleep 1
  done
  die "Postgres did not answer within ${PG_TIMEOUT}s: $status"
}

ensure_postgres() {
  command -v psql >/dev/null || die "psql is needed to reach Postgres"
  if [ -n "${DATABASE_URL:-}" ]; then
    command -v pg_isready >/dev/null || die "pg_isready (beside psql, Postgres' client tools) is needed to reach Postgres"
    wait_for_postgres_server "$DATABASE_URL"
    return
  fi
  wait_for_postgres "$PG_ADMIN_URL"
  if [ -z "$(psql "$PG_ADMIN_URL" -Atqc "select 1 from pg_database where datname = '$PG_DATABASE'")" ]; then
    say "creating database $PG_DATABASE"
    psql "$PG_ADMIN_URL" -qc "create database $PG_DATABASE" >/dev/null
  fi
}

# --- main --------------------------------------------------------------------------------------------------

main() {
  case "${1:-}" in
    "") ;;
    --stop)
      stop_es
      stop_s3mock
      return
      ;;
    *) die "usage: scripts/services.sh [--stop]" ;;
  esac
  # Two runs at once (tests and bench, say) must not unpack or start Elasticsearch twice.
  mkdir -p "$CACHE"
  exec 9>"$CACHE/services.lock"
  flock 9
  ensure_elasticsearch
  ensure_s3mock
  ensure_postgres
}

# Sourced (scripts/scale-out.sh reuses the functions above): define, do not run.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  main "$@"
fi
