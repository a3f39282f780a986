# Build services on 127.0.0.1 for the tests and the build benchmark
# (sourced after lib.sh): a Redis for ccache's remote storage and a
# distccd.  Each start_* sets a port and a PID; stop_pid stops one by its
# PID and waits for it.  Nothing is left running: the caller stops what
# it started (test scripts do it in their last test and on exit).

# A port nobody listens on now (the kernel picks it; it is released again).
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# wait_port PORT: up to 10 s for something to accept connections on PORT.
wait_port() {
	python3 -c 'import socket, sys, time
end = time.time() + 10
while time.time() < end:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)' "$1"
}

# start_redis DIR: redis-server on a free port, no persistence, files in
# DIR; sets REDIS_PORT and REDIS_PID.
start_redis() {
	mkdir -p "$1" && REDIS_PORT=$(free_port) || return 1
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
		--daemonize no --dir "$1" --logfile "$1/redis.log" &
	REDIS_PID=$!
	wait_port "$REDIS_PORT"
}

# The user distccd drops to when it runs as root (it refuses to stay root).
distccd_user() {
	if getent passwd distccd >/dev/null; then echo distccd; else echo nobody; fi
}

# start_distccd DIR: distccd on 127.0.0.1 at a free port, two jobs,
# logging every job to DIR/distccd.log; sets DISTCCD_PORT, DISTCCD_PID.
# DIR (and the directories above it) must be open to the user distccd
# drops to when it runs as root.  It gets a session of its own: on
# SIGTERM distccd signals its whole process group.
start_distccd() {
	mkdir -p "$1" && chmod 777 "$1" && : > "$1/distccd.log" &&
	chmod 666 "$1/distccd.log" &&
	DISTCCD_PORT=$(free_port) || return 1
	user=
	if [ "$(id -u)" = 0 ]; then user="--user $(distccd_user)"; fi
	# shellcheck disable=SC2086
	setsid distccd --daemon --no-detach --listen 127.0.0.1 --port "$DISTCCD_PORT" \
		--allow 127.0.0.1 --jobs 2 --log-level=info --log-file="$1/distccd.log" $user &
	DISTCCD_PID=$!
	wait_port "$DISTCCD_PORT"
}

# stop_pid PID: SIGTERM to it and to its children (distccd's preforked
# servers, by their PIDs), then up to 10 s for them to go.
stop_pid() {
	[ -n "$1" ] || return 0
	pids="$1 $(ps -o pid= --ppid "$1" 2>/dev/null)"
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null
	i=0
	for p in $pids; do
		while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do
			sleep 0.1
			i=$((i + 1))
		done
	done
	for p in $pids; do
		! kill -0 "$p" 2>/dev/null || return 1
	done
}

# A distccd that serves gcc: Debian's lists the compilers it may run as
# links to distcc in /usr/lib/distcc (update-distcc-symlinks makes them).
distcc_ready() {
	command -v distccd >/dev/null && command -v distcc >/dev/null &&
	command -v redis-server >/dev/null && [ -e /usr/lib/distcc/gcc ]
}
