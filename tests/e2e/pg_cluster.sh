#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests, on a Unix socket in a
# directory of its own (no TCP port, nothing shared with another test run or
# the machine's own clusters):
#   pg_cluster.sh start DIR [PID]  initdb + pg_ctl start; prints the connection
#                             string of its superuser to stdout; with PID, the
#                             server is stopped once that process is gone,
#                             however it ended (a crash, a ctest timeout)
#   pg_cluster.sh stop DIR    stops it at once and removes DIR
# The server runs as the invoking user, or as 'postgres' (else 'nobody')
# when that is root: initdb refuses root. It does not wait for the disk
# (fsync off: the tests' data is thrown away) unless PG_CLUSTER_DURABLE=1
# (benchmarks: a server as one would run it). Exit 77 with the reason on stderr
# when no server can be installed or started here, or DATAPROF_TEST_NO_PG=1
# says to act as if (the tests skip).
set -euo pipefail
cmd=${1:-} dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: pg_cluster.sh start DIR [PID] | stop DIR" >&2; exit 2; }

bindir=
for d in /usr/lib/postgresql/15/bin /usr/lib/postgresql/*/bin; do
	if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then bindir=$d; break; fi
done
as=()
if [ "$(id -u)" = 0 ]; then
	user=postgres
	id -u "$user" >/dev/null 2>&1 || user=nobody
	as=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups --)
fi

case $cmd in
start)
	[ -n "$bindir" ] || { echo "no PostgreSQL server installed (Debian: apt-get install postgresql)" >&2; exit 77; }
	# the tests of a machine without a server, on one with it
	[ "${DATAPROF_TEST_NO_PG:-0}" = 0 ] || { echo "DATAPROF_TEST_NO_PG is set" >&2; exit 77; }
	mkdir -p "$dir"
	[ ${#as[@]} = 0 ] || chown "$user" "$dir"
	chmod 700 "$dir"
	# initdb and the server write only under DIR; HOME for any tool that looks
	if ! (cd "$dir" && HOME=$dir "${as[@]}" "$bindir/initdb" -D "$dir/data" -U dataprof \
		--auth=trust -N -E UTF8 --locale=C >"$dir/initdb.log" 2>&1); then
		echo "initdb failed: $(tail -n 1 "$dir/initdb.log")" >&2
		exit 77
	fi
	# password rules for the tests of credentials: role 'ci' must give one
	printf 'local all ci scram-sha-256\nlocal all all trust\n' >"$dir/data/pg_hba.conf"
	durable="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
	[ "${PG_CLUSTER_DURABLE:-0}" = 0 ] || durable=
	if ! (cd "$dir" && HOME=$dir "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-c listen_addresses='' -c unix_socket_directories='$dir' -c port=5432 $durable -c max_connections=40 -c shared_buffers=16MB" \
		start >/dev/null 2>&1); then
		echo "the PostgreSQL server did not start: $(tail -n 1 "$dir/server.log" 2>/dev/null)" >&2
		exit 77
	fi
	if [ -n "${3:-}" ]; then
		setsid "$0" watch "$dir" "$3" </dev/null >/dev/null 2>&1 &
	fi
	echo "host=$dir port=5432 user=dataprof dbname=postgres"
	;;
watch)
	while kill -0 "$3" 2>/dev/null; do sleep 1; done
	exec "$0" stop "$dir"
	;;
stop)
	if [ -n "$bindir" ] && [ -f "$dir/data/postmaster.pid" ]; then
		(cd "$dir" && "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1) || true
	fi
	rm -rf "$dir"
	;;
*)
	echo "usage: pg_cluster.sh start DIR [PID] | stop DIR" >&2
	exit 2
	;;
esac
