#!/usr/bin/env bash
# Loopback wrk benchmark of the two lifecycle writes that append an event on PostgreSQL
# (create, cancel), for the current hosted binary beside a reference binary built from the
# commit before the event log, in the same run on the same PostgreSQL server. Prints a
# markdown table and, per row, new/old req/s with PASS (>= 0.85) or FAIL.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: BENCH_BASELINE_BIN=/path/to/old/hosted bench/lifecycle.sh

Benchmarks, with wrk on 127.0.0.1 against one throwaway PostgreSQL server
(scripts/with-postgres.sh), two binaries, each on its own fresh database:
  new   BENCH_HOSTED_BIN, else .build/release/hosted (built with
        `swift build -c release --scratch-path .build` when BENCH_HOSTED_BIN is unset)
  old   BENCH_BASELINE_BIN (required): hosted built from the commit before the
        event log (800961b), e.g.
          git worktree add /tmp/hosted-prev 800961b
          (cd /tmp/hosted-prev && swift build -c release --scratch-path /tmp/hosted-prev-build)
          BENCH_BASELINE_BIN=/tmp/hosted-prev-build/release/hosted bench/lifecycle.sh
Rows, at the same concurrency for both binaries, old and new taking turns:
  create   POST /v1/verifications, a new user_id on every request (201)
           (bench/create-unique.lua); new appends verification.created
  cancel   POST /v1/verifications/{id}/cancel, a different open verification on
           every request (200) (bench/cancel-unique.lua); new appends
           verification.canceled. The ids are the open verifications in the
           database (left by the create row plus an untimed fill pass of the
           same length), re-read before each wrk run; a thread that runs out
           sends 404s, which show under errors.
For each row: req/s, p50, p99, errors per binary, and new/old req/s: PASS when
new >= 0.85 x old (the event costs under 15 %) and neither run had errors,
else FAIL. Setup per binary: `hosted accounts create --name Bench`, then
POST /v1/workflows (key kyc, one selfie step). No Idempotency-Key is sent.

Environment:
  BENCH_BASELINE_BIN  the reference (old) hosted binary (required)
  BENCH_HOSTED_BIN    the current (new) hosted binary (default: build .build/release/hosted)
  BENCH_DURATION      wrk duration per row and round (default 4s)
  BENCH_WARMUP        untimed wrk run before each row (default 1s; 0 = none)
  BENCH_THREADS       wrk threads (default 2)
  BENCH_CONNECTIONS   wrk connections (default 16)
  BENCH_MIN_THRESHOLD ratio new/old for PASS (default 0.85)
  BENCH_STRICT        1 = exit 1 when a row FAILs (default: report only, exit 0)
  BENCH_ROUNDS        repeat the create/fill/cancel sequence N times (default 6; who
                      goes first alternates by round); the ratio is the median of the
                      rounds' new/old ratios (each round's two runs are back to back)
  HOSTED_TEST_PG_BIN  directory holding psql (set by scripts/with-postgres.sh)
Both servers get HOSTED_SECRET_KEY (a fixed bench key), HOSTED_LISTEN on a free
127.0.0.1 port and their own HOSTED_DATABASE_URL; everything else is default.
Bounded in time: about BENCH_ROUNDS x 6 x (warm-up + duration) of wrk plus start-up.
The machine's 2 cores are shared by wrk, hosted and PostgreSQL: run it on an
otherwise idle machine (a concurrent build or test run skews the ratio).
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

DURATION=${BENCH_DURATION:-4s}
WARMUP=${BENCH_WARMUP:-1s}
THREADS=${BENCH_THREADS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
THRESHOLD=${BENCH_MIN_THRESHOLD:-0.85}
STRICT=${BENCH_STRICT:-0}
ROUNDS=${BENCH_ROUNDS:-6}
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_ROUNDS must be a positive integer" >&2; exit 2; }
WORKFLOW_BODY='{"key":"kyc","name":"KYC","steps":[{"type":"selfie"}]}'

# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"

# psql_on URL SQL: runs SQL, prints the unaligned result.
psql_on() {
    "$PG_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -d "$1" -c "$2"
}

# --- per binary state (label: old | new) -----------------------------------------
declare -A BIN DB BASE KEY ACCOUNT LOGF PID

# start_binary LABEL: fresh database, `hosted serve`, account, workflow.
start_binary() {
    local label=$1 port created
    DB[$label]="${HOSTED_TEST_POSTGRES_URL%/*}/bench_$label"
    psql_on "$HOSTED_TEST_POSTGRES_URL" "CREATE DATABASE bench_$label" >/dev/null ||
        die "cannot create database bench_$label"
    port=$(free_port)
    BASE[$label]="http://127.0.0.1:$port"
    LOGF[$label]="$WORK/hosted-$label.log"
    HOSTED_DATABASE_URL=${DB[$label]} HOSTED_LISTEN="127.0.0.1:$port" \
        HOSTED_PUBLIC_URL="http://127.0.0.1:$port" \
        "${BIN[$label]}" serve >"${LOGF[$label]}" 2>&1 &
    PID[$label]=$!
    PIDS+=("${PID[$label]}")
    if ! (wait_http "${BASE[$label]}/healthz" "${PID[$label]}" "hosted ($label)"); then
        tail -n 30 "${LOGF[$label]}" >&2 || true
        exit 1
    fi
    created=$(create_account "${BIN[$label]}" "${DB[$label]}") || die "could not create an account ($label)"
    read -r ACCOUNT[$label] KEY[$label] <<<"$created"
    [[ ${ACCOUNT[$label]} =~ ^[A-Za-z0-9_]+$ ]] || die "unexpected account id: ${ACCOUNT[$label]}"
    http_json POST "${BASE[$label]}/v1/workflows" "${KEY[$label]}" "$WORKFLOW_BODY" 201 >/dev/null ||
        die "could not create the kyc workflow ($label)"
    # One create and one cancel by hand: the statuses the rows expect.
    local v id
    v=$(http_json POST "${BASE[$label]}/v1/verifications" "${KEY[$label]}" \
        '{"user_id":"probe","workflow":"kyc","mobile":"+919876543210"}' 201) || die "create does not answer 201 ($label)"
    id=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])' <<<"$v")
    http_json POST "${BASE[$label]}/v1/verifications/$id/cancel" "${KEY[$label]}" '{}' 200 >/dev/null ||
        die "cancel does not answer 200 ($label)"
    log "hosted ($label: ${BIN[$label]}) up at ${BASE[$label]}, database bench_$label"
}

# write_open_ids LABEL FILE: the label's open verifications, one id a line.
write_open_ids() {
    psql_on "${DB[$1]}" "SELECT id FROM verifications WHERE status = 'created' ORDER BY id" >"$2"
}

# run_wrk LABEL ROW DURATION SCRIPT OUT: one wrk run (the cancel script gets fresh ids).
run_wrk() {
    local label=$1 row=$2 duration=$3 script=$4 out=$5 ids="$WORK/ids-$1.txt"
    if [[ $row == cancel ]]; then
        write_open_ids "$label" "$ids"
        log "$row ($label): $(wc -l <"$ids") open verifications to cancel"
    fi
    BENCH_API_KEY=${KEY[$label]} BENCH_USER_PREFIX="u$(date +%s%N)" BENCH_WORKFLOW=kyc \
        BENCH_IDS_FILE=$ids BENCH_THREAD_COUNT=$THREADS \
        wrk -t"$THREADS" -c"$CONNECTIONS" -d"$duration" --latency -s "$script" \
        "${BASE[$label]}/v1/verifications" >"$out"
}

# bench_row LABEL ROW: warm-up, then the timed wrk run; appends to results.tsv
# "ROW<TAB>LABEL<TAB>req/s<TAB>p50<TAB>p99<TAB>errors".
bench_row() {
    local label=$1 row=$2 out script
    script="$REPO/bench/$row-unique.lua"
    if [[ "$WARMUP" != 0 ]]; then run_wrk "$label" "$row" "$WARMUP" "$script" /dev/null; fi
    out="$WORK/wrk-$row-$label-$round.txt"
    log "wrk $row ($label): ${DURATION}, ${THREADS} threads, ${CONNECTIONS} connections"
    local hosted0 pg0 hosted1 pg1 requests
    hosted0=$(cpu_ticks "${PID[$label]}"); pg0=$(cpu_ticks $(postgres_pids))
    run_wrk "$label" "$row" "$DURATION" "$script" "$out"
    hosted1=$(cpu_ticks "${PID[$label]}"); pg1=$(cpu_ticks $(postgres_pids))
    cat "$out" >&2
    requests=$(awk '/requests in/ {print $1; exit}' "$out")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$row" "$label" "$(wrk_summary "$out")" "$round" \
        "$(per_request_us $((hosted1 - hosted0)) "$requests")" "$(per_request_us $((pg1 - pg0)) "$requests")" >>"$WORK/results.tsv"
}

# cpu_ticks PID...: user + system CPU time of the processes (and their waited-for children), in
# clock ticks, from /proc; a process that is gone counts 0.
cpu_ticks() {
    local total=0 pid stat
    for pid in "$@"; do
        stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
        # Fields after the parenthesised command name: utime, stime, cutime, cstime are 14-17.
        set -- ${stat##*) }
        total=$((total + ${12} + ${13} + ${14} + ${15}))
    done
    echo "$total"
}

# postgres_pids: every process of the PostgreSQL server (backends of both binaries included).
# (scripts/with-postgres.sh runs it as the `postgres` user when we are root.)
postgres_pids() {
    local user; user=$(id -un)
    [[ $(id -u) == 0 ]] && user=postgres
    pgrep -u "$user" -x postgres || true
}

# per_request_us TICKS REQUESTS: CPU microseconds per request.
per_request_us() {
    if [[ -z "$2" || "$2" == 0 ]]; then echo "?"; return; fi
    echo $(( $1 * 1000000 / $(getconf CLK_TCK) / $2 ))
}

# fill LABEL: an untimed create pass as long as a row, so the cancel row has ids to spare.
fill() {
    log "fill ($1): untimed create pass for the cancel row"
    run_wrk "$1" create "$DURATION" "$REPO/bench/create-unique.lua" /dev/null
    if [[ "$WARMUP" != 0 ]]; then run_wrk "$1" create "$WARMUP" "$REPO/bench/create-unique.lua" /dev/null; fi
}

# --- PostgreSQL phase (inside scripts/with-postgres.sh) ---------------------------
if [[ $MODE == postgres ]]; then
    WORK=${BENCH_WORK:?BENCH_WORK must be set by the outer bench/lifecycle.sh}
    [[ -n "${HOSTED_TEST_POSTGRES_URL:-}" ]] || die "HOSTED_TEST_POSTGRES_URL not set"
    PG_BIN=${HOSTED_TEST_PG_BIN:-/usr/lib/postgresql/15/bin}
    BIN[old]=$BENCH_BASELINE_BIN
    BIN[new]=$BENCH_HOSTED_BIN
    start_binary old
    start_binary new
    # Old and new take turns on every step, and who goes first alternates by round (old, new;
    # new, old; ...): the shared machine drifts (throughput falls as a run goes on), and a
    # fixed order would hand that drift to whichever binary always runs second.
    for round in $(seq "$ROUNDS"); do
        order="old new"; (( round % 2 == 0 )) && order="new old"
        for label in $order; do bench_row "$label" create; done
        for label in $order; do fill "$label"; done
        for label in $order; do bench_row "$label" cancel; done
    done
    for label in old new; do
        {
            printf '%s\t' "$label"
            psql_on "${DB[$label]}" "SELECT count(*) FILTER (WHERE status = 'canceled') || E'\t' || count(*) FROM verifications"
        } >>"$WORK/counts.tsv"
    done
    psql_on "${DB[new]}" "SELECT type || E'\t' || count(*) FROM events GROUP BY type ORDER BY type" \
        >"$WORK/events.tsv" || true
    exit 0
fi

# --- outer run ----------------------------------------------------------------------
[[ -n "${BENCH_BASELINE_BIN:-}" ]] || { usage >&2; die "BENCH_BASELINE_BIN is not set"; }
[[ -x $BENCH_BASELINE_BIN ]] || die "no baseline binary at $BENCH_BASELINE_BIN"
bash scripts/setup-debian.sh wrk curl
command -v wrk >/dev/null || die "wrk not found"
command -v curl >/dev/null || die "curl not found"
if [[ -z "${BENCH_HOSTED_BIN:-}" ]]; then
    log "building release binary"
    swift build -c release --product hosted --scratch-path .build ||
        die "release build of hosted failed (see the compiler output above)"
    BENCH_HOSTED_BIN=$REPO/.build/release/hosted
fi
[[ -x $BENCH_HOSTED_BIN ]] || die "no hosted binary at $BENCH_HOSTED_BIN"
BENCH_BASELINE_BIN=$(realpath "$BENCH_BASELINE_BIN")
BENCH_HOSTED_BIN=$(realpath "$BENCH_HOSTED_BIN")
export BENCH_BASELINE_BIN BENCH_HOSTED_BIN

WORK=$(mktemp -d "${TMPDIR:-/tmp}/hosted-lifecycle.XXXXXX")
export BENCH_WORK=$WORK
: >"$WORK/results.tsv"
: >"$WORK/counts.tsv"
: >"$WORK/events.tsv"
bash scripts/with-postgres.sh bash bench/lifecycle.sh --postgres-phase

# --- report ---------------------------------------------------------------------------
set +e
python3 - "$WORK" "$THRESHOLD" "$THREADS" "$CONNECTIONS" "$DURATION" "$(nproc)" \
    "$BENCH_BASELINE_BIN" "$BENCH_HOSTED_BIN" <<'PY'
import statistics, sys
work, threshold, threads, conns, duration, cores, old_bin, new_bin = sys.argv[1:9]
threshold = float(threshold)
runs = {}
for line in open(f"{work}/results.tsv"):
    row, label, rps, p50, p99, errors, rnd, hosted_us, pg_us = line.rstrip("\n").split("\t")
    runs.setdefault((row, label), []).append((rps, p50, p99, errors, rnd, hosted_us, pg_us))
many = any(len(v) > 1 for v in runs.values())
names = {"create": "POST /v1/verifications (new each, 201)",
         "cancel": "POST /v1/verifications/{id}/cancel (200)"}
print()
print(f"wrk -t{threads} -c{conns} -d{duration} on 127.0.0.1, PostgreSQL, {cores} cores shared by wrk, hosted and PostgreSQL")
print(f"old = {old_bin}")
print(f"new = {new_bin}")
print()
print("| row | binary | req/s | p50 | p99 | errors | hosted CPU µs/req | PostgreSQL CPU µs/req |" + (" round |" if many else ""))
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: |" if many else ""))
for row in ("create", "cancel"):
    for r in sorted(((l, r) for l in ("old", "new") for r in runs.get((row, l), [("?",) * 7])),
                    key=lambda lr: (lr[1][4], lr[0] != "old")):
        label, r = r
        print(f"| {names[row]} | {label} | {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[5]} | {r[6]} |" + (f" {r[4]} |" if many else ""))
print()
print(f"| row | new/old req/s{' (median of the rounds)' if many else ''} | new/old CPU per request, hosted + PostgreSQL (median) | verdict (PASS: >= {threshold:.2f}, no errors) |")
print("| --- | ---: | ---: | --- |")
failed = False
for row in ("create", "cancel"):
    try:
        o, n = runs[(row, "old")], runs[(row, "new")]
        # Paired by round: each round's old and new ran back to back, so their ratio carries
        # little of the machine's drift; the median of those ratios carries less still.
        by_round_old = {r[4]: float(r[0]) for r in o}
        ratio = statistics.median(float(r[0]) / by_round_old[r[4]] for r in n)
        errors = sum(int(r[3]) for r in o + n)
        ok = ratio >= threshold and errors == 0
        verdict = "PASS" if ok else ("FAIL (errors)" if errors else "FAIL")
        try:
            cpu = lambda runs: statistics.median(int(r[5]) + int(r[6]) for r in runs)
            cpu_ratio = f"{cpu(n) / cpu(o):.3f}"
        except (ValueError, ZeroDivisionError):
            cpu_ratio = "?"
        print(f"| {row} | {ratio:.3f} | {cpu_ratio} | {verdict} |")
    except (KeyError, ValueError, ZeroDivisionError):
        ok = False
        print(f"| {row} | ? | ? | FAIL (row missing) |")
    failed |= not ok
counts = [l.rstrip("\n").split("\t") for l in open(f"{work}/counts.tsv") if l.strip()]
if counts:
    print()
    print("Verifications at the end (canceled / all): " +
          ", ".join(f"{c[0]} {c[1]} / {c[2]}" for c in counts) + "  ")
events = [l.rstrip("\n").split("\t") for l in open(f"{work}/events.tsv") if l.strip()]
if events:
    print("Events in new's database: " + ", ".join(f"{e[0]} {e[1]}" for e in events))
sys.exit(1 if failed else 0)
PY
status=$?
set -e
if (( status != 0 )) && [[ $STRICT == 1 ]]; then exit 1; fi
exit 0
