#!/bin/sh
# tide run with the build stage, on a tiny fake "kernel" (a Makefile that
# honours O=): the day's build is recorded, new warnings are attributed to
# the tree that brought them, and a tree marked build-each-merge whose
# merge breaks the build is dropped and merged at its last good version.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt

test_expect_success 'setup: a fake kernel mainline and two trees' '
	mkdir -p kt &&
	printf "CONFIG_GPIO=y\n" > kt/smoke.config &&
	fake_kernel_source world/mainline &&
	echo "int m(void) { return 0; }" > world/mainline/m.c &&
	commit_fake_mainline &&
	make_tree gpio gpio.c "int g(void) { int unused; return 0; }" &&
	make_tree cpumask cpumask.c "int c(void) { return 0; }" &&
	conf "gpio git gpio#for-next" "cpumask git cpumask#for-next" &&
	printf "#tide\tcpumask\tbuild-each-merge\n" >> world/trees.conf
'

test_expect_success 'run builds the day and records it' '
	tide -C ws -f world/trees.conf run --no-boot --date 2026-01-01 >out 2>err &&
	test "$(day_field 2026-01-01 "d[\"build\"][\"status\"]")" = ok &&
	test -f ws/days/2026-01-01/build.log &&
	test -f ws/days/2026-01-01/build-cpumask.log &&
	test "$(day_field 2026-01-01 "d[\"trees\"][1][\"build\"][\"status\"]")" = ok &&
	test "$(day_field 2026-01-01 "d[\"build\"][\"new_warnings\"][0][\"tree\"]")" = gpio &&
	test "$(day_field 2026-01-01 "\"boot\" in d")" = False &&
	k=$(day_field 2026-01-01 "d[\"build\"][\"kernel\"]") &&
	sha256sum "$k" | cut -d" " -f1 >want &&
	day_field 2026-01-01 "d[\"build\"][\"kernel_sha256\"]" >got &&
	test_cmp want got
'

test_expect_success 'a merge that breaks the build is dropped for its last good version' '
	echo "int c(void) { return nope; }" > world/cpumask/cpumask.c &&
	git -C world/cpumask commit -qam "cpumask: break the build" &&
	test_expect_code 1 tide -C ws -f world/trees.conf run --no-boot --date 2026-01-02 >out 2>err &&
	cat out err &&
	test "$(day_field 2026-01-02 "d[\"trees\"][1][\"status\"]")" = previous &&
	test "$(day_field 2026-01-02 "d[\"trees\"][1][\"version_from\"]")" = next-20260101 &&
	test "$(day_field 2026-01-02 "d[\"trees\"][1][\"build\"][\"status\"]")" = failed &&
	test "$(day_field 2026-01-02 "d[\"trees\"][1][\"build\"][\"errors\"][0][\"file\"]")" = cpumask.c &&
	test "$(day_field 2026-01-02 "d[\"trees\"][1][\"sha\"]")" = \
		"$(day_field 2026-01-01 "d[\"trees\"][1][\"sha\"]")" &&
	test "$(day_field 2026-01-02 "d[\"build\"][\"status\"]")" = ok &&
	git --git-dir=ws/repo.git log -1 --format=%B next-20260102^ >msg &&
	grep -q "^Tide-Version-From: next-20260101" msg &&
	grep -q "^Tide-Tree: cpumask" msg
'

test_expect_success 'the next day compares warnings with the last good build' '
	test "$(day_field 2026-01-02 "len(d[\"build\"][\"warnings\"])")" = 1 &&
	test "$(day_field 2026-01-02 "len(d[\"build\"][\"new_warnings\"])")" = 0
'

test_expect_success 'a tree with no good version to fall back on is dropped' '
	make_tree bitmap bitmap.c "int b(void) { return broken; }" &&
	conf "gpio git gpio#for-next" "bitmap git bitmap#for-next" &&
	printf "#tide\tbitmap\tbuild-each-merge\n" >> world/trees.conf &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-boot --date 2026-01-03 >out 2>err &&
	test "$(day_field 2026-01-03 "d[\"trees\"][1][\"status\"]")" = dropped &&
	test "$(day_field 2026-01-03 "d[\"trees\"][1][\"merge_commit\"]")" = None &&
	test "$(day_field 2026-01-03 "d[\"build\"][\"status\"]")" = ok &&
	! git --git-dir=ws/repo.git log --format=%B next-20260103 | grep -q "Tide-Tree: bitmap"
'

test_expect_success 'a failed day build makes run exit 1 and is shown' '
	echo "int g(void) { return nope; }" > world/gpio/gpio.c &&
	git -C world/gpio commit -qam "gpio: break the build" &&
	conf "gpio git gpio#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-boot --date 2026-01-04 >out 2>err &&
	test "$(day_field 2026-01-04 "d[\"build\"][\"status\"]")" = failed &&
	test "$(day_field 2026-01-04 "d[\"build\"][\"errors\"][0][\"file\"]")" = gpio.c &&
	tide -C ws show 2026-01-04 >show &&
	grep -q "^build   failed: make failed" show &&
	grep -q "^        error: gpio.c:1: .*nope" show &&
	tide -C ws show 2026-01-01 >show &&
	grep -q "^build   ok in [0-9]* s, 1 warnings, 1 new" show &&
	grep -q "^        new warning: gpio.c:1: unused variable .* (gpio)" show
'

test_done
