#!/usr/bin/env bash
# npm test's static checks: ESLint (type-aware) beside `tsc --noEmit`, the build and Prettier. Each of them uses
# one core, and one after the other they took some three minutes of a two-core CI run (ESLint alone two of them);
# side by side, about ESLint's time. The build (`npm run build`, incremental) is made here, on the core ESLint
# leaves free, so that production-start.test.ts's own build finds dist/ up to date instead of compiling it
# among the integration tests. Each one's output is kept and printed whole, ESLint's first; the script fails
# when any of them does. `npm run lint` and `npm run typecheck` still run their tools one at a time.
set -uo pipefail
cd "$(dirname "$0")/.."

out="$(mktemp -d)"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
  rm -rf "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Each in a process group of its own (set -m), so that an interrupted run stops the tools under npm too.
set -m
npm run --silent lint:eslint >"$out/eslint" 2>&1 &
pids+=($!)
{ npm run --silent typecheck && npm run --silent build && npm run --silent lint:prettier; } >"$out/types-and-format" 2>&1 &
pids+=($!)
set +m

failed=0
for name in eslint types-and-format; do
  if ! wait "${pids[0]}"; then failed=1; fi
  pids=("${pids[@]:1}")
  case "$name" in
    eslint) echo "> eslint ." ;;
    *) echo "> tsc --noEmit && npm run build && prettier --check" ;;
  esac
  cat "$out/$name"
done
exit "$failed"
