#!/bin/sh
# Every series builds with the smoke config on top of what its README's
# "Needs" names (nothing: v6.1.192 alone), and bitmap, the tree with the
# ordering dependency, does not build alone.  Plain make through
# integration/build-kernel; one source and one output directory for all
# series, so each build is incremental and ccache-warm.  Build times go to
# $TIDE_MEASURE/series-build.txt.  Runs with make check-kernel-full.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-series.sh"
C=$TOP/work/series-build

series_src "$C" || { t_failed=1; test_done; }

# apply TREE...: the source at v6.1.192 with each TREE's series.
apply() { series_apply "$C/src" "$@"; }

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
