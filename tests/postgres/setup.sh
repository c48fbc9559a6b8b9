#!/bin/sh
# Installs the PostgreSQL server that tests/postgres/server.py starts, throwaway, for tests
# and benches: Debian's postgresql (initdb, postgres under /usr/lib/postgresql/<version>/bin).
# Idempotent, and quick when an initdb is there; `make test` runs it. CI runs as root on
# Debian; elsewhere install PostgreSQL yourself (the tests fail, never skip, without it).
set -eu

for bin in /usr/lib/postgresql/*/bin; do
    [ -x "$bin/initdb" ] && exit 0
done
command -v initdb >/dev/null 2>&1 && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "tests/postgres/setup.sh: no PostgreSQL (initdb) here; run this as root, or" \
        "install PostgreSQL 15 yourself (Debian: apt-get install postgresql)" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "tests/postgres/setup.sh: no apt-get here; install PostgreSQL 15 (initdb, postgres)" \
        "and put its bin directory on PATH" >&2
    exit 1
fi
echo "tests/postgres/setup.sh: installing postgresql" >&2
apt-get update -qq
env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql
