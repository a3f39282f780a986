#!/bin/sh
# W=1 and sparse on what each series touches: every .c file a series
# changes, and for each header it changes an object that includes it, is
# compiled with `make W=1 C=2` (gcc's extra warnings, and Debian's sparse
# on every object named) on v6.1.192 and again with the series applied,
# in one configuration that builds all of them (smoke + legacy + memcg +
# gpio-keys).  A series may not add a warning; line and column numbers
# are ignored, since the series moves code.  The check is shown to fail
# on a function with external linkage and no prototype, which W=1
# (-Wmissing-prototypes) and sparse ("Should it be static?") both report.
# The counts go to $TIDE_MEASURE/series-warnings.txt.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-series.sh"
C=$TOP/work/series-warnings
# Built as integration/build-kernel builds, sharing its ccache objects.
. "$I/kbuild-env.sh"
kbuild_env "$C/src" "$C/out"
export ARCH=x86_64

series_src "$C" || { t_failed=1; test_done; }
cd "$TRASH" || exit 1
kmake() { nice make -s -C "$C/src" O="$C/out" CC="ccache gcc" "$@"; }

# The objects that include each header the series change.
header_users() {
	case "$1" in
	include/linux/cpumask.h) echo lib/cpumask.o kernel/smp.o ;;
	include/linux/bitmap.h) echo lib/bitmap.o ;;
	include/linux/find.h) echo lib/find_bit.o ;;
	include/linux/gpio.h|include/asm-generic/gpio.h)
		echo drivers/leds/leds-gpio.o drivers/input/keyboard/gpio_keys.o ;;
	*) echo "no object named for $1" >&2; return 1 ;;
	esac
}

# objects TREE: the objects of what TREE's series touches.
objects() {
	for p in $(cat "$I/series/$1/series"); do
		sed -n 's|^+++ b/||p' "$I/series/$1/$p"
	done | sort -u | while read -r f; do
		case "$f" in
		*.c) echo "${f%.c}.o" ;;
		*.h) header_users "$f" ;;
		esac
	done | tr ' ' '\n' | sort -u
}

# reset TREE...: v6.1.192 with the series of each TREE applied.
reset() { series_apply "$C/src" "$@"; }

# warnings LABEL OBJECT...: compile the objects with W=1 and sparse; the
# warnings (file: message, numbers dropped) in warnings-LABEL.
warnings() {
	label=$1
	shift
	kmake -j2 W=1 C=2 "$@" >"log-$label" 2>&1 || { tail -20 "log-$label"; return 1; }
	for o; do
		test -f "$C/out/$o" || { echo "$o was not built"; return 1; }
	done
	grep -E '^[^ :]+:[0-9]+:([0-9]+:)? (warning|error):' "log-$label" |
		sed -E -e "s|^$C/src/||" -e 's|^(\.\./)*src/||' -e 's/^([^:]+):[0-9]+:([0-9]+:)? /\1: /' | sort -u >"warnings-$label"
}

test_expect_success 'the configuration builds every object the series touch' '
	cat "$K/smoke.config" "$K/legacy.config" >check.config &&
	printf "CONFIG_CGROUPS=y\nCONFIG_MEMCG=y\nCONFIG_INPUT=y\nCONFIG_INPUT_KEYBOARD=y\nCONFIG_KEYBOARD_GPIO=y\n" >>check.config &&
	reset &&
	mkdir -p "$C/out" &&
	kmake tinyconfig >/dev/null &&
	kbuild_merge "$C/src" "$C/out" "$TRASH/check.config" >/dev/null &&
	kmake olddefconfig >/dev/null &&
	for o in CONFIG_MEMCG CONFIG_TEST_BITMAP CONFIG_CPUMASK_KUNIT_TEST CONFIG_LEDS_GPIO CONFIG_KEYBOARD_GPIO; do
		grep -qx "$o=y" "$C/out/.config" || { echo "$o is not set"; exit 1; }
	done
'

# The tree each series needs under it (its README's "Needs").
for t in fixes cpumask gpio bitmap mmotm; do
	case $t in bitmap) needs=cpumask ;; *) needs= ;; esac
	test_expect_success "$t adds no W=1 or sparse warning to what it touches" '
		objs=$(objects '$t') && test -n "$objs" &&
		reset '"$needs"' && warnings base-'$t' $objs &&
		reset '"$needs $t"' && warnings '$t' $objs &&
		comm -13 warnings-base-'$t' warnings-'$t' >new-'$t' &&
		echo "'$t': $(echo $objs | wc -w) objects, $(wc -l <warnings-base-'$t') warnings before, $(wc -l <warnings-'$t') after, $(wc -l <new-'$t') new" |
			tee -a "$MEASURE/series-warnings.txt" &&
		test_cmp /dev/null new-'$t'
	'
done

test_expect_success 'a function without a prototype is a new warning of both W=1 and sparse' '
	reset fixes &&
	printf "\nint tide_check_helper(void)\n{\n\treturn 0;\n}\n" >>"$C/src/kernel/smp.c" &&
	warnings planted kernel/smp.o &&
	comm -13 warnings-fixes warnings-planted >new-planted &&
	cat new-planted &&
	grep -q "^kernel/smp.c: warning: no previous prototype for .tide_check_helper." new-planted &&
	grep -q "^kernel/smp.c: warning: symbol .tide_check_helper. was not declared. Should it be static?" new-planted
'

test_done
