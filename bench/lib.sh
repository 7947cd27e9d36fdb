# Shared by the bench scripts (sourced): logging, stopping what they started, loopback
# HTTP helpers, account creation and the wrk output summary. The sourcing script sets
# MODE (postgres for the inner phase) and WORK (its scratch directory).

# PostgreSQL outside dev mode refuses to start without a provisioned secret key: the bench
# servers share this one (a throwaway value, never a deployment's).
export HOSTED_SECRET_KEY=${HOSTED_SECRET_KEY:-bench-secret-key-0123456789abcdef0123456789}

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

# create_account BIN DATABASE_URL: creates an account with the CLI, prints "ACCOUNT_ID API_KEY".
create_account() {
    HOSTED_DATABASE_URL=$2 "$1" accounts create --name bench | python3 -c '
import json, sys
text = sys.stdin.read()
for candidate in [text] + text.splitlines()[::-1]:
    try:
        created = json.loads(candidate)
        print(created["account_id"], created["api_key"])
        break
    except (ValueError, KeyError, TypeError):
        continue
else:
    sys.exit("bench: no account_id/api_key in the output of hosted accounts create: " + text[:300])
'
}

# http_json METHOD URL KEY BODY STATUS: sends the JSON BODY with the Bearer KEY, prints the
# response body; fails unless the answer has exactly that status.
http_json() {
    local method=$1 url=$2 key=$3 body=$4 want=$5 out status
    out="$WORK/curl-$(date +%s%N).json"
    status=$(curl -sS -o "$out" -w '%{http_code}' -X "$method" \
        -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
        --data-binary "$body" "$url") || { log "$method $url: curl failed"; return 1; }
    if [[ $status != "$want" ]]; then
        log "$method $url -> HTTP $status (expected $want): $(head -c 300 "$out")"
        return 1
    fi
    cat "$out"
}

# wrk_summary FILE: "req/s<TAB>p50<TAB>p99<TAB>errors" of a `wrk --latency` output.
wrk_summary() {
    python3 - "$1" <<'PY'
import re, sys
path = sys.argv[1]
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
print("\t".join([f"{float(rps.group(1)):.0f}" if rps else "?",
                 fmt(lat.get("50")), fmt(lat.get("99")), str(errors)]))
PY
}

# wrk_with_cpu OUT ARGS...: one timed wrk run (THREADS, CONNECTIONS, DURATION) into OUT, printing
# "req/s p99 cpu_us_per_request" with the CPU hosted (PID) spent, from /proc, per request served.
wrk_with_cpu() {
    local out=$1 before after
    shift
    before=$(awk '{ print $14 + $15 }' "/proc/$PID/stat")
    timeout 120 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" >"$out"
    after=$(awk '{ print $14 + $15 }' "/proc/$PID/stat")
    printf '%s %s\n' "$(wrk_summary "$out" | cut -f1,4 | tr '\t' ' ')" \
        "$(python3 -c 'import re, sys; n = int(re.search(r"(\d+) requests in", open(sys.argv[1]).read()).group(1)); print(f"{(int(sys.argv[3]) - int(sys.argv[2])) * 1e6 / int(sys.argv[4]) / max(n, 1):.1f}")' \
            "$out" "$before" "$after" "$(getconf CLK_TCK)")"
}
