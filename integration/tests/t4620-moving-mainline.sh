#!/bin/sh
# A mainline that moves, end to end (integration/days/README, days 4 and
# 5; the values come from integration/days/expect.json):
#
#   day 4 (dated 2026-12-04): the base is v6.1.193-rc1, a tag
#          integration/world makes on v6.1.192 with the fixes tree's
#          compat layer in it; fixes is up to date, every other tree is
#          rebased onto the tag and merges; with TIDE_CHECK_FULL (make
#          check-kernel-full) tide run --configs smoke also builds and
#          boots the kernel and every test passes (a full kernel build
#          that make check's budget leaves out: its cpumask.h is new);
#   day 5 (2026-12-05): cpumask removes the compat layer and
#          cpumask_weight_andnot(), bitmap (merged after it) adds a user
#          written against the compat layer: the build fails in
#          kernel/smp.c with an implicit declaration, and tide bisect
#          --build --target kernel/smp.o names bitmap and its commit.
#
# The world and the workspace live under work/ (moving-world-N,
# moving-ws) with fixed paths, so a rerun is a ccache-warm, incremental
# build.  Build, boot and bisect times go to $TIDE_MEASURE/moving-mainline.txt.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-configs.sh"

I=$TOP/integration
EXPECT=$I/days/expect.json
WORK=$TOP/work
# One world directory per day: the workspace borrows the trees' objects.
WORLD=$WORK/moving-world
WS=$WORK/moving-ws
MEASURE=${TIDE_MEASURE:-$TOP/build/measurements}
DAY4=2026-12-04
DAY5=2026-12-05
export TIDE_KERNEL_TESTS=$TOP/kernel-tests
# Timings go to the real stdout (fd 3); test bodies' output is captured.
exec 3>&1

need_kernel_world ccache qemu-system-x86_64
mkdir -p "$MEASURE"

# field DATE EXPR: a value from that day's record (config_field).
field() { config_field "$WS/days/$1/day.json" "$2"; }

# world DAY: lay out that day of the kernel world.
world() { world_day "$1" "$WORLD-$1"; }

# run DAY DATE [OPTION...]: tide run of the laid-out day with the smoke
# configuration (and the options); exit 0 (clean day) or 1 (the day had
# problems) is a result, left in the file rc; more is a failure.  A day
# built and booted has its times logged.
run() {
	day=$1 date=$2 && shift 2 &&
	start=$(date +%s) &&
	rc=0 && tide -C "$WS" -f "$WORLD-$day/trees.conf" run --date "$date" --configs smoke "$@" >out 2>err || rc=$? &&
	cat out && echo $rc >rc &&
	test $rc -le 1 &&
	if [ $# -gt 0 ]; then return 0; fi &&
	set -- "$day" "$date" &&
	echo "# day $1: $(( $(date +%s) - start )) s: build $(field $2 "b(\"smoke\")[\"status\"]")" \
		"in $(field $2 "round(b(\"smoke\")[\"seconds\"])") s" \
		"(ccache $(field $2 "b(\"smoke\").get(\"ccache_stats\")")); boot $(field $2 "o(\"smoke\").get(\"status\")")" \
		"$(field $2 "o(\"smoke\").get(\"seconds\")") s $(field $2 "o(\"smoke\").get(\"counts\")")" |
		tee -a "$MEASURE/moving-mainline.txt" >&3
}

# trees DATE STATUS: the trees of the day with that status, in order.
trees() { field "$1" "\"\\n\".join(t[\"name\"] for t in d[\"trees\"] if t[\"status\"] == \"$2\")"; }

test_expect_success 'setup: days 4 and 5 laid out, both on v6.1.193-rc1' '
	world 4 && world 5 &&
	for d in 4 5; do
		grep -qx "#tide	base	mainline.git#$(expect $d "d[\"base\"][\"tag\"]")" "$WORLD-$d/trees.conf" || exit 1
	done
'

test_expect_success 'day 4: on the new base, fixes is up to date and every tree merges' '
	rm -rf "$WS" &&
	if [ -n "${TIDE_CHECK_FULL:-}" ]; then run 4 $DAY4; else run 4 $DAY4 --no-build; fi &&
	test "$(cat rc)" = 0 &&
	test "$(field $DAY4 "d[\"base\"][\"tag\"]")" = "$(expect 4 "d[\"base\"][\"tag\"]")" &&
	test "$(field $DAY4 "d[\"base\"][\"commit\"]")" = \
	     "$(git --git-dir="$WORLD-4/mainline.git" rev-parse v6.1.193-rc1^{commit})" &&
	trees $DAY4 up-to-date >up && expect 4 "d[\"up_to_date\"]" >want && test_cmp want up &&
	{ trees $DAY4 merged; trees $DAY4 up-to-date; } | sort >merged &&
	expect 4 "d[\"merged\"]" | sort >want && test_cmp want merged &&
	test -z "$(expect 4 "d[\"conflicts\"]")"
'

if [ -n "${TIDE_CHECK_FULL:-}" ]; then
test_expect_success 'day 4: the smoke kernel builds, boots, and every test passes' '
	test "$(field $DAY4 "b(\"smoke\")[\"status\"]")" = "$(expect 4 "d[\"build\"][\"status\"]")" &&
	test "$(expect 4 "d[\"config\"][\"CONFIG_GPIOLIB_LEGACY\"]")" = n &&
	grep -qx "config GPIOLIB_LEGACY" "$WS/build/src/drivers/gpio/Kconfig" &&
	! grep -q "^CONFIG_GPIOLIB_LEGACY=y" "$WS/build/out/.config" &&
	grep -q "^EXTRAVERSION = -rc1$" "$WS/build/src/Makefile" &&
	test "$(field $DAY4 "o(\"smoke\")[\"status\"]")" = passed &&
	test "$(field $DAY4 "o(\"smoke\")[\"counts\"][\"fail\"]")" = 0 &&
	field $DAY4 "\"\\n\".join(t[\"name\"] for t in o(\"smoke\")[\"tests\"] if not t[\"ok\"])" >failed &&
	expect 4 "d[\"boot\"][\"failed_subtests\"]" >want && test_cmp want failed &&
	field $DAY4 "\"\\n\".join(t[\"name\"][8:] for t in o(\"smoke\")[\"tests\"] if t[\"name\"].startswith(\"cpumask.\"))" >kunit &&
	expect 4 "d[\"boot\"][\"kunit_cpumask\"]" >want && test_cmp want kunit &&
	for s in $(expect 4 "list(d[\"boot\"][\"suites\"])"); do
		field $DAY4 "[t[\"ok\"] for t in o(\"smoke\")[\"tests\"] if t[\"name\"] == \"$s\"]" >suite &&
		test "$(cat suite)" = "[True]" || { echo "suite $s: $(cat suite)"; exit 1; }
	done
'
else
	test_skip 'day 4: the smoke kernel builds, boots, and every test passes' 'runs with make check-kernel-full'
fi

test_expect_success 'day 5: the build fails in kernel/smp.c, implicit declaration of cpumask_weight_andnot' '
	run 5 $DAY5 &&
	test "$(cat rc)" = 1 &&
	test "$(field $DAY5 "b(\"smoke\")[\"status\"]")" = "$(expect 5 "d[\"build\"][\"status\"]")" &&
	field $DAY5 "b(\"smoke\")[\"errors\"][0][\"file\"]" >file &&
	test "$(cat file)" = "$(expect 5 "d[\"build\"][\"first_error_file\"]")" &&
	field $DAY5 "b(\"smoke\")[\"errors\"][0][\"message\"]" >message &&
	cat message &&
	grep -qF "$(expect 5 "d[\"build\"][\"error\"]")" message &&
	grep -qF "$(expect 5 "d[\"build\"][\"symbol\"]")" message &&
	test "$(field $DAY5 "b(\"smoke\")[\"errors\"][0].get(\"tree\")")" = \
	     "$(expect 5 "d[\"build\"][\"semantic_conflict\"][\"breaking_merge\"]")" &&
	{ trees $DAY5 merged; trees $DAY5 up-to-date; } | sort >merged &&
	expect 5 "d[\"merged\"]" | sort >want && test_cmp want merged
'

test_expect_success 'day 5: tide bisect names the tree and the commit expect.json names' '
	tree=$(expect 5 "d[\"bisect\"][\"tree\"]") &&
	subject=$(expect 5 "d[\"bisect\"][\"subject\"]") &&
	object=$(expect 5 "d[\"build\"][\"object\"]") &&
	t0=$(date +%s) &&
	tide -C "$WS" bisect $DAY5 --build --target "$object" >bisect.out 2>bisect.err &&
	cat bisect.out &&
	echo "# day 5 bisect --build --target $object: $(grep "^steps:" bisect.out), wall $(( $(date +%s) - t0 )) s" |
		tee -a "$MEASURE/moving-mainline.txt" >&3 &&
	grep -x "tree: $tree" bisect.out &&
	grep "^first bad commit: [0-9a-f]* $subject$" bisect.out &&
	other=$(expect 5 "[t for t in d[\"build\"][\"semantic_conflict\"][\"trees\"] if t != \"$tree\"]") &&
	grep "^semantic conflict with $other:" bisect.out &&
	tide -C "$WS" show $DAY5 >show &&
	grep "^bisect  --build --target $object: semantic-conflict $tree .* with $other" show &&
	sha=$(sed -n "s/^first bad commit: \([0-9a-f]*\) .*/\1/p" bisect.out) &&
	test "$(git --git-dir="$WORLD-5/trees/$tree.git" log -1 --format=%s "$sha")" = "$subject"
'

test_done
