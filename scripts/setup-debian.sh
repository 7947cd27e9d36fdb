#!/usr/bin/env bash
# Installs the Debian packages Hosted needs to build (and any extra ones named
# as arguments). Idempotent: packages already installed are left alone, and
# `apt-get update` only runs when something actually has to be installed.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: scripts/setup-debian.sh [PACKAGE...]

Installs, only if missing, the Debian packages needed to build Hosted:
  libmicrohttpd-dev libpq-dev libsqlite3-dev libssl-dev libvips-dev libcurl4-openssl-dev libargon2-dev libqrencode-dev
  zlib1g-dev libdlib-dev libblas-dev liblapack-dev libzip-dev libxml2-dev pkg-config
  and, for the object-storage tests (scripts/with-swift.sh), OpenStack Swift with its S3 API:
  swift-proxy swift-account swift-container swift-object python3-swift python3-botocore memcached
plus any extra PACKAGE names given (e.g. `scripts/setup-debian.sh wrk nginx-light`).

Runs `apt-get update` first only when something needs installing.
Uses sudo when not run as root.
EOF
}

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
esac

base_packages=(libmicrohttpd-dev libpq-dev libsqlite3-dev libssl-dev libvips-dev libcurl4-openssl-dev libargon2-dev libqrencode-dev zlib1g-dev libdlib-dev libblas-dev liblapack-dev libzip-dev libxml2-dev pkg-config
    swift-proxy swift-account swift-container swift-object python3-swift python3-botocore memcached)

# "install ok installed" is the only state that means the package is usable
# (dpkg -s also succeeds for removed-but-not-purged packages).
is_installed() {
    [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" == "install ok installed" ]]
}

missing=()
for pkg in "${base_packages[@]}" "$@"; do
    if ! is_installed "$pkg"; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "setup-debian: all packages present" >&2
    exit 0
fi

# Root runs apt directly; anyone else needs sudo.
SUDO=()
if [[ $(id -u) -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "setup-debian: need root or sudo to install: ${missing[*]}" >&2
        exit 1
    fi
    SUDO=(sudo)
fi

echo "setup-debian: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
