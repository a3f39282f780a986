#!/bin/sh
# End to end: the kernel world through `tide run` with the build matrix of
# make check - x86_64 smoke and arm64 (one kernel per architecture, the
# configurations integration/world declares; tide run --configs
# smoke,arm64) - fetch, merge, incremental checkout, Kbuild of each
# configuration in its own O= through ccache, boot in QEMU
# (qemu-system-x86_64 and qemu-system-aarch64 -M virt).
#
#   day 2 (dated 2025-12-30): the semantic conflict of expect.json breaks
#          kernel/smp.c in both configurations (both are SMP);
#   day 3 (2025-12-31, only with TIDE_CHECK_FULL): both build, and both
#          kernels fail the same gpio tests;
#   day 1 (2026-01-01): both build and boot with every test passing; then
#          the same day again, which must be incremental for both.
#
# The days before day 1 are dated before it, so the workspace ends with
# day 1 as its newest day, as t7100, t8200 and t8310 expect.  The world
# and the workspace live under work/ (build-world, build-ws) with fixed
# paths, so a rerun is a ccache-warm, incremental build.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-configs.sh"

WORK=$TOP/work
WORLD=$WORK/build-world
WS=$WORK/build-ws
CONFIGS=smoke,arm64
export TIDE_KERNEL_TESTS=$TOP/kernel-tests
# Timings go to the real stdout (fd 3); test bodies' output is captured.
exec 3>&1

if ! command -v ccache >/dev/null || ! command -v aarch64-linux-gnu-gcc >/dev/null ||
   ! command -v qemu-system-aarch64 >/dev/null; then
	echo "# ccache, gcc-aarch64-linux-gnu or qemu-system-arm is not installed: run make deps"
	t_failed=1
	test_done
fi
if [ ! -d "$WORK/world/mainline.git" ]; then
	"$TOP/integration/import-mainline" >/dev/null || { t_failed=1; test_done; }
fi
make -s -C "$TOP/kernel-tests" || exit 1
test -x "$TOP/kernel-tests/init.arm64" || { echo "# no kernel-tests/init.arm64 (zlib1g-dev:arm64: make deps)"; t_failed=1; test_done; }

# field DATE EXPR: a value from that day's record (config_field).
field() { config_field "$WS/days/$1/day.json" "$2"; }

# world DAY: lay out that day of the kernel world.
world() {
	mkdir -p "$WORLD" &&
	if [ ! -d "$WORLD/mainline.git" ]; then
		git clone -q --bare --shared "$WORK/world/mainline.git" "$WORLD/mainline.git"
	fi &&
	"$TOP/integration/world" "$1" "$WORLD" >/dev/null &&
	test -f "$WORLD/trees.conf"
}

# run DATE: tide run of the laid-out day with make check's configurations.
run() {
	start=$(date +%s) &&
	rc=0 && tide -C "$WS" -f "$WORLD/trees.conf" run --date "$1" --configs $CONFIGS >out 2>err || rc=$? &&
	cat out &&
	test $rc -le 1 &&
	echo "# $1: $(( $(date +%s) - start )) s:" \
		"smoke build $(field $1 "round(b(\"smoke\")[\"seconds\"])") s ($(field $1 "b(\"smoke\").get(\"objects\")") objects)," \
		"arm64 build $(field $1 "round(b(\"arm64\")[\"seconds\"])") s ($(field $1 "b(\"arm64\").get(\"objects\")") objects);" \
		"boots: smoke $(field $1 "o(\"smoke\").get(\"status\")") $(field $1 "o(\"smoke\").get(\"seconds\")") s $(field $1 "o(\"smoke\").get(\"counts\")")," \
		"arm64 $(field $1 "o(\"arm64\").get(\"status\")") $(field $1 "o(\"arm64\").get(\"seconds\")") s $(field $1 "o(\"arm64\").get(\"counts\")")" >&3
}

test_expect_success 'day 2: the semantic conflict breaks kernel/smp.c on x86_64 and on arm64' '
	world 2 &&
	run 2025-12-30 &&
	test "$(field 2025-12-30 "[c[\"name\"] for c in d[\"configs\"]]")" = "['"'"'arm64'"'"']" &&
	for c in smoke arm64; do
		test "$(field 2025-12-30 "b(\"$c\")[\"status\"]")" = failed &&
		field 2025-12-30 "\"\\n\".join(\"%s %s\" % (e[\"file\"], e[\"message\"]) for e in b(\"$c\")[\"errors\"])" >errors.$c &&
		grep "^kernel/smp.c redefinition of .cpumask_any_and_but" errors.$c || return 1
	done &&
	test "$(field 2025-12-30 "b(\"arm64\")[\"arch\"]")" = arm64 &&
	test -s "$WS/days/2025-12-30/build.arm64.log" &&
	grep -q "aarch64-linux-gnu-gcc" "$WS/days/2025-12-30/build.arm64.log"
'

if [ -n "${TIDE_CHECK_FULL:-}" ]; then
	test_expect_success 'day 3: both build, and both kernels fail the same gpio tests' '
		world 3 &&
		run 2025-12-31 &&
		for c in smoke arm64; do
			test "$(field 2025-12-31 "b(\"$c\")[\"status\"]")" = ok &&
			test "$(field 2025-12-31 "o(\"$c\")[\"status\"]")" = tests-failed &&
			field 2025-12-31 "\" \".join(sorted(t[\"name\"] for t in o(\"$c\")[\"tests\"] if not t[\"ok\"]))" >failed.$c || return 1
		done &&
		test_cmp failed.smoke failed.arm64 &&
		grep -q "gpio.edge_events" failed.smoke
	'
fi

test_expect_success 'day 1: both configurations build through ccache and boot with every test passing' '
	world 1 &&
	run 2026-01-01 &&
	for c in smoke arm64; do
		test "$(field 2026-01-01 "b(\"$c\")[\"status\"]")" = ok &&
		test "$(field 2026-01-01 "b(\"$c\")[\"ccache\"]")" = True &&
		test -s "$(field 2026-01-01 "b(\"$c\")[\"kernel\"]")" &&
		test "$(field 2026-01-01 "o(\"$c\")[\"status\"]")" = passed &&
		test "$(field 2026-01-01 "o(\"$c\")[\"counts\"][\"fail\"]")" = 0 &&
		test "$(field 2026-01-01 "o(\"$c\")[\"counts\"][\"pass\"]")" -gt 20 || return 1
	done &&
	test -s "$WS/days/2026-01-01/build.log" &&
	grep -q "ccache gcc" "$WS/days/2026-01-01/build.log" &&
	test "$(field 2026-01-01 "b(\"arm64\")[\"kernel\"]")" = "$WS/build/out-arm64/arch/arm64/boot/Image" &&
	readelf -h "$WS/build/out-arm64/vmlinux" | grep -q "Machine: *AArch64" &&
	field 2026-01-01 "o(\"arm64\")[\"cmdline\"]" | grep -q "console=ttyAMA0" &&
	test -s "$WS/days/2026-01-01/$(field 2026-01-01 "o(\"arm64\")[\"console\"]")" &&
	test "$(cat "$WS/build/src.tree")" = "$(git --git-dir="$WS/repo.git" rev-parse next-20260101^{tree})"
'

test_expect_success 'the same day again is incremental for both configurations' '
	run 2026-01-01 &&
	test "$(field 2026-01-01 "b(\"smoke\")[\"checkout\"][\"full\"]")" = False &&
	test "$(field 2026-01-01 "b(\"smoke\")[\"checkout\"][\"written\"]")" -lt 20 &&
	for c in smoke arm64; do
		test "$(field 2026-01-01 "b(\"$c\")[\"status\"]")" = ok &&
		test "$(field 2026-01-01 "b(\"$c\")[\"config_regenerated\"]")" = False &&
		test "$(field 2026-01-01 "int(b(\"$c\")[\"make_seconds\"] < 120)")" = 1 || return 1
	done &&
	tide -C "$WS" show 2026-01-01 >show &&
	grep -q "^build   \[smoke x86_64\] ok in " show &&
	grep -q "^boot    \[smoke\] passed" show &&
	grep -q "^build   \[arm64 arm64\] ok in " show &&
	grep -q "^boot    \[arm64\] passed" show
'

test_done
