#!/usr/bin/env bash
# One command from a fresh clone to a running Broadsheet on a demo project: installs dependencies, starts
# Postgres/Elasticsearch when missing, migrates, loads the demo content, creates a read/write token, then
# runs the API and the workers until Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/ensure-installed.sh
bash scripts/services.sh
# Every step below runs on the Node version the project pins (node_modules/.bin/node).
export PATH="$PWD/node_modules/.bin:$PATH"

cli() { node_modules/.bin/tsx src/cli/main.ts "$@"; }
cli migrate
cli demo
token=$(cli client create --project demo --name "demo $(date -u +%FT%TZ)" \
  --scopes public-api:read,public-api:write,public-api:drafts:read,public-api:config:read,public-api:config:write)

port="${PORT:-3000}"
export PORT="$port"
node_modules/.bin/tsx workers/main.ts &
workers=$!
trap 'kill "$workers" 2>/dev/null || true' EXIT INT TERM

node_modules/.bin/tsx src/main.ts &
api=$!
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:${port}/api/2026-03/health" >/dev/null 2>&1 && break
  sleep 0.2
done

cat <<INFO

Broadsheet is running on the demo project.
  Base URL: http://127.0.0.1:${port}/api/2026-03
  Token (read/write/drafts/config):
${token}

  Try:
  curl -H "Authorization: Bearer \$TOKEN" 'http://127.0.0.1:${port}/api/2026-03/publications/search?search=market&limit=3'

Ctrl-C stops the API and the workers.
INFO
wait "$api"
