#!/usr/bin/env bash
# Loopback benchmark of webhook delivery on PostgreSQL: one hosted (dev mode), one endpoint on a
# local receiver, 1,000 events; how long until every message has arrived, and the latency from
# each event to its receipt. Prints a markdown table with PASS / FAIL.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/webhooks.sh

Against one throwaway PostgreSQL server (scripts/with-postgres.sh), on 127.0.0.1 only:
  1. starts BENCH_HOSTED_BIN (default .build/release/hosted; build it first with
     `swift build -c release --product hosted --scratch-path .build`) as
     `hosted serve --dev` on a fresh database, and a local receiver (Python,
     answers 200 to every POST, records the receipt time of each webhook-id);
  2. creates an account (`hosted accounts create`), the kyc workflow (one selfie
     step) and one webhook endpoint, http://127.0.0.1:PORT/hook, events ["*"];
  3. creates BENCH_EVENTS verifications (POST /v1/verifications, a new user_id
     each, from BENCH_CLIENTS keep-alive connections): one verification.created
     event, so one message, each;
  4. waits until every message has arrived, at most BENCH_WAIT seconds after the
     first create (then FAIL, exit 1).
Prints: events, messages delivered, duplicates, seconds from the first create
to the last receipt, deliveries/s, and the latency from the event's `timestamp`
(the body's, i.e. the event's created_at) to its first receipt, p50 / p99.
PASS when every event arrived within BENCH_TARGET seconds of the first create.

Environment:
  BENCH_HOSTED_BIN  the hosted binary (default .build/release/hosted)
  BENCH_EVENTS      events to create (default 1000)
  BENCH_CLIENTS     concurrent create connections (default 16)
  BENCH_TARGET      seconds from the first create to the last receipt for PASS (default 10)
  BENCH_WAIT        seconds to wait for every message before failing (default 60)
  BENCH_STRICT      1 = exit 1 when the verdict is FAIL (default: a missing message
                    exits 1, a slow run only reports FAIL)
  HOSTED_TEST_PG_BIN directory holding psql (set by scripts/with-postgres.sh)
hosted gets HOSTED_SECRET_KEY (a random 64-hex-character key unless set),
HOSTED_LISTEN on a free 127.0.0.1 port, its own HOSTED_DATABASE_URL and no proxy
variables; everything else is default (retry schedule, timeout). No secret is
printed: the endpoint's signing secret is not kept, the API key stays in a variable.
Bounded in time: start-up, the creates, and at most BENCH_WAIT seconds of waiting.
The machine's cores are shared by the load generator, the receiver, hosted and
PostgreSQL: run it on an otherwise idle machine.
EOF
}

MODE=all
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --postgres-phase) MODE=postgres ;;   # internal: run by with-postgres.sh
    "") ;;
    *) usage >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
REPO=$(pwd)

EVENTS=${BENCH_EVENTS:-1000}
CLIENTS=${BENCH_CLIENTS:-16}
TARGET=${BENCH_TARGET:-10}
WAIT=${BENCH_WAIT:-60}
STRICT=${BENCH_STRICT:-0}
for setting in EVENTS CLIENTS TARGET WAIT; do
    [[ ${!setting} =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_$setting must be a positive integer" >&2; exit 2; }
done
(( EVENTS <= 100000 && CLIENTS <= 256 && WAIT <= 3600 )) ||
    { echo "bench: BENCH_EVENTS <= 100000, BENCH_CLIENTS <= 256, BENCH_WAIT <= 3600" >&2; exit 2; }
WORKFLOW_BODY='{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}'

# Loopback only: no proxy for curl, Python or hosted's own outbound requests (libcurl reads these).
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY
export NO_PROXY='*' no_proxy='*'
# PostgreSQL needs a provisioned secret key; a throwaway one, the same for both phases.
HOSTED_SECRET_KEY=${HOSTED_SECRET_KEY:-$(python3 -c 'import secrets; print(secrets.token_hex(32))')}
export HOSTED_SECRET_KEY

# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"

# --- PostgreSQL phase (inside scripts/with-postgres.sh) ---------------------------
if [[ $MODE == postgres ]]; then
    WORK=${BENCH_WORK:?BENCH_WORK must be set by the outer bench/webhooks.sh}
    [[ -n "${HOSTED_TEST_POSTGRES_URL:-}" ]] || die "HOSTED_TEST_POSTGRES_URL not set"
    PG_BIN=${HOSTED_TEST_PG_BIN:-/usr/lib/postgresql/15/bin}
    DB="${HOSTED_TEST_POSTGRES_URL%/*}/bench_webhooks"
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -d "$HOSTED_TEST_POSTGRES_URL" -c "CREATE DATABASE bench_webhooks" \
        >/dev/null || die "cannot create database bench_webhooks"

    # The receiver: 200 to every request; one line per request to receipts.tsv:
    # webhook-id, receipt (unix seconds), the body's timestamp, whether it carried a v1 signature.
    python3 - "$WORK/receipts.tsv" "$WORK/receiver.port" >"$WORK/receiver.log" 2>&1 <<'PY' &
import http.server, json, os, sys, threading, time
receipts, port_file = sys.argv[1], sys.argv[2]
out = open(receipts, "a", buffering=1)
lock = threading.Lock()

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: hosted may reuse connections

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        received = time.time()
        try:
            stamp = json.loads(body).get("timestamp") or ""
        except ValueError:
            stamp = ""
        signed = int(self.headers.get("webhook-signature", "").startswith("v1,"))
        line = f"{self.headers.get('webhook-id', '')}\t{received:.6f}\t{stamp}\t{signed}\n"
        with lock:
            out.write(line)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(port_file + ".tmp", port_file)
server.serve_forever()
PY
    PIDS+=("$!")
    RECEIVER_PID=$!
    for _ in $(seq 100); do
        [[ -s "$WORK/receiver.port" ]] && break
        kill -0 "$RECEIVER_PID" 2>/dev/null || { cat "$WORK/receiver.log" >&2; die "the receiver exited"; }
        sleep 0.1
    done
    [[ -s "$WORK/receiver.port" ]] || die "the receiver did not start within 10 s"
    RECEIVER_PORT=$(cat "$WORK/receiver.port")

    port=$(free_port)
    BASE="http://127.0.0.1:$port"
    HOSTED_DATABASE_URL=$DB HOSTED_LISTEN="127.0.0.1:$port" HOSTED_PUBLIC_URL=$BASE \
        "$BENCH_HOSTED_BIN" serve --dev >"$WORK/hosted.log" 2>&1 &
    HOSTED_PID=$!
    PIDS+=("$HOSTED_PID")
    if ! (wait_http "$BASE/healthz" "$HOSTED_PID" hosted); then
        tail -n 30 "$WORK/hosted.log" >&2 || true
        exit 1
    fi
    created=$(create_account "$BENCH_HOSTED_BIN" "$DB") || die "could not create an account"
    read -r ACCOUNT KEY <<<"$created"
    [[ $ACCOUNT =~ ^[A-Za-z0-9_]+$ ]] || die "unexpected account id: $ACCOUNT"
    http_json POST "$BASE/v1/workflows" "$KEY" "$WORKFLOW_BODY" 201 >/dev/null || die "could not create the kyc workflow"
    # The answer carries the endpoint's signing secret: it goes nowhere.
    http_json POST "$BASE/v1/webhook_endpoints" "$KEY" \
        "{\"url\":\"http://127.0.0.1:$RECEIVER_PORT/hook\"}" 201 >/dev/null || die "could not create the webhook endpoint"
    log "hosted ($BENCH_HOSTED_BIN) up at $BASE, database bench_webhooks; receiver on 127.0.0.1:$RECEIVER_PORT"

    # The creates, then the wait for every message; writes load.json.
    log "creating $EVENTS verifications from $CLIENTS connections"
    BENCH_API_KEY=$KEY python3 - "$port" "$EVENTS" "$CLIENTS" "$WAIT" "$WORK/receipts.tsv" "$WORK/load.json" <<'PY'
import http.client, json, os, sys, threading, time
from concurrent.futures import ThreadPoolExecutor
port, events, clients, wait = (int(v) for v in sys.argv[1:5])
receipts, result_path = sys.argv[5], sys.argv[6]
key = os.environ["BENCH_API_KEY"]
prefix = f"bench-{time.time_ns()}"
local = threading.local()
errors = []

def create(number):
    connection = getattr(local, "connection", None)
    if connection is None:
        connection = local.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    body = json.dumps({"user_id": f"{prefix}-{number}", "workflow": "kyc", "mobile": "+919876543210"})
    try:
        connection.request("POST", "/v1/verifications", body=body,
                           headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        if response.status != 201:
            errors.append(f"HTTP {response.status}")
    except (OSError, http.client.HTTPException) as error:
        local.connection = None
        errors.append(type(error).__name__)

first_create = time.time()
with ThreadPoolExecutor(max_workers=clients) as pool:
    list(pool.map(create, range(events)))
last_create = time.time()
expected = events - len(errors)

def distinct():
    with open(receipts) as f:
        return len({line.split("\t", 1)[0] for line in f if line.strip()})

deadline = first_create + wait
seen = distinct()
while seen < expected and time.time() < deadline:
    time.sleep(0.05)
    seen = distinct()
json.dump({"first_create": first_create, "last_create": last_create, "events": expected,
           "create_errors": len(errors), "error_kinds": sorted(set(errors))[:5],
           "complete": seen >= expected, "wait": wait}, open(result_path, "w"))
print(f"bench: {expected} events created in {last_create - first_create:.2f} s "
      f"({len(errors)} errors); {seen} distinct messages received", file=sys.stderr)
PY
    # Anything late (duplicates) lands in the file during this second.
    sleep 1
    exit 0
fi

# --- outer run ----------------------------------------------------------------------
BENCH_HOSTED_BIN=${BENCH_HOSTED_BIN:-$REPO/.build/release/hosted}
[[ -x $BENCH_HOSTED_BIN ]] || die "no hosted binary at $BENCH_HOSTED_BIN (swift build -c release --product hosted --scratch-path .build, or set BENCH_HOSTED_BIN)"
command -v curl >/dev/null || die "curl not found"
BENCH_HOSTED_BIN=$(realpath "$BENCH_HOSTED_BIN")
export BENCH_HOSTED_BIN

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hosted-webhooks.XXXXXX")
export BENCH_WORK=$WORK
: >"$WORK/receipts.tsv"
bash scripts/with-postgres.sh bash bench/webhooks.sh --postgres-phase
[[ -s "$WORK/load.json" ]] || die "the run wrote no results"

# --- report ---------------------------------------------------------------------------
set +e
python3 - "$WORK" "$TARGET" "$CLIENTS" "$(nproc)" "$BENCH_HOSTED_BIN" <<'PY'
import json, sys
from datetime import datetime
work, target, clients, cores, binary = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
load = json.load(open(f"{work}/load.json"))
first_receipt, stamps, requests, unsigned = {}, {}, 0, 0
for line in open(f"{work}/receipts.tsv"):
    parts = line.rstrip("\n").split("\t")
    if len(parts) != 4 or not parts[0]:
        continue
    requests += 1
    webhook_id, received, stamp, signed = parts
    unsigned += signed != "1"
    received = float(received)
    if webhook_id not in first_receipt or received < first_receipt[webhook_id]:
        first_receipt[webhook_id] = received
        stamps[webhook_id] = stamp

def event_time(stamp):
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None

latencies = sorted(first_receipt[i] - t for i, s in stamps.items() if (t := event_time(s)) is not None)
def percentile(p):
    if not latencies:
        return "?"
    return f"{latencies[min(len(latencies) - 1, int(round(p / 100 * (len(latencies) - 1))))] * 1000:.0f} ms"

delivered = len(first_receipt)
events = load["events"]
total = (max(first_receipt.values()) - load["first_create"]) if first_receipt else float("nan")
rate = delivered / total if first_receipt and total > 0 else float("nan")
complete = delivered >= events and load["create_errors"] == 0
passed = complete and total <= target
verdict = "PASS" if passed else (f"FAIL (only {delivered} of {events} within {load['wait']} s)" if not complete
                                 else f"FAIL (> {target:.0f} s)")
if load["create_errors"]:
    verdict = f"FAIL ({load['create_errors']} creates failed: {', '.join(load['error_kinds'])})"
print()
print(f"hosted serve --dev on PostgreSQL, one endpoint on a loopback receiver, {clients} create connections, "
      f"{cores} cores shared by the load, the receiver, hosted and PostgreSQL")
print(f"binary = {binary}")
print()
print("| events | delivered | duplicates | unsigned | creates took | first create → last receipt | deliveries/s "
      "| latency p50 | latency p99 | verdict |")
print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
print(f"| {events} | {delivered} | {requests - delivered} | {unsigned} | {load['last_create'] - load['first_create']:.2f} s "
      f"| {total:.2f} s | {rate:.0f} | {percentile(50)} | {percentile(99)} | {verdict} |")
print()
print(f"PASS: all {events} messages received within {target:.0f} s of the first create. Latency: the body's "
      "`timestamp` (the event's created_at) to the message's first receipt.")
sys.exit(0 if passed else (2 if complete else 1))
PY
status=$?
set -e
if (( status == 1 )); then exit 1; fi                       # messages missing
if (( status != 0 )) && [[ $STRICT == 1 ]]; then exit 1; fi   # slow
exit 0
