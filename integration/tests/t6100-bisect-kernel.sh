#!/bin/sh
# tide bisect on the kernel world: day 3's GPIO smoke failure
# (--test gpio.edge_events) to the planted gpio commit, day 2's build
# break (--build --target, the object of the day's first error) to the
# right tree (and commit, or pair of trees), each day alone and against
# day 1 (--since).  Days 2 and 3 merge bitmap with the resolution of its
# drivers/gpio/Makefile conflict recorded on day 2 (expect.json's), so
# every state bisect builds must replay it.
# integration/days/expect.json names the targets.  Builds go through the
# workspace's build directory and ccache (-j2, niced); the number of
# builds and the wall time of each bisect are written to
# $TIDE_MEASURE/bisect-kernel.txt.  Day 3 alone (the longest) runs only
# with TIDE_CHECK_FULL (make check-kernel-full).
. "$(dirname "$0")/../../tests/cmd/lib.sh"

I=$TOP/integration
EXPECT=$I/days/expect.json
# One world directory per day: the workspace borrows the trees' objects
# (alternates), so laying out another day in the same place would take
# them away from it.
WORLD=$TOP/work/bisect-world
WS=$TOP/work/bisect-ws
# Figures for closing notes; not test results (tests/summarize reads those).
MEASURE=${TIDE_MEASURE:-$TOP/build/measurements}
DAY1=2026-11-01
DAY2=2026-11-02
DAY3=2026-11-03

# expect DAY FIELD: the day's bisect target from expect.json: "tree",
# "subject", or "other" (the other tree of a semantic conflict).
expect() {
	python3 - "$EXPECT" "$1" "$2" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
d = e["days"][sys.argv[2]]
b = d.get("bisect") or {}
if sys.argv[3] == "object":
    print((d.get("build") or {}).get("object", ""))
elif sys.argv[3] == "other":
    sc = (d.get("build") or {}).get("semantic_conflict") or {}
    print(" ".join(t for t in sc.get("trees", []) if t != b.get("tree")))
else:
    print(b.get(sys.argv[3], ""))
PY
}

# run_day N DATE: lay out world day N and integrate it as DATE (exit 1:
# a tree was left out or merged at an earlier version).
run_day() {
	"$I/world" "$1" "$WORLD-$1" >/dev/null &&
	{ tide -C "$WS" -f "$WORLD-$1/trees.conf" run --date "$2" --no-build --no-boot ||
	  test $? = 1; }
}

# measure NAME DATE ARGS...: run the bisect, keep out/err, record cost.
measure() {
	name=$1 date=$2; shift 2
	t0=$(date +%s)
	rc=0
	tide -C "$WS" bisect "$date" "$@" >"$name.out" 2>"$name.err" || rc=$?
	t1=$(date +%s)
	cat "$name.out"
	echo "$name: exit $rc, $(grep '^steps:' "$name.out"), wall $((t1 - t0))s" |
		tee -a "$MEASURE/bisect-kernel.txt"
	return $rc
}

if [ ! -x "$I/world" ] || [ ! -f "$EXPECT" ] || ! command -v qemu-system-x86_64 >/dev/null; then
	test_skip_all "needs integration/world, integration/days/expect.json and QEMU"
fi
mkdir -p "$MEASURE"
export TIDE_KERNEL_TESTS=${TIDE_KERNEL_TESTS:-$TOP/kernel-tests}

# bitmap's status on a day, and how its conflict was handled.
bitmap() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d['trees'] if t['name']=='bitmap'][0]; print(t['status'], t.get('handled'))" \
		"$WS/days/$1/day.json"
}

test_expect_success 'setup: days 1-3 integrated, bitmap merged with a recorded resolution' '
	rm -rf "$WS" &&
	run_day 1 $DAY1 &&
	run_day 2 $DAY2 &&
	test "$(bitmap $DAY2)" = "previous previous" &&
	tide -C "$WS" -f "$WORLD-2/trees.conf" resolve bitmap --date $DAY2 >/dev/null &&
	f="$WS/resolve/bitmap/drivers/gpio/Makefile" &&
	python3 - "$f" "$EXPECT" <<-\EOF &&
	import json, re, sys
	path, expect = sys.argv[1:]
	res = json.load(open(expect))["days"]["2"]["conflicts"][0]["resolution"]["drivers/gpio/Makefile"]
	text = open(path).read()
	text = re.sub(r"<<<<<<< [^\n]*\n.*?>>>>>>> [^\n]*\n", lambda m: res, text, count=1, flags=re.S)
	open(path, "w").write(text)
	EOF
	tide -C "$WS" -f "$WORLD-2/trees.conf" resolve --record bitmap >/dev/null &&
	run_day 2 $DAY2 &&
	run_day 3 $DAY3 &&
	test "$(bitmap $DAY2)" = "merged recorded" &&
	test "$(bitmap $DAY3)" = "merged recorded"
'

# Day against day first: the searches that must replay the recorded
# resolution in every state they build.
test_expect_success 'day 3 against day 1 (--since): the planted gpio commit' '
	tree=$(expect 3 tree) && subject=$(expect 3 subject) &&
	measure day3-since $DAY3 --since $DAY1 --test gpio.edge_events &&
	grep "^tree: $tree$" day3-since.out &&
	grep "^first bad commit: [0-9a-f]* $subject$" day3-since.out &&
	grep "conflicts\? resolved from recorded resolutions" day3-since.err
'

test_expect_success 'day 2 against day 1 (--since): the tree and commit that break the build' '
	tree=$(expect 2 tree) && subject=$(expect 2 subject) && object=$(expect 2 object) &&
	measure day2-since $DAY2 --since $DAY1 --build --target "$object" &&
	grep "^tree: $tree$" day2-since.out &&
	grep "^first bad commit: [0-9a-f]* $subject$" day2-since.out
'

# Day 3 alone searches the same gpio commits as day 3 --since day 1, in
# more steps (8 kernels to build, each near-cold as cpumask.h changes
# between them: about 8 minutes here, more on a loaded machine); it runs
# with make check-kernel-full.
if [ -n "${TIDE_CHECK_FULL:-}" ]; then
test_expect_success 'day 3: the gpio.edge_events failure is bisected to the planted commit' '
	tree=$(expect 3 tree) && subject=$(expect 3 subject) &&
	test -n "$tree" && test -n "$subject" &&
	measure day3 $DAY3 --test gpio.edge_events &&
	grep "^tree: $tree$" day3.out &&
	grep "^first bad commit: [0-9a-f]* $subject$" day3.out
'
else
	test_skip 'day 3: the gpio.edge_events failure is bisected to the planted commit' 'runs with make check-kernel-full'
fi

test_expect_success 'day 2: the build break is bisected to the right tree' '
	tree=$(expect 2 tree) && subject=$(expect 2 subject) && other=$(expect 2 other) &&
	object=$(expect 2 object) &&
	test -n "$tree" && test -n "$object" &&
	measure day2 $DAY2 --build --target "$object" &&
	grep "^tree: $tree$" day2.out &&
	{ test -z "$subject" || grep "^first bad commit: [0-9a-f]* $subject$" day2.out; } &&
	{ test -z "$other" || grep "^semantic conflict with $other:" day2.out; }
'

test_expect_success 'the bisects are in the days records' '
	tide -C "$WS" show $DAY3 >show3 &&
	grep "^bisect  --test gpio.edge_events\( --since $DAY1\)\{0,1\}: found" show3 &&
	tide -C "$WS" show $DAY2 >show2 &&
	grep "^bisect  --build --target $(expect 2 object): " show2
'

test_done
