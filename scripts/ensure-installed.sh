#!/usr/bin/env bash
# Installs dependencies on a fresh clone (or after package-lock.json changed), so that `npm test` and
# `npm run demo` work with nothing installed by hand. The pinned `node` devDependency then runs every script.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
  || [ ! -x node_modules/.bin/node ]; then
  echo "broadsheet: installing dependencies" >&2
  # `npm install`, not `npm ci`: the lock file cannot list the other platforms' optional binaries (swc's,
  # for instance) when the registry in reach does not serve them, and `npm ci` refuses such a lock file.
  # With the lock file present, `npm install` installs exactly what it pins.
  npm install --no-audit --no-fund
fi
# The API reference page's test (test/integration/docs-page.test.ts) loads the page in Debian's Chromium.
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then
  echo "broadsheet: installing chromium (Debian's package) for the reference page's test" >&2
  if [ "$(id -u)" -eq 0 ]; then
    apt-get install -y chromium || { apt-get update && apt-get install -y chromium; }
  else
    sudo -n apt-get install -y chromium || { sudo -n apt-get update && sudo -n apt-get install -y chromium; }
  fi
fi
