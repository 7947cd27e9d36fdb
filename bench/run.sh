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
  nginx static file, access log on   the same, writing a buffered access log (hosted
                           always writes one): the /healthz goal's baseline
  hosted GET /v1/verifications/{id}   SQLite and PostgreSQL, one verification polled,
                           at full load and at about half that rate (p99)
  hosted POST /v1/verifications       SQLite and PostgreSQL, idempotent repeat (200)
  sqlite raw read / create the statements behind those two requests in a loop on
                           the same SQLite file (bench/sqlite-raw.py), hosted stopped
  min-poll over SQLite     bench/min-poll.c --libmicrohttpd --sqlite on that file, once with each of
                           those statements: the least a front on hosted's HTTP library does per
                           request over the embedded store
  pgbench read / select / create   the SQL hosted runs for those requests, straight
                           against the same PostgreSQL database at the same concurrency
                           (bench/pgbench-read.sql, -select.sql, -create.sql)
  min-poll                 bench/min-poll.c (built with gcc): HTTP in, the poll's select, HTTP out,
                           nothing else, with hosted's default threads and connections: the
                           ceiling of any HTTP front for the poll on this machine
  min-poll on libmicrohttpd  the same with libmicrohttpd's sockets and HTTP, started with hosted's
                           flags: the ceiling of a front on the HTTP library hosted must use
  sizing                   the PostgreSQL poll again with HOSTED_THREADS = HOSTED_DB_POOL_SIZE
                           = each of BENCH_SIZING
and reports hosted's RSS (VmRSS) after startup and after the load, and how
close each API row gets to its reference row.

hosted runs with HOSTED_POLL_RATE / HOSTED_POLL_BURST raised (BENCH_POLL_RATE /
BENCH_POLL_BURST) so the per-verification poll limit still counts every GET but
does not answer 429. At that rate a poll lease is 100 polls (docs/performance.md):
one statement in 100 is the bucket's upsert with the read, the others the read alone.

Options:
  --baseline-only   only the nginx row (no build, no hosted)

Environment:
  BENCH_DURATION     wrk duration per row (default 10s)
  BENCH_WARMUP       untimed wrk run before each row (default 2s; 0 = none)
  BENCH_THREADS      wrk threads (default 2)
  BENCH_CONNECTIONS  wrk connections (default 64)
  BENCH_HOSTED_BIN   use this hosted binary instead of building .build/release/hosted
  BENCH_POLL_RATE    HOSTED_POLL_RATE for the PostgreSQL phase (default 1000;
                     above 1000 hosted's limiter step rounds to 0 ms and it rejects)
  BENCH_POLL_BURST   HOSTED_POLL_BURST for the PostgreSQL phase (default 1000000)
  BENCH_SIZING       worker/connection counts for the sizing rows (default "2 4 6 12";
                     empty: none)
  BENCH_ROUNDS       interleaved rounds of the poll, pgbench's select and both min-polls after the
                     main rows, each ratio reported as the median over them (default 3; 0 = none);
                     as many rounds of the SQLite poll and repeat create, each followed by the
                     Python loop of their statements;
                     each round also measures the CPU per request of hosted and of min-poll on
                     libmicrohttpd, then runs that loop once more spending hosted's extra user CPU
                     per poll (--work-us): if it lands where hosted does, that CPU is the gap
  BENCH_RAW_CONNECTIONS  threads (one connection each) of the SQLite raw loop (default 2)
  HOSTED_TEST_PG_BIN directory holding pgbench (default /usr/lib/postgresql/15/bin;
                     set by scripts/with-postgres.sh)
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
# 1000/s, not more: hosted turns the rate into whole milliseconds per poll (step =
# Int64(1000 / rate)), so above 1000/s the step is 0 ms, the tolerance step x burst is 0,
# and a poll whose clock reading is older than a concurrent poll's gets 429. At 1000/s
# the step is 1 ms and the tolerance 1000 s: no 429 until ~1e6 polls of the verification.
POLL_RATE=${BENCH_POLL_RATE:-1000}
POLL_BURST=${BENCH_POLL_BURST:-1000000}
SIZING=${BENCH_SIZING-2 4 6 12}
RAW_CONNECTIONS=${BENCH_RAW_CONNECTIONS:-2}
ROUNDS=${BENCH_ROUNDS:-3}
# Every hosted in this run polls at the raised limit (see the usage).
export HOSTED_POLL_RATE=$POLL_RATE HOSTED_POLL_BURST=$POLL_BURST
# The verification the PostgreSQL phase creates, polls and re-creates.
WORKFLOW_BODY='{"key":"bench","name":"Bench","steps":[{"type":"selfie"}]}'
VERIFICATION_BODY='{"user_id":"bench-user","workflow":"bench","mobile":"+919876543210"}'

# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"

rss() { awk '/^VmRSS:/ { printf "%.1f MiB", $2 / 1024 }' "/proc/$1/status"; }

# bench_row NAME URL [HEADER]: checks URL answers 200, then wrk_row with that header.
bench_row() {
    local name=$1 url=$2 header=${3:-}
    local hdr=()
    [[ -n "$header" ]] && hdr=(-H "$header")
    if ! http_get "$url" ${header:+"$header"} >/dev/null; then
        hosted_post_mortem
        die "$name: $url does not answer 200"
    fi
    wrk_row "$name" "$url" "${hdr[@]}"
}

# wrk_row NAME URL [WRK_ARG...]: runs wrk (untimed warm-up, then timed) with the extra
# arguments, and appends "NAME<TAB>req/s<TAB>p50<TAB>p99<TAB>errors" to the results file.
# With CPU_PID set, also appends "NAME<TAB>user us<TAB>kernel us" per request of that process
# during the timed run to cpu.tsv (from /proc/PID/stat).
wrk_row() {
    local name=$1 url=$2 out before after
    shift 2
    if [[ "$WARMUP" != 0 ]]; then
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" "$@" "$url" >/dev/null
    fi
    out="$WORK/wrk-$(date +%s%N).txt"
    log "wrk $name: $url (${DURATION}, ${THREADS} threads, ${CONNECTIONS} connections)"
    [[ -n ${CPU_PID:-} ]] && before=$(cpu_ticks "$CPU_PID")
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$@" "$url" | tee "$out" >&2
    if [[ -n ${CPU_PID:-} ]]; then
        after=$(cpu_ticks "$CPU_PID")
        python3 - "$name" "$out" "$before" "$after" "$(getconf CLK_TCK)" >>"$WORK/cpu.tsv" <<'PY'
import re, sys
name, path, before, after, tick = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split(), int(sys.argv[5])
done = re.search(r"^\s*(\d+) requests in", open(path).read(), re.M)
if done and int(done.group(1)) > 0:
    per = 1e6 / tick / int(done.group(1))
    print(f"{name}\t{(int(after[0]) - int(before[0])) * per:.1f}\t{(int(after[1]) - int(before[1])) * per:.1f}")
PY
    fi
    printf '%s\t%s\n' "$name" "$(wrk_summary "$out")" >>"$WORK/results.tsv"
}

# cpu_ticks PID: the process's user and kernel CPU time so far, in clock ticks.
cpu_ticks() {
    awk '{ print $14, $15 }' "/proc/$1/stat"
}

# hosted_post_mortem: when hosted has exited, logs its exit status and the end of its
# log without the 2xx/3xx access lines (the work dir is deleted on exit).
hosted_post_mortem() {
    local pid=${HOSTED_PID:-} state status=0 how=""
    [[ -n $pid ]] || return 0
    state=$(awk '/^State:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
    if [[ -z $state || $state == Z ]]; then
        wait "$pid" 2>/dev/null || status=$?
        if (( status > 128 )); then how=" (signal $((status - 128)))"; fi
        log "hosted (pid $pid) has exited with status $status$how"
    fi
    if [[ -f ${HOSTED_LOG:-} ]]; then
        log "end of $HOSTED_LOG without 2xx/3xx access lines:"
        grep -v '"status":[23][0-9][0-9]' "$HOSTED_LOG" | tail -n 20 >&2 || true
        log "last line: $(tail -n 1 "$HOSTED_LOG")"
    fi
}

# start_hosted DATABASE_URL NAME: starts `hosted serve`; sets HOSTED_PID, HOSTED_BASE.
start_hosted() {
    local db=$1 name=$2 port
    port=$(free_port)
    HOSTED_BASE="http://127.0.0.1:$port"
    HOSTED_LOG="$WORK/hosted-$name.log"
    HOSTED_DATABASE_URL=$db HOSTED_LISTEN="127.0.0.1:$port" \
        "$HOSTED_BIN" serve >"$HOSTED_LOG" 2>&1 &
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

# json_field NAME: prints that top-level field of the JSON object on stdin.
json_field() {
    python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# bench_verifications KEY STORE: creates the bench workflow and verification (sets
# VERIFICATION_ID), then the GET-by-id rows (full load, about half of it) and the
# idempotent-repeat POST row, named for STORE.
# create_verification KEY BODY: creates a verification (201) and prints its id.
create_verification() {
    local created id
    created=$(http_json POST "$HOSTED_BASE/v1/verifications" "$1" "$2" 201) ||
        die "could not create a bench verification"
    id=$(json_field id <<<"$created") || die "no id in the created verification"
    [[ $id =~ ^[A-Za-z0-9_]+$ ]] || die "unexpected verification id: $id"
    echo "$id"
}

bench_verifications() {
    local key=$1 store=$2 repeated
    local row_read="hosted GET /v1/verifications/{id} ($store)"
    local row_half="hosted GET /v1/verifications/{id} ($store, about half its peak rate)"
    local row_create="hosted POST /v1/verifications ($store, repeat)"
    http_json POST "$HOSTED_BASE/v1/workflows" "$key" "$WORKFLOW_BODY" 201 >/dev/null ||
        die "could not create the bench workflow"
    VERIFICATION_ID=$(create_verification "$key" "$VERIFICATION_BODY") || exit 1
    repeated=$(http_json POST "$HOSTED_BASE/v1/verifications" "$key" "$VERIFICATION_BODY" 200) ||
        die "repeating the create does not answer 200"
    [[ $(json_field id <<<"$repeated") == "$VERIFICATION_ID" ]] ||
        die "repeating the create returned another verification"

    bench_row "$row_read" "$HOSTED_BASE/v1/verifications/$VERIFICATION_ID" \
        "Authorization: Bearer $key"
    # The same poll at about half that rate: each connection pauses 1000 * CONNECTIONS /
    # (peak / 2) ms between requests, so CONNECTIONS connections offer at most peak / 2 per
    # second (a little less: each request's own latency adds to the pause).
    local peak p50 pause
    peak=$(awk -F'\t' -v row="$row_read" '$1 == row { print $2 }' "$WORK/results.tsv" | tail -n 1)
    p50=$(awk -F'\t' -v row="$row_read" '$1 == row { sub(/ ms/, "", $3); print $3 }' "$WORK/results.tsv" | tail -n 1)
    pause=$(python3 -c 'import sys; peak, p50, c = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]); print(max(0, round(1000 * c / (peak / 2))))' \
        "${peak:-0}" "${p50:-0}" "$CONNECTIONS" 2>/dev/null || echo 0)
    BENCH_DELAY_MS=$pause wrk_row "$row_half" "$HOSTED_BASE/v1/verifications/$VERIFICATION_ID" \
        -H "Authorization: Bearer $key" -s "$REPO/bench/half-load.lua"
    BENCH_API_KEY=$key BENCH_VERIFICATION_BODY=$VERIFICATION_BODY \
        wrk_row "$row_create" "$HOSTED_BASE/v1/verifications" \
        -s "$REPO/bench/post-verification.lua"
}

# bench_sqlite_raw DATABASE_FILE: the poll's and the repeat create's statements in a loop on
# the file hosted used (hosted stopped), as rows, and the API rows' ratios to them.
bench_sqlite_raw() {
    local file=$1 out
    out=$(python3 "$REPO/bench/sqlite-raw.py" "$file" "$VERIFICATION_ID" "$ACCOUNT_ID" bench-user bench \
        "$(seconds_of "$DURATION")" "$RAW_CONNECTIONS") || die "bench/sqlite-raw.py failed"
    log "sqlite raw: $out"
    printf '%s\n' "$out" >"$WORK/sqlite-raw.json"
    # The same statements behind the least an HTTP front on libmicrohttpd can do (min-poll).
    MIN_POLL_SQLITE=$file MIN_POLL_SQL=$(python3 "$REPO/bench/sqlite-raw.py" --sql read) \
        min_poll_row "$ROW_MIN_POLL_SQLITE_READ" "$VERIFICATION_ID" --libmicrohttpd
    MIN_POLL_SQLITE=$file MIN_POLL_SQL=$(python3 "$REPO/bench/sqlite-raw.py" --sql create) \
        MIN_POLL_PARAMS="$ACCOUNT_ID $(python3 "$REPO/bench/sqlite-raw.py" --user-key "$ACCOUNT_ID" bench-user) bench" \
        min_poll_row "$ROW_MIN_POLL_SQLITE_CREATE" "$VERIFICATION_ID" --libmicrohttpd
    python3 - "$WORK/results.tsv" "$RAW_CONNECTIONS" "$WORK/sqlite-raw.json" "$ROW_MIN_POLL_SQLITE_READ" \
        "$ROW_MIN_POLL_SQLITE_CREATE" "$ROW_SQLITE_READ" "$ROW_SQLITE_CREATE" >>"$WORK/ratios.txt" <<'PY'
import json, sys
results, connections, measured = sys.argv[1], sys.argv[2], sys.argv[3]
fronts = {"read": sys.argv[4], "create": sys.argv[5]}
rows = {line.split("\t")[0]: line.rstrip("\n").split("\t") for line in open(results)}
names = {"read": sys.argv[6], "create": sys.argv[7]}
goals = {"read": "goal >= 60%, floor 50%", "create": "goal >= 50%"}


def ratio(top, top_rate, bottom, bottom_rate, goal=""):
    try:
        a, b = float(top_rate), float(bottom_rate)
        print(f"{top} / {bottom} = {100 * a / b:.0f}% ({a:.0f} vs {b:.0f} per second){goal}  ")
    except (TypeError, ValueError, ZeroDivisionError):
        print(f"{top} / {bottom} = ? (a row is missing or has no rate)  ")


with open(results, "a") as out:
    for line in open(measured):
        raw = json.loads(line)
        statement = raw["statement"]
        label = f"sqlite raw {statement}: the same statement in a Python loop ({connections} connections)"
        out.write(f"{label}\t{raw['rows_per_second']}\t-\t-\t0\n")
        api = (rows.get(names[statement]) or [None, None])[1]
        front = (rows.get(fronts[statement]) or [None, None])[1]
        ratio(f"API {statement} (sqlite)", api, label, raw["rows_per_second"], f" ({goals[statement]})")
        ratio(f"API {statement} (sqlite)", api, fronts[statement], front)
        ratio(fronts[statement], front, label, raw["rows_per_second"])
PY
}

# bench_sqlite_rounds DATABASE_FILE: $ROUNDS more rounds of the SQLite poll and repeat create
# (hosted on that file, each round on a verification of its own), each followed by the Python
# loop of their statements with hosted stopped; each ratio reported as the median over them, as
# the PostgreSQL poll's are (one row is at the mercy of how wrk's connections fall on the workers).
bench_sqlite_rounds() {
    local file=$1 round id body out
    (( ROUNDS > 0 )) || return 0
    for round in $(seq "$ROUNDS"); do
        start_hosted "sqlite:$file" "sqlite-round-$round"
        body="{\"user_id\":\"bench-sqlite-round-$round\",\"workflow\":\"bench\",\"mobile\":\"+919876543210\"}"
        id=$(create_verification "$API_KEY" "$body") || exit 1
        wrk_row "round $round: $ROW_SQLITE_READ" "$HOSTED_BASE/v1/verifications/$id" -H "Authorization: Bearer $API_KEY"
        BENCH_API_KEY=$API_KEY BENCH_VERIFICATION_BODY=$body \
            wrk_row "round $round: $ROW_SQLITE_CREATE" "$HOSTED_BASE/v1/verifications" -s "$REPO/bench/post-verification.lua"
        stop_pid "$HOSTED_PID"
        out=$(python3 "$REPO/bench/sqlite-raw.py" "$file" "$id" "$ACCOUNT_ID" "bench-sqlite-round-$round" bench \
            "$(seconds_of "$DURATION")" "$RAW_CONNECTIONS") || die "bench/sqlite-raw.py failed"
        log "round $round: sqlite raw: $out"
        python3 - "$round" "$out" >>"$WORK/results.tsv" <<'PY'
import json, sys
for line in sys.argv[2].splitlines():
    raw = json.loads(line)
    print("round %s: sqlite raw %s\t%s\t-\t-\t0" % (sys.argv[1], raw["statement"], raw["rows_per_second"]))
PY
    done
    python3 - "$WORK/results.tsv" "$ROUNDS" "$ROW_SQLITE_READ" "$ROW_SQLITE_CREATE" >>"$WORK/ratios.txt" <<'PY'
import statistics, sys
path, rounds, read, create = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = {line.split("\t")[0]: line.rstrip("\n").split("\t") for line in open(path)}
def rate(name):
    try:
        return float(rows[name][1])
    except (KeyError, IndexError, ValueError):
        return None
for label, api, loop in [("SQLite poll / its read in a Python loop (goal >= 60%, floor 50%)", read, "read"),
                         ("SQLite repeat create / its read in a Python loop (goal >= 50%)", create, "create")]:
    pairs = [(rate(f"round {r}: {api}"), rate(f"round {r}: sqlite raw {loop}")) for r in range(1, rounds + 1)]
    values = [100 * a / b for a, b in pairs if a and b]
    if values:
        print(f"median of {len(values)} interleaved rounds: {label} = {statistics.median(values):.0f}% "
              f"(rounds: {', '.join(f'{v:.0f}%' for v in values)})  ")
    else:
        print(f"median of the interleaved rounds: {label} = ? (a round's row is missing)  ")
PY
}

# bench_sizing KEY: the PostgreSQL poll with HOSTED_THREADS = HOSTED_DB_POOL_SIZE = each of
# $SIZING, one hosted each, on the same database; each size polls a verification of its own (a
# fresh poll bucket: the burst of 10^6 ms at 1,000/s lasts about 100 s of polling at 10k/s).
bench_sizing() {
    local key=$1 size id
    for size in $SIZING; do
        HOSTED_THREADS=$size HOSTED_DB_POOL_SIZE=$size start_hosted "$HOSTED_TEST_POSTGRES_URL" "sizing-$size"
        id=$(create_verification "$key" \
            "{\"user_id\":\"bench-size-$size\",\"workflow\":\"bench\",\"mobile\":\"+919876543210\"}") || exit 1
        wrk_row "sizing: poll (postgresql), $size workers, $size connections" \
            "$HOSTED_BASE/v1/verifications/$id" -H "Authorization: Bearer $key"
        stop_pid "$HOSTED_PID"
    done
}

# bench_hosted_account NAME DATABASE_URL: hosted on that store, /v1/account row (and on
# PostgreSQL the verification rows), RSS. Sets ACCOUNT_ID and API_KEY.
bench_hosted_account() {
    local name=$1 db=$2 created
    start_hosted "$db" "$name"
    local rss_start=$RSS_START
    if [[ $name == sqlite ]]; then
        bench_row "hosted GET /healthz" "$HOSTED_BASE/healthz"
    fi
    created=$(create_account "$HOSTED_BIN" "$db") || die "could not create an account on $name"
    read -r ACCOUNT_ID API_KEY <<<"$created"
    [[ $ACCOUNT_ID =~ ^[A-Za-z0-9_]+$ ]] || die "unexpected account id: $ACCOUNT_ID"
    bench_row "hosted GET /v1/account ($name)" "$HOSTED_BASE/v1/account" \
        "Authorization: Bearer $API_KEY"
    bench_verifications "$API_KEY" "$name"
    printf '%s\t%s\t%s\n' "hosted ($name)" "$rss_start" "$(rss "$HOSTED_PID")" >>"$WORK/rss.tsv"
    stop_pid "$HOSTED_PID"
    if [[ $name == sqlite ]]; then
        bench_sqlite_raw "${db#sqlite:}"
        bench_sqlite_rounds "${db#sqlite:}"
    fi
}

# --- pgbench: the API's SQL without the API ------------------------------------
ROW_API_READ="hosted GET /v1/verifications/{id} (postgresql)"
ROW_API_CREATE="hosted POST /v1/verifications (postgresql, repeat)"
ROW_PG_READ="pgbench lease statement: poll bucket upsert + select (hosted runs it once per 100 polls)"
ROW_PG_SELECT="pgbench one-row select (reference)"
ROW_MIN_POLL="min-poll: a C loop doing only HTTP in, the poll's select, HTTP out (bench/min-poll.c, ceiling)"
ROW_MIN_POLL_MHD="min-poll on libmicrohttpd: the same on hosted's HTTP library and its flags (bench/min-poll.c --libmicrohttpd)"
ROW_MIN_POLL_WORK="min-poll on libmicrohttpd spending hosted's extra user CPU per poll (--work-us)"
ROW_PG_CREATE="pgbench create repeat: the open verification's read (1 statement, as hosted)"
ROW_SQLITE_READ="hosted GET /v1/verifications/{id} (sqlite)"
ROW_SQLITE_CREATE="hosted POST /v1/verifications (sqlite, repeat)"
ROW_MIN_POLL_SQLITE_READ="min-poll on libmicrohttpd over SQLite: the poll's read on the same file (bench/min-poll.c --libmicrohttpd --sqlite)"
ROW_MIN_POLL_SQLITE_CREATE="min-poll on libmicrohttpd over SQLite: the repeat create's read, as a GET (the same, --sqlite)"

# seconds_of DURATION: a wrk duration (10, 10s, 2m, 1h) in whole seconds, for pgbench -T.
seconds_of() {
    [[ $1 =~ ^([0-9]+)([smh]?)$ ]] || die "pgbench needs whole seconds; cannot convert duration '$1'"
    case ${BASH_REMATCH[2]} in
        m) echo $((BASH_REMATCH[1] * 60)) ;;
        h) echo $((BASH_REMATCH[1] * 3600)) ;;
        *) echo "${BASH_REMATCH[1]}" ;;
    esac
}

# psql_value SQL: runs SQL on the bench database, prints the unaligned result.
psql_value() {
    "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$HOSTED_TEST_POSTGRES_URL" -c "$1"
}

# pgbench_row NAME SCRIPT TAG [PGBENCH_ARG...]: untimed warm-up, then pgbench with SCRIPT
# at wrk's concurrency (-c connections, -j threads) for the row duration; appends
# "NAME<TAB>tps<TAB>latency average<TAB>-<TAB>errors<TAB>latency average" to the results
# file: pgbench reports no percentiles (and PostgreSQL 15's per-transaction log, -l,
# records 0 us for many transactions, so it cannot stand in). errors = failed
# transactions + aborted clients.
pgbench_row() {
    local name=$1 script=$2 tag=$3 out status=0
    shift 3
    local args=(-c "$CONNECTIONS" -j "$THREADS" -M prepared -n -f "$script" "$@")
    if (( WARMUP_SECONDS > 0 )); then
        "$PGBENCH" "${args[@]}" -T "$WARMUP_SECONDS" "$HOSTED_TEST_POSTGRES_URL" \
            >"$WORK/pgbench-$tag-warmup.out" 2>&1 ||
            log "$name: warm-up exited with status $? (the timed run shows why)"
    fi
    out="$WORK/pgbench-$tag.out"
    log "$name: $script (${PG_SECONDS}s, ${THREADS} threads, ${CONNECTIONS} clients)"
    "$PGBENCH" "${args[@]}" -T "$PG_SECONDS" "$HOSTED_TEST_POSTGRES_URL" >"$out" 2>&1 || status=$?
    cat "$out" >&2
    (( status == 0 )) || log "WARNING: $name exited with status $status (see above)"
    python3 - "$name" "$out" >>"$WORK/results.tsv" <<'PY'
import re, sys
name, path = sys.argv[1:3]
text = open(path).read()
tps = re.search(r"^tps = ([\d.]+) \(without initial connection time\)", text, re.M)
avg = re.search(r"^latency average = ([\d.]+) ms", text, re.M)
failed = re.search(r"^number of failed transactions: (\d+)", text, re.M)
# A client stops at its first error ("pgbench: error: client 3 script 0 command 0 ...").
aborted = set(re.findall(r"error: client (\d+) ", text)) | set(re.findall(r"client (\d+) [^\n]*aborted", text))
errors = (int(failed.group(1)) if failed else 0) + len(aborted)
average = f"{float(avg.group(1)):.2f} ms" if avg else "?"
print("\t".join([name, f"{float(tps.group(1)):.0f}" if tps else "?", f"avg {average}" if avg else "?", "-",
                 str(errors), average]))
PY
}

# bench_pgbench: the SQL behind the two verification rows, straight against the database
# (hosted stopped, its tables and rows left in place), then the API/pgbench ratios.
bench_pgbench() {
    local key_hash bucket now step tolerance new_id col
    # (mobile and metadata are sealed in `personal` since migration 0029: their columns are empty.)
    local cols=(workflow_version status steps revision)
    local -A row=()
    key_hash=$(python3 -c 'import hashlib, sys; print(hashlib.sha256(sys.argv[1].encode()).hexdigest())' "$API_KEY")
    bucket="poll:$ACCOUNT_ID:$VERIFICATION_ID"
    now=$(date +%s%3N)   # pgbench has no clock function: one fixed "now" per run
    # As RateLimitStore.take: step = Int64(1 / rate * 1000) ms, tolerance = step * burst.
    read -r step tolerance <<<"$(python3 -c '
import sys
step = int(1 / float(sys.argv[1]) * 1000)
print(step, step * int(sys.argv[2]))' "$POLL_RATE" "$POLL_BURST")"
    [[ -n $step && -n $tolerance ]] || die "could not derive the rate-limit step"
    # The variables must name the rows hosted itself used.
    [[ $(psql_value "SELECT count(*) FROM poll_limits WHERE bucket = '$bucket'") == 1 ]] ||
        die "no poll_limits row '$bucket': the bucket name differs from hosted's"
    [[ $(psql_value "SELECT count(*) FROM api_keys WHERE secret_hash = '$key_hash' AND account_id = '$ACCOUNT_ID'") == 1 ]] ||
        die "no api_keys row for the key's hash: the hash differs from hosted's"

    pgbench_row "$ROW_PG_READ" "$REPO/bench/pgbench-read.sql" read \
        -D "account_id=$ACCOUNT_ID" -D "verification_id=$VERIFICATION_ID" \
        -D "bucket=$bucket" -D "now=$now" -D "step=$step" -D "tolerance=$tolerance"
    pgbench_row "$ROW_PG_SELECT" "$REPO/bench/pgbench-select.sql" select \
        -D "account_id=$ACCOUNT_ID" -D "verification_id=$VERIFICATION_ID"

    # What hosted would insert for a repeat: the open row's values under an unused id
    # (hosted draws a fresh id per request; the insert conflicts before storing it).
    new_id=$(python3 -c '
import random, sys
prefix, _, body = sys.argv[1].partition("_")
print(prefix + "_" + "".join(random.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in body))' "$VERIFICATION_ID")
    for col in "${cols[@]}"; do
        row[$col]=$(psql_value "SELECT $col FROM verifications WHERE id = '$VERIFICATION_ID'") ||
            die "cannot read $col of $VERIFICATION_ID"
    done
    pgbench_row "$ROW_PG_CREATE" "$REPO/bench/pgbench-create.sql" create \
        -D "key_hash=$key_hash" -D "account_id=$ACCOUNT_ID" \
        -D "user_key=$(python3 "$REPO/bench/sqlite-raw.py" --user-key "$ACCOUNT_ID" bench-user)" \
        -D "workflow_key=bench" -D "new_id=$new_id" -D "now=$now" \
        -D "workflow_version=${row[workflow_version]}" -D "status=${row[status]}" \
        -D "steps=${row[steps]}" \
        -D "revision=${row[revision]}"
    [[ $(psql_value "SELECT count(*) FROM verifications WHERE account_id = '$ACCOUNT_ID'") == 1 ]] ||
        log "WARNING: pgbench create stored verifications (every insert should have conflicted)"

    python3 - "$WORK/results.tsv" "$ROW_API_READ" "$ROW_PG_READ" "$ROW_API_CREATE" "$ROW_PG_CREATE" "$ROW_PG_SELECT" \
        >>"$WORK/ratios.txt" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    fields = line.rstrip("\n").split("\t")
    rows[fields[0]] = fields
for what, api, pg in [("read", sys.argv[2], sys.argv[3]), ("create", sys.argv[4], sys.argv[5]),
                      ("read", sys.argv[2], sys.argv[6])]:
    try:
        a, p = float(rows[api][1]), float(rows[pg][1])
        print(f"API {what} / {pg} = {100 * a / p:.0f}% "
              f"({a:.0f} req/s vs {p:.0f} tps; pgbench latency average {rows[pg][5]})  ")
    except (KeyError, IndexError, ValueError, ZeroDivisionError):
        print(f"API {what} / {pg} = ? (a row is missing or has no rate)  ")
PY
    {
        echo "hosted ran with HOSTED_POLL_RATE=$POLL_RATE HOSTED_POLL_BURST=$POLL_BURST: the per-verification" \
            "poll limit counts every GET (a lease of 100 polls per upsert, docs/performance.md) but should" \
            "never reject (a 429 would show under errors). The POST rows repeat the open verification's create (200)."
        echo
        echo "pgbench rows: pgbench -c $CONNECTIONS -j $THREADS -M prepared -T $PG_SECONDS, hosted stopped," \
            "running the statements hosted runs per request (bench/pgbench-*.sql) as separate autocommit" \
            "statements; req/s = tps (without initial connection time); pgbench gives only the latency" \
            "average (shown under p50); errors = failed transactions + aborted clients. pgbench holds" \
            "$CONNECTIONS connections; hosted uses a pool of HOSTED_DB_POOL_SIZE (default one per HTTP worker, two per core = $((2 * $(nproc))))."
    } >>"$WORK/notes.txt"
}

# min_poll_row NAME VERIFICATION_ID [OPTIONS]: bench/min-poll.c (built with gcc on first
# use), the least an HTTP front can do per poll (read the request, the poll's select on one of its
# own connections, one response; no routing, authentication, poll limit, log or escaping), with
# hosted's default workers and connections, polling that verification of the bench account as a
# wrk row (hosted stopped). With --libmicrohttpd its HTTP is libmicrohttpd's, started as hosted
# starts it: what the library hosted must use costs on its own; with --work-us N each request
# also spends N us of CPU.
#
# On SQLite (MIN_POLL_SQLITE=FILE): the same fronts over that file, running MIN_POLL_SQL with the
# parameters MIN_POLL_PARAMS (default: the verification's id and the account's).
min_poll_row() {
    local name=$1 id=$2 front=${3:-} bin=$WORK/min-poll port pid sql database workers=$((2 * $(nproc)))
    local params=(${MIN_POLL_PARAMS:-$id $ACCOUNT_ID})
    if [[ ! -x $bin ]]; then
        gcc -O2 -Wall -Werror -o "$bin" "$REPO/bench/min-poll.c" $(pkg-config --cflags --libs libpq libmicrohttpd sqlite3) -lpthread ||
            die "cannot build bench/min-poll.c"
    fi
    if [[ -n ${MIN_POLL_SQLITE:-} ]]; then
        database=$MIN_POLL_SQLITE sql=$MIN_POLL_SQL front="$front --sqlite"
    else
        # The poll's read exactly as pgbench runs it, with $1/$2 for pgbench's variables.
        database=$HOSTED_TEST_POSTGRES_URL
        sql=$(grep -v '^--' "$REPO/bench/pgbench-select.sql" | tr '\n' ' ' |
            sed 's/:verification_id/$1/; s/:account_id/$2/; s/\\gset v_//')
    fi
    port=$(free_port)
    # shellcheck disable=SC2086  # front: zero or more options
    "$bin" $front "$port" "$workers" "$database" "$sql" "${params[@]}" \
        >"$WORK/min-poll.log" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    wait_http "http://127.0.0.1:$port/" "$pid" "min-poll"
    http_get "http://127.0.0.1:$port/" | grep -q "\"id\":\"$id\"" ||
        die "min-poll does not answer with the polled row"
    CPU_PID=$pid wrk_row "$name" "http://127.0.0.1:$port/"
    stop_pid "$pid"
}

# bench_min_poll: the min-poll rows on the polled verification; then how far the select's rate
# is reachable at all through HTTP on this machine, with and without hosted's HTTP library, and
# how close hosted's poll comes to that.
bench_min_poll() {
    min_poll_row "$ROW_MIN_POLL" "$VERIFICATION_ID"
    min_poll_row "$ROW_MIN_POLL_MHD" "$VERIFICATION_ID" --libmicrohttpd
    python3 - "$WORK/results.tsv" "$ROW_API_READ" "$ROW_MIN_POLL" "$ROW_PG_SELECT" "$ROW_MIN_POLL_MHD" >>"$WORK/ratios.txt" <<'PY'
import sys
rows = {line.split("\t")[0]: line.rstrip("\n").split("\t") for line in open(sys.argv[1])}
poll, ceiling, select, library = sys.argv[2:6]
for top, bottom in [(ceiling, select), (library, select), (poll, ceiling), (poll, library)]:
    try:
        a, b = float(rows[top][1]), float(rows[bottom][1])
        print(f"{top} / {bottom} = {100 * a / b:.0f}% ({a:.0f} vs {b:.0f} per second)  ")
    except (KeyError, IndexError, ValueError, ZeroDivisionError):
        print(f"{top} / {bottom} = ? (a row is missing or has no rate)  ")
PY
}

# bench_rounds KEY: $ROUNDS more rounds of the poll's three rows, interleaved (hosted's poll,
# pgbench's select, min-poll), each round on a fresh verification (a fresh poll bucket), then
# each ratio's median with every round's value. One run's single rows drift by +-30% on a
# shared VM; interleaving puts each round's three rows under the same drift.
bench_rounds() {
    local key=$1 round id extra
    (( ROUNDS > 0 )) || return 0
    for round in $(seq "$ROUNDS"); do
        start_hosted "$HOSTED_TEST_POSTGRES_URL" "round-$round"
        id=$(create_verification "$key" \
            "{\"user_id\":\"bench-round-$round\",\"workflow\":\"bench\",\"mobile\":\"+919876543210\"}") || exit 1
        CPU_PID=$HOSTED_PID wrk_row "round $round: $ROW_API_READ" "$HOSTED_BASE/v1/verifications/$id" \
            -H "Authorization: Bearer $key"
        stop_pid "$HOSTED_PID"
        pgbench_row "round $round: $ROW_PG_SELECT" "$REPO/bench/pgbench-select.sql" "select-round-$round" \
            -D "account_id=$ACCOUNT_ID" -D "verification_id=$id"
        min_poll_row "round $round: $ROW_MIN_POLL" "$id"
        min_poll_row "round $round: $ROW_MIN_POLL_MHD" "$id" --libmicrohttpd
        # The same loop made to spend the user CPU per poll hosted spent beyond it this round.
        extra=$(awk -F'\t' -v a="round $round: $ROW_API_READ" -v b="round $round: $ROW_MIN_POLL_MHD" '
            $1 == a { h = $2 } $1 == b { m = $2 } END { if (h != "" && m != "") printf "%d", (h > m ? h - m + 0.5 : 0) }' \
            "$WORK/cpu.tsv")
        if [[ -n $extra ]]; then
            min_poll_row "round $round: $ROW_MIN_POLL_WORK" "$id" "--libmicrohttpd --work-us $extra"
            printf 'round %s: %s\t%s\n' "$round" "$ROW_MIN_POLL_WORK" "$extra" >>"$WORK/work.tsv"
        fi
    done
    python3 - "$WORK/results.tsv" "$ROUNDS" "$ROW_API_READ" "$ROW_PG_SELECT" "$ROW_MIN_POLL" "$ROW_MIN_POLL_MHD" \
        "$ROW_MIN_POLL_WORK" "$WORK/cpu.tsv" "$WORK/work.tsv" >>"$WORK/ratios.txt" <<'PY'
import os, statistics, sys
path, rounds, poll, select, ceiling, library, replay, cpu_path, work_path = sys.argv[1], int(sys.argv[2]), *sys.argv[3:10]
rows = {line.split("\t")[0]: line.rstrip("\n").split("\t") for line in open(path)}
def table(p):
    return {line.split("\t")[0]: line.rstrip("\n").split("\t")[1:] for line in open(p)} if os.path.exists(p) else {}
cpu, work = table(cpu_path), table(work_path)
# CPU per request of the front (user, kernel; PostgreSQL's backends not counted), per round.
for name in (poll, library, replay):
    spent = [cpu.get(f"round {r}: {name}") for r in range(1, rounds + 1)]
    spent = [s for s in spent if s]
    if spent:
        extra = [work[f"round {r}: {name}"][0] for r in range(1, rounds + 1) if f"round {r}: {name}" in work]
        added = f"; --work-us per round: {', '.join(extra)}" if extra else ""
        print(f"CPU per request of {name}: user {', '.join(s[0] for s in spent)} us; "
              f"kernel {', '.join(s[1] for s in spent)} us (one value per round{added})  ")
def rate(round, name):
    try:
        return float(rows[f"round {round}: {name}"][1])
    except (KeyError, IndexError, ValueError):
        return None
for label, top, bottom in [("poll / pgbench select (goal >= 60%, floor 50%)", poll, select),
                           ("min-poll / pgbench select (the ceiling)", ceiling, select),
                           ("min-poll on libmicrohttpd / pgbench select (the library's ceiling)", library, select),
                           ("poll / min-poll", poll, ceiling),
                           ("poll / min-poll on libmicrohttpd", poll, library),
                           ("poll / min-poll on libmicrohttpd spending hosted's extra user CPU", poll, replay)]:
    values = [100 * a / b for a, b in ((rate(r, top), rate(r, bottom)) for r in range(1, rounds + 1)) if a and b]
    if values:
        print(f"median of {len(values)} interleaved rounds: {label} = {statistics.median(values):.0f}% "
              f"(rounds: {', '.join(f'{v:.0f}%' for v in values)})  ")
    else:
        print(f"median of the interleaved rounds: {label} = ? (a round's row is missing)  ")
PY
}

HOSTED_BIN=${BENCH_HOSTED_BIN:-$REPO/.build/release/hosted}

# --- PostgreSQL phase (inside scripts/with-postgres.sh) -----------------------
if [[ $MODE == postgres ]]; then
    WORK=${BENCH_WORK:?BENCH_WORK must be set by the outer bench/run.sh}
    [[ -n "${HOSTED_TEST_POSTGRES_URL:-}" ]] || die "HOSTED_TEST_POSTGRES_URL not set"
    PG_BIN=${HOSTED_TEST_PG_BIN:-/usr/lib/postgresql/15/bin}
    PGBENCH=$PG_BIN/pgbench
    [[ -x $PGBENCH ]] || die "pgbench not found at $PGBENCH"
    PG_SECONDS=$(seconds_of "$DURATION")
    WARMUP_SECONDS=$(seconds_of "$WARMUP")
    bench_hosted_account postgresql "$HOSTED_TEST_POSTGRES_URL"
    bench_pgbench
    bench_min_poll
    bench_rounds "$API_KEY"
    bench_sizing "$API_KEY"
    exit 0
fi

# --- outer run ----------------------------------------------------------------
bash scripts/setup-debian.sh wrk nginx-light curl
command -v wrk >/dev/null || die "wrk not found"
command -v curl >/dev/null || die "curl not found"
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
: >"$WORK/ratios.txt"
: >"$WORK/notes.txt"
: >"$WORK/cpu.tsv"
: >"$WORK/work.tsv"

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
# nginx_row NAME: starts nginx with $WORK/nginx/nginx.conf, runs the static-file row, stops it.
nginx_row() {
    "$NGINX" -p "$WORK/nginx/" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" &
    NGINX_PID=$!
    PIDS+=("$NGINX_PID")
    wait_http "http://127.0.0.1:$NGINX_PORT/healthz" "$NGINX_PID" nginx
    bench_row "$1" "http://127.0.0.1:$NGINX_PORT/healthz"
    stop_pid "$NGINX_PID"
}
nginx_row "nginx static file (${STATIC_BYTES} B)"
# The same with an access log, buffered as hosted buffers its own (64 KiB, flushed every second).
sed -i "s|access_log off;|access_log $WORK/nginx/access.log combined buffer=64k flush=1s;|" "$WORK/nginx/nginx.conf"
nginx_row "nginx static file (${STATIC_BYTES} B), access log on"

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
awk -F'\t' '$1 !~ /^round / { printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$WORK/results.tsv"
if grep -q '^round ' "$WORK/results.tsv"; then
    echo
    echo "Interleaved rounds (the poll, pgbench's select and both min-polls, each round on a fresh verification):"
    echo
    echo "| round: target | req/s | p50 | p99 | errors |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    awk -F'\t' '$1 ~ /^round / { printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$WORK/results.tsv"
fi
# #16's goals: /healthz at least 95 % of nginx serving a file of the same size; the poll's p99
# at half its peak rate at most 5 ms.
awk -F'\t' '$1 ~ /about half its peak rate/ { printf "%s: %s req/s, p99 %s (goal <= 5 ms)  \n", $1, $2, $4 }' \
    "$WORK/results.tsv" >>"$WORK/ratios.txt"
python3 - "$WORK/results.tsv" >>"$WORK/ratios.txt" <<'PY'
import sys
rows = {line.split("\t")[0]: line.rstrip("\n").split("\t") for line in open(sys.argv[1])}
health = rows.get("hosted GET /healthz")
for logged in (True, False):
    nginx = next((r for name, r in rows.items()
                  if name.startswith("nginx static file") and name.endswith("access log on") == logged), None)
    what = "nginx static file, access log on (goal >= 95%)" if logged else "nginx static file, no access log"
    if nginx and health:
        try:
            print(f"hosted GET /healthz / {what} = {100 * float(health[1]) / float(nginx[1]):.0f}% "
                  f"({float(health[1]):.0f} vs {float(nginx[1]):.0f} req/s)  ")
        except ValueError:
            print(f"hosted GET /healthz / {what} = ? (a row has no rate)  ")
PY
if [[ -s "$WORK/ratios.txt" ]]; then
    echo
    cat "$WORK/ratios.txt"
fi
if [[ -s "$WORK/notes.txt" ]]; then
    echo
    cat "$WORK/notes.txt"
fi
if [[ -s "$WORK/rss.tsv" ]]; then
    echo
    echo "| process | RSS after startup | RSS after load |"
    echo "| --- | ---: | ---: |"
    awk -F'\t' '{ printf "| %s | %s | %s |\n", $1, $2, $3 }' "$WORK/rss.tsv"
fi
