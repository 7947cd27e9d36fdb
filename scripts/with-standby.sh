#!/usr/bin/env bash
# Runs a command against a throwaway PostgreSQL 15 primary and a synchronous
# streaming standby on loopback, for the failover test (docs/deployment.md,
# "Database failover"). Both are stopped and deleted on exit.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: scripts/with-standby.sh CMD [ARG...]

Starts a throwaway PostgreSQL primary (temporary data dir, free loopback port,
trust auth) with the database `hosted_test`, takes a base backup of it with
`pg_basebackup -R` into a second data dir, starts that as a hot standby
streaming from the primary with application_name=hosted_standby, and makes it
the primary's synchronous standby (synchronous_standby_names, set with ALTER
SYSTEM after the backup so the standby does not inherit it). Runs CMD with
these variables exported, then stops both servers and deletes their data.
Exits with CMD's status.

  HOSTED_TEST_FAILOVER_URL      postgres://postgres@127.0.0.1:STANDBY,127.0.0.1:PRIMARY/hosted_test?target_session_attrs=read-write
                                (the standby listed first: libpq must skip it)
  HOSTED_TEST_FAILOVER_PRIMARY_URL   the primary alone
  HOSTED_TEST_FAILOVER_STANDBY_URL   the standby alone
  HOSTED_TEST_FAILOVER_STOP_PRIMARY  script: pg_ctl stop -m immediate on the primary
  HOSTED_TEST_FAILOVER_PROMOTE       script: pg_ctl promote -w on the standby
  HOSTED_TEST_FAILOVER_LOGS          directory holding both servers' logs

When run as root the servers run as the `postgres` OS user (created if
missing), as in scripts/with-postgres.sh. PostgreSQL binaries: $PG_BIN if set,
else `pg_config --bindir`, else /usr/lib/postgresql/15/bin.
EOF
}

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    "") usage >&2; exit 2 ;;
esac

log() { echo "with-standby: $*" >&2; }

find_pg_bin() {
    local dir
    if [[ -n "${PG_BIN:-}" ]]; then echo "$PG_BIN"; return; fi
    dir=$(pg_config --bindir 2>/dev/null || true)
    if [[ -n "$dir" && -x "$dir/initdb" && -x "$dir/pg_basebackup" ]]; then echo "$dir"; return; fi
    echo /usr/lib/postgresql/15/bin
}
PG_BIN=$(find_pg_bin)
for tool in initdb pg_ctl psql pg_basebackup; do
    if [[ ! -x "$PG_BIN/$tool" ]]; then
        log "missing $PG_BIN/$tool (install postgresql-15 or set PG_BIN)"
        exit 1
    fi
done

if [[ $(id -u) -eq 0 ]]; then
    PG_USER=postgres
    if ! id -u "$PG_USER" >/dev/null 2>&1; then
        log "creating system user $PG_USER"
        useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/sh "$PG_USER"
    fi
    RUN_AS=(runuser -u "$PG_USER" --)
else
    PG_USER=$(id -un)
    RUN_AS=()
fi

ROOT=$(mktemp -d "${TMPDIR:-/tmp}/hosted-standby.XXXXXX")
PRIMARY="$ROOT/primary"
STANDBY="$ROOT/standby"
chmod 755 "$ROOT"
if [[ $(id -u) -eq 0 ]]; then chown "$PG_USER:" "$ROOT"; fi
as_pg() { (cd "$ROOT" && "${RUN_AS[@]}" "$@"); }

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    for data in "$STANDBY" "$PRIMARY"; do
        if [[ -f "$data/postmaster.pid" ]]; then
            as_pg "$PG_BIN/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$ROOT"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# Starts the server in data dir $1 on a free port; prints the port. $2: extra options.
start_server() {
    local data=$1 extra=$2 port attempt
    for attempt in 1 2 3; do
        port=$(free_port)
        if as_pg "$PG_BIN/pg_ctl" -D "$data" -l "$data.log" -w \
            -o "-k $data -h 127.0.0.1 -p $port -c max_connections=100 $extra" start >/dev/null; then
            echo "$port"
            return 0
        fi
        log "start of $data on port $port failed (attempt $attempt)"
    done
    cat "$data.log" >&2 || true
    return 1
}

psql_at() { as_pg "$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "$1" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "$2"; }

# --- the primary -------------------------------------------------------------
# initdb's default pg_hba.conf trusts replication connections from 127.0.0.1 too.
as_pg "$PG_BIN/initdb" -D "$PRIMARY" -A trust -U postgres --no-sync -E UTF8 --locale=C >"$ROOT/initdb.log" 2>&1 || {
    cat "$ROOT/initdb.log" >&2; log "initdb failed"; exit 1; }
# fsync off: neither server's machine crashes here, only the primary's processes stop. A
# synchronous commit still waits until the standby has received and written its WAL.
PRIMARY_PORT=$(start_server "$PRIMARY" "-c wal_level=replica -c max_wal_senders=4 -c fsync=off")
psql_at "$PRIMARY_PORT" 'CREATE DATABASE hosted_test' >/dev/null

# --- the standby: a base backup with standby.signal and primary_conninfo (-R) ----
as_pg "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$STANDBY" -R -X stream --checkpoint=fast \
    --no-sync >"$ROOT/basebackup.log" 2>&1 || { cat "$ROOT/basebackup.log" >&2; log "pg_basebackup failed"; exit 1; }
# The name the primary's synchronous_standby_names refers to (a later line wins over -R's).
echo "primary_conninfo = 'host=127.0.0.1 port=$PRIMARY_PORT user=postgres application_name=hosted_standby'" \
    | as_pg tee -a "$STANDBY/postgresql.auto.conf" >/dev/null
STANDBY_PORT=$(start_server "$STANDBY" "-c hot_standby=on -c fsync=off")

# --- synchronous: a commit on the primary waits for the standby -----------------
psql_at "$PRIMARY_PORT" "ALTER SYSTEM SET synchronous_standby_names = 'hosted_standby'" >/dev/null
psql_at "$PRIMARY_PORT" 'SELECT pg_reload_conf()' >/dev/null
for _ in $(seq 1 100); do
    state=$(psql_at "$PRIMARY_PORT" "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'hosted_standby'" || true)
    [[ "$state" == sync ]] && break
    sleep 0.1
done
if [[ "${state:-}" != sync ]]; then
    cat "$STANDBY.log" >&2 || true
    log "the standby did not become synchronous (state: ${state:-none})"
    exit 1
fi
if [[ $(psql_at "$STANDBY_PORT" 'SELECT pg_is_in_recovery()') != t ]]; then
    log "the standby is not in recovery"; exit 1
fi

# --- control scripts -------------------------------------------------------------
{
    echo '#!/bin/sh'
    echo "# Generated by scripts/with-standby.sh: the primary dies (no checkpoint, no goodbye)."
    echo "cd '$ROOT' && exec ${RUN_AS[*]} '$PG_BIN/pg_ctl' -D '$PRIMARY' -m immediate -w stop"
} >"$ROOT/stop-primary.sh"
{
    echo '#!/bin/sh'
    echo "# Generated by scripts/with-standby.sh: the standby becomes the primary (waits until it is)."
    echo "cd '$ROOT' && exec ${RUN_AS[*]} '$PG_BIN/pg_ctl' -D '$STANDBY' -w promote"
} >"$ROOT/promote.sh"
chmod 755 "$ROOT/stop-primary.sh" "$ROOT/promote.sh"

export HOSTED_TEST_FAILOVER_URL="postgres://postgres@127.0.0.1:$STANDBY_PORT,127.0.0.1:$PRIMARY_PORT/hosted_test?target_session_attrs=read-write"
export HOSTED_TEST_FAILOVER_PRIMARY_URL="postgres://postgres@127.0.0.1:$PRIMARY_PORT/hosted_test"
export HOSTED_TEST_FAILOVER_STANDBY_URL="postgres://postgres@127.0.0.1:$STANDBY_PORT/hosted_test"
export HOSTED_TEST_FAILOVER_STOP_PRIMARY="$ROOT/stop-primary.sh"
export HOSTED_TEST_FAILOVER_PROMOTE="$ROOT/promote.sh"
export HOSTED_TEST_FAILOVER_LOGS="$ROOT"
log "primary on $PRIMARY_PORT, synchronous standby on $STANDBY_PORT: $HOSTED_TEST_FAILOVER_URL"

set +e
"$@"
status=$?
set -e
exit "$status"
