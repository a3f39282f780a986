#!/bin/sh
# Every series builds with the smoke config on top of what its README's
# "Needs" names (nothing: v6.1.192 alone), and bitmap, the tree with the
# ordering dependency, does not build alone.  Plain make through
# integration/build-kernel; one source and one output directory for all
# series, so each build is incremental and ccache-warm.  Build times go to
# $TIDE_MEASURE/series-build.txt.  Runs with make check-kernel-full.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
I=$TOP/integration
M=$TOP/work/world/mainline.git
C=$TOP/work/series-build
MEASURE=${TIDE_MEASURE:-$TOP/build/measurements}
export GIT_AUTHOR_NAME=tide GIT_AUTHOR_EMAIL=tide@tide.invalid
export GIT_COMMITTER_NAME=tide GIT_COMMITTER_EMAIL=tide@tide.invalid
export GIT_CONFIG_NOSYSTEM=1

"$I/import-mainline" >/dev/null || { t_failed=1; test_done; }
mkdir -p "$MEASURE"
if [ ! -d "$C/src/.git" ]; then
	rm -rf "$C" && mkdir -p "$C" &&
	git clone -q --shared -n "$M" "$C/src" || { t_failed=1; test_done; }
fi

# apply TREE...: reset the source to v6.1.192, then `git am` each tree's series.
apply() {
	git -C "$C/src" am --abort >/dev/null 2>&1
	git -C "$C/src" checkout -q -f --detach v6.1.192 &&
	git -C "$C/src" clean -q -fdx || return 1
	for t in "$@"; do
		(cd "$I/series/$t" && git -C "$C/src" am -q -3 $(sed "s|^|$I/series/$t/|" series)) ||
			{ echo "$t: the series does not apply"; return 1; }
	done
}

# build LABEL: build the source, note the time, exit status of the build.
build() {
	start=$(date +%s) rc=0
	"$I/build-kernel" "$C/src" "$C/out" 2>"$TRASH/err" || rc=$?
	echo "series $1: build exit $rc in $(($(date +%s) - start)) s" | tee -a "$MEASURE/series-build.txt"
	cat "$TRASH/err"
	return $rc
}

for t in fixes cpumask gpio mmotm; do
	test_expect_success "$t builds alone on v6.1.192 (its README needs nothing)" '
		grep -A1 "^Needs" "$I/series/'$t'/README" | grep -q "nothing" &&
		apply '$t' && build '$t' &&
		test -f "$C/out/arch/x86/boot/bzImage"
	'
done

test_expect_success 'bitmap does not build alone: cpumask_first_and_and() is missing' '
	apply bitmap &&
	test_must_fail build bitmap-alone &&
	grep -E "kernel/smp.c:[0-9]+:[0-9]+: error: .*cpumask_first_and_and" "$C/out/build.log"
'

test_expect_success 'bitmap builds on fixes and on cpumask, as its README says' '
	grep -A1 "^Needs" "$I/series/bitmap/README" | grep -q "fixes or cpumask" &&
	apply fixes bitmap && build fixes+bitmap &&
	apply cpumask bitmap && build cpumask+bitmap
'

test_done
