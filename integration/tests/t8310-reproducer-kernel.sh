#!/bin/sh
# Day 1 of the kernel world made again by its reproducer: the workspace
# t4600-build.sh leaves (work/build-ws, day 2026-01-01 built and booted)
# writes reproducer.sh; run in a fresh directory it fetches the trees at
# the day's commits and checks the same merged tree.  With
# TIDE_CHECK_FULL (make check-kernel-full) it also builds with the day's
# .config (ccache warm from t4600) and boots with the smoke tests: a
# second checkout and build of the kernel, about ten minutes here, too
# much for make check's budget.
. "$(dirname "$0")/../../tests/cmd/lib.sh"

WS=$TOP/work/build-ws
DAY=$WS/days/2026-01-01
export TIDE="$TIDE_BIN"
export TIDE_KERNEL_TESTS=$TOP/kernel-tests
# Timings go to the real stdout (fd 3); test bodies' output is captured.
exec 3>&1

meta() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$DAY/metadata.json"
}

if [ ! -f "$DAY/day.json" ]; then
	echo "# no $DAY: run integration/tests/t4600-build.sh first"
	t_failed=1
	test_done
fi

test_expect_success 'day 1 has a reproducer with its .config and command lines' '
	if [ "$(meta "(d.get(\"build\") or {}).get(\"config\",{}).get(\"file\")")" != config ]; then
		# a workspace from before reproducers: the day again (incremental)
		tide -C "$WS" run --configs smoke,arm64 --date 2026-01-01 >/dev/null 2>&1 || test $? = 1
	fi &&
	# this tide'"'"'s script, whichever tide ran the day
	test "$(tide -C "$WS" reproducer 2026-01-01)" = "$DAY/reproducer.sh" &&
	test -x "$DAY/reproducer.sh" &&
	test "$(meta "d[\"build\"][\"status\"]")" = ok &&
	test "$(meta "d[\"boot\"][\"status\"]")" = passed &&
	test "$(meta "d[\"build\"][\"config\"][\"file\"]")" = config &&
	test "$(sha256sum <"$DAY/config" | cut -d" " -f1)" = "$(meta "d[\"build\"][\"config\"][\"sha256\"]")" &&
	meta "d[\"build\"][\"make_command\"][0]" | grep -qx make &&
	meta "d[\"boot\"][\"qemu_command\"][0]" | grep -q qemu-system &&
	test -n "$(meta "d[\"boot\"][\"initramfs_sha256\"]")" &&
	meta "d[\"toolchain\"][\"gcc\"]" | grep -q "^gcc" &&
	meta "d[\"toolchain\"][\"from\"][\"gcc\"]" | grep -qx record &&
	meta "d[\"toolchain\"][\"qemu\"]" | grep -qi qemu
'

test_expect_success 'the reproducer in a fresh directory: the same merged tree' '
	start=$(date +%s) &&
	rc=0 && "$DAY/reproducer.sh" --no-build "$TRASH/repro-tree" >out 2>err || rc=$? &&
	cat out err &&
	echo "# reproducer of day 1 (fetch, merge): $(( $(date +%s) - start )) s, exit $rc" >&3 &&
	test $rc = 0 &&
	want=$(meta "d[\"day\"][\"merged_tree\"]") &&
	grep -q "same merged tree as next-20260101: $want" out &&
	test "$(git --git-dir="$TRASH/repro-tree/ws/repo.git" rev-parse "next-20260101^1^{tree}")" = "$want" &&
	! grep -q "building with" out &&
	! test -e "$TRASH/repro-tree/ws/build/out"
'

if [ -n "${TIDE_CHECK_FULL:-}" ]; then
	test_expect_success 'the reproducer in a fresh directory: same tree, built and booted' '
		start=$(date +%s) &&
		rc=0 && "$DAY/reproducer.sh" "$TRASH/repro" >out 2>err || rc=$? &&
		cat out err &&
		echo "# reproducer of day 1 (fetch, merge, build, boot): $(( $(date +%s) - start )) s, exit $rc" >&3 &&
		test $rc = 0 &&
		want=$(meta "d[\"day\"][\"merged_tree\"]") &&
		grep -q "same merged tree as next-20260101: $want" out &&
		test "$(git --git-dir="$TRASH/repro/ws/repo.git" rev-parse "next-20260101^1^{tree}")" = "$want" &&
		grep -q "same .config" out &&
		grep -q "boot passed" out &&
		python3 -c "
import json; d = json.load(open(\"$TRASH/repro/ws/days/2026-01-01/day.json\"))
assert d[\"build\"][\"status\"] == \"ok\", d[\"build\"].get(\"failure\")
"
	'
else
	test_skip "the reproducer's build and boot" 'runs with make check-kernel-full'
fi

test_done
