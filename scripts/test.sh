#!/usr/bin/env bash
# `npm test`: provision what is missing, start the engines that are not reachable (once
# per run), then lint, type-check and run every mocha test on the real engines. Engines
# this run started are stopped at the end; engines that were already up are left alone.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

# shellcheck source=scripts/stack-session.sh
source scripts/stack-session.sh

echo "[test] lint"; npx eslint .; npx prettier --check .
echo "[test] type-check"; npx tsc --noEmit -p .
# Given files run on the engines as they are; with none, the engine-free unit tests first,
# then the component tests (.mocharc.json's root hook connects them to the engines once).
if [ $# -gt 0 ]; then echo "[test] mocha $*"; npx mocha "$@"; exit; fi
echo "[test] unit"; npx mocha --config .mocharc.unit.json
echo "[test] component"
# The fault tests take minutes: `npm run test:faults` runs them.
npx mocha "test/component/**/*.test.ts" --ignore test/component/platform/faults.test.ts
