#!/usr/bin/env bash
# Runs the Hosted service: installs build dependencies, builds the release
# binary and execs `hosted serve`. SQLite is the default store, so no other
# server is needed.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: scripts/run.sh [SERVE-ARGS...]

Installs build dependencies (scripts/setup-debian.sh), builds the release
binary (`swift build -c release --product hosted`) and runs
`.build/release/hosted serve SERVE-ARGS...`.

Configuration comes from the environment, e.g.
  HOSTED_LISTEN=127.0.0.1:8080
  HOSTED_DATABASE_URL=sqlite:/var/lib/hosted/hosted.sqlite   (or postgres://...)
EOF
}

case "${1:-}" in
    -h|--help) usage; exit 0 ;;
esac

cd "$(dirname "$0")/.."

bash scripts/setup-debian.sh
swift build -c release --product hosted
exec .build/release/hosted serve "$@"
