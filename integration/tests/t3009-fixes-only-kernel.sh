#!/bin/sh
# The fixes tree's compat helpers run.  In every merge of the world the
# cpumask tree's real helpers define their names and the fixes tree's
# #ifndef block drops out, so the compat code never runs in a merged
# kernel.  Here the smoke kernel is built from v6.1.192 + the fixes tree
# (day 3: all four trivial helpers) + the cpumask tree's two KUnit
# patches, which test the helpers by name and nothing else of that
# tree: the KUnit cases of the real helpers then run against the trivial
# ones, booted with `tide boot --kernel` on 4 CPUs.  With TIDE_CHECK_FULL
# a wrong trivial cpumask_weight_andnot() (one that ignores its first
# mask) is built and booted too, and its KUnit case must fail.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-series.sh"
C=$TOP/work/fixes-only
E=$I/days/expect.json

series_src "$C" || { t_failed=1; test_done; }
cd "$TRASH" || exit 1

# The fixes tree (its series is day 3's), then the cpumask tree's KUnit
# patches.
series_apply "$C/src" fixes &&
git -C "$C/src" am -q -3 "$I/series/cpumask/lib-cpumask_kunit-test-the-new-cpumask-helpers.patch" \
	"$I/series/cpumask/lib-cpumask_kunit-test-cpumask_any_and_but.patch" ||
	{ echo "the fixes tree and the KUnit patches do not apply"; t_failed=1; test_done; }

# build LABEL: the smoke kernel of $C/src into $C/out-LABEL.
build() {
	t0=$(date +%s) rc=0
	"$I/build-kernel" "$C/src" "$C/out-$1" || rc=$?
	echo "fixes-only $1: build exit $rc in $(($(date +%s) - t0)) s" | tee -a "$MEASURE/fixes-only.txt"
	return $rc
}

# boot LABEL: boot it; the console in console-LABEL.
boot() {
	mkdir -p "ws-$1" &&
	tide -C "ws-$1" boot --kernel "$C/out-$1/arch/x86/boot/bzImage" --config "$C/out-$1/.config" \
		--console "console-$1" --smp 4 >"boot-$1" 2>&1
}

# The KUnit cases of the cpumask suite on day 3, in order.
python3 -c "import json; print('\n'.join(json.load(open('$E'))['days']['3']['boot']['kunit_cpumask']))" >cases

test_expect_success 'only the trivial helpers are there: none of the real ones defines its name' '
	cmp "$I/days/3/fixes" "$I/series/fixes/series" &&
	for f in cpumask_weight_andnot cpumask_first_and_and for_each_cpu_or cpumask_any_and_but; do
		grep -q "^#ifndef $f\$" "$C/src/include/linux/cpumask.h" &&
		! grep -rq "^#define $f $f\$" "$C/src/include" || { echo "$f"; exit 1; }
	done &&
	grep -q "cpumask_any_and_but(" "$C/src/kernel/smp.c"
'

test_expect_success 'the fixes-only kernel boots and every KUnit case of the cpumask suite passes' '
	build ok &&
	t0=$(date +%s) &&
	boot ok &&
	echo "fixes-only: boot in $(($(date +%s) - t0)) s: $(grep "# cpumask:" console-ok)" | tee -a "$MEASURE/fixes-only.txt" &&
	tr -d "\r" <console-ok | sed -n "s/^.*    ok [0-9]* \(test_cpumask_[a-z_]*\)\$/\1/p" >passed &&
	test_cmp cases passed &&
	grep -q "# cpumask: pass:$(grep -c . cases) fail:0 skip:0" console-ok &&
	! grep -q "not ok" console-ok
'

if [ -n "${TIDE_CHECK_FULL:-}" ]; then
	test_expect_success 'a trivial cpumask_weight_andnot() that ignores its first mask fails its KUnit case' '
		sed -i "s/for_each_cpu_andnot(cpu, srcp1, srcp2)/for_each_cpu_andnot(cpu, cpu_possible_mask, srcp2)/" \
			"$C/src/include/linux/cpumask.h" &&
		grep -q "for_each_cpu_andnot(cpu, cpu_possible_mask, srcp2)" "$C/src/include/linux/cpumask.h" &&
		build wrong &&
		test_must_fail --status=1 boot wrong &&
		tr -d "\r" <console-wrong >wrong &&
		grep -E "^.*    not ok [0-9]+ test_cpumask_weight_andnot\$" wrong &&
		test "$(grep -cE "^.*    not ok [0-9]+ " wrong)" = 1
	'
	git -C "$C/src" checkout -q -f HEAD
fi

test_done
