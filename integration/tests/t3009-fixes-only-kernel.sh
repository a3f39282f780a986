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
# mask) is built and booted too, and its KUnit case must fail; and so is
# each of nine wrong helpers #defined over the helpers in the KUnit file
# (a mask ignored, a cpu not excluded), booted on 4 CPUs and on 1: only
# the case of that helper may fail.
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

# boot LABEL [CPUS [NAME]]: boot $C/out-LABEL on CPUS (4); the console in
# console-NAME (NAME: LABEL).
boot() {
	bn=${3:-$1}
	mkdir -p "ws-$bn" &&
	tide -C "ws-$bn" boot --kernel "$C/out-$1/arch/x86/boot/bzImage" --config "$C/out-$1/.config" \
		--console "console-$bn" --smp "${2:-4}" >"boot-$bn" 2>&1
}

# failed NAME: the KUnit cases console-NAME reports as not ok.
failed() {
	tr -d "\r" <"console-$1" | sed -n "s/^.*    not ok [0-9]* \(test_cpumask_[a-z_]*\)\$/\1/p"
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
		failed wrong >failed &&
		echo test_cpumask_weight_andnot >expect &&
		test_cmp expect failed
	'
	git -C "$C/src" checkout -q -f HEAD

	# Wrong helpers, each #defined over the real one at the top of
	# lib/cpumask_kunit.c (so only the KUnit cases see it): the case of
	# that helper, and no other, must fail on 4 CPUs, and on 1 CPU
	# too except where one CPU cannot tell (any_and_but: the only CPU
	# is the excluded one, so its second mask cannot matter).
	# ID|WHAT|CASE|fails on 1 CPU|the wrong helper.  The table is the
	# loop's stdin: each test reads /dev/null instead.
	while IFS="|" read -r id what tcase up def; do
		test_expect_success "the cpumask KUnit cases catch $what" '
			fn=${def#\#define } && fn=${fn%%(*} &&
			printf "#undef %s\n%s\n" "$fn" "$def" >variant.h &&
			sed -i "/^#include <linux\/cpumask.h>\$/r variant.h" "$C/src/lib/cpumask_kunit.c" &&
			grep -qxF "$def" "$C/src/lib/cpumask_kunit.c" &&
			build variant &&
			echo "$tcase" >expect &&
			{ boot variant 4 "$id-4" || true; } && failed "$id-4" >failed &&
			test_cmp expect failed &&
			{ boot variant 1 "$id-1" || true; } && failed "$id-1" >failed &&
			if [ "$up" = yes ]; then test_cmp expect failed; else test_cmp /dev/null failed; fi &&
			echo "wrong helper, $what: $tcase fails on 4 CPUs; on 1 CPU: $up" >>"$MEASURE/fixes-only.txt"
		' </dev/null
		git -C "$C/src" checkout -q -f HEAD
	done <<-'EOF'
	wa-m1|weight_andnot ignoring its first mask|test_cpumask_weight_andnot|yes|#define cpumask_weight_andnot(m1, m2) cpumask_weight_andnot(cpu_possible_mask, m2)
	wa-m2|weight_andnot ignoring its second mask|test_cpumask_weight_andnot|yes|#define cpumask_weight_andnot(m1, m2) cpumask_weight(m1)
	faa-m1|first_and_and ignoring its first mask|test_cpumask_first_and_and|yes|#define cpumask_first_and_and(m1, m2, m3) cpumask_first_and(m2, m3)
	faa-m2|first_and_and ignoring its second mask|test_cpumask_first_and_and|yes|#define cpumask_first_and_and(m1, m2, m3) cpumask_first_and(m1, m3)
	faa-m3|first_and_and ignoring its third mask|test_cpumask_first_and_and|yes|#define cpumask_first_and_and(m1, m2, m3) cpumask_first_and(m1, m2)
	or-m1|for_each_cpu_or walking only its first mask|test_cpumask_iterate_or|yes|#define for_each_cpu_or(cpu, m1, m2) for_each_cpu(cpu, m1)
	or-m2|for_each_cpu_or walking only its second mask|test_cpumask_iterate_or|yes|#define for_each_cpu_or(cpu, m1, m2) for_each_cpu(cpu, m2)
	aab-cpu|any_and_but not excluding the cpu|test_cpumask_any_and_but|yes|#define cpumask_any_and_but(m1, m2, cpu) cpumask_first_and(m1, m2)
	aab-m2|any_and_but ignoring its second mask|test_cpumask_any_and_but|no|#define cpumask_any_and_but(m1, m2, cpu) cpumask_any_but(m1, cpu)
	EOF
else
	test_skip 'the wrong compat helper and the nine wrong cpumask helpers booted' 'runs with make check-kernel-full'
fi

test_done
