#!/bin/sh
# End to end: day 1 of the kernel world through `tide run` - fetch, merge,
# incremental checkout, Kbuild of kernel-tests/smoke.config through ccache,
# boot in QEMU - then the same day again, which must be incremental (few
# files rewritten, no config, a short make).
#
# The world and the workspace live under work/ (build-world, build-ws) with
# fixed paths, so a rerun of this test is a ccache-warm, incremental build.
. "$(dirname "$0")/../../tests/cmd/lib.sh"

WORK=$TOP/work
WORLD=$WORK/build-world
WS=$WORK/build-ws
export TIDE_KERNEL_TESTS=$TOP/kernel-tests
# Timings go to the real stdout (fd 3); test bodies' output is captured.
exec 3>&1

if ! command -v ccache >/dev/null; then
	echo "# ccache is not installed: run make deps"
	t_failed=1
	test_done
fi
if [ ! -d "$WORK/world/mainline.git" ]; then
	"$TOP/integration/import-mainline" >/dev/null || { t_failed=1; test_done; }
fi
make -s -C "$TOP/kernel-tests" || exit 1

# field EXPR: a value from day 1's record, by a python expression on d.
field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" \
		"$WS/days/2026-01-01/day.json"
}

test_expect_success 'lay out day 1 of the kernel world' '
	mkdir -p "$WORLD" &&
	if [ ! -d "$WORLD/mainline.git" ]; then
		git clone -q --bare --shared "$WORK/world/mainline.git" "$WORLD/mainline.git"
	fi &&
	"$TOP/integration/world" 1 "$WORLD" >/dev/null &&
	test -f "$WORLD/trees.conf"
'

test_expect_success 'tide run builds day 1 through ccache and boots it' '
	start=$(date +%s) &&
	rc=0 && tide -C "$WS" -f "$WORLD/trees.conf" run --date 2026-01-01 >out 2>err || rc=$? &&
	cat out &&
	test $rc -le 1 &&
	echo "# day 1: $(( $(date +%s) - start )) s: build $(field "round(d[\"build\"][\"seconds\"])") s (make $(field "round(d[\"build\"][\"make_seconds\"])") s), boot $(field "d.get(\"boot\",{}).get(\"seconds\")") s" >&3 &&
	test "$(field "d[\"build\"][\"status\"]")" = ok &&
	test "$(field "d[\"build\"][\"ccache\"]")" = True &&
	test -s "$(field "d[\"build\"][\"kernel\"]")" &&
	test -s "$WS/days/2026-01-01/build.log" &&
	grep -q "ccache gcc" "$WS/days/2026-01-01/build.log" &&
	test "$(cat "$WS/build/src.tree")" = "$(git --git-dir="$WS/repo.git" rev-parse next-20260101^{tree})" &&
	test "$(field "d[\"boot\"][\"status\"]")" = passed &&
	test "$(field "d[\"boot\"][\"counts\"][\"fail\"]")" = 0
'

test_expect_success 'the same day again is incremental' '
	make1=$(field "d[\"build\"][\"make_seconds\"]") &&
	rc=0 && tide -C "$WS" -f "$WORLD/trees.conf" run --date 2026-01-01 >out 2>err || rc=$? &&
	test $rc -le 1 &&
	echo "# day 1 again: build $(field "round(d[\"build\"][\"seconds\"])") s, checkout wrote $(field "d[\"build\"][\"checkout\"][\"written\"]") files" >&3 &&
	test "$(field "d[\"build\"][\"status\"]")" = ok &&
	test "$(field "d[\"build\"][\"checkout\"][\"full\"]")" = False &&
	test "$(field "d[\"build\"][\"checkout\"][\"written\"]")" -lt 20 &&
	test "$(field "d[\"build\"][\"config_regenerated\"]")" = False &&
	test "$(field "int(d[\"build\"][\"make_seconds\"] < 120)")" = 1 &&
	tide -C "$WS" show 2026-01-01 >show &&
	grep -q "^build   ok" show
'

test_done
