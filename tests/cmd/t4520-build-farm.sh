#!/bin/sh
# Builds on several machines, on this one: a shared ccache in a Redis on
# 127.0.0.1 and compiles through a distccd on 127.0.0.1.  A small C
# "kernel" (the fake Kbuild of lib-world.sh, compiling with -g and an
# include directory by absolute path, as Kbuild does) goes through real
# gcc, ccache and distcc.  A second workspace in another directory with
# an empty local cache gets every object from the shared cache; a dead
# Redis or distcc host does not fail the build.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"
. "$(dirname "$0")/lib-farm.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt
# distccd drops to an unprivileged user, who must reach its log below here.
chmod 711 "$TRASH"

if ! distcc_ready || ! command -v ccache >/dev/null; then
	echo "# redis-server, distcc or ccache missing, or no /usr/lib/distcc/gcc: run make deps"
	t_failed=1
	test_done
fi

REDIS_PID= DISTCCD_PID=
trap 'stop_pid "$REDIS_PID"; stop_pid "$DISTCCD_PID"' EXIT
start_redis "$TRASH/redis" || { echo "# redis-server did not start"; t_failed=1; test_done; }
start_distccd "$TRASH/distccd" || { echo "# distccd did not start"; t_failed=1; test_done; }
DEAD_PORT=$(free_port)

# run_ws WS CCACHE_DIR: tide run of day 1 in workspace WS with that local cache.
run_ws() {
	CCACHE_DIR=$2 tide -C "$1" -f world/trees.conf run --no-boot --date 2026-01-01 >"$1.out" 2>&1 ||
	{ cat "$1.out"; return 1; }
}

# stat WS EXPR: a value from WS's day 1 build record.
stat() {
	WS=$1 day_field 2026-01-01 "d[\"build\"]$2"
}

test_expect_success 'setup: a small C kernel with a header, one tree' '
	mkdir -p kt && printf "CONFIG_GPIO=y\n" > kt/smoke.config &&
	git init -q -b master world/mainline &&
	fake_kernel_source world/mainline \
		"\$(CC) -g -Wall -I\$(CURDIR)/include -c \$(CURDIR)/\$< -o \$@" &&
	mkdir -p world/mainline/include &&
	echo "#define K_ONE 1" > world/mainline/include/k.h &&
	for f in a b c; do
		printf "#include <k.h>\nint %s(void) { return K_ONE; }\n" $f > world/mainline/$f.c
	done &&
	git -C world/mainline add . && git -C world/mainline commit -qm mainline &&
	git -C world/mainline tag v1.0 &&
	make_tree gpio d.c "int d(void) { return 4; }" &&
	conf "gpio git gpio#for-next"
'

test_expect_success 'bad build settings are refused with their line, before the day' '
	mkdir -p bad &&
	check_bad() {
		printf "# build settings\n%s\n" "$1" > bad/config &&
		test_must_fail --status=3 tide -C bad -f world/trees.conf run --no-boot \
			--date 2026-01-01 2>err &&
		echo "tide: $TRASH/bad/config:2: $2" > expect &&
		test_cmp expect err &&
		test ! -d bad/days
	} &&
	check_bad "cache = https://127.0.0.1:8080/cache" \
		"cache '\''https://127.0.0.1:8080/cache'\'': ccache 4.7 cannot use TLS: use http:// or redis://" &&
	check_bad "cache = ftp://h/x" "cache '\''ftp://h/x'\'': the scheme must be redis:// or http://" &&
	check_bad "cache = redis://:secret@h:99999" \
		"cache '\''redis://:***@h:99999'\'': the port is not in 1-65535" &&
	check_bad "cache = redis://" "cache '\''redis://'\'': no host name" &&
	check_bad "cache = redis://h:6379/x" \
		"cache '\''redis://h:6379/x'\'': a redis database is a number (redis://HOST:PORT/DB)" &&
	check_bad "cache = redis://h a" "cache '\''redis://h a'\'': one URL, without blanks" &&
	check_bad "distcc-hosts = me@h1" \
		"distcc-hosts '\''me@h1'\'': ssh hosts (USER@HOST) are not supported: run distccd on the host" &&
	check_bad "distcc-hosts = h1,cpp,lzo" \
		"distcc-hosts '\''h1,cpp,lzo'\'': pump mode (,cpp) does not work for kernel builds" &&
	check_bad "distcc-hosts = localhost" \
		"distcc-hosts '\''localhost'\'': no build host (HOST[:PORT][/LIMIT][,lzo])" &&
	check_bad "distcc-hosts = h1/0" "distcc-hosts '\''h1/0'\'': a host'\''s /LIMIT is not in 1-1000" &&
	check_bad "distcc-jobs = 8" "distcc-jobs '\''8'\'': set without distcc-hosts" &&
	printf "distcc-hosts = h1\ndistcc-jobs = many\n" > bad/config &&
	test_must_fail --status=3 tide -C bad build HEAD 2>err &&
	echo "tide: $TRASH/bad/config:2: distcc-jobs '\''many'\'': not a number in 1-1024" > expect &&
	test_cmp expect err
'

test_expect_success 'a build with the shared cache fills Redis' '
	printf "cache = redis://127.0.0.1:%s\n" "$REDIS_PORT" > ws1.config &&
	mkdir -p ws1 && cp ws1.config ws1/config &&
	run_ws ws1 "$TRASH/cc1" &&
	test "$(stat ws1 "[\"status\"]")" = ok &&
	test "$(stat ws1 "[\"remote_cache\"]")" = "redis://127.0.0.1:$REDIS_PORT" &&
	test "$(stat ws1 "[\"ccache_stats\"][\"misses\"]")" = 4 &&
	test "$(stat ws1 "[\"ccache_stats\"][\"remote_hits\"]")" = 0 &&
	test "$(redis-cli -p "$REDIS_PORT" dbsize)" -ge 4
'

test_expect_success 'a second workspace elsewhere, local cache empty, gets remote hits' '
	mkdir -p else/where/ws2 && cp ws1.config else/where/ws2/config &&
	run_ws else/where/ws2 "$TRASH/cc2" &&
	test "$(stat else/where/ws2 "[\"status\"]")" = ok &&
	test "$(stat else/where/ws2 "[\"ccache_stats\"][\"remote_hits\"]")" = 4 &&
	test "$(stat else/where/ws2 "[\"ccache_stats\"][\"misses\"]")" = 0 &&
	test "$(stat else/where/ws2 "[\"ccache_stats\"][\"local_hits\"]")" = 0 &&
	tide -C else/where/ws2 show 2026-01-01 >show &&
	grep "ccache:" show >actual &&
	echo "        ccache: 4 hits (0 local, 4 remote), 0 misses, 0 uncacheable; shared cache redis://127.0.0.1:$REDIS_PORT" >expect &&
	test_cmp expect actual
'

# The same compile as tide ran, but with the directory in the hash (-g).
test_expect_success 'without the fixed hash settings the second workspace would miss' '
	(cd else/where/ws2/build/src &&
	 LC_ALL=C LANG=C CCACHE_DIR=$TRASH/cc3 CCACHE_REMOTE_STORAGE=redis://127.0.0.1:$REDIS_PORT \
	 CCACHE_BASEDIR=$TRASH/else/where/ws2 CCACHE_STATSLOG=$TRASH/hashdir.stats \
		ccache gcc -g -Wall -I$PWD/include -c $PWD/a.c -o $TRASH/a.o) &&
	grep -qx cache_miss hashdir.stats
'

test_expect_success 'a build through distcc compiles on the distccd' '
	printf "distcc-hosts = 127.0.0.1:%s/2,lzo\n" "$DISTCCD_PORT" > ws3.config &&
	mkdir -p ws3 && cp ws3.config ws3/config &&
	run_ws ws3 "$TRASH/cc4" &&
	test "$(stat ws3 "[\"status\"]")" = ok &&
	test "$(stat ws3 "[\"jobs\"]")" = $((2 + $(nproc))) &&
	test "$(stat ws3 "[\"distcc\"][\"remote\"]")" = 4 &&
	test "$(stat ws3 "[\"distcc\"][\"fallbacks\"]")" = 0 &&
	test "$(stat ws3 "[\"distcc\"][\"hosts\"][0][\"host\"]")" = "127.0.0.1:$DISTCCD_PORT" &&
	test "$(stat ws3 "[\"distcc\"][\"hosts\"][0][\"compiles\"]")" = 4 &&
	test "$(grep -c "COMPILE_OK.*/usr/bin/gcc" distccd/distccd.log)" = 4 &&
	tide -C ws3 show 2026-01-01 >show &&
	grep "distcc:" show >actual &&
	echo "        distcc: 4 compiles on hosts, 0 here (0 fallbacks) (127.0.0.1:$DISTCCD_PORT 4)" >expect &&
	test_cmp expect actual
'

test_expect_success 'tide build prints the same lines' '
	rm -rf ws3/build/out &&
	CCACHE_DIR=$TRASH/cc4 tide -C ws3 build 2026-01-01 >out &&
	grep -E "^(ccache|distcc):" out >actual &&
	cat >expect <<-\EOF &&
	ccache: 4 hits (4 local, 0 remote), 0 misses, 0 uncacheable
	distcc: 0 compiles on hosts, 0 here (0 fallbacks)
	EOF
	test_cmp expect actual
'

test_expect_success 'a dead distcc host: the compiles run here and the record says so' '
	printf "distcc-hosts = 127.0.0.1:%s\n" "$DEAD_PORT" > ws4.config &&
	mkdir -p ws4 && cp ws4.config ws4/config &&
	run_ws ws4 "$TRASH/cc5" &&
	test "$(stat ws4 "[\"status\"]")" = ok &&
	test "$(stat ws4 "[\"distcc\"][\"remote\"]")" = 0 &&
	test "$(stat ws4 "[\"distcc\"][\"local\"]")" = 4 &&
	test "$(stat ws4 "[\"distcc\"][\"fell_back\"]")" = True &&
	tide -C ws4 show 2026-01-01 >show &&
	grep "distcc:" show >actual &&
	cat actual &&
	grep -qx "        distcc: no host answered, 4 compiles ran here (127.0.0.1:$DEAD_PORT [1-4] failed)" actual &&
	grep -q "^# tide: distcc: no host answered, 4 compiles ran here" ws4/days/2026-01-01/build.log
'

stopped="$DISTCCD_PID $REDIS_PID"
stop_pid "$DISTCCD_PID" && DISTCCD_PID=
stop_pid "$REDIS_PID" && REDIS_PID=

test_expect_success 'a dead Redis: the build succeeds from the local cache and compiler' '
	mkdir -p ws5 && cp ws1.config ws5/config &&
	run_ws ws5 "$TRASH/cc6" &&
	test "$(stat ws5 "[\"status\"]")" = ok &&
	test "$(stat ws5 "[\"ccache_stats\"][\"misses\"]")" = 4 &&
	test "$(stat ws5 "[\"ccache_stats\"][\"remote_errors\"]")" -ge 4 &&
	tide -C ws5 show 2026-01-01 >show &&
	grep -q "ccache: 0 hits (0 local, 0 remote), 4 misses, 0 uncacheable, [0-9]* remote errors" show
'

test_expect_success 'redis-server and distccd were stopped' '
	test -z "$DISTCCD_PID$REDIS_PID" &&
	for p in $stopped; do ! kill -0 $p 2>/dev/null || exit 1; done
'

test_done
