#!/usr/bin/env bash
# What signed results cost (issue 40): one release binary, one database per store, on loopback.
#  1. Reads: GET /.well-known/jwks.json against GET /healthz in the same run (same server,
#     alternating), and the JWKS again with its cached body switched off
#     (HOSTED_DISABLE_MEMOS=jwks), each BENCH_ROUNDS times: the JWKS's rate as a share of
#     /healthz's (goal ≥ 90 %) and what the cache buys (it stays only if ≥ 10 %).
#  2. Submits: BENCH_SUBMITS verifications prepared (signed in through a handoff with a nonce,
#     their one profile step done) outside the timed window, then submitted from
#     BENCH_CONNECTIONS_SUBMIT connections at once, with signing on and with
#     HOSTED_BENCH_UNSIGNED_RESULTS=1 (the redirect built without its JWS), alternating
#     on/off then off/on: hosted's CPU per submit (from /proc, the steadier figure) and the
#     submits' rate; goal: signing adds at most 5 %. And, in the same server, what one signature
#     costs as a submit makes it: the computer's follow of a submitted verification
#     (GET /j/{id}/api/continuations/current, whose answer carries the signed redirect URL)
#     under wrk with signing on and off: the difference of hosted's CPU per request is the
#     signing cost per call, set against the submit's CPU without signing.
# Prints one line per case with every run and the medians, then the verdict as one line of JSON
# (docs/performance.md, "Signed results").
set -euo pipefail

usage() {
    cat <<'EOF2'
Usage: bench/results.sh
       scripts/with-postgres.sh bench/results.sh   (also the PostgreSQL cases)

Environment: BENCH_DURATION (default 5s), BENCH_WARMUP (1s), BENCH_ROUNDS (3), BENCH_THREADS (2),
BENCH_CONNECTIONS (32), BENCH_SUBMITS (2000 per arm and round), BENCH_CONNECTIONS_SUBMIT (8),
BENCH_HOSTED_BIN (.build/release/hosted: swift build -c release first), BENCH_STORES
("sqlite postgres"), BENCH_PARTS ("reads submits").

Goals: JWKS ≥ 90 % of /healthz's req/s; its cache ≥ 10 % faster than without; signing at most
5 % of a submit's cost (the follow row's CPU difference against the submit's CPU without it; the
submits with and without signing are shown beside it).
EOF2
}
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }

cd "$(dirname "$0")/.."
REPO=$(pwd)
MODE=results
WORK=$(mktemp -d /tmp/hosted-results.XXXXXX)
DURATION=${BENCH_DURATION:-5s}
WARMUP=${BENCH_WARMUP:-1s}
ROUNDS=${BENCH_ROUNDS:-3}
THREADS=${BENCH_THREADS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-32}
SUBMITS=${BENCH_SUBMITS:-2000}
SUBMIT_CONNECTIONS=${BENCH_CONNECTIONS_SUBMIT:-8}
HOSTED_BIN=${BENCH_HOSTED_BIN:-$REPO/.build/release/hosted}
# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"
[[ -x $HOSTED_BIN ]] || die "no $HOSTED_BIN: swift build -c release first"
command -v wrk >/dev/null || die "no wrk"

# start DATABASE_URL [VAR=VALUE…]: `hosted serve` with those variables; sets BASE, PID.
start() {
    local db=$1 port
    shift
    port=$(free_port)
    BASE="http://127.0.0.1:$port"
    env "$@" HOSTED_DATABASE_URL="$db" HOSTED_LISTEN="127.0.0.1:$port" HOSTED_PUBLIC_URL="$BASE" \
        "$HOSTED_BIN" serve >>"$WORK/hosted.log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
    wait_http "$BASE/healthz" "$PID" "hosted ($*)"
}

# read_load PATH: one wrk run against BASE, "req/s errors µs_of_hosted_CPU_per_request".
read_load() {
    [[ $WARMUP != 0 ]] && timeout 60 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$BASE$1" >/dev/null
    wrk_with_cpu "$WORK/wrk-$(date +%s%N).txt" "$BASE$1"
}

# setup STORE: a migrated database with an account, its return URL and a profile-only
# workflow: sets DB and KEY.
setup() {
    if [[ $1 == sqlite ]]; then
        DB="sqlite:$WORK/results.sqlite"
    else
        [[ -n ${HOSTED_TEST_POSTGRES_URL:-} ]] || return 1
        DB=$HOSTED_TEST_POSTGRES_URL
    fi
    HOSTED_DATABASE_URL=$DB "$HOSTED_BIN" migrate >/dev/null
    read -r _ KEY < <(create_account "$HOSTED_BIN" "$DB")
    start "$DB"
    http_json POST "$BASE/v1/return_urls" "$KEY" '{"url":"https://app.example.com/done"}' 201 >/dev/null
    http_json POST "$BASE/v1/workflows" "$KEY" \
        '{"key":"bench_results","name":"Bench","steps":[{"type":"profile","id":"about"}]}' 201 >/dev/null
    stop_pid "$PID"
}

median() { python3 -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }

read -r -a STORES <<<"${BENCH_STORES:-sqlite postgres}"
read -r -a PARTS <<<"${BENCH_PARTS:-reads submits}"
RESULTS="$WORK/results.json"
: >"$RESULTS"
for store in "${STORES[@]}"; do
    setup "$store" || { log "$store: skipped (no HOSTED_TEST_POSTGRES_URL)"; continue; }
    if [[ " ${PARTS[*]} " == *" reads "* ]]; then
        healthz=() jwks=() uncached=() cpu_h=() cpu_j=() cpu_u=()
        for round in $(seq "$ROUNDS"); do
            start "$DB"
            # Alternate which row goes first: drift hits both alike.
            rows=(healthz jwks)
            (( round % 2 == 0 )) && rows=(jwks healthz)
            for row in "${rows[@]}"; do
                path=/healthz
                [[ $row == jwks ]] && path=/.well-known/jwks.json
                read -r rate errors cpu <<<"$(read_load "$path")"
                [[ $errors == 0 ]] || log "$store $row round $round: $errors errors"
                log "$store $row round $round: $rate req/s, $cpu µs/req"
                if [[ $row == healthz ]]; then healthz+=("$rate"); cpu_h+=("$cpu"); else jwks+=("$rate"); cpu_j+=("$cpu"); fi
            done
            stop_pid "$PID"
            start "$DB" HOSTED_DISABLE_MEMOS=jwks
            read -r rate errors cpu <<<"$(read_load /.well-known/jwks.json)"
            [[ $errors == 0 ]] || log "$store jwks-uncached round $round: $errors errors"
            log "$store jwks without its cache round $round: $rate req/s, $cpu µs/req"
            uncached+=("$rate"); cpu_u+=("$cpu")
            stop_pid "$PID"
        done
        printf '%s\thealthz: %s\tjwks: %s\tjwks uncached: %s\n' "$store" "${healthz[*]}" "${jwks[*]}" "${uncached[*]}"
        python3 - "$store" "${healthz[*]}" "${jwks[*]}" "${uncached[*]}" "${cpu_h[*]}" "${cpu_j[*]}" "${cpu_u[*]}" >>"$RESULTS" <<'PY'
import json, statistics, sys
store = sys.argv[1]
h, j, u, ch, cj, cu = ([float(x) for x in arg.split()] for arg in sys.argv[2:8])
m = statistics.median
print(json.dumps({"store": store, "part": "reads", "healthz_rps": round(m(h)), "jwks_rps": round(m(j)),
                  "jwks_uncached_rps": round(m(u)), "jwks_share_of_healthz_percent": round(100 * m(j) / m(h), 1),
                  "cache_gain_percent": round(100 * (m(j) - m(u)) / m(u), 1),
                  "cpu_us": {"healthz": m(ch), "jwks": m(cj), "jwks_uncached": m(cu)}}))
PY
    fi
    if [[ " ${PARTS[*]} " == *" submits "* ]]; then
        on=() off=() cpu_on=() cpu_off=() follow_on=() follow_off=() latency_on=() latency_off=()
        for round in $(seq "$ROUNDS"); do
            arms=(on off)
            (( round % 2 == 0 )) && arms=(off on)
            for arm in "${arms[@]}"; do
                unsigned=0
                [[ $arm == off ]] && unsigned=1
                start "$DB" HOSTED_BENCH_UNSIGNED_RESULTS=$unsigned
                read -r rate cpu signed vid cookie latency <<<"$(python3 "$REPO/bench/results-submit.py" "$BASE" "$KEY" "$PID" \
                    "$SUBMITS" "$SUBMIT_CONNECTIONS" "$store-$round-$arm-$RANDOM")"
                follow_args=(-H "Cookie: $cookie" "$BASE/j/$vid/api/continuations/current")
                [[ $WARMUP != 0 ]] && timeout 60 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "${follow_args[@]}" >/dev/null
                read -r follow_rate follow_errors follow_cpu <<<"$(wrk_with_cpu "$WORK/wrk-$(date +%s%N).txt" "${follow_args[@]}")"
                stop_pid "$PID"
                [[ $follow_errors == 0 ]] || log "$store follow round $round signing $arm: $follow_errors errors"
                want=$SUBMITS
                [[ $arm == off ]] && want=0
                [[ $signed == "$want" ]] || die "$store submits round $round signing $arm: $signed of $SUBMITS redirects signed"
                log "$store submits round $round signing $arm: one by one $latency µs each (median);" \
                    "$SUBMIT_CONNECTIONS at once $rate submits/s, $cpu µs of hosted's CPU per submit;" \
                    "follow $follow_rate req/s, $follow_cpu µs/req"
                if [[ $arm == on ]]; then
                    on+=("$rate"); cpu_on+=("$cpu"); follow_on+=("$follow_cpu"); latency_on+=("$latency")
                else
                    off+=("$rate"); cpu_off+=("$cpu"); follow_off+=("$follow_cpu"); latency_off+=("$latency")
                fi
            done
        done
        printf '%s\tsubmits/s on: %s\toff: %s\tµs/submit on: %s\toff: %s\tfollow µs/req on: %s\toff: %s\tlatency µs on: %s\toff: %s\n' \
            "$store" "${on[*]}" "${off[*]}" "${cpu_on[*]}" "${cpu_off[*]}" "${follow_on[*]}" "${follow_off[*]}" "${latency_on[*]}" "${latency_off[*]}"
        python3 - "$store" "${on[*]}" "${off[*]}" "${cpu_on[*]}" "${cpu_off[*]}" "${follow_on[*]}" "${follow_off[*]}" \
            "${latency_on[*]}" "${latency_off[*]}" >>"$RESULTS" <<'PY'
import json, statistics, sys
store = sys.argv[1]
a, b, ca, cb, fa, fb, la, lb = ([float(x) for x in arg.split()] for arg in sys.argv[2:10])
m = statistics.median
signing = m(fa) - m(fb)
print(json.dumps({"store": store, "part": "submits", "rps_on": round(m(a)), "rps_off": round(m(b)),
                  "slower_percent": round(100 * (m(b) - m(a)) / m(b), 1),
                  "cpu_us_on": m(ca), "cpu_us_off": m(cb), "cpu_more_percent": round(100 * (m(ca) - m(cb)) / m(cb), 1),
                  "follow_cpu_us_on": m(fa), "follow_cpu_us_off": m(fb), "signing_us_per_call": round(signing, 1),
                  "signing_share_of_submit_percent": round(100 * signing / m(cb), 1),
                  "latency_us_on": m(la), "latency_us_off": m(lb), "latency_more_percent": round(100 * (m(la) - m(lb)) / m(lb), 1)}))
PY
    fi
done
python3 - "$RESULTS" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
reads = [r for r in rows if r["part"] == "reads"]
submits = [r for r in rows if r["part"] == "submits"]
# Two readings of "signing adds at most 5 % to a submit", both printed: what a user waits (the
# one-by-one latency) and what a busy server spends (the signing cost per call, from the follow
# row's difference over thousands of requests, against the submit's CPU without signing).
print(json.dumps({"bench": "results", "rows": rows,
                  "jwks_ok": all(r["jwks_share_of_healthz_percent"] >= 90 for r in reads),
                  "cache_keeps_its_place": all(r["cache_gain_percent"] >= 10 for r in reads),
                  "submit_latency_ok": all(r["latency_more_percent"] <= 5 for r in submits),
                  "submit_cpu_ok": all(r["signing_share_of_submit_percent"] <= 5 for r in submits)}))
PY
