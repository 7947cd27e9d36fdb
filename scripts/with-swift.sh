#!/usr/bin/env bash
# Runs a command against a throwaway OpenStack Swift (with its S3 API) on loopback: one
# replica, rings built at start, storage in the run's temporary directory, tempauth
# credentials. Everything runs as the current user; it is stopped and deleted on exit.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: scripts/with-swift.sh CMD [ARG...]

Starts a throwaway OpenStack Swift (Debian's swift-proxy, swift-account, swift-container and
swift-object, S3 API through swift's s3api middleware, tempauth, one replica, rings built in a
temporary directory, objects stored under it), creates the bucket `hosted-test`, runs CMD with
these variables exported, then stops every server and deletes the directory. Exits with CMD's
status.

  HOSTED_TEST_S3_URL                s3://hosted-test?endpoint=http://127.0.0.1:PORT&region=us-east-1&path_style=true
  HOSTED_TEST_S3_ACCESS_KEY_ID      test:tester
  HOSTED_TEST_S3_SECRET_ACCESS_KEY  testing
  HOSTED_TEST_S3_ENDPOINT           http://127.0.0.1:PORT
  HOSTED_TEST_S3_CTL                script: `"$HOSTED_TEST_S3_CTL" stop` stops the proxy (the S3
                                    endpoint), `"$HOSTED_TEST_S3_CTL" start` starts it again

The storage directory needs user extended attributes (ext4, xfs, tmpfs do); $TMPDIR (default
/tmp) is used, and the script stops with a message when it has none. Runs as root (CI) and as
a normal user alike. Needs Debian's /usr/bin/python3 with python3-swift and python3-botocore
(scripts/setup-debian.sh installs them).
EOF
}

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
    "") usage >&2; exit 2 ;;
esac

log() { echo "with-swift: $*" >&2; }

# Debian's own interpreter: swift and botocore are Debian packages, not in a pyenv or a venv.
PY=/usr/bin/python3
for bin in swift-proxy-server swift-account-server swift-container-server swift-object-server memcached; do
    if ! command -v "$bin" >/dev/null 2>&1; then
        log "missing $bin (run scripts/setup-debian.sh)"
        exit 1
    fi
done
if ! "$PY" -c 'import swift, botocore' 2>/dev/null; then
    log "$PY cannot import swift and botocore (install python3-swift python3-botocore)"
    exit 1
fi

started_at=$(date +%s.%N)
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/hosted-swift.XXXXXX")
ETC="$ROOT/etc"
DEVICES="$ROOT/srv"
RUN="$ROOT/run"
mkdir -p "$ETC" "$DEVICES/d1" "$RUN" "$ROOT/cache"
chmod 700 "$ROOT"

PIDS=()
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    local pid
    for pid in "${PIDS[@]}" $(cat "$RUN"/*.pid 2>/dev/null || true); do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}" $(cat "$RUN"/*.pid 2>/dev/null || true); do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    rm -rf "$ROOT"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Swift keeps object metadata in user extended attributes.
if ! "$PY" -c 'import os, sys; p = sys.argv[1] + "/xattr-probe"; open(p, "w").close(); os.setxattr(p, "user.probe", b"1"); os.unlink(p)' \
    "$DEVICES/d1" 2>/dev/null; then
    log "$DEVICES has no user extended attributes; set TMPDIR to a directory on ext4, xfs or tmpfs"
    exit 1
fi

free_ports() {
    "$PY" - "$1" <<'PYEOF'
import socket, sys
sockets = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); sockets.append(s)
print(" ".join(str(s.getsockname()[1]) for s in sockets))
for s in sockets: s.close()
PYEOF
}
read -r PROXY_PORT ACCOUNT_PORT CONTAINER_PORT OBJECT_PORT MEMCACHE_PORT <<<"$(free_ports 5)"
USER_NAME=$(id -un)
SECRET=testing

# --- configuration -----------------------------------------------------------
cat >"$ETC/swift.conf" <<EOF
[swift-hash]
swift_hash_path_suffix = hosted-test-$RANDOM$RANDOM
swift_hash_path_prefix = hosted-test

[storage-policy:0]
name = Policy-0
default = yes
EOF

common() {
    cat <<EOF
[DEFAULT]
swift_dir = $ETC
devices = $DEVICES
mount_check = false
bind_ip = 127.0.0.1
bind_port = $1
workers = 0
user = $USER_NAME
log_level = WARNING
log_name = $2
EOF
}
for kind in account container object; do
    case $kind in
        account) port=$ACCOUNT_PORT ;;
        container) port=$CONTAINER_PORT ;;
        object) port=$OBJECT_PORT ;;
    esac
    {
        common "$port" "$kind"
        cat <<EOF

[pipeline:main]
pipeline = $kind-server

[app:$kind-server]
use = egg:swift#$kind

[$kind-replicator]
[$kind-auditor]
[$kind-updater]
EOF
        if [[ $kind == container ]]; then echo "[container-sync]"; fi
    } >"$ETC/$kind-server.conf"
done

{
    common "$PROXY_PORT" proxy
    cat <<EOF

[pipeline:main]
pipeline = catch_errors gatekeeper proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true
allow_account_management = true

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = $SECRET .admin
user_test2_tester2 = other .admin

[filter:s3api]
use = egg:swift#s3api
location = us-east-1
# Virtual-host style: BUCKET.localhost (curl resolves *.localhost to loopback itself).
storage_domain = localhost
s3_acl = false
dns_compliant_bucket_names = true
allow_no_owner = false

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$MEMCACHE_PORT

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:listing_formats]
use = egg:swift#listing_formats

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo
EOF
} >"$ETC/proxy-server.conf"

# --- rings: one device, one replica, built in one Python process (faster than three
# swift-ring-builder runs of three commands each) ---------------------------------------
"$PY" - "$ETC" "$ACCOUNT_PORT" "$CONTAINER_PORT" "$OBJECT_PORT" <<'PYEOF' >"$ROOT/rings.log" 2>&1 || {
import sys
from swift.common.ring import RingBuilder
etc, ports = sys.argv[1], dict(zip(["account", "container", "object"], sys.argv[2:5]))
for kind, port in ports.items():
    builder = RingBuilder(6, 1, 1)
    builder.add_dev({"region": 1, "zone": 1, "ip": "127.0.0.1", "port": int(port), "device": "d1", "weight": 100})
    builder.rebalance()
    builder.save(f"{etc}/{kind}.builder")
    builder.get_ring().save(f"{etc}/{kind}.ring.gz")
PYEOF
    cat "$ROOT/rings.log" >&2; log "building the rings failed"; exit 1; }

# --- start -------------------------------------------------------------------
start_server() {
    local kind=$1
    # -v keeps the server on its stdio (logged to a file here) instead of syslog.
    "swift-$kind-server" "$ETC/$kind-server.conf" -v >>"$ROOT/$kind.log" 2>&1 &
    echo $! >"$RUN/$kind.pid"
}
# tempauth keeps its tokens in memcached (the proxy refuses S3 requests without it).
MEMCACHED_USER=()
if [[ $(id -u) -eq 0 ]]; then MEMCACHED_USER=(-u root); fi
memcached -l 127.0.0.1 -p "$MEMCACHE_PORT" -U 0 -m 16 "${MEMCACHED_USER[@]}" >>"$ROOT/memcached.log" 2>&1 &
echo $! >"$RUN/memcached.pid"
for kind in account container object proxy; do start_server "$kind"; done

ENDPOINT="http://127.0.0.1:$PROXY_PORT"
wait_ready() {
    local port=$1 name=$2
    for _ in $(seq 200); do
        if "$PY" -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2).close()' "$port" 2>/dev/null; then
            return 0
        fi
        if ! kill -0 "$(cat "$RUN/$name.pid")" 2>/dev/null; then
            tail -n 30 "$ROOT/$name.log" >&2
            log "$name exited"
            return 1
        fi
        sleep 0.1
    done
    tail -n 30 "$ROOT/$name.log" >&2
    log "$name did not listen on $port"
    return 1
}
wait_ready "$MEMCACHE_PORT" memcached
wait_ready "$ACCOUNT_PORT" account
wait_ready "$CONTAINER_PORT" container
wait_ready "$OBJECT_PORT" object
wait_ready "$PROXY_PORT" proxy

# --- the bucket, through the S3 API (botocore signs) ---------------------------
"$PY" - "$ENDPOINT" "$SECRET" <<'PYEOF' >"$ROOT/bucket.log" 2>&1 || {
import sys, time
import botocore.session
from botocore.config import Config
endpoint, secret = sys.argv[1], sys.argv[2]
client = botocore.session.get_session().create_client(
    "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="test:tester",
    aws_secret_access_key=secret, config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}))
last = None
for _ in range(25):
    try:
        client.create_bucket(Bucket="hosted-test")
        client.put_object(Bucket="hosted-test", Key="probe", Body=b"probe")
        assert client.get_object(Bucket="hosted-test", Key="probe")["Body"].read() == b"probe"
        client.delete_object(Bucket="hosted-test", Key="probe")
        break
    except Exception as error:  # the account and container servers may still be warming up
        last = error
        time.sleep(0.2)
else:
    raise SystemExit(f"bucket creation failed: {last}")
PYEOF
    tail -n 5 "$ROOT/bucket.log" >&2; tail -n 20 "$ROOT/proxy.log" >&2; log "creating the bucket failed"; exit 1; }

# --- control script for tests: stop or start the proxy (the S3 endpoint) -------
{
    echo '#!/bin/sh'
    echo '# Generated by scripts/with-swift.sh: stop or start the throwaway S3 endpoint.'
    echo 'set -e'
    echo "pidfile='$RUN/proxy.pid'"
    echo 'case "${1:-}" in'
    echo '  stop) pid=$(cat "$pidfile"); kill "$pid" 2>/dev/null || true'
    echo '        for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.1; done; kill -9 "$pid" ;;'
    echo "  start) swift-proxy-server '$ETC/proxy-server.conf' -v >>'$ROOT/proxy.log' 2>&1 &"
    echo '         echo $! >"$pidfile"'
    echo "         for i in \$(seq 100); do $PY -c 'import socket; socket.create_connection((\"127.0.0.1\", $PROXY_PORT), 0.2).close()' 2>/dev/null && exit 0; sleep 0.1; done"
    echo '         echo "proxy did not start" >&2; exit 1 ;;'
    echo '  *) echo "usage: $0 stop|start" >&2; exit 2 ;;'
    echo 'esac'
} >"$RUN/ctl.sh"
chmod 700 "$RUN/ctl.sh"

export HOSTED_TEST_S3_URL="s3://hosted-test?endpoint=$ENDPOINT&region=us-east-1&path_style=true"
export HOSTED_TEST_S3_ACCESS_KEY_ID="test:tester"
export HOSTED_TEST_S3_SECRET_ACCESS_KEY="$SECRET"
export HOSTED_TEST_S3_ENDPOINT="$ENDPOINT"
export HOSTED_TEST_S3_CTL="$RUN/ctl.sh"
elapsed=$("$PY" -c 'import sys, time; print(f"{time.time() - float(sys.argv[1]):.1f}")' "$started_at")
log "Swift (S3 API) ready at $ENDPOINT in ${elapsed} s (storage $DEVICES)"

# --- run the command; cleanup happens in the EXIT trap ----------------------
set +e
"$@"
status=$?
set -e
exit "$status"
