#!/usr/bin/env bash
# Runs the whole test suite: build, `swift test` against SQLite and a
# throwaway PostgreSQL, a ThreadSanitizer pass over the concurrency-heavy
# suites, and (once they exist) the Python end-to-end tests.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: scripts/test.sh

Runs the whole Hosted test suite (this is what CI runs via .ci/run):
  1. scripts/setup-debian.sh (build dependencies)
  2. under scripts/with-postgres.sh (throwaway PostgreSQL; HOSTED_REQUIRE_POSTGRES=1) and
     scripts/with-swift.sh (throwaway OpenStack Swift, the S3 object store; HOSTED_REQUIRE_S3=1):
     a. swift build                       (debug; the `hosted` binary live tests spawn)
     b. swift test
        then, each alone, the tests that restart PostgreSQL (reconnect: storage, two live nodes)
        and the failover test (scripts/with-standby.sh: primary + synchronous standby, promoted)
     c. swift test --sanitize=thread --scratch-path .build/tsan --filter "$HOSTED_TSAN_FILTER"
     d. scripts/fuzz.sh --seconds "$HOSTED_FUZZ_SECONDS" (each libFuzzer target; docs/fuzzing.md)
     e. pytest tests/e2e in .build/venv   (only if tests/e2e has test files; installs the
                                          Debian chromium, chromium-driver, webkit2gtk-driver and
                                          xvfb the browser tests use; runs under xvfb-run -a)

Environment:
  HOSTED_TSAN_FILTER  --filter regex for the ThreadSanitizer run (default: Live|Storage|DigiLocker|Hardening|PoolRetry|EventualReply)
  HOSTED_TSAN=0       skip the ThreadSanitizer run (local use; CI always runs it)
  HOSTED_FUZZ_SECONDS seconds per fuzz target (default: 10)
EOF
}

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
esac

cd "$(dirname "$0")/.."

# --- step bookkeeping --------------------------------------------------------
# Each step appends "start NAME" / "ok NAME" to a state file shared by the outer
# and the inner (under-PostgreSQL) invocation; the outer one prints the summary.
: "${HOSTED_TEST_STATE:=$(mktemp "${TMPDIR:-/tmp}/hosted-test-state.XXXXXX")}"
export HOSTED_TEST_STATE
step() {
    local name=$1; shift
    echo
    echo "==> [$name] $*"
    echo "start $name" >>"$HOSTED_TEST_STATE"
    "$@"
    echo "ok $name" >>"$HOSTED_TEST_STATE"
}
summary() {
    local status=$1 ok failed
    ok=$(awk '$1 == "ok" { printf "%s%s", sep, $2; sep = ", " }' "$HOSTED_TEST_STATE")
    failed=$(awk '$1 == "start" { s = $2 } $1 == "ok" && $2 == s { s = "" } END { print s }' "$HOSTED_TEST_STATE")
    rm -f "$HOSTED_TEST_STATE"
    echo
    if [[ $status -eq 0 ]]; then
        echo "==> test.sh: SUCCESS (steps ok: ${ok:-none})"
    else
        echo "==> test.sh: FAILURE in step '${failed:-postgres-startup}' (exit $status; steps ok: ${ok:-none})"
    fi
}

# --- the part that runs with PostgreSQL up (re-invoked via with-postgres.sh) -
if [[ "${1:-}" == "--under-postgres" ]]; then
    if [[ -z "${HOSTED_TEST_POSTGRES_URL:-}" ]]; then
        echo "test.sh: HOSTED_TEST_POSTGRES_URL is not set; PostgreSQL tests would be skipped" >&2
        exit 1
    fi
    # Tell the Swift tests that a missing PostgreSQL is a failure, not a skip.
    export HOSTED_REQUIRE_POSTGRES=1
    # And a missing object store (HOSTED_TEST_S3_URL, from scripts/with-swift.sh) too.
    if [[ -z "${HOSTED_TEST_S3_URL:-}" ]]; then
        echo "test.sh: HOSTED_TEST_S3_URL is not set; object-storage tests would be skipped" >&2
        exit 1
    fi
    export HOSTED_REQUIRE_S3=1

    # The structure rules of docs/architecture.md (rooms, front doors, one error path, SQL).
    step structure python3 scripts/check-structure.py
    step build swift build
    step swift-test swift test
    # A real PostgreSQL restart would cut every other test's connections, so each test that
    # restarts it runs alone, after the suite, in its own `swift test` (the suite's tests run in
    # parallel, and two restarts would cut each other's).
    step pg-restart env HOSTED_TEST_PG_RESTART_ALLOWED=1 swift test --filter postgresReconnectsAfterServerRestart
    step pg-restart-live env HOSTED_TEST_PG_RESTART_ALLOWED=1 swift test --filter PostgresRestartLiveTests
    # A failover: a primary and its synchronous standby of their own (scripts/with-standby.sh),
    # the primary stopped -m immediate and the standby promoted under two nodes' load.
    step pg-failover bash scripts/with-standby.sh env HOSTED_TEST_PG_FAILOVER_ALLOWED=1 \
        swift test --filter PostgresFailoverLiveTests

    if [[ "${HOSTED_TSAN:-1}" != "0" ]]; then
        tsan_filter=${HOSTED_TSAN_FILTER:-Live|Storage|DigiLocker|Hardening|PoolRetry|EventualReply}
        # Build everything (incl. the `hosted` binary) with TSan in its own scratch dir.
        step tsan-build swift build --sanitize=thread --scratch-path .build/tsan
        step tsan-test swift test --sanitize=thread --scratch-path .build/tsan \
            --filter "$tsan_filter"
    else
        echo "==> [tsan] skipped (HOSTED_TSAN=0)"
    fi

    # A short libFuzzer pass over every parser of outside bytes (built in .build/fuzz).
    step fuzz bash scripts/fuzz.sh --seconds "${HOSTED_FUZZ_SECONDS:-10}"

    # Hook for end-to-end tests in Python: only runs once test files exist.
    e2e_files=()
    if [[ -d tests/e2e ]]; then
        mapfile -t e2e_files < <(find tests/e2e -type f \( -name 'test_*.py' -o -name '*_test.py' \))
    fi
    if [[ ${#e2e_files[@]} -gt 0 ]]; then
        run_e2e() {
            # The journey's browser tests drive Debian's headless Chromium through chromedriver,
            # and WebKitGTK's MiniBrowser through WebKitWebDriver, which needs an X display (Xvfb).
            bash scripts/setup-debian.sh chromium chromium-driver webkit2gtk-driver xvfb xauth libgl1-mesa-dri fonts-noto-core zbar-tools nginx-light
            # Debian's own python3 needs python3-venv for `-m venv`.
            python3 -c 'import ensurepip' 2>/dev/null || bash scripts/setup-debian.sh python3-venv
            python3 -m venv .build/venv
            .build/venv/bin/pip install -q --upgrade pip
            if [[ -f tests/e2e/requirements.txt ]]; then
                .build/venv/bin/pip install -q -r tests/e2e/requirements.txt
            fi
            .build/venv/bin/python -c 'import pytest' 2>/dev/null ||
                .build/venv/bin/pip install -q pytest
            # Test files exist, so "no tests collected" (exit 5) is a failure too.
            xvfb-run -a .build/venv/bin/python -m pytest tests/e2e
        }
        step e2e run_e2e
    else
        echo "==> [e2e] skipped (no test files in tests/e2e)"
    fi
    exit 0
fi

# --- outer part: dependencies, then everything else under PostgreSQL --------
# (Steps are never called in an `||` context, so `set -e` stays in force inside
# them; the EXIT trap prints the summary whatever happens.)
trap 'summary $?' EXIT
step setup bash scripts/setup-debian.sh prometheus
bash scripts/with-postgres.sh bash scripts/with-swift.sh bash scripts/test.sh --under-postgres
