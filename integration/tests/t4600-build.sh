#!/bin/sh
# End to end: the kernel world through `tide run` with the build matrix of
# make check - x86_64 smoke and arm64 (one kernel per architecture, the
# configurations integration/world declares; tide run --configs
# smoke,arm64), and on day 1 also x86_64 legacy - fetch, merge,
# incremental checkout, Kbuild of each configuration in its own O=
# through ccache, boot in QEMU (qemu-system-x86_64 and
# qemu-system-aarch64 -M virt).
#
#   day 2 (dated 2025-12-30): the semantic conflict of expect.json breaks
#          kernel/smp.c in both configurations (both are SMP);
#   day 3 (2025-12-31, only with TIDE_CHECK_FULL): both build, and both
#          kernels fail the same gpio tests;
#   day 1 (2026-01-01): smoke, arm64 and legacy build and boot with every
#          test passing: smoke with the gpio series' GPIOLIB_LEGACY off,
#          legacy with it on (kernel-tests/legacy.config: leds-gpio
#          selects it) and with lib/test_bitmap.c run at boot, whose
#          verdict cpumask_smoke.test_bitmap reads; then the same day
#          again, which must be incremental for all three.
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
# Day 1 only: one more x86_64 kernel, ccache-warm from smoke's objects.
DAY1_CONFIGS=smoke,arm64,legacy
E=$TOP/integration/days/expect.json
export TIDE_KERNEL_TESTS=$TOP/kernel-tests
# Timings go to the real stdout (fd 3); test bodies' output is captured.
exec 3>&1

need_kernel_world ccache aarch64-linux-gnu-gcc qemu-system-aarch64
test -x "$TOP/kernel-tests/init.arm64" || { echo "# no kernel-tests/init.arm64 (zlib1g-dev:arm64: make deps)"; t_failed=1; test_done; }

# field DATE EXPR: a value from that day's record (config_field).
field() { config_field "$WS/days/$1/day.json" "$2"; }

# world DAY: lay out that day of the kernel world.
world() { world_day "$1" "$WORLD" && test -f "$WORLD/trees.conf"; }

# timing DATE CONFIG: one configuration's build and boot, for run's line.
timing() {
	echo "$2 build $(field $1 "round(b(\"$2\")[\"seconds\"])") s ($(field $1 "b(\"$2\").get(\"objects\")") objects)," \
		"boot $(field $1 "o(\"$2\").get(\"status\")") $(field $1 "o(\"$2\").get(\"seconds\")") s $(field $1 "o(\"$2\").get(\"counts\")")"
}

# run DATE [CONFIGS]: tide run of the laid-out day with make check's
# configurations (default $CONFIGS); its times on fd 3.
run() {
	start=$(date +%s) &&
	rc=0 && tide -C "$WS" -f "$WORLD/trees.conf" run --date "$1" --configs ${2:-$CONFIGS} >out 2>err || rc=$? &&
	cat out &&
	test $rc -le 1 &&
	line= &&
	for c in $(echo ${2:-$CONFIGS} | tr , " "); do line="$line $(timing $1 $c);"; done &&
	echo "# $1: $(( $(date +%s) - start )) s:${line%;}" >&3
}

# test_diag DATE CONFIG TEST: the diagnostics of that guest test, one a line,
# after "ok" or "not ok".
test_diag() {
	field $1 "[\"\\n\".join([\"ok\" if t[\"ok\"] else \"not ok\"] + t.get(\"diagnostics\", [])) for t in o(\"$2\")[\"tests\"] if t[\"name\"] == \"$3\"][0]"
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
else
	test_skip 'day 3: both build, and both kernels fail the same gpio tests' 'runs with make check-kernel-full'
fi

test_expect_success 'day 1: the three configurations build through ccache and boot with every test passing' '
	world 1 &&
	run 2026-01-01 $DAY1_CONFIGS &&
	for c in smoke arm64 legacy; do
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

test_expect_success 'day 1: GPIOLIB_LEGACY is on in the legacy kernel, off in the smoke kernel, and gpio.legacy_api sees both' '
	cfg=$WS/build/out-legacy/.config &&
	grep -qx "CONFIG_LEDS_GPIO=y" "$cfg" &&
	grep -qx "CONFIG_GPIOLIB_LEGACY=y" "$cfg" &&
	grep -qx "CONFIG_TEST_BITMAP=y" "$cfg" &&
	! grep -q "CONFIG_GPIOLIB_LEGACY\|CONFIG_TEST_BITMAP=" "$WS/build/out/.config" &&
	test "$(field 2026-01-01 "[w[\"message\"] for w in b(\"legacy\")[\"warnings\"] if w[\"kind\"] == \"kconfig\"]")" = "[]" &&
	test_diag 2026-01-01 legacy gpio.legacy_api >legacy_api &&
	test "$(head -n1 legacy_api)" = ok &&
	grep -qx "CONFIG_GPIOLIB_LEGACY=y: legacy API expected" legacy_api &&
	test_diag 2026-01-01 smoke gpio.legacy_api >legacy_api.smoke &&
	test "$(head -n1 legacy_api.smoke)" = ok &&
	grep -qx "CONFIG_GPIOLIB_LEGACY unset: legacy API not expected, and absent" legacy_api.smoke
'

test_expect_success 'day 1: lib/test_bitmap.c passes in the legacy kernel, and the smoke kernel skips it' '
	want=$(python3 -c "import json; print(json.load(open(\"$E\"))[\"days\"][\"1\"][\"legacy\"][\"boot\"][\"test_bitmap\"][\"tests\"])") &&
	test_diag 2026-01-01 legacy cpumask_smoke.test_bitmap >test_bitmap &&
	test "$(head -n1 test_bitmap)" = ok &&
	grep -qx "test_bitmap: $want tests, 0 failed, 0 skipped" test_bitmap &&
	echo "# legacy: $(sed -n 2p test_bitmap)" >&3 &&
	test "$(field 2026-01-01 "[t[\"directive\"] for t in o(\"smoke\")[\"tests\"] if t[\"name\"] == \"cpumask_smoke.test_bitmap\"][0]")" = SKIP &&
	test_diag 2026-01-01 smoke cpumask_smoke.test_bitmap | grep -qx "CONFIG_TEST_BITMAP unset: lib/test_bitmap.c is not built in"
'

test_expect_success 'the same day again is incremental for the three configurations' '
	run 2026-01-01 $DAY1_CONFIGS &&
	test "$(field 2026-01-01 "b(\"smoke\")[\"checkout\"][\"full\"]")" = False &&
	test "$(field 2026-01-01 "b(\"smoke\")[\"checkout\"][\"written\"]")" -lt 20 &&
	for c in smoke arm64 legacy; do
		test "$(field 2026-01-01 "b(\"$c\")[\"status\"]")" = ok &&
		test "$(field 2026-01-01 "b(\"$c\")[\"config_regenerated\"]")" = False &&
		test "$(field 2026-01-01 "int(b(\"$c\")[\"make_seconds\"] < 120)")" = 1 || return 1
	done &&
	tide -C "$WS" show 2026-01-01 >show &&
	grep -q "^build   \[smoke x86_64\] ok in " show &&
	grep -q "^boot    \[smoke\] passed" show &&
	grep -q "^build   \[arm64 arm64\] ok in " show &&
	grep -q "^boot    \[arm64\] passed" show &&
	grep -q "^build   \[legacy x86_64\] ok in " show &&
	grep -q "^boot    \[legacy\] passed" show
'

test_done
