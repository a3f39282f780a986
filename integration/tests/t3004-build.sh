#!/bin/sh
# Build days 1-5 with plain make (tinyconfig + kernel-tests/smoke.config),
# through integration/build-kernel, until tide's own build replaces this.
# The source (work/check/src) and output (work/check/out) paths stay the
# same from run to run so ccache hits; days build incrementally in order.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
I=$TOP/integration
C=$TOP/work/check
E=$I/days/expect.json
expect() { python3 -c "import json; e=json.load(open('$E')); print($1)"; }

# Check out the merged tree of day $1 into $C/src (a clone borrowing the
# world's objects); only changed files are rewritten, so make stays
# incremental.
checkout_day() {
	"$I/world" "$1" "$C/world" >/dev/null || return 1
	"$I/merge-day" "$C/world" "$C/merge.git" >"$TRASH/merge$1" || return 1
	if [ ! -d "$C/src/.git" ]; then
		rm -rf "$C/src" &&
		git clone -q --shared -n "$C/world/mainline.git" "$C/src" || return 1
	fi
	grep -qx "$C/merge.git/objects" "$C/src/.git/objects/info/alternates" ||
		echo "$C/merge.git/objects" >>"$C/src/.git/objects/info/alternates"
	git -C "$C/src" checkout -q -f --detach "$(sed -n 's/^result //p' "$TRASH/merge$1")" &&
	git -C "$C/src" clean -q -fdx
}

build_day() {
	start=$(date +%s)
	rc=0
	"$I/build-kernel" "$C/src" "$C/out" 2>"$TRASH/err$1" || rc=$?
	echo "day $1: build exit $rc in $(($(date +%s) - start)) s" | tee -a "$C/build-times"
	cat "$TRASH/err$1"
	return $rc
}

# fails_as_expected DAY: the day's build stopped at the first error
# expect.json gives (file, message, symbol).  O= builds name the source by
# its absolute path, or relative to OUT where ccache's base directory
# rewrote it (build-kernel sets one).
fails_as_expected() {
	f=$(expect "e[\"days\"][\"$1\"][\"build\"][\"first_error_file\"]") &&
	m=$(expect "e[\"days\"][\"$1\"][\"build\"][\"error\"]") &&
	sym=$(expect "e[\"days\"][\"$1\"][\"build\"][\"symbol\"]") &&
	grep -m1 -E ": (error|fatal error):" "$C/out/build.log" >"$TRASH/first$1" &&
	cat "$TRASH/first$1" &&
	grep -qE "^($C/src/|(\.\./)+src/)?$f:[0-9]+:[0-9]+: error: " "$TRASH/first$1" &&
	grep -qF "$m" "$TRASH/first$1" &&
	grep -qF "$sym" "$TRASH/first$1"
}

test_expect_success 'day 1 builds, without the legacy GPIO API' '
	rm -f "$C"/bzImage-day* "$C"/config-day* &&
	checkout_day 1 &&
	build_day 1 &&
	test -f "$C/out/arch/x86/boot/bzImage" &&
	! grep -q "^CONFIG_GPIOLIB_LEGACY=y" "$C/out/.config" &&
	grep -qx "CONFIG_CPUMASK_KUNIT_TEST=y" "$C/out/.config" &&
	! grep -q " gpio_request$" "$C/out/System.map" &&
	grep -q " _find_first_and_and_bit$" "$C/out/System.map" &&
	grep -q " _find_next_or_bit$" "$C/out/System.map" &&
	cp "$C/out/arch/x86/boot/bzImage" "$C/bzImage-day1" &&
	cp "$C/out/.config" "$C/config-day1"
'

test_expect_success 'day 2 fails to build where expect.json says' '
	checkout_day 2 &&
	test_must_fail build_day 2 &&
	fails_as_expected 2
'

test_expect_success 'day 3 builds again' '
	checkout_day 3 &&
	build_day 3 &&
	test -f "$C/out/arch/x86/boot/bzImage" &&
	cp "$C/out/arch/x86/boot/bzImage" "$C/bzImage-day3" &&
	cp "$C/out/.config" "$C/config-day3" &&
	cp "$C/src/include/linux/cpumask.h" "$TRASH/cpumask.h-day3"
'

test_expect_success 'day 4 builds on the new base, with the same <linux/cpumask.h> as day 3' '
	tag=$(expect "e[\"days\"][\"4\"][\"base\"][\"tag\"]") &&
	checkout_day 4 &&
	git -C "$C/src" merge-base --is-ancestor "$(git -C "$C/world/mainline.git" rev-parse "$tag^{commit}")" HEAD &&
	test_cmp "$TRASH/cpumask.h-day3" "$C/src/include/linux/cpumask.h" &&
	build_day 4 &&
	grep -q "^${tag#v}" "$C/out/include/config/kernel.release" &&
	cp "$C/out/arch/x86/boot/bzImage" "$C/bzImage-day4" &&
	cp "$C/out/.config" "$C/config-day4"
'

test_expect_success 'day 5 fails to build where expect.json says' '
	checkout_day 5 &&
	test_must_fail build_day 5 &&
	fails_as_expected 5
'

test_done
