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
# Debian's package PACKAGE when the file COMMAND is missing (as root, or through passwordless sudo).
apt_install() {
  local command="$1" package="$2" why="$3"
  [ -x "$command" ] && return
  command -v apt-get >/dev/null || return 0
  echo "broadsheet: installing $package (Debian's package) for $why" >&2
  if [ "$(id -u)" -eq 0 ]; then
    apt-get install -y "$package" || { apt-get update && apt-get install -y "$package"; }
  else
    sudo -n apt-get install -y "$package" || { sudo -n apt-get update && sudo -n apt-get install -y "$package"; }
  fi
}
# The API reference page's test (test/integration/docs-page.test.ts) loads the page in Debian's Chromium.
apt_install /usr/bin/chromium chromium "the reference page's test"
# The load balancer of scripts/scale-out.sh and its chaos test (test/chaos/scale-out.test.ts).
apt_install /usr/sbin/haproxy haproxy "the scale-out script and its test"
