#!/usr/bin/env bash
# `npm start`: provision what is missing, start the engines that are not reachable, then
# run the Temporal worker and the API in this terminal (Ctrl-C stops both).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/stack.sh up
# shellcheck disable=SC1091
source .stack/stack.env
# The local stack: development secrets (the service refuses them unless NODE_ENV says
# development or test) and receivers on localhost. Production sets neither.
export NODE_ENV="${NODE_ENV:-development}"
export ALLOW_PRIVATE_WEBHOOK_URLS="${ALLOW_PRIVATE_WEBHOOK_URLS:-true}"

# Compiled JavaScript, not tsx: no transpiler in the processes (the worker loads pdfjs
# through tsx at about 290 MiB more). Incremental, so a rebuild after a change is quick.
npm run --silent build
# The supervisor runs the worker and starts it again (with backoff) when it dies, saying why.
node dist/workers/supervisor.js &
worker=$!
trap 'kill -TERM $worker 2>/dev/null; wait $worker 2>/dev/null' EXIT

echo "[run] API:              http://localhost:${PORT:-8080}/api/v1  (health: http://localhost:${PORT:-8080}/health)"
echo "[run] Temporal Web UI:  ${TEMPORAL_UI_URL:-http://localhost:8233}"
if [ -n "${MAIL_API_URL:-}" ]; then
  echo "[run] Local mail:         $MAIL_API_URL/api/user/<address>/messages, or IMAP 127.0.0.1:3143 (user: the address, any password)"
fi
node dist/api/server.js
