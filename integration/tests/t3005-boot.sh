#!/bin/sh
# Boot the day 1, 3 and 4 kernels that t3004 built (work/check/) with
# `tide boot --kernel` and compare with integration/days/expect.json:
# day 1 passes everything, day 3 fails exactly the edge-event subtests
# expect.json lists (the planted commit swaps every event id), day 4 (v2
# of that commit, on the new base) passes everything again.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
C=$TOP/work/check
E=$TOP/integration/days/expect.json
expect() { python3 -c "import json; e=json.load(open('$E')); r=$1; print(' '.join(r) if isinstance(r, list) else r)"; }

boot() {
	mkdir -p "$TRASH/ws" &&
	tide -C "$TRASH/ws" boot --kernel "$C/bzImage-day$1" --config "$C/config-day$1" \
		--console "$TRASH/console$1" --smp 4 >"$TRASH/boot$1" 2>&1
}

test_expect_success 'day 1 boots and every smoke test passes' '
	test -f "$C/bzImage-day1" &&
	boot 1 &&
	cat boot1 &&
	grep -q "ok 1 gpio" console1 && grep -q "ok [0-9]* cpumask_smoke" console1 &&
	grep -q "# cpumask: pass:9 fail:0" console1 &&
	! grep -q "not ok" console1
'

test_expect_success 'day 3 boots and fails exactly the expected subtests' '
	test -f "$C/bzImage-day3" &&
	test_must_fail --status=1 boot 3 &&
	cat boot3 &&
	for s in $(expect "e[\"days\"][\"3\"][\"boot\"][\"failed_subtests\"]"); do
		grep -q "not ok [0-9]* ${s#*.}" console3 || exit 1
	done &&
	test "$(grep -cE "^[[:space:]]+not ok [0-9]+ " console3)" = \
		"$(python3 -c "import json; print(len(json.load(open(\"$E\"))[\"days\"][\"3\"][\"boot\"][\"failed_subtests\"]))")" &&
	grep -q "# cpumask: pass:10 fail:0" console3
'

test_expect_success 'day 4 boots on v6.1.193-rc1 and every test passes again' '
	test -f "$C/bzImage-day4" &&
	boot 4 &&
	cat boot4 &&
	grep -q "Linux version 6.1.193-rc1" console4 &&
	n=$(python3 -c "import json; print(len(json.load(open(\"$E\"))[\"days\"][\"4\"][\"boot\"][\"kunit_cpumask\"]))") &&
	grep -q "# cpumask: pass:$n fail:0" console4 &&
	! grep -q "not ok" console4
'

test_done
