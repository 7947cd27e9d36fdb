#!/usr/bin/env bash
# Loopback HTTP benchmark of Hosted with wrk, next to an nginx static-file
# baseline. Prints a markdown table (req/s, p50, p99) and hosted's RSS.
# Everything runs on this machine (2 cores): wrk shares the CPUs with the
# server under test, so compare rows with each other, not with other machines.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/run.sh [--baseline-only]

Builds the release binary, then benchmarks with wrk on 127.0.0.1:
  nginx static file        same size as hosted's /healthz body (baseline)
  hosted GET /healthz      SQLite
  hosted GET /v1/account   SQLite, Bearer API key of a fresh account
  hosted GET /v1/account   PostgreSQL (throwaway server via scripts/with-postgres.sh)
and reports hosted's RSS (VmRSS) after startup and after the load.

Options:
  --baseline-only   only the nginx row (no build, no hosted)

Environment:
  BENCH_DURATION     wrk duration per row (default 10s)
  BENCH_WARMUP       untimed wrk run before each row (default 2s; 0 = none)
  BENCH_THREADS      wrk threads (default 2)
  BENCH_CONNECTIONS  wrk connections (default 64)
  BENCH_HOSTED_BIN   use this hosted binary instead of building .build/release/hosted
EOF
}

MODE=all
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --baseline-only) MODE=baseline ;;
    --postgres-phase) MODE=postgres ;;   # internal: run by with-postgres.sh
    "") ;;
    *) usage >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
REPO=$(pwd)

DURATION=${BENCH_DURATION:-10s}
WARMUP=${BENCH_WARMUP:-2s}
THREADS=${BENCH_THREADS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-64}

log() { echo "bench: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# --- process bookkeeping: everything started here is stopped on exit --------
PIDS=()
stop_pid() {
    local pid=$1
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
}
cleanup() {
    local status=$? pid
    trap - EXIT INT TERM
    for pid in "${PIDS[@]}"; do stop_pid "$pid"; done
    # Only the outer invocation owns the work dir.
    if [[ $MODE != postgres && -n "${WORK:-}" ]]; then rm -rf "$WORK"; fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- helpers ----------------------------------------------------------------
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# http_get URL [HEADER]: prints the body; fails unless the status is 200.
http_get() {
    python3 - "$@" <<'PY'
import sys, urllib.request, urllib.error
url = sys.argv[1]
req = urllib.request.Request(url)
if len(sys.argv) > 2:
    name, _, value = sys.argv[2].partition(":")
    req.add_header(name.strip(), value.strip())
try:
    with urllib.request.urlopen(req, timeout=5) as r:
        sys.stdout.buffer.write(r.read())
except urllib.error.HTTPError as e:
    sys.stderr.write(f"bench: GET {url} -> HTTP {e.code}: {e.read()[:200]!r}\n")
    sys.exit(1)
except Exception as e:
    sys.stderr.write(f"bench: GET {url} -> {e}\n")
    sys.exit(1)
PY
}

# wait_http URL PID NAME: waits (<= 30 s) until URL answers 200 while PID lives.
wait_http() {
    local url=$1 pid=$2 name=$3
    for _ in $(seq 150); do
        kill -0 "$pid" 2>/dev/null || die "$name exited during startup"
        if http_get "$url" >/dev/null 2>&1; then return 0; fi
        sleep 0.2
    done
    die "$name did not answer $url within 30 s"
}

rss() { awk '/^VmRSS:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$1/status"; }

# bench_row NAME URL [HEADER]: checks URL answers 200, runs wrk, and appends
# "NAME<TAB>req/s<TAB>p50<TAB>p99<TAB>errors" to the results file.
bench_row() {
    local name=$1 url=$2 header=${3:-} out
    local hdr=()
    [[ -n "$header" ]] && hdr=(-H "$header")
    http_get "$url" ${header:+"$header"} >/dev/null || die "$name: $url does not answer 200"
    if [[ "$WARMUP" != 0 ]]; then
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "${hdr[@]}" "$url" >/dev/null
    fi
    out="$WORK/wrk-$(date +%s%N).txt"
    log "wrk $name: $url (${DURATION}, ${THREADS} threads, ${CONNECTIONS} connections)"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "${hdr[@]}" "$url" | tee "$out" >&2
    python3 - "$name" "$out" >>"$WORK/results.tsv" <<'PY'
import re, sys
name, path = sys.argv[1], sys.argv[2]
text = open(path).read()
def ms(v):
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", v)
    if not m:
        return None
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[m.group(2)]
lat = {p: ms(v) for p, v in re.findall(r"^\s+(\d+)%\s+(\S+)", text, re.M)}
rps = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
errors = sum(int(n) for n in re.findall(r"Non-2xx or 3xx responses:\s+(\d+)", text))
sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
if sock:
    errors += sum(int(n) for n in sock.groups())
fmt = lambda v: "?" if v is None else f"{v:.2f} ms"
print("\t".join([name, f"{float(rps.group(1)):.0f}" if rps else "?",
                 fmt(lat.get("50")), fmt(lat.get("99")), str(errors)]))
PY
}

# start_hosted DATABASE_URL NAME: starts `hosted serve`; sets HOSTED_PID, HOSTED_BASE.
start_hosted() {
    local db=$1 name=$2 port
    port=$(free_port)
    HOSTED_BASE="http://127.0.0.1:$port"
    HOSTED_DATABASE_URL=$db HOSTED_LISTEN="127.0.0.1:$port" \
        "$HOSTED_BIN" serve >"$WORK/hosted-$name.log" 2>&1 &
    HOSTED_PID=$!
    PIDS+=("$HOSTED_PID")
    if ! (wait_http "$HOSTED_BASE/healthz" "$HOSTED_PID" "hosted ($name)"); then
        tail -n 30 "$WORK/hosted-$name.log" >&2 || true
        exit 1
    fi
    sleep 1   # let it settle before measuring RSS at rest
    RSS_START=$(rss "$HOSTED_PID")
    log "hosted ($name) up at $HOSTED_BASE, RSS $RSS_START"
}

# create_api_key DATABASE_URL: creates an account with the CLI, prints its API key.
create_api_key() {
    HOSTED_DATABASE_URL=$1 "$HOSTED_BIN" accounts create --name bench | python3 -c '
import json, sys
text = sys.stdin.read()
for candidate in [text] + text.splitlines()[::-1]:
    try:
        print(json.loads(candidate)["api_key"])
        break
    except (ValueError, KeyError, TypeError):
        continue
else:
    sys.exit("bench: no api_key in `hosted accounts create` output: " + text[:300])
'
}

# bench_hosted_account NAME DATABASE_URL: hosted on that store, /v1/account row, RSS.
bench_hosted_account() {
    local name=$1 db=$2 key
    start_hosted "$db" "$name"
    local rss_start=$RSS_START
    if [[ $name == sqlite ]]; then
        bench_row "hosted GET /healthz" "$HOSTED_BASE/healthz"
    fi
    key=$(create_api_key "$db") || die "could not create an account on $name"
    bench_row "hosted GET /v1/account ($name)" "$HOSTED_BASE/v1/account" \
        "Authorization: Bearer $key"
    printf '%s\t%s\t%s\n' "hosted ($name)" "$rss_start" "$(rss "$HOSTED_PID")" >>"$WORK/rss.tsv"
    stop_pid "$HOSTED_PID"
}

HOSTED_BIN=${BENCH_HOSTED_BIN:-$REPO/.build/release/hosted}

# --- PostgreSQL phase (inside scripts/with-postgres.sh) -----------------------
if [[ $MODE == postgres ]]; then
    WORK=${BENCH_WORK:?BENCH_WORK must be set by the outer bench/run.sh}
    [[ -n "${HOSTED_TEST_POSTGRES_URL:-}" ]] || die "HOSTED_TEST_POSTGRES_URL not set"
    bench_hosted_account postgresql "$HOSTED_TEST_POSTGRES_URL"
    exit 0
fi

# --- outer run ----------------------------------------------------------------
bash scripts/setup-debian.sh wrk nginx-light
command -v wrk >/dev/null || die "wrk not found"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x "$NGINX" ]] || die "nginx not found"

if [[ $MODE == all && -z "${BENCH_HOSTED_BIN:-}" ]]; then
    log "building release binary"
    swift build -c release --product hosted ||
        die "release build of hosted failed (see the compiler output above)"
fi
if [[ $MODE == all && ! -x "$HOSTED_BIN" ]]; then
    die "no hosted binary at $HOSTED_BIN"
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hosted-bench.XXXXXX")
export BENCH_WORK=$WORK
chmod 755 "$WORK"   # nginx workers run as an unprivileged user
: >"$WORK/results.tsv"
: >"$WORK/rss.tsv"

# Static file for nginx: hosted's real /healthz body when we have hosted
# (so both rows move the same number of bytes), else ~200 bytes of JSON.
mkdir -p "$WORK/www" "$WORK/nginx"
if [[ $MODE == all ]]; then
    start_hosted "sqlite:$WORK/healthz-probe.sqlite" probe
    http_get "$HOSTED_BASE/healthz" >"$WORK/www/healthz"
    stop_pid "$HOSTED_PID"
else
    python3 -c 'import json; print(json.dumps({"status": "ok", "version": "0.0.0", "database": "ok", "uptime_seconds": 12345, "pad": "x" * 110}), end="")' \
        >"$WORK/www/healthz"
fi
chmod -R a+rX "$WORK/www"
STATIC_BYTES=$(stat -c %s "$WORK/www/healthz")

# --- nginx baseline -----------------------------------------------------------
NGINX_PORT=$(free_port)
cat >"$WORK/nginx/nginx.conf" <<EOF
worker_processes auto;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    client_body_temp_path $WORK/nginx/client_body;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $WORK/www;
        default_type application/json;
    }
}
EOF
"$NGINX" -p "$WORK/nginx/" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" &
NGINX_PID=$!
PIDS+=("$NGINX_PID")
wait_http "http://127.0.0.1:$NGINX_PORT/healthz" "$NGINX_PID" nginx
bench_row "nginx static file (${STATIC_BYTES} B)" "http://127.0.0.1:$NGINX_PORT/healthz"
stop_pid "$NGINX_PID"

# --- hosted: SQLite, then PostgreSQL ----------------------------------------------
if [[ $MODE == all ]]; then
    bench_hosted_account sqlite "sqlite:$WORK/hosted.sqlite"
    bash scripts/with-postgres.sh bash bench/run.sh --postgres-phase
fi

# --- report -------------------------------------------------------------------
echo
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION on 127.0.0.1, $(nproc) cores shared by wrk and the server"
echo
echo "| target | req/s | p50 | p99 | errors |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk -F'\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$WORK/results.tsv"
if [[ -s "$WORK/rss.tsv" ]]; then
    echo
    echo "| process | RSS after startup | RSS after load |"
    echo "| --- | ---: | ---: |"
    awk -F'\t' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }' "$WORK/rss.tsv"
fi
