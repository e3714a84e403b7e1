#!/usr/bin/env bash
# `npm run load [seconds]`: start the engines that are not reachable, then run the load test
# (bench/load.ts, default 600 s) against an API and a worker process of its own. Engines this
# run started are stopped at the end. Exits non-zero on any violation.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# shellcheck source=scripts/bench-session.sh
source scripts/bench-session.sh
node --import tsx bench/load.ts "$@"
