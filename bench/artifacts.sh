#!/usr/bin/env bash
# Artifact upload and download through the S3 store against the database store (issue 41), on
# PostgreSQL, in one run: for each store a fresh database and a `hosted serve` (release binary),
# BENCH_VERIFICATIONS verifications signed in outside the timed window, then BENCH_PER photos
# uploaded to each from BENCH_UPLOAD_CONNECTIONS connections (bench/artifacts-drive.py), then
# wrk GETting every uploaded artifact in turn through the API (bench/artifacts-download.lua).
# The two stores alternate, BENCH_ROUNDS times each. Prints one line per run and the medians,
# then the verdict as one line of JSON (docs/performance.md, "Artifacts in object storage").
set -euo pipefail

usage() {
    cat <<'EOF2'
Usage: bench/artifacts.sh
       (runs itself under scripts/with-postgres.sh and scripts/with-swift.sh when their
       HOSTED_TEST_POSTGRES_URL / HOSTED_TEST_S3_URL are not set)

Environment: BENCH_ROUNDS (default 3), BENCH_VERIFICATIONS (40), BENCH_PER (10 photos each),
BENCH_UPLOAD_CONNECTIONS (8), BENCH_DURATION (5s of downloads), BENCH_THREADS (2),
BENCH_CONNECTIONS (16), BENCH_PERF (0; 1: perf record -g of hosted during each upload phase,
written to BENCH_PERF_DIR, default /tmp, as perf-STORE-ROUND.data), BENCH_HOSTED_BIN (.build/release/hosted: swift build -c release first),
BENCH_SPLIT_CORES (0; 1: hosted on CPU 0 and everything it talks to — PostgreSQL, Swift,
memcached, the upload driver and wrk — on CPU 1, for both stores alike: the store on a machine
of its own, as in a deployment, emulated on two cores; taskset).

Goal: uploads/s and downloads/s through the S3 store each at least 80 % of the database
store's (medians). A third row, s3-uncached, builds the sealed-object cache off
(HOSTED_DISABLE_MEMOS=objects): every download is then a GET to the store. The photo is the portrait fixture (640 px, re-encoded by the service on
upload as always). Swift runs on the same machine and takes CPU from the server.
EOF2
}
[[ ${1:-} == -h || ${1:-} == --help ]] && { usage; exit 0; }

cd "$(dirname "$0")/.."
REPO=$(pwd)
if [[ -z ${HOSTED_TEST_POSTGRES_URL:-} || -z ${HOSTED_TEST_S3_URL:-} ]]; then
    exec bash scripts/with-postgres.sh bash scripts/with-swift.sh bash "$0" "$@"
fi
MODE=artifacts
WORK=$(mktemp -d /tmp/hosted-bench-artifacts.XXXXXX)
ROUNDS=${BENCH_ROUNDS:-3}
VERIFICATIONS=${BENCH_VERIFICATIONS:-40}
PER=${BENCH_PER:-10}
UPLOAD_CONNECTIONS=${BENCH_UPLOAD_CONNECTIONS:-8}
DURATION=${BENCH_DURATION:-5s}
THREADS=${BENCH_THREADS:-2}
CONNECTIONS=${BENCH_CONNECTIONS:-16}
HOSTED_BIN=${BENCH_HOSTED_BIN:-$REPO/.build/release/hosted}
PHOTO=$REPO/Tests/HostedImagingTests/Fixtures/portrait.jpg
# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"
[[ -x $HOSTED_BIN ]] || die "no $HOSTED_BIN: swift build -c release first"
command -v wrk >/dev/null || die "no wrk"

PSQL=("$HOSTED_TEST_PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 "$HOSTED_TEST_POSTGRES_URL")
SERVER_PIN=()
CLIENT_PIN=()
if [[ ${BENCH_SPLIT_CORES:-0} == 1 ]]; then
    command -v taskset >/dev/null || die "BENCH_SPLIT_CORES=1 needs taskset (util-linux)"
    # Every thread of the servers hosted talks to, on CPU 1 (PostgreSQL's later backends are
    # forked by the postmaster and inherit it).
    postmaster=$(head -n 1 "$HOSTED_TEST_PG_DATA/postmaster.pid")
    for pid in "$postmaster" $(pgrep -P "$postmaster") $(cat "$(dirname "$HOSTED_TEST_S3_CTL")"/*.pid 2>/dev/null); do
        taskset -a -p -c 1 "$pid" >/dev/null || die "could not pin process $pid to CPU 1"
    done
    SERVER_PIN=(taskset -c 0)
    CLIENT_PIN=(taskset -c 1)
    log "split cores: hosted on CPU 0; PostgreSQL, Swift, memcached, the driver and wrk on CPU 1"
fi
S3_BASE=${HOSTED_TEST_S3_URL%%\?*}
S3_QUERY=${HOSTED_TEST_S3_URL#*\?}

# swift_ticks: CPU ticks (user + system) the test Swift's processes have used so far.
swift_ticks() {
    local total=0 pid
    for pid in $(cat "$(dirname "$HOSTED_TEST_S3_CTL")"/*.pid 2>/dev/null); do
        [[ -r /proc/$pid/stat ]] && total=$(( total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat") ))
    done
    echo "$total"
}

# run_once STORE ROUND: one fresh database and server; appends "STORE uploads/s cpu_us downloads/s
# p99_ms" to $results (not in a subshell: the server's PID must reach the EXIT trap).
run_once() {
    local store=$1 round=$2 name db port base key upload download_summary
    name="bench_artifacts_${store//-/_}_$round"
    "${PSQL[@]}" -c "CREATE DATABASE $name" >/dev/null
    db="${HOSTED_TEST_POSTGRES_URL%/*}/$name"
    HOSTED_DATABASE_URL=$db "$HOSTED_BIN" migrate >/dev/null
    read -r _ key < <(create_account "$HOSTED_BIN" "$db")
    port=$(free_port)
    base="http://127.0.0.1:$port"
    local -a store_env=(HOSTED_ARTIFACT_STORE=database)
    if [[ $store == s3* ]]; then
        store_env=(HOSTED_ARTIFACT_STORE="$S3_BASE/bench-$round-$RANDOM?$S3_QUERY"
                   HOSTED_S3_ACCESS_KEY_ID="$HOSTED_TEST_S3_ACCESS_KEY_ID" HOSTED_S3_SECRET_ACCESS_KEY="$HOSTED_TEST_S3_SECRET_ACCESS_KEY")
    fi
    # s3-uncached: every download is a GET to the store (the sealed-object cache built off).
    if [[ $store == s3-uncached ]]; then store_env+=(HOSTED_DISABLE_MEMOS=objects); fi
    env HOSTED_DATABASE_URL="$db" HOSTED_LISTEN="127.0.0.1:$port" HOSTED_PUBLIC_URL="$base" "${store_env[@]}" \
        HOSTED_MAX_CONNECTIONS_PER_ADDRESS=0 "${SERVER_PIN[@]}" "$HOSTED_BIN" serve >>"$WORK/hosted-$store-$round.log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
    wait_http "$base/readyz" "$PID" "hosted serve ($store)"
    http_json POST "$base/v1/workflows" "$key" \
        '{"key":"bench_artifacts","name":"Bench","steps":[{"type":"premises_photos","id":"shop","min":1,"max":10}]}' 201 >/dev/null
    local swift_before swift_after
    swift_before=$(swift_ticks)
    local perf_pid=""
    if [[ ${BENCH_PERF:-0} == 1 ]]; then
        perf record -F 999 -g -p "$PID" -o "${BENCH_PERF_DIR:-/tmp}/perf-$store-$round.data" >/dev/null 2>&1 &
        perf_pid=$!
    fi
    upload=$("${CLIENT_PIN[@]}" python3 "$REPO/bench/artifacts-drive.py" "$base" "$key" "$PID" "$VERIFICATIONS" "$PER" "$UPLOAD_CONNECTIONS" \
        "$PHOTO" "$WORK/paths-$store" "$store$round")
    swift_after=$(swift_ticks)
    if [[ -n $perf_pid ]]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
    # The store's own CPU per upload (Swift's servers and memcached share this machine's cores).
    upload="$upload $(( (swift_after - swift_before) * 1000000 / $(getconf CLK_TCK) / (VERIFICATIONS * PER) ))"
    # A short warm-up, then the timed downloads.
    ARTIFACT_PATHS="$WORK/paths-$store" API_KEY="$key" timeout 60 "${CLIENT_PIN[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d1s \
        -s "$REPO/bench/artifacts-download.lua" "$base" >/dev/null
    ARTIFACT_PATHS="$WORK/paths-$store" API_KEY="$key" timeout 120 "${CLIENT_PIN[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency \
        -s "$REPO/bench/artifacts-download.lua" "$base" >"$WORK/wrk-$store-$round.txt"
    download_summary=$(wrk_summary "$WORK/wrk-$store-$round.txt")
    [[ $(cut -f4 <<<"$download_summary") == 0 ]] || die "downloads through $store answered errors: $download_summary"
    stop_pid "$PID"
    local line="$upload $(cut -f1 <<<"$download_summary") $(cut -f3 <<<"$download_summary" | tr -d ' ms')"
    log "round $round $store: uploads/s hosted_cpu_us/upload store_cpu_us/upload downloads/s p99_ms = $line"
    echo "$store $line" >>"$results"
}

results="$WORK/results.txt"
: >"$results"
for round in $(seq "$ROUNDS"); do
    for store in database s3 s3-uncached; do
        run_once "$store" "$round"
    done
done

python3 - "$results" "$VERIFICATIONS" "$PER" "$UPLOAD_CONNECTIONS" "$CONNECTIONS" "$DURATION" <<'PY'
import json, statistics, sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
STORES = ("database", "s3", "s3-uncached")
by = {store: [list(map(float, r[1:])) for r in rows if r[0] == store] for store in STORES}
med = {store: [statistics.median(col) for col in zip(*runs)] for store, runs in by.items()}
print(f"| store | uploads/s (runs) | hosted's CPU per upload | the store's CPU per upload | downloads/s (runs) | download p99 |")
print("|---|---|---|---|---|---|")
for store in STORES:
    runs = by[store]
    print(f"| {store} | {med[store][0]:.1f} ({', '.join(f'{r[0]:.1f}' for r in runs)}) | {med[store][1] / 1000:.1f} ms | "
          f"{med[store][2] / 1000:.1f} ms | {med[store][3]:.0f} ({', '.join(f'{r[3]:.0f}' for r in runs)}) | {med[store][4]:.2f} ms |")
upload_ratio = med["s3"][0] / med["database"][0]
download_ratio = med["s3"][3] / med["database"][3]
uncached_ratio = med["s3-uncached"][3] / med["database"][3]
print(json.dumps({"upload_ratio": round(upload_ratio, 3), "download_ratio": round(download_ratio, 3),
                  "download_ratio_uncached": round(uncached_ratio, 3),
                  "goal": 0.8, "ok": upload_ratio >= 0.8 and download_ratio >= 0.8,
                  "uploads": f"{sys.argv[2]} verifications x {sys.argv[3]} photos, {sys.argv[4]} connections",
                  "downloads": f"wrk {sys.argv[5]} connections, {sys.argv[6]}"}))
PY
