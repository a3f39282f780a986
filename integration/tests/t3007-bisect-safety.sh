#!/bin/sh
# The gpio series is bisect-safe: integration/bisect-walk applies it one
# patch at a time on v6.1.192 and builds vmlinux after each patch in
# x86_64 allnoconfig with GPIOLIB and nothing that selects GPIOLIB_LEGACY
# (the option off) and with two of its users, leds-gpio and gpio-keys
# (on).  The walk is shown to catch the order a bisect would trip on:
# with "gpiolib: make the legacy GPIO number interface optional" moved
# before the patches that select the option, the "on" configuration
# stops at that patch.  At the end of the series, legacy-callers --check
# finds every caller of the legacy interface built only by symbols that
# select the option, and finds the arm boards when the arm patch is left
# out.  With TIDE_CHECK_FULL (make check-kernel-full) the
# series is also walked in x86_64 defconfig off and on, in the smoke
# configuration and the legacy one, and in arm64 allnoconfig on (Debian's
# aarch64-linux-gnu-gcc).  Times go to $TIDE_MEASURE/bisect-walk.txt.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-series.sh"
C=$TOP/work/bisect-walk

series_src "$C" || { t_failed=1; test_done; }
cd "$TRASH" || exit 1

# The two users of the legacy interface that x86_64 builds without
# anything else: drivers/leds/leds-gpio.c and drivers/input/keyboard/
# gpio_keys.c call devm_gpio_request_one().
printf 'CONFIG_GPIOLIB=y\n' >gpiolib.config
cat >users.config <<EOF
CONFIG_GPIOLIB=y
CONFIG_NEW_LEDS=y
CONFIG_LEDS_CLASS=y
CONFIG_LEDS_GPIO=y
CONFIG_INPUT=y
CONFIG_INPUT_KEYBOARD=y
CONFIG_KEYBOARD_GPIO=y
EOF
series_patches gpio >patches
n=$(grep -c . patches)

# walk LABEL PATCHES CONFIG...: the walk's output in walk-LABEL, its time
# in the measurements; the walk's exit status.
walk() {
	label=$1 list=$2
	shift 2
	t0=$(date +%s) rc=0
	"$I/bisect-walk" "$C/src" v6.1.192 "$list" "$C/out" "$@" >"walk-$label" 2>&1 || rc=$?
	echo "bisect-walk $label: exit $rc in $(($(date +%s) - t0)) s; $(tail -1 "walk-$label")" |
		tee -a "$MEASURE/bisect-walk.txt"
	cat "walk-$label"
	return $rc
}

test_expect_success 'every patch of the gpio series builds in allnoconfig, option off and on' '
	walk allno patches allno-off=allnoconfig+gpiolib.config allno-on=allnoconfig+users.config &&
	tail -1 walk-allno | grep -qx "$n patches, [0-9]* builds, 0 failed" &&
	# every patch has its line in each configuration
	test $(grep -c "^\[[0-9]*/$n\] allno-off: " walk-allno) = $((n + 1)) &&
	test $(grep -c "^\[[0-9]*/$n\] allno-on: " walk-allno) = $((n + 1)) &&
	# the option was really off in one and on in the other at the end
	! grep -q "^CONFIG_GPIOLIB_LEGACY" "$C/out/allno-off/.config" &&
	grep -qx "CONFIG_GPIOLIB_LEGACY=y" "$C/out/allno-on/.config" &&
	grep -qx "CONFIG_KEYBOARD_GPIO=y" "$C/out/allno-on/.config" &&
	# the patches that change code were built, and the first select of a
	# user changed the "on" configuration, so it was built too
	grep -q "^\[1/$n\] allno-on: ok" walk-allno &&
	grep -A2 "^\[[0-9]*/$n\] Input: select GPIOLIB_LEGACY" walk-allno | grep -q "allno-on: ok" &&
	grep -A2 "^\[[0-9]*/$n\] Input: select GPIOLIB_LEGACY" walk-allno | grep -q "allno-off: same .config" &&
	grep -A2 "make the legacy GPIO number interface optional" walk-allno | grep -q "allno-off: ok"
'

# At the end of the walk the tree holds the whole series.  Every caller
# of the legacy interface (242 files on v6.1.192, 104 of them arch/arm
# board code) must be built only by symbols that select or depend on
# GPIOLIB_LEGACY; leaving out the arm select patch must be found: the
# 104 board files, and two drivers built only for arm machines.
test_expect_success 'legacy-callers --check: every caller selects the option; without the arm patch, the arm boards do not' '
	python3 "$I/series/gpio/legacy-callers" "$C/src" >callers &&
	test $(grep -c . callers) = 242 &&
	test $(grep -c "^arch/arm/" callers) = 104 &&
	python3 "$I/series/gpio/legacy-callers" --check "$C/src" >uncovered &&
	test ! -s uncovered &&
	git -C "$C/src" apply -R "$I/series/gpio/arm-select-gpiolib_legacy-for-platforms-using-gpio-numbers.patch" &&
	{ python3 "$I/series/gpio/legacy-callers" --check "$C/src" >callers.arm; rc=$?
	  git -C "$C/src" checkout -q -f HEAD; } &&
	test $rc = 1 &&
	test $(grep -c "^not covered: arch/arm/" callers.arm) = 104 &&
	test $(grep -c "^not covered: " callers.arm) = 106 &&
	grep -qx "not covered: drivers/video/fbdev/omap/lcd_inn1610.c MACH_OMAP_INNOVATOR" callers.arm
'

test_expect_success 'the walk stops at the patch that breaks a user: the option made optional before the selects' '
	opt=$(grep -n make-the-legacy-gpio-number-interface-optional patches | cut -d: -f1) &&
	sym=$(grep -n add-a-gpiolib_legacy-symbol patches | cut -d: -f1) &&
	{ sed -n "1,${sym}p" patches && sed -n "${opt}p" patches &&
	  sed -n "$((sym + 1)),$((opt - 1))p;$((opt + 1)),\$p" patches; } >reordered &&
	test $(grep -c . reordered) = $n &&
	test_must_fail walk reordered reordered allno-off=allnoconfig+gpiolib.config allno-on=allnoconfig+users.config &&
	step=$((sym + 1)) &&
	grep -x "\[$step/$n\] gpiolib: make the legacy GPIO number interface optional" walk-reordered &&
	grep -q "^\[$step/$n\] allno-off: ok" walk-reordered &&
	grep -E "^\[$step/$n\] allno-on: FAILED: .*(gpio_keys|leds-gpio)\.c:[0-9]+:[0-9]+: error: implicit declaration of function .devm_gpio_request_one." walk-reordered &&
	tail -1 walk-reordered | grep -qx "$step patches, [0-9]* builds, 1 failed"
'

if [ -n "${TIDE_CHECK_FULL:-}" ]; then
	cat "$K/smoke.config" "$K/legacy.config" >legacy.config
	test_expect_success 'every patch builds in defconfig off and on, smoke and legacy, and arm64 on' '
		walk full patches def-off=defconfig+gpiolib.config def-on=defconfig+users.config \
			smoke=tinyconfig+$K/smoke.config legacy=tinyconfig+legacy.config \
			arm64-on=arm64:allnoconfig+users.config &&
		tail -1 walk-full | grep -qx "$n patches, [0-9]* builds, 0 failed" &&
		grep -qx "CONFIG_GPIOLIB_LEGACY=y" "$C/out/def-on/.config" &&
		grep -qx "CONFIG_GPIOLIB_LEGACY=y" "$C/out/legacy/.config" &&
		grep -qx "CONFIG_GPIOLIB_LEGACY=y" "$C/out/arm64-on/.config" &&
		! grep -q "^CONFIG_GPIOLIB_LEGACY" "$C/out/def-off/.config" &&
		! grep -q "^CONFIG_GPIOLIB_LEGACY" "$C/out/smoke/.config" &&
		grep -q "^CONFIG_ARM64=y" "$C/out/arm64-on/.config"
	'
else
	test_skip 'every patch builds in five configurations' 'runs with make check-kernel-full'
fi

test_expect_success 'bad usage: an unknown architecture or a missing fragment exits 2' '
	test_must_fail --status=2 "$I/bisect-walk" "$C/src" v6.1.192 patches "$C/out" x=riscv:allnoconfig 2>err &&
	grep -q "unknown architecture" err &&
	test_must_fail --status=2 "$I/bisect-walk" "$C/src" v6.1.192 patches "$C/out" x=allnoconfig+nofile 2>err &&
	grep -q "a fragment is missing" err
'

test_done
