#!/usr/bin/env bash
# `npm run eval [-- --verbose]`: start the engines that are not reachable, then run the labeled
# evaluation set (eval/run.ts) against them with an API and a worker of its own.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# shellcheck source=scripts/stack-session.sh
source scripts/stack-session.sh
node --import tsx eval/run.ts "$@"
