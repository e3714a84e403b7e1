#!/usr/bin/env bash
# `npm run bench [names...]`: start the engines that are not reachable, run the benchmarks
# under bench/ one after another (each against its bare baseline in the same run), then
# print every result as one ratio table. Engines this run started are stopped at the end.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# shellcheck source=scripts/bench-session.sh
source scripts/bench-session.sh
node --import tsx bench/run.ts "$@"
