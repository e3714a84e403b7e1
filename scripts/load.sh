#!/usr/bin/env bash
# `npm run load [seconds]`: start the engines that are not reachable, then run the load test
# (bench/load.ts, default 600 s) against an API and a worker process of its own. Engines this
# run started are stopped at the end. Exits non-zero on any violation.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

before=$(ls .stack/run/*.pid 2>/dev/null || true)
bash scripts/stack.sh up
# shellcheck disable=SC1091
source .stack/stack.env
if [ -z "$before" ] && [ "${KEEP_STACK:-0}" != "1" ]; then
  trap 'bash scripts/stack.sh down' EXIT
fi
node --import tsx bench/load.ts "$@"
