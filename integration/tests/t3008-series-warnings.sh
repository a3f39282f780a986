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
# With TIDE_CHECK_FULL (make check-kernel-full) each series is also
# walked patch by patch: the objects of what each patch touches are
# compiled just before it and just after it, and no patch may add a
# warning (a patch that touches no .c file or header compiles nothing),
# so that a warning one patch adds and a later one removes is seen; the
# walk is shown to catch such a pair planted in the fixes series, which
# the comparison of the whole series does not.  The counts go to
# $TIDE_MEASURE/series-warnings.txt.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-series.sh"
series_kbuild "$TOP/work/series-warnings" x86_64

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
# warnings (file: message, numbers dropped) in warnings-LABEL.  The
# objects are removed first: gcc runs (ccache replays its warnings) even
# for an object that is up to date, as one compiled after the previous
# patch is when the next one changes another file.
warnings() {
	label=$1
	shift
	for o; do rm -f "$C/out/$o"; done
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

# walk LABEL LIST NEEDS...: on v6.1.192 with the series of each NEEDS,
# `git am` the patches the file LIST names one at a time, and compile the
# objects each touches just before it and just after it.  One line per
# patch, the new warnings under it, and a last line of totals, in
# walk-LABEL; fails if a patch adds a warning.
walk() {
	wk_label=$1 wk_list=$2
	shift 2
	reset "$@" || return 1
	wk_n=$(grep -c . "$wk_list") wk_i=0 wk_built=0 wk_objn=0 wk_new=0 wk_prev=
	: >"walk-$wk_label"
	for wk_p in $(cat "$wk_list"); do
		wk_i=$((wk_i + 1)) wk_at=$wk_label-$wk_i
		wk_objs=$(objects "$wk_p") || return 1
		if [ -z "$wk_objs" ]; then
			series_am "$C/src" "$wk_p" || return 1
			echo "[$wk_i/$wk_n] ${wk_p##*/}: no .c file or header, nothing compiled" >>"walk-$wk_label"
			wk_prev=
			continue
		fi
		# The same objects as the previous patch's, in the tree it
		# left: its warnings after are this one's before.
		if [ "$wk_objs" = "$wk_prev" ]; then
			cp "warnings-$wk_label-$((wk_i - 1))" "warnings-before-$wk_at"
		else
			warnings "before-$wk_at" $wk_objs || return 1
		fi
		series_am "$C/src" "$wk_p" && warnings "$wk_at" $wk_objs &&
			new_warnings "before-$wk_at" "$wk_at" || return 1
		wk_on=$(echo $wk_objs | wc -w) wk_nn=$(wc -l <"new-$wk_at")
		wk_built=$((wk_built + 1)) wk_objn=$((wk_objn + wk_on)) wk_new=$((wk_new + wk_nn)) wk_prev=$wk_objs
		{
			echo "[$wk_i/$wk_n] ${wk_p##*/}: $wk_on objects, $wk_nn new warnings"
			sed 's/^/    /' "new-$wk_at"
		} >>"walk-$wk_label"
	done
	echo "$wk_label per patch: $wk_n patches, $wk_built compiled ($wk_objn objects), $wk_new new warnings" >>"walk-$wk_label"
	[ $wk_new = 0 ]
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
	kbuild_merge "$C/src" "$C/out" "$TRASH/check.config" >/dev/null &&
	kmake olddefconfig >/dev/null &&
	for o in CONFIG_MEMCG CONFIG_TEST_BITMAP CONFIG_CPUMASK_KUNIT_TEST CONFIG_LEDS_GPIO CONFIG_KEYBOARD_GPIO; do
		grep -qx "$o=y" "$C/out/.config" || { echo "$o is not set"; exit 1; }
	done
'

# The series, each with its patches in patches-TREE.
trees="fixes cpumask gpio bitmap mmotm"
for t in $trees; do series_patches $t >"$TRASH/patches-$t"; done
# needs TREE: the tree the series needs under it (its README's "Needs").
needs() { case $1 in bitmap) echo cpumask ;; esac; }

for t in $trees; do
	test_expect_success "$t adds no W=1 or sparse warning to what it touches" '
		series_check '$t' "$TRASH/patches-'$t'" '"$(needs $t)"' >counts-'$t' &&
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

if [ -n "${TIDE_CHECK_FULL:-}" ]; then
	for t in $trees; do
		test_expect_success "no patch of $t adds a W=1 or sparse warning to what it touches" '
			{ walk '$t' "$TRASH/patches-'$t'" '"$(needs $t)"' || { cat walk-'$t'; false; }; } &&
			tee -a "$MEASURE/series-warnings.txt" <walk-'$t' &&
			test $(grep -c "^\[" walk-'$t') = $(grep -c . patches-'$t')
		'
	done

	# Two patches planted between the second and third of the fixes
	# series: the first adds tide_check_helper() to kernel/smp.c, the
	# second takes it out again.
	test_expect_success 'a warning one patch adds and the next removes: the walk sees it, the series comparison does not' '
		reset && series_am "$C/src" $(sed -n 1,2p patches-fixes) &&
		plant && git -C "$C/src" commit -q -a -m "smp: add tide_check_helper()" &&
		git -C "$C/src" checkout -q HEAD~ -- kernel/smp.c &&
		git -C "$C/src" commit -q -a -m "smp: remove tide_check_helper()" &&
		rm -rf planted && git -C "$C/src" format-patch -q -2 -o "$TRASH/planted" &&
		{ sed -n 1,2p patches-fixes && ls "$TRASH"/planted/*.patch && sed -n "3,\$p" patches-fixes; } >planted-fixes &&
		series_check planted-series "$TRASH/planted-fixes" &&
		test_cmp /dev/null new-planted-series &&
		test_must_fail walk planted-walk "$TRASH/planted-fixes" &&
		cat walk-planted-walk &&
		grep -x "\[3/5\] 0001-smp-add-tide_check_helper.patch: 1 objects, 2 new warnings" walk-planted-walk &&
		grep -q "^    kernel/smp.c: warning: no previous prototype for .tide_check_helper." walk-planted-walk &&
		grep -q "^    kernel/smp.c: warning: symbol .tide_check_helper. was not declared. Should it be static?" walk-planted-walk &&
		grep -x "\[4/5\] 0002-smp-remove-tide_check_helper.patch: 1 objects, 0 new warnings" walk-planted-walk &&
		tail -1 walk-planted-walk | grep -qx "planted-walk per patch: 5 patches, 5 compiled ([0-9]* objects), 2 new warnings"
	'
else
	test_skip 'W=1 and sparse patch by patch, per series, and the walk against the series comparison' 'runs with make check-kernel-full'
fi

test_done
