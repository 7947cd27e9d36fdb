#!/usr/bin/env bash
# Builds the libFuzzer targets in Sources/Fuzz and runs each one for a fixed time on a copy of
# its seed corpus (fuzz/corpus/<target>). See docs/fuzzing.md.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: scripts/fuzz.sh [--seconds N] [--target NAME]... [--no-build] [--keep] [--list]

Builds every fuzz target (or the ones named) with libFuzzer and AddressSanitizer in .build/fuzz
(release, -DFUZZING), then runs each for N seconds on a copy of fuzz/corpus/<target> in a
temporary directory (the repository's corpus is never written to), with
-rss_limit_mb=2048 -timeout=10 and fuzz/dict/<target>.dict when it exists.

Prints one JSON summary line per target:
  {"target":"fuzz-json","result":"ok","seconds":60,"executions":123456,"exec_per_sec":2057,
   "new_units":310,"peak_rss_mb":480,"artifact":null}
result is ok, crash, timeout, oom, leak, not-fuzzing (the binary has no libFuzzer) or
build-failed. Exits 1 if any target did not end ok; a failing input is copied to
.build/fuzz/findings/<target>/ and its path, base64 and a replay command are printed.

Options:
  --seconds N     run time per target (default 60; FUZZ_SECONDS)
  --target NAME   only this target (repeatable; e.g. fuzz-image or just image)
  --no-build      use the binaries already in .build/fuzz
  --keep          keep the temporary work directory (logs, grown corpus)
  --list          print the target names and exit

Environment:
  FUZZ_ARGS  extra libFuzzer arguments for every target (e.g. "-max_len=8192")
Targets: every directory Sources/Fuzz/fuzz-*.
EOF
}

cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
targets=()
build=1
keep=0
mapfile -t all_targets < <(find Sources/Fuzz -mindepth 1 -maxdepth 1 -type d -name 'fuzz-*' -printf '%f\n' | sort)

while [[ $# -gt 0 ]]; do
    case "$1" in
        -h|--help) usage; exit 0 ;;
        --seconds) seconds=${2:?--seconds needs a number}; shift 2 ;;
        --seconds=*) seconds=${1#*=}; shift ;;
        --target) targets+=("${2:?--target needs a name}"); shift 2 ;;
        --target=*) targets+=("${1#*=}"); shift ;;
        --no-build) build=0; shift ;;
        --keep) keep=1; shift ;;
        --list) printf '%s\n' "${all_targets[@]}"; exit 0 ;;
        *) echo "fuzz.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ $seconds =~ ^[0-9]+$ && $seconds -gt 0 ]] || { echo "fuzz.sh: --seconds must be a positive integer" >&2; exit 2; }
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=("${all_targets[@]}")
else
    for i in "${!targets[@]}"; do
        [[ ${targets[$i]} == fuzz-* ]] || targets[$i]="fuzz-${targets[$i]}"
        [[ -d Sources/Fuzz/${targets[$i]} ]] || { echo "fuzz.sh: no such target: ${targets[$i]} (see --list)" >&2; exit 2; }
    done
fi

scratch=.build/fuzz
build_flags=(--scratch-path "$scratch" -c release --sanitize=fuzzer
             -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING)
work=$(mktemp -d "${TMPDIR:-/tmp}/hosted-fuzz.XXXXXX")
cleanup() { if [[ $keep -eq 1 ]]; then echo "fuzz.sh: work directory kept: $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

summaries=()
failed=0
json_line() {  # target result [seconds executions exec_per_sec new_units peak_rss_mb artifact]
    printf '{"target":"%s","result":"%s","seconds":%s,"executions":%s,"exec_per_sec":%s,"new_units":%s,"peak_rss_mb":%s,"artifact":%s}' \
        "$1" "$2" "${3:-0}" "${4:-0}" "${5:-0}" "${6:-0}" "${7:-0}" "$([[ -n ${8:-} ]] && printf '"%s"' "$8" || printf null)"
}

bin_dir=""
for target in "${targets[@]}"; do
    if [[ $build -eq 1 ]]; then
        echo "==> fuzz.sh: building $target"
        if ! swift build "${build_flags[@]}" --product "$target"; then
            summaries+=("$(json_line "$target" build-failed)"); failed=1; continue
        fi
    fi
    [[ -n $bin_dir ]] || bin_dir=$(swift build "${build_flags[@]}" --show-bin-path)
    binary=$bin_dir/$target
    if [[ ! -x $binary ]]; then
        echo "fuzz.sh: $binary is missing (build it, or drop --no-build)" >&2
        summaries+=("$(json_line "$target" build-failed)"); failed=1; continue
    fi
    # An ordinary build of the target replays files instead of fuzzing: refuse it.
    if ! grep -q 'fuzzer.*FuzzerDriver' < <(nm "$binary" 2>/dev/null); then
        echo "fuzz.sh: $binary does not contain libFuzzer" >&2
        summaries+=("$(json_line "$target" not-fuzzing)"); failed=1; continue
    fi

    dir=$work/$target
    mkdir -p "$dir/corpus" "$dir/artifacts" "$dir/tmp"
    if [[ -d fuzz/corpus/$target ]]; then cp -R "fuzz/corpus/$target/." "$dir/corpus/"; fi
    args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
          -artifact_prefix="$dir/artifacts/")
    [[ -f fuzz/dict/$target.dict ]] && args+=(-dict="fuzz/dict/$target.dict")
    # shellcheck disable=SC2206
    [[ -n ${FUZZ_ARGS:-} ]] && args+=($FUZZ_ARGS)
    echo "==> fuzz.sh: running $target for ${seconds}s ($(find "$dir/corpus" -type f | wc -l) seeds)"
    log=$dir/fuzz.log
    status=0
    # The Swift runtime's backtracer would fight libFuzzer and ASan over the crash: off.
    # detect_leaks=0: Foundation's lazily built caches read as leaks; ASan still reports misuse.
    SWIFT_BACKTRACE=enable=no TMPDIR="$dir/tmp" ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}" \
        "$binary" "${args[@]}" "$dir/corpus" >"$log" 2>&1 || status=$?

    if ! grep -q '^INFO: Seed:' "$log"; then
        tail -20 "$log" >&2
        summaries+=("$(json_line "$target" not-fuzzing)"); failed=1; continue
    fi
    executions=$(awk '/^stat::number_of_executed_units/ { print $NF }' "$log" | tail -1)
    per_sec=$(awk '/^stat::average_exec_per_sec/ { print $NF }' "$log" | tail -1)
    new_units=$(awk '/^stat::new_units_added/ { print $NF }' "$log" | tail -1)
    rss=$(awk '/^stat::peak_rss_mb/ { print $NF }' "$log" | tail -1)
    if [[ -z $executions ]]; then  # no final stats after a crash: the last status line
        executions=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
        per_sec=$(grep -oE 'exec/s: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
    fi
    artifact=$(find "$dir/artifacts" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | head -1)
    result=ok
    if [[ $status -ne 0 || -n $artifact ]]; then
        case "$(basename "${artifact:-crash-}")" in
            timeout-*) result=timeout ;; oom-*) result=oom ;; leak-*) result=leak ;; *) result=crash ;;
        esac
    fi
    kept=""
    if [[ $result != ok ]]; then
        failed=1
        echo "---- $target: $result (exit $status); the end of its log:" >&2
        grep -vE '^#[0-9]+|^INFO:' "$log" | tail -40 >&2
        if [[ -n $artifact ]]; then
            mkdir -p "$scratch/findings/$target"
            kept=$scratch/findings/$target/$(basename "$artifact")
            cp "$artifact" "$kept"
            echo "---- failing input: $kept ($(wc -c <"$kept") bytes)" >&2
            echo "     base64: $(base64 -w0 "$kept" | cut -c1-2000)" >&2
            echo "     replay: ASAN_OPTIONS=detect_leaks=0 SWIFT_BACKTRACE=enable=no $binary $kept" >&2
            echo "     or, without libFuzzer: swift run $target $kept" >&2
        else
            echo "---- no input was saved; full log: $log" >&2
            keep=1
        fi
    fi
    summaries+=("$(json_line "$target" "$result" "$seconds" "${executions:-0}" "${per_sec:-0}" "${new_units:-0}" "${rss:-0}" "$kept")")
done

echo
echo "==> fuzz.sh summary"
printf '%s\n' "${summaries[@]}"
exit $failed
