#!/usr/bin/env bash
# Figures at scale (issue 41): one account with a million verifications and five million events
# in PostgreSQL, measured in the same run against the same figures on a database of a thousand.
# Everything runs on this machine (2 cores shared by wrk, hosted and PostgreSQL).
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/scale.sh

Builds the release binary (or takes BENCH_HOSTED_BIN), starts a throwaway PostgreSQL
(scripts/with-postgres.sh, shared_buffers raised), and makes two databases of one account each:
  small   BENCH_SMALL verifications (default 1000)
  big     BENCH_BIG verifications (default 1000000)
each from one verification created through the API and cloned in bulk SQL with five events per
verification forming valid hash chains (bench/scale-load.sql; one in 20 submitted). Then, on
each database, with hosted serving it:
  poll        GET /v1/verifications/{id}, flat out and at about half that rate (p99)
  pgbench     the poll's one-row select (bench/pgbench-select.sql) at the same concurrency
  list        GET /v1/verifications?user_id=…, flat out and at half (a user in the middle)
  events      GET /v1/events?limit=100&starting_after=… (a cursor in the middle of the feed)
  queue       GET /console/api/queue (an operator's session; the submitted verifications)
and on the big one:
  sweeper     10,000 verifications fall due while the poll runs at half load: how long the
              sweeper takes to expire them, and the poll's p99 during it against just before
  audit       hosted audit verify over every chain: events per second
and at the end the poll on each database in turn, BENCH_POLL_ROUNDS times (the big/small goal).
Prints the tables for docs/performance.md ("Figures at scale").

Environment:
  BENCH_DURATION  wrk duration per row (default 10s); BENCH_WARMUP (default 2s)
  BENCH_THREADS / BENCH_CONNECTIONS  wrk threads and connections (default 2 / 4: the lists, as
                  the issue measured them)
  BENCH_POLL_CONNECTIONS  connections of the poll and pgbench rows (default 64, as bench/run.sh)
  BENCH_BIG / BENCH_SMALL  verifications in each database
  BENCH_DUE       verifications that fall due for the sweeper (default 10000)
  BENCH_POLL_ROUNDS  rounds of the two polls in turn at the end, for the big/small goal (default 3)
  BENCH_PERF      1: perf record -a -g of 15 s of the sweep, after the poll's run, and of the
                  audit, written to BENCH_PERF_DIR (default /tmp) as perf-sweep.data and
                  perf-audit.data (the audit's figure then includes perf's own cost)
  BENCH_SCALE_PARTS  all (default), or sweeper: the big database's flat-out poll and the
                  sweeper rows only (no lists, audit or small database), to study the sweep
  BENCH_HOSTED_BIN  the hosted binary (default: .build/release/hosted, built if missing)
EOF
}

MODE=outer
case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    --postgres-phase) MODE=scale ;;
    "") ;;
    *) usage >&2; exit 2 ;;
esac

cd "$(dirname "$0")/.."
REPO=$(pwd)

if [[ $MODE == outer ]]; then
    HOSTED_BIN=${BENCH_HOSTED_BIN:-$REPO/.build/release/hosted}
    if [[ -z ${BENCH_HOSTED_BIN:-} ]]; then
        swift build -c release --product hosted >&2
    fi
    [[ -x $HOSTED_BIN ]] || { echo "bench: no hosted binary at $HOSTED_BIN" >&2; exit 1; }
    export BENCH_HOSTED_BIN=$HOSTED_BIN
    exec bash scripts/with-postgres.sh bash bench/scale.sh --postgres-phase
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hosted-scale.XXXXXX")
# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"

HOSTED_BIN=$BENCH_HOSTED_BIN
DURATION=${BENCH_DURATION:-10s}
WARMUP=${BENCH_WARMUP:-2s}
THREADS=${BENCH_THREADS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-4}
POLL_CONNECTIONS=${BENCH_POLL_CONNECTIONS:-64}
BIG=${BENCH_BIG:-1000000}
SMALL=${BENCH_SMALL:-1000}
DUE=${BENCH_DUE:-10000}
PARTS=${BENCH_SCALE_PARTS:-all}
POLL_ROUNDS=${BENCH_POLL_ROUNDS:-3}
[[ $PARTS == all || $PARTS == sweeper ]] || die "BENCH_SCALE_PARTS is all or sweeper"
PG_BIN=${HOSTED_TEST_PG_BIN:-/usr/lib/postgresql/15/bin}
PGBENCH=$PG_BIN/pgbench
[[ -x $PGBENCH ]] || PGBENCH=$(command -v pgbench)
command -v wrk >/dev/null || die "wrk is not installed (apt-get install wrk)"
# Every poll counted, none refused (bench/run.sh says why 1000/s).
export HOSTED_POLL_RATE=1000 HOSTED_POLL_BURST=1000000
SERVER_URL=${HOSTED_TEST_POSTGRES_URL%/*}
RESULTS=$WORK/results.tsv
: >"$RESULTS"

json_field() { python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
psql_at() { "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$1" "${@:2}"; }
seconds() { local d=$1; d=${d%s}; echo "$d"; }

# The server holds the big database in memory, as a production one would.
psql_at "$SERVER_URL/postgres" -c "ALTER SYSTEM SET shared_buffers = '3GB'" \
    -c "ALTER SYSTEM SET maintenance_work_mem = '512MB'" -c "ALTER SYSTEM SET max_wal_size = '16GB'" \
    -c "ALTER SYSTEM SET checkpoint_timeout = '30min'" -c "ALTER SYSTEM SET work_mem = '64MB'"
"$HOSTED_TEST_PG_RESTART" >/dev/null
psql_at "$SERVER_URL/postgres" -c 'CREATE DATABASE hosted_small'

# start_node URL NAME [ENV…]: hosted serve on URL; sets HOSTED_PID, HOSTED_BASE.
start_node() {
    local db=$1 name=$2 port
    shift 2
    port=$(free_port)
    HOSTED_BASE="http://127.0.0.1:$port"
    env "$@" HOSTED_DATABASE_URL="$db" HOSTED_LISTEN="127.0.0.1:$port" HOSTED_PUBLIC_URL="$HOSTED_BASE" \
        "$HOSTED_BIN" serve >"$WORK/hosted-$name.log" 2>&1 &
    HOSTED_PID=$!
    PIDS+=("$HOSTED_PID")
    wait_http "$HOSTED_BASE/healthz" "$HOSTED_PID" "hosted ($name)"
}

# wrk_row NAME URL [WRK_ARG…]: warm-up, then a timed run; appends NAME, req/s, p50, p99, errors.
wrk_row() {
    local name=$1 url=$2 out
    shift 2
    [[ $WARMUP == 0 ]] || wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$@" "$url" >/dev/null
    out="$WORK/wrk-$(date +%s%N).txt"
    log "wrk $name"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" "$url" >"$out"
    printf '%s\t%s\n' "$name" "$(wrk_summary "$out")" >>"$RESULTS"
}

rate_of() { awk -F'\t' -v row="$1" '$1 == row { print $2 }' "$RESULTS" | tail -n 1; }

# pair NAME URL [WRK_ARG…]: flat out, then at about half that rate (each connection pauses so
# that all of them offer half the peak, as bench/run.sh does).
pair() {
    local name=$1 url=$2 peak pause
    shift 2
    wrk_row "$name" "$url" "$@"
    peak=$(rate_of "$name")
    pause=$(python3 -c 'import sys; print(max(0, round(1000 * int(sys.argv[2]) / (float(sys.argv[1]) / 2))))' "${peak:-1}" "$CONNECTIONS")
    BENCH_DELAY_MS=$pause wrk_row "$name, half load" "$url" "$@" -s "$REPO/bench/half-load.lua"
}

# totp SECRET: the current RFC 6238 code (SHA-1, 30 s, 6 digits).
totp() {
    python3 - "$1" <<'PY'
import base64, hmac, struct, sys, time
secret = "".join(c for c in sys.argv[1] if c not in " =-").upper()
key = base64.b32decode(secret + "=" * (-len(secret) % 8))
mac = hmac.new(key, struct.pack(">Q", int(time.time()) // 30), "sha1").digest()
offset = mac[-1] & 15
print("%06d" % ((struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 1000000))
PY
}

# console_cookie ACCOUNT: an operator of ACCOUNT set up and signed in; prints the session cookie.
console_cookie() {
    local account=$1 created token secret password=Bench-Scale-Tamarind-1 step
    created=$(HOSTED_DATABASE_URL=$DB HOSTED_PUBLIC_URL=$HOSTED_BASE "$HOSTED_BIN" operators create \
        --account "$account" --email "bench-$RANDOM@scale.example.com" --role admin)
    token=$(json_field setup_url <<<"$created"); token=${token#*#token=}
    local enrolment email
    enrolment=$(curl -sS -f -X POST -H "Origin: $HOSTED_BASE" -H 'Content-Type: application/json' \
        --data "{\"token\":\"$token\"}" "$HOSTED_BASE/console/api/setup") || die "console setup: no enrolment"
    secret=$(json_field secret <<<"$enrolment")
    email=$(json_field email <<<"$enrolment")
    curl -sS -f -o /dev/null -X POST -H "Origin: $HOSTED_BASE" -H 'Content-Type: application/json' \
        --data "{\"token\":\"$token\",\"password\":\"$password\",\"code\":\"$(totp "$secret")\"}" \
        "$HOSTED_BASE/console/api/setup/complete" || die "console setup failed"
    # A code's step counts as used: sign in with the next one.
    step=$(( $(date +%s) / 30 ))
    while (( $(date +%s) / 30 == step )); do sleep 1; done
    curl -sS -f -D "$WORK/session.headers" -o /dev/null -X POST -H "Origin: $HOSTED_BASE" -H 'Content-Type: application/json' \
        --data "{\"email\":\"$email\",\"password\":\"$password\",\"code\":\"$(totp "$secret")\"}" \
        "$HOSTED_BASE/console/api/session" || die "console sign-in failed"
    grep -i '^set-cookie: hosted_console=' "$WORK/session.headers" | sed 's/^[^=]*=//; s/;.*//' | tr -d '\r'
}

# prepare URL COUNT NAME: an account, a workflow and one verification through the API, cloned to
# COUNT verifications in bulk; sets ACCOUNT_ID, API_KEY, TEMPLATE.
prepare() {
    local db=$1 count=$2 name=$3 started
    DB=$db
    start_node "$db" "$name-setup"
    read -r ACCOUNT_ID API_KEY <<<"$(create_account "$HOSTED_BIN" "$db")"
    http_json POST "$HOSTED_BASE/v1/workflows" "$API_KEY" '{"key":"scale","name":"Scale","steps":[{"type":"selfie"}]}' 201 >/dev/null
    TEMPLATE=$(http_json POST "$HOSTED_BASE/v1/verifications" "$API_KEY" \
        '{"user_id":"scale-template","workflow":"scale","mobile":"+919876543210"}' 201 | json_field id)
    stop_pid "$HOSTED_PID"
    started=$(date +%s.%N)
    # The clones' user_key is the keyed hash the service looks users up by (docs/personal-data.md).
    local lookup
    lookup=$(python3 -c 'import hashlib, hmac, sys; print(hmac.new(sys.argv[1].encode(), b"hosted/lookup-keys/v1", hashlib.sha256).hexdigest())' "$HOSTED_SECRET_KEY")
    psql_at "$db" -c 'CREATE EXTENSION IF NOT EXISTS pgcrypto' >/dev/null
    # Two sessions, half the verifications each (two cores).
    local half=$(( (count + 1) / 2 ))
    psql_at "$db" -v tpl="$TEMPLATE" -v n="$count" -v from=1 -v to="$half" -v submitted_every=20 -v lookup="$lookup" \
        -f "$REPO/bench/scale-load.sql" >&2 &
    local first=$!
    psql_at "$db" -v tpl="$TEMPLATE" -v n="$count" -v from=$((half + 1)) -v to="$count" -v submitted_every=20 -v lookup="$lookup" \
        -f "$REPO/bench/scale-load.sql" >&2 || die "loading $name failed"
    wait "$first" || die "loading $name failed"
    psql_at "$db" -c 'VACUUM ANALYZE' >&2
    printf '%s\t%s\n' "$name" "$(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.0f}')" "$started")" >>"$WORK/load.tsv"
    log "$name: $(psql_at "$db" -c 'SELECT count(*) FROM verifications') verifications, $(psql_at "$db" -c 'SELECT count(*) FROM events') events, $(psql_at "$db" -c "SELECT pg_size_pretty(pg_database_size(current_database()))")"
}

# measure URL COUNT NAME: the rows of one database.
measure() {
    local db=$1 count=$2 name=$3 cookie user cursor
    prepare "$db" "$count" "$name"
    start_node "$db" "$name"
    if [[ $PARTS == sweeper ]]; then
        # Only the peak the sweeper's half load is taken from.
        CONNECTIONS=$POLL_CONNECTIONS wrk_row "$name: poll GET /v1/verifications/{id}" "$HOSTED_BASE/v1/verifications/$TEMPLATE" \
            -H "Authorization: Bearer $API_KEY"
        stop_pid "$HOSTED_PID"
        return
    fi
    cookie=$(console_cookie "$ACCOUNT_ID")
    user="scale-user-$((count / 2))"
    cursor=$(psql_at "$db" -c "SELECT id FROM events WHERE sequence = 3 AND verification_id = (SELECT id FROM verifications WHERE user_id = '$user')")
    CONNECTIONS=$POLL_CONNECTIONS pair "$name: poll GET /v1/verifications/{id}" "$HOSTED_BASE/v1/verifications/$TEMPLATE" \
        -H "Authorization: Bearer $API_KEY"
    "$PGBENCH" -c "$POLL_CONNECTIONS" -j "$THREADS" -M prepared -n -f "$REPO/bench/pgbench-select.sql" -T "$(seconds "$DURATION")" \
        -D verification_id="$TEMPLATE" -D account_id="$ACCOUNT_ID" "$db" >"$WORK/pgbench-$name.out" 2>&1 ||
        log "pgbench ($name) failed: $(tail -n 5 "$WORK/pgbench-$name.out")"
    printf '%s\t%s\t-\t%s\t0\n' "$name: pgbench one-row select" \
        "$(awk '/^tps/ { printf "%.0f", $3 }' "$WORK/pgbench-$name.out")" \
        "$(awk '/^latency average/ { print $4 " ms (average)" }' "$WORK/pgbench-$name.out")" >>"$RESULTS"
    pair "$name: list GET /v1/verifications?user_id=" "$HOSTED_BASE/v1/verifications?user_id=$user" -H "Authorization: Bearer $API_KEY"
    pair "$name: events GET /v1/events?limit=100&starting_after=" "$HOSTED_BASE/v1/events?limit=100&starting_after=$cursor" \
        -H "Authorization: Bearer $API_KEY"
    pair "$name: console queue GET /console/api/queue" "$HOSTED_BASE/console/api/queue" -H "Cookie: hosted_console=$cookie"
    stop_pid "$HOSTED_PID"
}

# cpu_ticks PID: "hosted postgres" CPU ticks so far: PID's, and all the postmaster's children's.
cpu_ticks() {
    local pg=0 pid postmaster
    postmaster=$(head -n 1 "$HOSTED_TEST_PG_DATA/postmaster.pid")
    for pid in $(pgrep -P "$postmaster"); do
        [[ -r /proc/$pid/stat ]] && pg=$(( pg + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0) ))
    done
    echo "$(awk '{ print $14 + $15 }' "/proc/$1/stat") $pg"
}

# sweeper URL: DUE verifications fall due while the poll runs at half load.
sweeper() {
    local db=$1 due_at pause peak first="" done_at="" t0 remaining sealed CONNECTIONS=$POLL_CONNECTIONS
    # The rows that fall due are made as real ones are: the clones are written like rows from
    # before migration 0029 (clear columns, no data key), and `hosted migrate` seals them, as
    # an upgrade does (each gets its data key and its sealed personal fields).
    psql_at "$db" -c "CREATE TABLE bench_due AS SELECT id FROM verifications WHERE status = 'created' AND user_id LIKE 'scale-user-%' ORDER BY id LIMIT $DUE" \
        -c "UPDATE verifications SET user_key = NULL WHERE id IN (SELECT id FROM bench_due)" >/dev/null
    sealed=$(HOSTED_DATABASE_URL=$db "$HOSTED_BIN" migrate | json_field sealed)
    [[ $sealed == "$DUE" ]] || die "hosted migrate sealed $sealed of the $DUE rows that fall due"
    start_node "$db" big-sweeper HOSTED_SWEEP_INTERVAL=1
    peak=$(rate_of "big: poll GET /v1/verifications/{id}")
    pause=$(python3 -c 'import sys; print(max(0, round(1000 * int(sys.argv[2]) / (float(sys.argv[1]) / 2))))' "${peak:-1}" "$CONNECTIONS")
    BENCH_DELAY_MS=$pause wrk_row "big: poll, half load, before the sweep" "$HOSTED_BASE/v1/verifications/$TEMPLATE" \
        -H "Authorization: Bearer $API_KEY" -s "$REPO/bench/half-load.lua"
    # Due 4 s from now: the poll's timed run covers the whole sweep.
    due_at=$(( $(date +%s%3N) + 4000 ))
    psql_at "$db" -c "UPDATE verifications SET expires_at = $due_at WHERE id IN (SELECT id FROM bench_due)" >/dev/null
    BENCH_DELAY_MS=$pause WARMUP=0 DURATION=20s wrk_row "big: poll, half load, during a sweep of $DUE due" \
        "$HOSTED_BASE/v1/verifications/$TEMPLATE" -H "Authorization: Bearer $API_KEY" -s "$REPO/bench/half-load.lua" &
    local wrk_pid=$! cpu_before
    if [[ ${BENCH_PERF:-0} == 1 ]]; then
        # The whole machine for 15 s of the sweep after the poll's run: hosted's and PostgreSQL's share.
        (sleep 26; perf record -a -g -F 999 -o "${BENCH_PERF_DIR:-/tmp}/perf-sweep.data" -- sleep 15 >/dev/null 2>&1) &
    fi
    cpu_before=$(cpu_ticks "$HOSTED_PID")
    # Up to about six minutes: the sweep is paced (BackgroundWork.pace). What is left is counted
    # on the expiry index, four times a second: a count over the table (a sequential scan of a
    # million rows by a new backend every 100 ms, as this loop did before) took a core from the
    # poll it measures.
    for _ in $(seq 1500); do
        remaining=$(psql_at "$db" -c "SELECT count(*) FROM verifications
            WHERE status IN ('created', 'in_progress', 'resubmission_requested') AND expires_at <= $due_at")
        t0=$(date +%s%3N)
        if [[ -z $first && $remaining -lt $DUE ]]; then first=$t0; fi
        if [[ $remaining == 0 ]]; then done_at=$t0; break; fi
        sleep 0.25
    done
    local cpu_after
    cpu_after=$(cpu_ticks "$HOSTED_PID")
    wait "$wrk_pid"
    printf 'sweeper: CPU over the sweep (hosted, with the poll it served; PostgreSQL'"'"'s backends): %s\n' \
        "$(python3 -c 'import sys; b, a, hz = sys.argv[1].split(), sys.argv[2].split(), int(sys.argv[3]); print(f"{(int(a[0]) - int(b[0])) / hz:.1f} s and {(int(a[1]) - int(b[1])) / hz:.1f} s")' \
            "$cpu_before" "$cpu_after" "$(getconf CLK_TCK)")  " >>"$WORK/notes.txt"
    printf 'sweeper: %s verifications due at once among %s: the first expired %s ms after they fell due, all %s ms after  \n' \
        "$DUE" "$BIG" "$(( ${first:-0} - due_at ))" "$(( ${done_at:-0} - due_at ))" >>"$WORK/notes.txt"
    stop_pid "$HOSTED_PID"
}

LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
measure "$HOSTED_TEST_POSTGRES_URL" "$BIG" big
BIG_TEMPLATE=$TEMPLATE BIG_API_KEY=$API_KEY
sweeper "$HOSTED_TEST_POSTGRES_URL"
if [[ $PARTS == all ]]; then
    audit_started=$(date +%s.%N)
    audit=(env HOSTED_DATABASE_URL="$HOSTED_TEST_POSTGRES_URL" "$HOSTED_BIN" audit verify)
    if [[ ${BENCH_PERF:-0} == 1 ]]; then
        audit=(perf record -a -g -F 999 -o "${BENCH_PERF_DIR:-/tmp}/perf-audit.data" -- "${audit[@]}")
    fi
    "${audit[@]}" >"$WORK/audit.json" || log "audit verify failed: $(cat "$WORK/audit.json")"
    python3 - "$WORK/audit.json" "$audit_started" >>"$WORK/notes.txt" <<'PY'
import json, sys, time
seconds = time.time() - float(sys.argv[2])
report = json.load(open(sys.argv[1]))
print(f"hosted audit verify: {report['events']} events in {report['chains']} chains, ok={report['ok']}, "
      f"{seconds:.1f} s: {report['events'] / seconds:,.0f} events/s (goal >= 200,000/s)  ")
PY
    small_url="${SERVER_URL}/hosted_small"
    measure "$small_url" "$SMALL" small
    # The two polls in turn, BENCH_POLL_ROUNDS times, one node on each database: the rows above
    # are minutes apart, and this machine's speed drifts by more than the goal's margin in that
    # time (pgbench's own select on the two databases differed by 38 % in one run).
    # Each row polls a verification of its own (a clone, on both databases alike): a poll's
    # budget is kept per verification in the database (HOSTED_POLL_BURST, at most a million),
    # and the templates have spent most of theirs on the rows above.
    pick="SELECT id FROM verifications WHERE status = 'created' AND id <> '$TEMPLATE' AND id <> '$BIG_TEMPLATE' ORDER BY id LIMIT $POLL_ROUNDS"
    mapfile -t big_ids < <(psql_at "$HOSTED_TEST_POSTGRES_URL" -c "$pick")
    mapfile -t small_ids < <(psql_at "$small_url" -c "$pick")
    (( ${#big_ids[@]} == POLL_ROUNDS && ${#small_ids[@]} == POLL_ROUNDS )) || die "not $POLL_ROUNDS verifications to poll on each database"
    start_node "$HOSTED_TEST_POSTGRES_URL" big-rounds
    big_pid=$HOSTED_PID big_base=$HOSTED_BASE
    start_node "$small_url" small-rounds
    small_pid=$HOSTED_PID small_base=$HOSTED_BASE
    for round in $(seq "$POLL_ROUNDS"); do
        order=(big small)
        (( round % 2 == 0 )) && order=(small big)
        for which in "${order[@]}"; do
            if [[ $which == big ]]; then
                CONNECTIONS=$POLL_CONNECTIONS wrk_row "rounds: big poll $round" "$big_base/v1/verifications/${big_ids[round - 1]}" \
                    -H "Authorization: Bearer $BIG_API_KEY"
            else
                CONNECTIONS=$POLL_CONNECTIONS wrk_row "rounds: small poll $round" "$small_base/v1/verifications/${small_ids[round - 1]}" \
                    -H "Authorization: Bearer $API_KEY"
            fi
        done
    done
    stop_pid "$big_pid"
    stop_pid "$small_pid"
fi

echo
echo "wrk -t$THREADS -d$DURATION on 127.0.0.1 (polls and pgbench: $POLL_CONNECTIONS connections; lists: $CONNECTIONS), $(nproc) cores shared by wrk, hosted and PostgreSQL"
echo
echo "| row | req/s | p50 | p99 | errors |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk -F'\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$RESULTS"
echo
python3 - "$RESULTS" <<'PY'
import sys
rows = {line.split("\t")[0]: line.rstrip("\n").split("\t") for line in open(sys.argv[1])}
def rate(name):
    try:
        return float(rows[name][1])
    except (KeyError, IndexError, ValueError):
        return None
poll = "poll GET /v1/verifications/{id}"
big, small, select = rate(f"big: {poll}"), rate(f"small: {poll}"), rate("big: pgbench one-row select")
if big and select:
    print(f"poll (big) / pgbench one-row select (big) = {100 * big / select:.0f}% (goal >= 60%)  ")
if big and small:
    print(f"poll (big) / poll (small), one row each, minutes apart = {100 * big / small:.0f}%  ")
import statistics
def rounds(which):
    return {name.rsplit(" ", 1)[1]: rate(name) for name in rows if name.startswith(f"rounds: {which} poll ")}
def errors(name):
    try:
        return int(rows[name][4])
    except (KeyError, IndexError, ValueError):
        return None
big_rounds, small_rounds = rounds("big"), rounds("small")
pairs = [(r, big_rounds[r], small_rounds[r]) for r in sorted(big_rounds, key=int) if big_rounds[r] and small_rounds.get(r)]
if pairs:
    ratios = [100 * b / s for _, b, s in pairs]
    bad = sum(errors(f"rounds: {w} poll {r}") or 0 for r, _, _ in pairs for w in ("big", "small"))
    print(f"poll (big) / poll (small), {len(pairs)} rounds in turn (median of the rounds' ratios) = "
          f"{statistics.median(ratios):.0f}% (goal >= 90%; rounds {', '.join(f'{x:.0f}' for x in ratios)}; "
          f"big {', '.join(f'{b:.0f}' for _, b, _ in pairs)}, small {', '.join(f'{s:.0f}' for _, _, s in pairs)} req/s"
          f"{'' if bad == 0 else f'; {bad} ERRORS: not a measurement'})  ")
for name, row in rows.items():
    if name.endswith("half load") and not name.startswith("big: poll, half"):
        print(f"{name}: p99 {row[3]} (goal <= 5 ms)  ")
def p99(prefix):
    for name, row in rows.items():
        if name.startswith(prefix):
            try:
                return float(row[3].split()[0])
            except (IndexError, ValueError):
                return None
before, during = p99("big: poll, half load, before the sweep"), p99("big: poll, half load, during a sweep")
if before and during:
    print(f"poll's p99 during the sweep / before = {during / before:.1f}x (goal <= 2x)  ")
PY
cat "$WORK/notes.txt"
awk -F'\t' '{ printf "loading %s: %s s  \n", $1, $2 }' "$WORK/load.tsv"
echo "load average (1, 5, 15 min) when the measurements began: $LOAD_AT_START; at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
