#!/bin/sh
# End to end: build the smoke kernel of mainline (work/linux-source, with
# kernel-tests/smoke.config, through ccache), boot it with tide boot and
# see every smoke test pass; then boot a deliberately broken kernel
# (integration/testpatches/gpio-sim-report-inverted-values.patch) and
# kernels made to panic, hang and crash a test, and check each outcome.
#
# Kernels are kept under work/ (boot-kernel, boot-broken/) so a rerun is
# an incremental, ccache-warm build.
. "$(dirname "$0")/../../tests/cmd/lib.sh"

WORK=$TOP/work
SRC=$WORK/linux-source
GOOD=$WORK/boot-kernel
# The broken kernel's source and output sit as mainline's do (a directory
# linux-source beside boot-kernel), so build-kernel's ccache hits
# mainline's objects for every file but the patched one.
BAD_SRC=$WORK/boot-broken/linux-source
BAD=$WORK/boot-broken/boot-kernel
PATCH=$TOP/integration/testpatches/gpio-sim-report-inverted-values.patch
export TIDE_KERNEL_TESTS=$TOP/kernel-tests

if [ ! -f "$SRC/Makefile" ]; then
	echo "# $SRC missing: run integration/import-mainline (or unpack linux-source-6.1)"
	t_failed=1
	test_done
fi
make -s -C "$TOP/kernel-tests" || exit 1
# Timings go to the real stdout (fd 3); test bodies' output is captured.
exec 3>&1

# The tide boot result as JSON, and checks on it.
boot_json() { bj_rc=0; tide boot --json --timeout "${TO:-120}" "$@" > boot.json || bj_rc=$?; echo $bj_rc > rc; }
jq_py() { python3 -c "import json,sys; b=json.load(open('boot.json')); $1"; }

# TIDE_BOOT_TEST_REUSE=1: boot the kernels already built, do not make.
build() {
	if [ -n "${TIDE_BOOT_TEST_REUSE:-}" ] && [ -f "$2/arch/x86/boot/bzImage" ]; then
		return 0
	fi
	"$TOP/integration/build-kernel" "$1" "$2"
}

test_expect_success 'build the mainline smoke kernel' '
	start=$(date +%s) &&
	build "$SRC" "$GOOD" &&
	echo "# mainline build: $(( $(date +%s) - start )) s" >&3 &&
	test -f "$GOOD/arch/x86/boot/bzImage"
'

test_expect_success 'mainline boots and every smoke test passes' '
	boot_json --kernel "$GOOD/arch/x86/boot/bzImage" --config "$GOOD/.config" \
		--console "$TRASH/good.log" &&
	test "$(cat rc)" = 0 &&
	jq_py "
assert b[\"status\"] == \"passed\", b[\"reason\"]
names = {t[\"name\"]: t for t in b[\"tests\"]}
want = [\"gpio.\" + n for n in \"chip_info line_info request_by_name output_values input_pull edge_events rising_only falling_only two_lines active_low debounce release_rerequest legacy_api\".split()]
want += [\"cpumask_smoke.\" + n for n in \"cpu_masks affinity hotplug\".split()]
want += [\"cpumask.test_cpumask_weight\"]
for n in want:
    assert n in names and names[n][\"ok\"], n
assert b[\"counts\"][\"fail\"] == 0 and b[\"counts\"][\"pass\"] >= 17, b[\"counts\"]
print(\"# boot+tests: %.1f s (%s)\" % (b[\"seconds\"], b[\"accel\"]))
" >&3 &&
	grep -q "CONFIG_GPIOLIB_LEGACY does not exist (mainline)" "$TRASH/good.log"
'

test_expect_success 'a test that segfaults is contained and named' '
	boot_json --kernel "$GOOD/arch/x86/boot/bzImage" --config "$GOOD/.config" \
		--append tide.crash=gpio.edge_events &&
	test "$(cat rc)" = 1 &&
	jq_py "
assert b[\"status\"] == \"tests-failed\", b
names = {t[\"name\"]: t for t in b[\"tests\"]}
e = names[\"gpio.edge_events\"]
assert not e[\"ok\"] and any(\"signal 11\" in d for d in e[\"diagnostics\"]), e
assert names[\"gpio.release_rerequest\"][\"ok\"] and names[\"cpumask_smoke.hotplug\"][\"ok\"]
"
'

test_expect_success 'a kernel panic is classified as panic' '
	boot_json --kernel "$GOOD/arch/x86/boot/bzImage" --append rdinit=/nonexistent &&
	test "$(cat rc)" = 1 &&
	jq_py "assert b[\"status\"] == \"panic\" and \"Kernel panic\" in b[\"reason\"], b"
'

test_expect_success 'a guest that never ends is a hang, stopped at the timeout' '
	start=$(date +%s) &&
	TO=25 boot_json --kernel "$GOOD/arch/x86/boot/bzImage" --append tide.hang=init &&
	test "$(cat rc)" = 1 &&
	test $(( $(date +%s) - start )) -lt 40 &&
	jq_py "assert b[\"status\"] == \"hang\" and b[\"timed_out\"], b"
'

test_expect_success 'build the deliberately broken kernel (test patch)' '
	if [ ! -f "$BAD_SRC/.tide-testpatch" ]; then
		rm -rf "$BAD_SRC" && mkdir -p "$(dirname "$BAD_SRC")" &&
		cp -al "$SRC" "$BAD_SRC" &&
		(cd "$BAD_SRC" && patch -s -p1 < "$PATCH") &&
		touch "$BAD_SRC/.tide-testpatch"
	fi &&
	grep -q "val = !test_bit" "$BAD_SRC/drivers/gpio/gpio-sim.c" &&
	! grep -q "val = !test_bit" "$SRC/drivers/gpio/gpio-sim.c" &&
	build "$BAD_SRC" "$BAD"
'

test_expect_success 'the broken kernel is tests-failed, naming the gpio tests' '
	boot_json --kernel "$BAD/arch/x86/boot/bzImage" --config "$BAD/.config" &&
	test "$(cat rc)" = 1 &&
	jq_py "
assert b[\"status\"] == \"tests-failed\", b
names = {t[\"name\"]: t for t in b[\"tests\"]}
o = names[\"gpio.output_values\"]
assert not o[\"ok\"] and o[\"diagnostics\"], o
assert names[\"gpio.chip_info\"][\"ok\"] and names[\"cpumask_smoke.affinity\"][\"ok\"]
assert \"gpio.\" in b[\"reason\"], b[\"reason\"]
"
'

test_done
