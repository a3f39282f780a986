#!/bin/sh
# tide try on the kernel world: the three series of integration/try/
# against day 1 as t4600 built it (work/build-ws, whose DIR/build holds
# day 1's build): the series that builds is built incrementally in
# DIR/try, seeded from that build (only gpio-sim.o recompiles); the one
# that conflicts with gpio is reported with its tree and files and not
# built; the one that breaks only on the day fails to build with an error
# the day does not have; the one that builds also boots with the smoke
# tests (--boot).  The workspace is the same afterwards.  The time
# of the warm try lands in $TIDE_MEASURE/try-kernel.txt.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-configs.sh"

I=$TOP/integration
WORK=$TOP/work
WORLD=$WORK/build-world
WS=$WORK/build-ws
DAY=2026-01-01
MEASURE=${TIDE_MEASURE:-$TOP/build/measurements}
export TIDE_KERNEL_TESTS=$TOP/kernel-tests
exec 3>&1
mkdir -p "$MEASURE"

# The workspace but DIR/try: names, sizes, times, and the refs.
ws_state() {
	(cd "$WS" && find . -mindepth 1 -path ./try -prune -o -printf '%p %s %T@\n' | sort) &&
	git --git-dir="$WS/repo.git" for-each-ref
}

# try_field EXPR: a value from out.json, by a python expression on d.
try_field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" out.json
}

# t4600 leaves day 1 built in work/build-ws; run alone, do what it does.
test_expect_success 'day 1 built in the workspace (t4600, else built here)' '
	if ! test -f "$WS/build/src.tree" || ! test -f "$WS/days/$DAY/day.json"; then
		if [ ! -d "$WORK/world/mainline.git" ]; then "$I/import-mainline" >/dev/null; fi &&
		make -s -C "$TOP/kernel-tests" &&
		world_day 1 "$WORLD" &&
		rc=0 && nice "$TIDE_BIN" -C "$WS" -f "$WORLD/trees.conf" run --no-boot --configs smoke --date $DAY >out 2>err || rc=$? &&
		{ test $rc -le 1 || { cat out err; false; }; }
	fi &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"build\"][\"status\"] == \"ok\"" \
		"$WS/days/$DAY/day.json" &&
	rm -rf "$WS/try" &&
	ws_state >"$TRASH/state.before"
'

test_expect_success 'a series that applies and builds: incremental, only its object' '
	start=$(date +%s.%N) &&
	tide -C "$WS" try --day $DAY --build --json "$I/try/builds" >out.json &&
	end=$(date +%s.%N) &&
	test "$(try_field "d[\"result\"]")" = ok &&
	test "$(try_field "[t[\"status\"] for t in d[\"trees\"]] == [\"ok\"] * 5")" = True &&
	test "$(try_field "d[\"build\"][\"status\"]")" = ok &&
	test "$(try_field "d[\"build\"][\"checkout\"][\"written\"]")" = 1 &&
	test "$(try_field "d[\"build\"][\"config_regenerated\"]")" = False &&
	log=$(try_field "d[\"build\"][\"log\"]") &&
	grep -q "  CC      drivers/gpio/gpio-sim.o" "$log" &&
	test "$(grep -c "^  CC  " "$log")" -lt 10 &&
	echo "try (warm, incremental): $(echo "$end - $start" | bc) s total, seed $(try_field "round(d[\"build\"][\"seed_seconds\"], 1)") s (seeded: $(try_field "d[\"build\"][\"seeded\"]")), make $(try_field "round(d[\"build\"][\"make_seconds\"], 1)") s, $(grep -c "^  CC  " "$log") objects compiled" |
		tee -a "$MEASURE/try-kernel.txt" >&3
'

test_expect_success 'the same series booted with the smoke tests (--boot)' '
	start=$(date +%s.%N) &&
	tide -C "$WS" try --day $DAY --boot --json "$I/try/builds" >out.json &&
	end=$(date +%s.%N) &&
	test "$(try_field "d[\"result\"]")" = ok &&
	test "$(try_field "d[\"build\"][\"status\"]")" = ok &&
	test "$(try_field "d[\"boot\"][\"status\"]")" = passed &&
	test "$(try_field "d[\"boot\"][\"counts\"][\"fail\"]")" = 0 &&
	test "$(try_field "d[\"boot\"][\"counts\"][\"pass\"] > 0")" = True &&
	test "$(try_field "[t[\"name\"] for t in d[\"boot\"][\"tests\"] if \"gpio\" in t[\"name\"]] != []")" = True &&
	test -s "$WS/try/console.log" &&
	echo "try --boot (warm): $(echo "$end - $start" | bc) s total, boot $(try_field "round(d[\"boot\"][\"seconds\"], 1)") s, $(try_field "d[\"boot\"][\"counts\"][\"pass\"]") passed" |
		tee -a "$MEASURE/try-kernel.txt" >&3
'

test_expect_success 'a series that conflicts with gpio: the tree and both files, no build' '
	rc=0 && tide -C "$WS" try --day $DAY --json "$I/try/conflicts-gpio" >out.json || rc=$? &&
	test $rc = 1 &&
	test "$(try_field "d[\"problems\"] == [\"apply\", \"conflict\"]")" = True &&
	test "$(try_field "[a[\"status\"] for a in d[\"apply\"]] == [\"ok\", \"failed\", \"ok\"]")" = True &&
	test "$(try_field "[t[\"name\"] for t in d[\"trees\"] if t[\"status\"] == \"conflict\"] == [\"gpio\"]")" = True &&
	test "$(try_field "[c[\"path\"] for t in d[\"trees\"] for c in t[\"conflicts\"]] == \
		[\"drivers/gpio/Kconfig\", \"drivers/gpio/Makefile\"]")" = True &&
	try_field "[c[\"commits\"] for t in d[\"trees\"] for c in t[\"conflicts\"]]" |
		grep -q "gpiolib: make the legacy GPIO number interface optional" &&
	test "$(try_field "\"build\" in d")" = False
'

test_expect_success 'a series that builds on v6.1.192 and breaks on the day' '
	rc=0 && tide -C "$WS" try --day $DAY --build "$I/try/breaks-on-day" >out || rc=$? &&
	cat out &&
	test $rc = 1 &&
	grep -q "^  base (v6.1.192)  *ok$" out &&
	grep -q "^  day (next-20260101)  *ok$" out &&
	! grep -q " conflict" out &&
	grep -q "^build: failed" out &&
	grep -q "^  error: include/linux/cpumask.h:[0-9]*:[0-9]*: redefinition of .cpumask_first_and_and.$" out &&
	grep -q "kernel/smp.c:[0-9]*:[0-9]*: note: in expansion of macro .cpumask_first_and_and." "$WS/try/build.log" &&
	grep -q "^result: problems: build" out
'

test_expect_success 'the workspace is unchanged except DIR/try' '
	ws_state >"$TRASH/state.after" &&
	diff -u "$TRASH/state.before" "$TRASH/state.after"
'

test_done
