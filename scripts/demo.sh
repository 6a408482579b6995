#!/usr/bin/env bash
# One command from a fresh clone to a running Broadsheet on a demo project: installs dependencies, starts
# Postgres/Elasticsearch when missing, builds, migrates, loads the demo content, creates a read/write token,
# then runs the API and the workers until Ctrl-C. Everything runs as production does: plain `node` on the
# compiled JavaScript in dist/.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-installed.sh
bash scripts/services.sh
# Every step below runs on the Node version the project pins (node_modules/.bin/node).
export PATH="$PWD/node_modules/.bin:$PATH"
npm run -s build

# The API and the workers refuse to start without a secret. The demo makes one, once per clone, in a file git
# ignores; the API, the workers and the CLI that signs the demo token all read it. A JWT_SECRET already in the
# environment wins (node's --env-file never overrides a variable that is set).
secrets=.broadsheet.env
if [ ! -s "$secrets" ]; then
  (umask 077 && node -e "console.log('JWT_SECRET=' + require('node:crypto').randomBytes(32).toString('hex'))" >"$secrets")
  echo "broadsheet: wrote a new random JWT_SECRET to $secrets" >&2
fi
run() { node --env-file="$secrets" "$@"; }
cli() { run dist/src/cli/main.js "$@"; }

cli migrate
summary=$(cli demo)
printf '%s\n' "$summary"
# One of the demo's images (imported into the media library like any client's), served by serve-image.
# The summary is the multi-line JSON object that ends the output (a warning logged before it is one line).
image_url=$(printf '%s' "$summary" | node -e "let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
  const at = s.lastIndexOf('\n{\n');
  console.log(JSON.parse(at < 0 ? s : s.slice(at + 1)).sampleImageUrl);
})")
token=$(cli client create --project demo --name "demo $(date -u +%FT%TZ)" \
  --scopes public-api:read,public-api:write,public-api:drafts:read,public-api:config:read,public-api:config:write)

# Where the API listens, as its own configuration reads it: PORT (and HOST) from the shell, else from $secrets
# (a PORT only in that file printed a URL on 3000 while the API listened elsewhere), else the defaults.
base_url=$(run -e "const { loadConfig } = require('./dist/src/config.js');
const { demoBaseUrl } = require('./dist/src/cli/commands/demo.js');
const { http } = loadConfig();
if (http.port === 0) {
  console.error('broadsheet: PORT=0 (a random port) cannot be used by the demo: it must know where to find the API');
  process.exit(1);
}
console.log(demoBaseUrl({ ...http, publicBaseUrl: undefined }));")
# Started as node itself (not through run(), whose subshell would be the job: killing it left node running), and
# both stopped with SIGTERM (they drain and exit) whenever this script ends: Ctrl-C, a SIGTERM to it, or the API
# exiting.
workers=""
api=""
stop() {
  kill $workers $api 2>/dev/null || true
  wait 2>/dev/null || true
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
node --env-file="$secrets" dist/workers/main.js &
workers=$!

node --env-file="$secrets" dist/src/main.js &
api=$!
up=""
for _ in $(seq 1 100); do
  kill -0 "$api" 2>/dev/null || { echo "broadsheet: the API did not start (its log is above)" >&2; exit 1; }
  curl -fsS "${base_url}/api/2026-03/health" >/dev/null 2>&1 && { up=1; break; }
  sleep 0.2
done
# Without an answer it is not running, however alive the process: stop it (the EXIT trap) rather than print
# a URL nobody answers on.
if [ -z "$up" ]; then
  echo "broadsheet: the API did not come up: ${base_url}/api/2026-03/health did not answer within 20 s" \
    "(its log is above); stopping it and the workers" >&2
  exit 1
fi

cat <<INFO

Broadsheet is running on the demo project.
  Base URL: ${base_url}/api/2026-03
  Token (read/write/drafts/config):
${token}

  Try:
  curl -H "Authorization: Bearer \$TOKEN" '${base_url}/api/2026-03/publications/search?search=market&limit=3'
  curl -H "Authorization: Bearer \$TOKEN" -o demo-image.png '${image_url}'

  More tokens: node --env-file=${secrets} dist/src/cli/main.js client create --project demo --name me
Ctrl-C stops the API and the workers.
INFO
wait "$api"
