#!/usr/bin/env bash
# Where the machine's CPU goes per request: hosted's poll against pgbench's one-row select,
# each charged by process (hosted, postgres, pgbench, softirq, idle) from /proc, on one
# throwaway PostgreSQL server. Answers "is the gap hosted's CPU or the database's?".
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/cpu-split.sh [--help]

Runs inside a throwaway PostgreSQL server (scripts/with-postgres.sh), loopback only:
  1. hosted serve (BENCH_HOSTED_BIN, else .build/release/hosted) on 127.0.0.1, poll
     limit raised (HOSTED_POLL_RATE=1000, HOSTED_POLL_BURST=1000000) so no poll is
     refused; one verification polled by wrk -t2 -c64 for CPU_SECONDS (default 6).
  2. pgbench -c64 -j2 -M prepared running bench/pgbench-select.sql (the poll's select)
     on the same row; CPU sampled over 5 s inside an 8 s run, while every backend lives.
For each, the CPU time per request (microseconds) of every process group that used
any: hosted, postgres (all backends), pgbench, and the machine's softirq and idle
time. wrk exits before its sample is taken: its share is what the total leaves.
Output: one JSON object on stdout; progress on stderr.
Needs: wrk, curl, python3, pgbench (PostgreSQL 15 binaries).
EOF
}
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    "") ;;
    *) usage >&2; exit 2 ;;
esac

REPO=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z ${HOSTED_TEST_POSTGRES_URL:-} ]]; then
    exec "$REPO/scripts/with-postgres.sh" "$0" "$@"
fi
BIN=${BENCH_HOSTED_BIN:-$REPO/.build/release/hosted}
SECONDS_POLL=${CPU_SECONDS:-6}
PGBENCH=${HOSTED_TEST_PG_BIN:+$HOSTED_TEST_PG_BIN/}pgbench
export HOSTED_POLL_RATE=1000 HOSTED_POLL_BURST=1000000
DB=$HOSTED_TEST_POSTGRES_URL
MODE=cpu-split WORK=$(mktemp -d)
# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"

PORT=$(free_port)
BASE=http://127.0.0.1:$PORT
read -r _ KEY <<<"$(create_account "$BIN" "$DB")"
HOSTED_DATABASE_URL=$DB HOSTED_LISTEN=127.0.0.1:$PORT "$BIN" serve >"$WORK/hosted.log" 2>&1 &
PID=$!
PIDS+=("$PID")
wait_http "$BASE/healthz" "$PID" hosted
http_json POST "$BASE/v1/workflows" "$KEY" '{"key":"bench","name":"Bench","steps":[{"type":"selfie"}]}' 201 >/dev/null
V=$(http_json POST "$BASE/v1/verifications" "$KEY" '{"user_id":"cpu-split","workflow":"bench","mobile":"+919876543210"}' 201 |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')

# snap: CPU ticks so far by process group (comm, postgres backends together) and the
# machine's idle and softirq ticks, as a Python dict literal.
snap() {
    python3 - <<'PY'
import os
total = {}
for pid in os.listdir('/proc'):
    if not pid.isdigit():
        continue
    try:
        stat = open(f'/proc/{pid}/stat').read()
    except OSError:
        continue
    comm = stat[stat.index('(') + 1:stat.rindex(')')]
    fields = stat[stat.rindex(')') + 2:].split()
    group = 'postgres' if comm.startswith('postgres') else comm
    total[group] = total.get(group, 0) + int(fields[11]) + int(fields[12])
cpu = open('/proc/stat').readline().split()[1:]
total['(idle)'] = int(cpu[3])
total['(softirq)'] = int(cpu[6])
total['(all)'] = sum(map(int, cpu[:8]))
print(repr(total))
PY
}
# split NAME BEFORE AFTER REQUESTS RATE: one JSON member, µs per request by group (> 0.5 µs).
split() {
    python3 - "$@" "$(getconf CLK_TCK)" <<'PY'
import ast, json, sys
name, before, after, requests, rate, tick = sys.argv[1], ast.literal_eval(sys.argv[2]), ast.literal_eval(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
per = {k: round((after[k] - before.get(k, 0)) * 1e6 / tick / requests, 1) for k in after}
print(json.dumps({"name": name, "per_second": round(rate), "cpu_us_per_request": {k: v for k, v in sorted(per.items()) if v >= 0.5}}))
PY
}

URL=$BASE/v1/verifications/$V
log "wrk warm-up and ${SECONDS_POLL}s poll of $V"
wrk -t2 -c64 -d2s -H "Authorization: Bearer $KEY" "$URL" >/dev/null
before=$(snap)
wrk -t2 -c64 -d"${SECONDS_POLL}s" -H "Authorization: Bearer $KEY" "$URL" >"$WORK/wrk.txt"
after=$(snap)
polls=$(awk '/requests in/ { print $1 }' "$WORK/wrk.txt")
[[ -n $polls && $polls -gt 0 ]] || { cat "$WORK/wrk.txt" >&2; exit 1; }
poll=$(split "hosted poll (wrk -t2 -c64)" "$before" "$after" "$polls" "$(awk '/Requests\/sec/ { print $2 }' "$WORK/wrk.txt")")
stop_pid "$PID"

ACCOUNT=$(psql "$DB" -Atc "SELECT account_id FROM verifications WHERE id = '$V'")
log "pgbench select on the same row (8 s, sampled over 5 s)"
"$PGBENCH" -c64 -j2 -M prepared -n -f "$REPO/bench/pgbench-select.sql" \
    -D "verification_id=$V" -D "account_id=$ACCOUNT" -T 8 "$DB" >"$WORK/pgbench.txt" 2>&1 &
bench=$!
sleep 1.5; before=$(snap); sleep 5; after=$(snap)
wait "$bench"
tps=$(awk '/^tps/ { print $3; exit }' "$WORK/pgbench.txt")
[[ -n $tps ]] || { cat "$WORK/pgbench.txt" >&2; exit 1; }
select=$(split "pgbench select (-c64 -j2 -M prepared)" "$before" "$after" "$(python3 -c "print($tps * 5)")" "$tps")
python3 -c 'import json, sys; print(json.dumps({"rows": [json.loads(a) for a in sys.argv[1:]]}, indent=1))' "$poll" "$select"
