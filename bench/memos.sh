#!/usr/bin/env bash
# What each cache and memo buys on its bench row: one release binary, one database per store,
# the row run against `hosted serve` with the memo on and with it off (HOSTED_DISABLE_MEMOS),
# alternating, BENCH_ROUNDS times each, on loopback. Prints one line per case with every run
# and the medians (docs/performance.md, "Caches and memos").
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/memos.sh [CASE...]
       scripts/with-postgres.sh bench/memos.sh [CASE...]   (also the PostgreSQL cases)

CASE is one of the names below (default: all; the PostgreSQL ones only when
HOSTED_TEST_POSTGRES_URL is set, as scripts/with-postgres.sh does):
  callers-sqlite callers-postgres      GET /v1/account
  rows-postgres                        the poll
  rendered-sqlite rendered-postgres    the poll
  leases-sqlite leases-postgres        the poll
  local-reads-sqlite                   the poll
  repeats-sqlite                       the repeat create
  open-sqlite                          the repeat create, with repeats off in both arms
  steps-sqlite steps-postgres          a create of a new verification per request
  gzip-sqlite                          GET /assets/journey/elsewhere.js, Accept-Encoding: gzip

Environment: BENCH_DURATION (default 5s), BENCH_WARMUP (1s), BENCH_ROUNDS (3),
BENCH_THREADS (2), BENCH_CONNECTIONS (64), BENCH_HOSTED_BIN (.build/release/hosted).
Every poll row runs at HOSTED_POLL_RATE=1000, HOSTED_POLL_BURST=1000000, as bench/run.sh does.
EOF
}
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }

cd "$(dirname "$0")/.."
REPO=$(pwd)
MODE=memos
WORK=$(mktemp -d /tmp/hosted-memos.XXXXXX)
DURATION=${BENCH_DURATION:-5s}
WARMUP=${BENCH_WARMUP:-1s}
ROUNDS=${BENCH_ROUNDS:-3}
THREADS=${BENCH_THREADS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-64}
HOSTED_BIN=${BENCH_HOSTED_BIN:-$REPO/.build/release/hosted}
export HOSTED_POLL_RATE=1000 HOSTED_POLL_BURST=1000000
# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"
[[ -x $HOSTED_BIN ]] || die "no $HOSTED_BIN: swift build -c release first"

# case: store load always-off measured
declare -A CASES=(
    [callers-sqlite]="sqlite account - callers"
    [callers-postgres]="postgres account - callers"
    [rows-postgres]="postgres poll - rows"
    [rendered-sqlite]="sqlite poll - rendered"
    [rendered-postgres]="postgres poll - rendered"
    [leases-sqlite]="sqlite poll - leases"
    [leases-postgres]="postgres poll - leases"
    [local-reads-sqlite]="sqlite poll - local-reads"
    [repeats-sqlite]="sqlite create - repeats"
    [open-sqlite]="sqlite create repeats open"
    [steps-sqlite]="sqlite unique - steps"
    [steps-postgres]="postgres unique - steps"
    [gzip-sqlite]="sqlite static - gzip"
)
ORDER=(callers-sqlite callers-postgres rows-postgres rendered-sqlite rendered-postgres
       leases-sqlite leases-postgres local-reads-sqlite repeats-sqlite open-sqlite steps-sqlite steps-postgres gzip-sqlite)
SELECTED=("$@")
(( ${#SELECTED[@]} )) || SELECTED=("${ORDER[@]}")

# start DATABASE_URL DISABLED: `hosted serve` with HOSTED_DISABLE_MEMOS=DISABLED; sets BASE, PID.
start() {
    local port
    port=$(free_port)
    BASE="http://127.0.0.1:$port"
    HOSTED_DISABLE_MEMOS=$2 HOSTED_DATABASE_URL=$1 HOSTED_LISTEN="127.0.0.1:$port" \
        "$HOSTED_BIN" serve >>"$WORK/hosted.log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
    wait_http "$BASE/healthz" "$PID" "hosted (HOSTED_DISABLE_MEMOS=$2)"
}

# load NAME BODY_USER: runs the case's load against BASE (hosted's pid PID), prints "req/s errors
# µs", µs being hosted's CPU (user + kernel, from /proc) per request during the timed run:
# steadier than the rate on a shared machine.
load() {
    local kind=$1 user=$2 out id body
    out="$WORK/wrk-$(date +%s%N).txt"
    body="{\"user_id\":\"$user\",\"workflow\":\"bench\",\"mobile\":\"+919876543210\"}"
    local args=()
    case $kind in
        account) args=(-H "Authorization: Bearer $KEY" "$BASE/v1/account") ;;
        poll)
            id=$(http_json POST "$BASE/v1/verifications" "$KEY" "$body" 201 | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
            args=(-H "Authorization: Bearer $KEY" "$BASE/v1/verifications/$id") ;;
        create)
            http_json POST "$BASE/v1/verifications" "$KEY" "$body" 201 >/dev/null
            export BENCH_API_KEY=$KEY BENCH_VERIFICATION_BODY=$body
            args=(-s "$REPO/bench/post-verification.lua" "$BASE/v1/verifications") ;;
        unique)
            export BENCH_API_KEY=$KEY BENCH_USER_PREFIX=$user BENCH_WORKFLOW=bench
            args=(-s "$REPO/bench/create-unique.lua" "$BASE/v1/verifications") ;;
        static) args=(-H "Accept-Encoding: gzip" "$BASE/assets/journey/elsewhere.js") ;;
    esac
    if [[ $WARMUP != 0 ]]; then
        [[ $kind == unique ]] && export BENCH_USER_PREFIX=$user-warm
        timeout 60 wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "${args[@]}" >/dev/null
        [[ $kind == unique ]] && export BENCH_USER_PREFIX=$user
    fi
    wrk_with_cpu "$out" "${args[@]}"
}

# setup STORE: the database URL of STORE (migrated, with the bench account and workflow): sets DB, KEY.
setup() {
    if [[ $1 == sqlite ]]; then
        DB="sqlite:$WORK/memos.sqlite"
    else
        [[ -n ${HOSTED_TEST_POSTGRES_URL:-} ]] || return 1
        DB=$HOSTED_TEST_POSTGRES_URL
    fi
    [[ -n ${KEYS[$1]:-} ]] && { KEY=${KEYS[$1]}; return 0; }
    HOSTED_DATABASE_URL=$DB "$HOSTED_BIN" migrate >/dev/null
    read -r _ KEY < <(create_account "$HOSTED_BIN" "$DB")
    KEYS[$1]=$KEY
    start "$DB" ""
    http_json POST "$BASE/v1/workflows" "$KEY" '{"key":"bench","name":"Bench","steps":[{"type":"selfie"}]}' 201 >/dev/null
    stop_pid "$PID"
}
declare -A KEYS=()

printf 'case\trow\ton (req/s per round)\toff (req/s per round)\tmedian on\tmedian off\tgain\tµs/req on\tµs/req off\tCPU saved\n'
for name in "${SELECTED[@]}"; do
    [[ -n ${CASES[$name]:-} ]] || die "unknown case $name (see --help)"
    read -r store kind always measured <<<"${CASES[$name]}"
    setup "$store" || { log "$name: skipped (no HOSTED_TEST_POSTGRES_URL)"; continue; }
    [[ $always == - ]] && always=""
    on=() off=() cpu_on=() cpu_off=()
    for round in $(seq "$ROUNDS"); do
        # Odd rounds start with the memo on, even rounds with it off: drift hits both arms alike.
        arms=(on off)
        (( round % 2 == 0 )) && arms=(off on)
        for arm in "${arms[@]}"; do
            disabled=$always
            [[ $arm == off ]] && disabled=${always:+$always,}$measured
            start "$DB" "$disabled"
            result=$(load "$kind" "memos-$name-$round-$arm-$RANDOM")
            stop_pid "$PID"
            read -r rate errors cpu <<<"$result"
            [[ $errors == 0 ]] || log "$name round $round $arm: $errors errors"
            log "$name round $round $arm (HOSTED_DISABLE_MEMOS=$disabled): $rate req/s, $cpu µs of hosted's CPU per request"
            if [[ $arm == on ]]; then on+=("$rate"); cpu_on+=("$cpu"); else off+=("$rate"); cpu_off+=("$cpu"); fi
        done
    done
    python3 - "$name" "$kind" "${on[*]}" "${off[*]}" "${cpu_on[*]}" "${cpu_off[*]}" <<'PY'
import statistics, sys
name, kind = sys.argv[1], sys.argv[2]
on, off, cpu_on, cpu_off = ([float(x) for x in arg.split()] for arg in sys.argv[3:7])
a, b = statistics.median(on), statistics.median(off)
c, d = statistics.median(cpu_on), statistics.median(cpu_off)
print(f"{name}\t{kind}\t{', '.join(f'{x:.0f}' for x in on)}\t{', '.join(f'{x:.0f}' for x in off)}\t{a:.0f}\t{b:.0f}"
      f"\t{100 * (a - b) / b:+.0f}%\t{c:.1f}\t{d:.1f}\t{100 * (d - c) / d:+.0f}%")
PY
done
