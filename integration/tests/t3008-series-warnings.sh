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

# objects PATCH...: the objects of what the patches touch, one a line:
# each .c file's, and header_users' for each header; none when they touch
# no .c file or header (Kconfig, Makefiles, Documentation).
objects() {
	ob=
	for f in $(sed -n 's|^+++ b/||p' "$@" | sort -u); do
		case "$f" in
		*.c) ob="$ob ${f%.c}.o" ;;
		*.h) ob="$ob $(header_users "$f")" || return 1 ;;
		esac
	done
	for o in $ob; do echo "$o"; done | sort -u
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

# new_warnings BEFORE AFTER: the warnings of label AFTER that label
# BEFORE does not have, in new-AFTER.
new_warnings() { comm -13 "warnings-$1" "warnings-$2" >"new-$2"; }

# series_check LABEL LIST NEEDS...: the objects of the patches the file
# LIST names (absolute paths), compiled on v6.1.192 with the series of
# each NEEDS (label base-LABEL) and with LIST's patches applied on top
# (LABEL); prints the counts; the new warnings in new-LABEL.
series_check() {
	sc_label=$1 sc_list=$2
	shift 2
	sc_objs=$(objects $(cat "$sc_list")) && test -n "$sc_objs" &&
	reset "$@" && warnings "base-$sc_label" $sc_objs &&
	series_am "$C/src" $(cat "$sc_list") && warnings "$sc_label" $sc_objs &&
	new_warnings "base-$sc_label" "$sc_label" || return 1
	echo "$sc_label: $(echo $sc_objs | wc -w) objects, $(wc -l <"warnings-base-$sc_label") warnings before," \
		"$(wc -l <"warnings-$sc_label") after, $(wc -l <"new-$sc_label") new"
}

# plant: a function with external linkage and no prototype at the end of
# kernel/smp.c.
plant() { printf "\nint tide_check_helper(void)\n{\n\treturn 0;\n}\n" >>"$C/src/kernel/smp.c"; }

test_expect_success 'the configuration builds every object the series touch' '
	cat "$K/smoke.config" "$K/legacy.config" >check.config &&
	printf "CONFIG_CGROUPS=y\nCONFIG_MEMCG=y\nCONFIG_INPUT=y\nCONFIG_INPUT_KEYBOARD=y\nCONFIG_KEYBOARD_GPIO=y\n" >>check.config &&
	reset &&
	mkdir -p "$C/out" &&
	kmake tinyconfig >/dev/null &&
	(cd "$C/out" && "$C/src/scripts/kconfig/merge_config.sh" -m -O "$C/out" .config "$TRASH/check.config") >/dev/null &&
	kmake olddefconfig >/dev/null &&
	for o in CONFIG_MEMCG CONFIG_TEST_BITMAP CONFIG_CPUMASK_KUNIT_TEST CONFIG_LEDS_GPIO CONFIG_KEYBOARD_GPIO; do
		grep -qx "$o=y" "$C/out/.config" || { echo "$o is not set"; exit 1; }
	done
'

# The tree each series needs under it (its README's "Needs").
for t in fixes cpumask gpio bitmap mmotm; do
	case $t in bitmap) needs=cpumask ;; *) needs= ;; esac
	test_expect_success "$t adds no W=1 or sparse warning to what it touches" '
		series_patches '$t' >patches-'$t' &&
		series_check '$t' "$TRASH/patches-'$t'" '"$needs"' >counts-'$t' &&
		tee -a "$MEASURE/series-warnings.txt" <counts-'$t' &&
		test_cmp /dev/null new-'$t'
	'
done

test_expect_success 'a function without a prototype is a new warning of both W=1 and sparse' '
	reset fixes &&
	plant &&
	warnings planted kernel/smp.o &&
	new_warnings fixes planted &&
	cat new-planted &&
	grep -q "^kernel/smp.c: warning: no previous prototype for .tide_check_helper." new-planted &&
	grep -q "^kernel/smp.c: warning: symbol .tide_check_helper. was not declared. Should it be static?" new-planted
'

test_done
