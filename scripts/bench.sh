#!/usr/bin/env bash
# `npm run bench [names...]`: start the engines that are not reachable, run the benchmarks
# under bench/ one after another (each against its bare baseline in the same run), then
# print every result as one ratio table. Engines this run started are stopped at the end.
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
node --import tsx bench/run.ts "$@"
