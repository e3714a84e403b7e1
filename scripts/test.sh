#!/usr/bin/env bash
# `npm test`: provision what is missing, start the engines that are not reachable (once
# per run), then lint, type-check and run every mocha test on the real engines. Engines
# this run started are stopped at the end; engines that were already up are left alone.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# shellcheck source=scripts/stack-session.sh
source scripts/stack-session.sh

echo "[test] lint"; npx eslint .
echo "[test] type-check"; npx tsc --noEmit -p .
echo "[test] mocha"
# The fault tests take minutes: `npm run test:faults` runs them.
if [ $# -eq 0 ]; then set -- "test/**/*.test.ts" --ignore test/faults.test.ts; fi
npx mocha "$@"
