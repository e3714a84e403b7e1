# Sourced by the scripts that measure the service (bench.sh, load.sh): the engines for one run
# (stack-session.sh), and the API and worker processes built and run from compiled JavaScript,
# as `npm start` runs them.
# shellcheck source=scripts/stack-session.sh
source scripts/stack-session.sh
npm run --silent build
export RUN_COMPILED=1
