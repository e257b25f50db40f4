#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the store's tests and prints
# its URL (for FITBOT_TEST_POSTGRES), then on a second line its folder;
# `.ci/postgres.sh stop FOLDER` stops it and deletes the folder.
#
# The server comes from the distribution's packages (Debian: apt-get
# install -y postgresql). Started by root it runs as the unprivileged
# "postgres" user the package creates. It listens on a unix socket in its
# folder and on 127.0.0.1:${PGPORT:-55432} only, trusts local connections
# (nothing else can reach it), and runs with fsync off (PGFSYNC=on for a
# durable one, as .ci/loaddb.sh figures want): it is thrown away.
set -euo pipefail
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ]; then
  echo "postgres.sh: no PostgreSQL server; install it with: apt-get install -y postgresql" >&2
  exit 1
fi
run=()
if [ "$(id -u)" = 0 ]; then
  run=(runuser -u postgres --)
fi
if [ "${1:-}" = stop ]; then
  "${run[@]}" "$bin/pg_ctl" -D "$2/data" -m fast stop >/dev/null
  rm -rf "$2"
  exit 0
fi
port=${PGPORT:-55432}
dir=$(mktemp -d /tmp/fitbot-pg.XXXXXX)
if [ "$(id -u)" = 0 ]; then
  chown postgres: "$dir"
fi
"${run[@]}" "$bin/initdb" -D "$dir/data" -U fitbot -A trust -E UTF8 --no-locale >"$dir/initdb.log"
"${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=${PGFSYNC:-off} -c max_connections=200" start >/dev/null
echo "postgres://fitbot@127.0.0.1:$port/postgres?sslmode=disable"
echo "$dir"
