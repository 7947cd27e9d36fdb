#!/usr/bin/env bash
# What journey analytics costs the journey (issue 43): one release binary, one database per
# store, two rows (the journey's page, GET /j/{id}, which records `opened`; and the signal call
# the page makes when it shows a step, POST /j/{id}/api/signals, which records `step_viewed`)
# each run against `hosted serve` with HOSTED_ANALYTICS=on and =off, alternating, BENCH_ROUNDS
# times each, on loopback. Prints one line per case with every run and the medians, then the
# verdict as one line of JSON (docs/performance.md, "Journey analytics").
set -euo pipefail

usage() {
    cat <<'EOF2'
Usage: bench/analytics.sh
       scripts/with-postgres.sh bench/analytics.sh   (also the PostgreSQL cases)

Environment: BENCH_DURATION (default 5s), BENCH_WARMUP (1s), BENCH_ROUNDS (3), BENCH_THREADS (2),
BENCH_CONNECTIONS (32), BENCH_HOSTED_BIN (.build/release/hosted: swift build -c release first),
BENCH_STORES ("sqlite postgres"), BENCH_ROWS ("page signal").

Goal: with analytics on, each row at most 5 % slower (median req/s) than with it off.
EOF2
}
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }

cd "$(dirname "$0")/.."
REPO=$(pwd)
MODE=analytics
WORK=$(mktemp -d /tmp/hosted-analytics.XXXXXX)
DURATION=${BENCH_DURATION:-5s}
WARMUP=${BENCH_WARMUP:-1s}
ROUNDS=${BENCH_ROUNDS:-3}
THREADS=${BENCH_THREADS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
HOSTED_BIN=${BENCH_HOSTED_BIN:-$REPO/.build/release/hosted}
PHONE_UA="Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36"
# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"
[[ -x $HOSTED_BIN ]] || die "no $HOSTED_BIN: swift build -c release first"
command -v wrk >/dev/null || die "no wrk"

# start DATABASE_URL ANALYTICS: `hosted serve` with HOSTED_ANALYTICS=on|off; sets BASE, PID.
start() {
    local port
    port=$(free_port)
    BASE="http://127.0.0.1:$port"
    HOSTED_ANALYTICS=$2 HOSTED_DATABASE_URL=$1 HOSTED_LISTEN="127.0.0.1:$port" HOSTED_PUBLIC_URL=$BASE \
        "$HOSTED_BIN" serve >>"$WORK/hosted.log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
    wait_http "$BASE/healthz" "$PID" "hosted (HOSTED_ANALYTICS=$2)"
}

# load ROW: runs the row against BASE (hosted's pid PID), prints "req/s errors µs", µs being
# hosted's CPU (user + kernel, from /proc) per request during the timed run.
load() {
    local row=$1 out args=()
    out="$WORK/wrk-$(date +%s%N).txt"
    case $row in
        page) args=(-H "User-Agent: $PHONE_UA" "$BASE/j/$VID") ;;
        signal)
            export BENCH_SESSION=$SESSION BENCH_ORIGIN=$BASE
            args=(-s "$REPO/bench/analytics-signal.lua" "$BASE/j/$VID/api/signals") ;;
    esac
    [[ $WARMUP != 0 ]] && timeout 60 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "${args[@]}" >/dev/null
    wrk_with_cpu "$out" "${args[@]}"
}

# setup STORE: a migrated database with an account, a workflow, one verification and a journey
# session on it: sets DB, VID, SESSION.
setup() {
    if [[ $1 == sqlite ]]; then
        DB="sqlite:$WORK/analytics.sqlite"
    else
        [[ -n ${HOSTED_TEST_POSTGRES_URL:-} ]] || return 1
        DB=$HOSTED_TEST_POSTGRES_URL
    fi
    HOSTED_DATABASE_URL=$DB "$HOSTED_BIN" migrate >/dev/null
    local key secret
    read -r _ key < <(create_account "$HOSTED_BIN" "$DB")
    start "$DB" on
    http_json POST "$BASE/v1/workflows" "$key" \
        '{"key":"bench_analytics","name":"Bench","steps":[{"type":"profile","id":"about"},{"type":"selfie"}]}' 201 >/dev/null
    VID=$(http_json POST "$BASE/v1/verifications" "$key" \
        "{\"user_id\":\"bench-analytics-$RANDOM$RANDOM\",\"workflow\":\"bench_analytics\",\"mobile\":\"+919876543210\"}" 201 |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    secret=$(http_json POST "$BASE/v1/verifications/$VID/handoffs" "$key" '{}' 201 |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["url"].split("#handoff=", 1)[1])')
    SESSION=$(curl -sS -o /dev/null -D - -H "Origin: $BASE" -H 'Content-Type: application/json' \
        --data-binary "{\"handoff\":\"$secret\"}" "$BASE/j/$VID/api/session" |
        sed -n 's/^[Ss]et-[Cc]ookie: hosted_session=\([^;]*\).*/\1/p' | head -1)
    [[ -n $SESSION ]] || die "no journey session"
    stop_pid "$PID"
}

read -r -a STORES <<<"${BENCH_STORES:-sqlite postgres}"
read -r -a ROWS <<<"${BENCH_ROWS:-page signal}"
RESULTS="$WORK/results.tsv"
printf 'case\ton (req/s per round)\toff (req/s per round)\tmedian on\tmedian off\tchange\tµs/req on\tµs/req off\n'
for store in "${STORES[@]}"; do
    setup "$store" || { log "$store: skipped (no HOSTED_TEST_POSTGRES_URL)"; continue; }
    for row in "${ROWS[@]}"; do
        on=() off=() cpu_on=() cpu_off=()
        for round in $(seq "$ROUNDS"); do
            # Odd rounds start with analytics on, even rounds with it off: drift hits both arms alike.
            arms=(on off)
            (( round % 2 == 0 )) && arms=(off on)
            for arm in "${arms[@]}"; do
                start "$DB" "$arm"
                read -r rate errors cpu <<<"$(load "$row")"
                stop_pid "$PID"
                [[ $errors == 0 ]] || log "$store $row round $round $arm: $errors errors"
                log "$store $row round $round analytics $arm: $rate req/s, $cpu µs of hosted's CPU per request"
                if [[ $arm == on ]]; then on+=("$rate"); cpu_on+=("$cpu"); else off+=("$rate"); cpu_off+=("$cpu"); fi
            done
        done
        python3 - "$store-$row" "${on[*]}" "${off[*]}" "${cpu_on[*]}" "${cpu_off[*]}" <<'PY' | tee -a "$RESULTS"
import statistics, sys
name = sys.argv[1]
on, off, cpu_on, cpu_off = ([float(x) for x in arg.split()] for arg in sys.argv[2:6])
a, b = statistics.median(on), statistics.median(off)
c, d = statistics.median(cpu_on), statistics.median(cpu_off)
print(f"{name}\t{', '.join(f'{x:.0f}' for x in on)}\t{', '.join(f'{x:.0f}' for x in off)}\t{a:.0f}\t{b:.0f}"
      f"\t{100 * (a - b) / b:+.1f}%\t{c:.1f}\t{d:.1f}")
PY
    done
done
python3 - "$RESULTS" <<'PY'
import json, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
slower = {row[0]: -float(row[5].rstrip("%")) for row in rows}
# hosted's CPU per request, steadier than the rate on a shared machine: on against off.
cpu = {row[0]: round(100 * (float(row[6]) - float(row[7])) / float(row[7]), 1) for row in rows}
print(json.dumps({"bench": "analytics", "goal_percent": 5, "slower_percent": slower, "cpu_more_percent": cpu,
                  "ok": all(value <= 5 for value in slower.values())}))
PY
