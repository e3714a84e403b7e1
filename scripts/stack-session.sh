# Sourced by the scripts that need the engines for one run (test.sh, eval.sh, bench-session.sh): provisions
# what is missing, starts the engines that are not reachable, exports their addresses, and
# at exit stops the engines this run started (KEEP_STACK=1 keeps them). Engines that were
# already up are left alone.
before=$(ls .stack/run/*.pid 2>/dev/null || true)
bash scripts/stack.sh up
# shellcheck disable=SC1091
source .stack/stack.env
if [ -z "$before" ] && [ "${KEEP_STACK:-0}" != "1" ]; then
  trap 'bash scripts/stack.sh down' EXIT
fi
