#!/usr/bin/env bash
# A throw-away PostgreSQL cluster for the tests and benchmarks: loopback only, trust auth.
#
#   tools/scratch_postgres.sh start   # installs the server if missing, starts it, prints
#                                     #   export TC_TEST_POSTGRES_URL=postgresql://...
#   tools/scratch_postgres.sh stop    # stops it and removes its directory
#   tools/scratch_postgres.sh url     # prints the URL of the running cluster
#   tools/scratch_postgres.sh halt    # stops the server, keeps its data (tests: database down)
#   tools/scratch_postgres.sh resume  # starts it again after halt
#
# Settings (environment): TC_PG_DIR (default /tmp/tc-scratch-pg), TC_PG_PORT (default 55432).
# PostgreSQL refuses to run as root: as root the cluster is made and run as the "postgres" user
# (created by Debian's package), in a directory owned by it. Never for production data.
set -euo pipefail

DIR="${TC_PG_DIR:-/tmp/tc-scratch-pg}"
PORT="${TC_PG_PORT:-55432}"
DB=tc_test
URL="postgresql://tc@127.0.0.1:${PORT}/${DB}"

find_bin() {
    local b
    b="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
    if [[ -n "$b" && -x "$b/initdb" ]]; then echo "$b"; return 0; fi
    if command -v initdb >/dev/null 2>&1; then dirname "$(command -v initdb)"; return 0; fi
    return 1
}

as_owner() {
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

start() {
    local bin
    if ! bin="$(find_bin)"; then
        if [[ "$(id -u)" != 0 ]]; then
            echo "scratch_postgres: no PostgreSQL server (initdb) and not root to install it" >&2
            exit 1
        fi
        echo "scratch_postgres: installing PostgreSQL (apt-get)" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq postgresql >&2
        bin="$(find_bin)"
    fi
    if [[ -f "$DIR/data/postmaster.pid" ]] && as_owner "$bin/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
        echo "export TC_TEST_POSTGRES_URL=$URL TC_TEST_POSTGRES_DIR=$DIR"
        return 0
    fi
    rm -rf "$DIR"
    mkdir -p "$DIR"
    if [[ "$(id -u)" == 0 ]]; then chown postgres: "$DIR"; fi
    as_owner "$bin/initdb" -D "$DIR/data" -U tc --auth=trust -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 \
        || { cat "$DIR/initdb.log" >&2; exit 1; }
    cat >>"$DIR/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR'
max_connections = 300
shared_buffers = 256MB
fsync = on
CONF
    as_owner "$bin/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start >&2 \
        || { cat "$DIR/server.log" >&2; exit 1; }
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$PORT" -U tc "$DB"
    echo "$URL" >"$DIR/url"
    echo "export TC_TEST_POSTGRES_URL=$URL TC_TEST_POSTGRES_DIR=$DIR"
}

halt() {
    as_owner "$(find_bin)/pg_ctl" -D "$DIR/data" -m immediate -w stop >&2
}

resume() {
    as_owner "$(find_bin)/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start >&2
}

stop() {
    local bin
    bin="$(find_bin)" || exit 0
    if [[ -d "$DIR/data" ]]; then
        as_owner "$bin/pg_ctl" -D "$DIR/data" -m fast -w stop >&2 || true
    fi
    rm -rf "$DIR"
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    url) cat "$DIR/url" ;;
    halt) halt ;;
    resume) resume ;;
    *) echo "usage: $0 start|stop|url|halt|resume" >&2; exit 2 ;;
esac
