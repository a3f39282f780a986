#!/bin/sh
# Failures followed across days, on generated days built and booted with
# test doubles (lib-guest.sh: a fake kernel Makefile, a fake QEMU whose
# "guest" reports KTAP results from what the kernel image holds): a test
# that fails one boot in three is retried and flaky, not failed; a
# regression is reported and mailed once across three days and closed
# when fixed; bisect's culprit is confirmed by reverting it, a wrong one
# is caught, and a revert that does not apply leaves the tree out; KCIDB
# carries the regression as one issue with an incident on each day.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"
. "$(dirname "$0")/lib-guest.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt
SQ="'"

test_smtp_sink

# run_day DATE: integrate, build and boot the day; the output in run-DATE.out.
run_day() {
	tide -C ws -f world/trees.conf run --date "$1" >"run-$1.out" 2>"run-$1.err"
}

# The lines of tide regressions but the flaky test's (its flakiness follows the boot count).
regressions() {
	tide -C ws regressions "$@" >regressions.out &&
	{ grep -v "timer.jitter" regressions.out || true; }
}

nmails() {
	ls mail/*.eml 2>/dev/null | wc -l
}

test_expect_success 'setup: a fake kernel, gpio, timer and net trees, a mail list' '
	mkdir -p kt && printf "CONFIG_GPIO=y\n" >kt/smoke.config &&
	fake_kernel_source world/mainline &&
	fake_kernel_relinks world/mainline &&
	echo "const char *m = \"main\";" >world/mainline/m.c &&
	commit_fake_mainline &&
	make_tree gpio gpio.c "const char *g = \"gpio\";" &&
	make_tree timer timer.c "const char *t = \"JITTER_FLAKY\";" &&
	make_tree net net.c "const char *n = \"net\";" &&
	conf "gpio git gpio#for-next" "timer git timer#for-next" "net git net#for-next" &&
	printf "#tide\tgpio\tcontact=GPIO Maint <gpio@ex.org>\n#tide\tproject=linux-next\n" >>world/trees.conf &&
	fake_qemu &&
	mkdir -p ws &&
	printf "smtp=smtp://127.0.0.1:%s\nfrom=tide <next@tide.example>\nregressions=regressions@lists.example\ntimeout=5\n" \
		"$(cat mail.port)" >ws/mail.conf
'

test_expect_success 'day 1: a test failing one boot in three is booted again; the day passes, the test is flaky' '
	run_day 2026-01-01 &&
	day_field 2026-01-01 "d[\"boot\"][\"status\"], len(d[\"boot\"][\"attempts\"]), d[\"boot\"][\"flaky\"], d[\"boot\"][\"attempts\"][0][\"failed\"]" >actual &&
	echo "passed 1 [${SQ}timer.jitter${SQ}] [${SQ}timer.jitter${SQ}]" >expect &&
	test_cmp expect actual &&
	test "$(cat state/boots)" = 2 &&
	day_field 2026-01-01 "d[\"boot\"][\"cmdline\"].split()[2:4]" >actual &&
	echo "[${SQ}tide.smp=4${SQ}, ${SQ}tide.boot=2${SQ}]" >expect &&
	test_cmp expect actual &&
	test -f ws/days/2026-01-01/console.log.1 &&
	grep -q "not ok 1 jitter" ws/days/2026-01-01/console.log.1 &&
	tide -C ws show 2026-01-01 >show &&
	grep -q "^        2 boots: the tests failed on the first 1$" show &&
	grep -q "^        flaky: timer.jitter (failed on one boot, passed on another)$" show &&
	tide -C ws regressions >actual &&
	echo "flaky         test    smoke/x86_64 timer.jitter: first bad 2026-01-01 (last good none), last bad 2026-01-01, flakiness 1.00" >expect &&
	test_cmp expect actual &&
	tide -C ws regressions --mail >out &&
	echo "no regression mail is due" >expect &&
	test_cmp expect out &&
	test "$(nmails)" = 0
'

test_expect_success 'day 2: gpio breaks gpio.edge_events: one new regression, retried first, and one mail' '
	echo "const char *e = \"fine\";" >world/gpio/e.c &&
	git -C world/gpio add e.c && git -C world/gpio commit -qm "gpio: add edge events" &&
	echo "const char *e = \"EDGE_BUG\";" >world/gpio/e.c &&
	git -C world/gpio commit -qam "gpio: break edge events" &&
	echo "const char *f = \"more\";" >world/gpio/f.c &&
	git -C world/gpio add f.c && git -C world/gpio commit -qm "gpio: more" &&
	test_must_fail --status=1 run_day 2026-01-02 &&
	sed -n "/^Regressions:/,\$p" run-2026-01-02.out >actual &&
	printf "Regressions:\nnew: test smoke (x86_64) gpio.edge_events since next-20260102\n" >expect &&
	test_cmp expect actual &&
	test "$(day_field 2026-01-02 "len(d[\"boot\"][\"attempts\"])")" = 2 &&
	regressions >actual &&
	echo "new           test    smoke/x86_64 gpio.edge_events: first bad 2026-01-02 (last good 2026-01-01), last bad 2026-01-02" >expect &&
	test_cmp expect actual &&
	tide -C ws -f world/trees.conf regressions --mail >out &&
	grep -q "^[0-9a-f]*: mailed new to regressions@lists.example$" out &&
	test "$(nmails)" = 1 &&
	m=mail/1.eml &&
	grep -q "^Subject: \[REGRESSION\] linux-next: gpio.edge_events fails on smoke (x86_64) since next-20260102$" $m &&
	grep -q "^next-20260101 was the last good day.$" $m &&
	grep -q "^Reported-by: tide <next@tide.example>$" $m &&
	id=$(sed -n "s/^Message-ID: <\(.*\)>$/\1/p" $m) &&
	grep -qx "Closes: https://lore.kernel.org/r/$id/" $m &&
	grep -qx "#regzbot introduced: next-20260101..next-20260102" $m &&
	printf "from next@tide.example\nto regressions@lists.example\n" >expect &&
	test_cmp expect mail/1.env
'

test_expect_success 'days 3 and 4: still failing, reported and mailed no more' '
	echo "const char *t2 = \"t2\";" >world/timer/t2.c &&
	git -C world/timer add t2.c && git -C world/timer commit -qm "timer: t2" &&
	test_must_fail --status=1 run_day 2026-01-03 &&
	echo "const char *n2 = \"n2\";" >world/net/n2.c &&
	git -C world/net add n2.c && git -C world/net commit -qm "net: n2" &&
	test_must_fail --status=1 run_day 2026-01-04 &&
	! grep -q "gpio.edge_events" run-2026-01-03.out run-2026-01-04.out &&
	regressions >actual &&
	echo "still-failing test    smoke/x86_64 gpio.edge_events: first bad 2026-01-02 (last good 2026-01-01), last bad 2026-01-04" >expect &&
	test_cmp expect actual &&
	tide -C ws -f world/trees.conf regressions --mail >out &&
	echo "no regression mail is due" >expect &&
	test_cmp expect out &&
	test "$(nmails)" = 1
'

test_expect_success 'bisect names the culprit, confirmed by reverting it on the day; one mail more' '
	culprit=$(git -C world/gpio rev-parse HEAD~1) &&
	tide -C ws bisect 2026-01-04 --test gpio.edge_events >out 2>err &&
	grep -q "^first bad commit: $culprit gpio: break edge events$" out &&
	grep -q "^confirmed: the day passes with it reverted$" out &&
	grep -q "^regressions: the culprit is noted for 1 regression$" out &&
	grep -q "step [0-9]*: revert: the day with $(echo $culprit | cut -c1-12) reverted" err &&
	day_field 2026-01-04 "d[\"bisect\"][\"revert\"][\"how\"], d[\"bisect\"][\"revert\"][\"confirmed\"]" >actual &&
	echo "reverted True" >expect &&
	test_cmp expect actual &&
	regressions >actual &&
	cat >expect <<-EOF &&
	still-failing test    smoke/x86_64 gpio.edge_events: first bad 2026-01-02 (last good 2026-01-01), last bad 2026-01-04
	    culprit: gpio $(echo $culprit | cut -c1-12) "gpio: break edge events" (bisect of 2026-01-04), confirmed by revert
	EOF
	test_cmp expect actual &&
	tide -C ws -f world/trees.conf regressions --mail >out &&
	test "$(nmails)" = 2 &&
	m=mail/2.eml &&
	grep -q "^Subject: Re: \[REGRESSION\] linux-next: gpio.edge_events fails on smoke (x86_64) since next-20260102$" $m &&
	grep -q "^Cc: GPIO Maint <gpio@ex.org>$" $m &&
	first=$(sed -n "s/^Message-ID: //p" mail/1.eml) &&
	grep -qx "In-Reply-To: $first" $m &&
	grep -qx "#regzbot ^introduced: $(echo $culprit | cut -c1-12)" $m &&
	grep -q "^Confirmed: the day passes with it reverted.$" $m &&
	tide -C ws -f world/trees.conf regressions --mail >out &&
	test "$(nmails)" = 2
'

test_expect_success 'day 5: fixed: closed, one last mail, listed only with --all' '
	git -C world/gpio revert --no-edit HEAD~1 >/dev/null &&
	{ run_day 2026-01-05 || test $? = 1; } &&
	grep -q "^fixed: test smoke (x86_64) gpio.edge_events, failing since next-20260102$" run-2026-01-05.out &&
	regressions >actual &&
	test ! -s actual &&
	regressions --all >actual &&
	echo "fixed         test    smoke/x86_64 gpio.edge_events: first bad 2026-01-02 (last good 2026-01-01), last bad 2026-01-04, fixed 2026-01-05" >expect &&
	grep -v "^    culprit" actual >actual2 &&
	test_cmp expect actual2 &&
	tide -C ws -f world/trees.conf regressions --mail >out &&
	test "$(nmails)" = 3 &&
	grep -q "^Subject: Re: \[REGRESSION\]" mail/3.eml &&
	grep -q "^next-20260105 passes again on the smoke configuration (x86_64): gpio.edge_events fails from next-20260102 to next-20260104 in linux-next, no longer.$" mail/3.eml &&
	{ run_day 2026-01-06 || test $? = 1; } &&
	tide -C ws -f world/trees.conf regressions --mail >out &&
	test "$(nmails)" = 3
'

# kcidb DATE: the regression issues and incidents of the day's KCIDB document.
kcidb_regressions() {
	tide -C ws kcidb "$1" --out "kcidb-$1.json" &&
	"$TOP/tests/data/kcidb/validate.py" "kcidb-$1.json" &&
	python3 - "kcidb-$1.json" <<-\EOF
	import json, sys
	d = json.load(open(sys.argv[1]))
	for i in d["issues"]:
	    if ":regression:" in i["id"]:
	        print("issue", i["id"].split(":")[-1], i["version"], i["categories"], i["comment"],
	              "report" if "report_url" in i else "-")
	for n in d["incidents"]:
	    if ":regression:" in n["id"]:
	        print("incident", n["issue_id"].split(":")[-1], n["issue_version"],
	              n.get("test_id", n.get("build_id")).split(":", 2)[2], n["present"])
	assert not [i for i in d["issues"] if i["id"].endswith("test:boot.gpio.edge_events")]
	EOF
}

test_expect_success 'KCIDB: the regression is one issue, an incident on each failing day, absent when fixed' '
	id=$(tide -C ws regressions --all --json | python3 -c "import json,sys; print([r[\"id\"] for r in json.load(sys.stdin) if r[\"test\"] == \"gpio.edge_events\"][0])") &&
	for day in 02 03 04; do
		kcidb_regressions 2026-01-$day >actual &&
		cat >expect <<-EOF &&
		issue $id 2 [${SQ}regression${SQ}] test gpio.edge_events on smoke (x86_64) since next-20260102 report
		incident $id 2 test:boot.gpio.edge_events True
		EOF
		test_cmp expect actual || exit 1
	done &&
	kcidb_regressions 2026-01-05 >actual &&
	cat >expect <<-EOF &&
	issue $id 2 [${SQ}regression${SQ}] test gpio.edge_events on smoke (x86_64) since next-20260102 report
	incident $id 2 test:boot.gpio.edge_events False
	EOF
	test_cmp expect actual
'

test_expect_success 'a wrong culprit is caught: the day still fails with it reverted' '
	make_tree usb usb.c "const char *u = \"usb\";" &&
	echo "const char *u2 = \"EDGE_BUG in usb\";" >world/usb/u.c &&
	git -C world/usb add u.c && git -C world/usb commit -qm "usb: break edge events" &&
	echo "const char *n3 = \"EDGE_BUG in net\";" >world/net/n3.c &&
	git -C world/net add n3.c && git -C world/net commit -qm "net: also break edge events" &&
	conf "gpio git gpio#for-next" "timer git timer#for-next" "usb git usb#for-next" \
		"net git net#for-next" &&
	printf "#tide\tgpio\tcontact=GPIO Maint <gpio@ex.org>\n#tide\tusb\tcontact=usb@ex.org\n" >>world/trees.conf &&
	printf "#tide\tproject=linux-next\n" >>world/trees.conf &&
	test_must_fail --status=1 run_day 2026-01-07 &&
	grep -q "^new: test smoke (x86_64) gpio.edge_events since next-20260107$" run-2026-01-07.out &&
	culprit=$(git -C world/usb rev-parse HEAD) &&
	test_must_fail --status=1 tide -C ws bisect 2026-01-07 --test gpio.edge_events >out 2>err &&
	grep -q "^first bad commit: $culprit usb: break edge events$" out &&
	grep -q "^not confirmed: the day still fails with it reverted: something else breaks it too$" out &&
	tide -C ws show 2026-01-07 | grep -q "^bisect  --test gpio.edge_events: found usb .*, not confirmed by revert (the day still fails)" &&
	regressions >actual &&
	grep -q "^    culprit: usb $(echo $culprit | cut -c1-12) \"usb: break edge events\" (bisect of 2026-01-07), not confirmed: the day still fails without it$" actual &&
	tide -C ws -f world/trees.conf regressions --mail >out &&
	test "$(nmails)" = 4 &&
	! grep -q "^Subject: Re:" mail/4.eml &&
	! grep -q "^Cc:" mail/4.eml &&
	! grep -q "culprit" mail/4.eml &&
	grep -qx "#regzbot introduced: next-20260106..next-20260107" mail/4.eml &&
	tide -C ws -f world/trees.conf regressions --mail >out &&
	echo "no regression mail is due" >expect &&
	test_cmp expect out
'

test_expect_success 'a revert that does not apply: the day without the tree, confirmed that way' '
	git -C world/net revert --no-edit HEAD >/dev/null &&
	echo "const char *u2 = \"EDGE_BUG in usb, reworded\";" >world/usb/u.c &&
	git -C world/usb commit -qam "usb: reword the broken line" &&
	test_must_fail --status=1 run_day 2026-01-08 &&
	culprit=$(git -C world/usb rev-parse HEAD~1) &&
	tide -C ws bisect 2026-01-08 --test gpio.edge_events >out 2>err &&
	grep -q "^first bad commit: $culprit usb: break edge events$" out &&
	grep -q "^confirmed: the day passes without its tree (the revert does not apply)$" out &&
	grep -q "the revert conflicts in u.c: leaving the usb tree out instead" err &&
	day_field 2026-01-08 "d[\"bisect\"][\"revert\"][\"how\"], d[\"bisect\"][\"revert\"][\"confirmed\"], \"earlier_bisects\" in d" >actual &&
	echo "tree-left-out True False" >expect &&
	test_cmp expect actual &&
	tide -C ws -f world/trees.conf regressions --mail >out &&
	test "$(nmails)" = 5 &&
	grep -q "^Cc: usb@ex.org$" mail/5.eml &&
	grep -q "^Confirmed: the day passes without that tree (the revert does not apply).$" mail/5.eml
'

test_expect_success 'every bisect of a day is kept' '
	tide -C ws bisect 2026-01-08 --test gpio.edge_events >out 2>err &&
	day_field 2026-01-08 "len(d[\"earlier_bisects\"]), d[\"earlier_bisects\"][0][\"outcome\"], d[\"bisect\"][\"outcome\"]" >actual &&
	echo "1 found found" >expect &&
	test_cmp expect actual
'

test_expect_success 'a flaky test failing every boot of a day stays flaky, not a regression' '
	printf "boot-attempts = 1\n" >>ws/config &&
	echo 30 >state/boots &&
	conf "gpio git gpio#for-next" "timer git timer#for-next" "net git net#for-next" &&
	printf "#tide\tproject=linux-next\n" >>world/trees.conf &&
	test_must_fail --status=1 run_day 2026-01-09 &&
	day_field 2026-01-09 "d[\"boot\"][\"status\"], \"attempts\" in d[\"boot\"], [t[\"name\"] for t in d[\"boot\"][\"tests\"] if not t[\"ok\"]]" >actual &&
	echo "tests-failed False [${SQ}timer${SQ}, ${SQ}timer.jitter${SQ}]" >expect &&
	test_cmp expect actual &&
	! grep -q "timer.jitter" run-2026-01-09.out &&
	tide -C ws regressions >actual &&
	grep -q "^flaky         test    smoke/x86_64 timer.jitter: first bad 2026-01-01 (last good none), last bad 2026-01-09, flakiness 0\.[0-9][0-9]$" actual &&
	! grep -q "^new .*timer.jitter" actual
'

test_expect_success 'bad settings are refused, naming the file and line' '
	printf "flaky-threshold = 2\n" >>ws/config &&
	test_must_fail --status=3 tide -C ws regressions 2>err &&
	grep -q "config:[0-9]*: flaky-threshold .2.: a number from 0 to 1" err &&
	sed -i "/flaky-threshold/d; s/boot-attempts = 1/boot-attempts = 11/" ws/config &&
	test_must_fail --status=1 run_day 2026-01-10 &&
	grep -q "boot-attempts .11.: a number of boots from 1 to 10" run-2026-01-10.err
'

test_done
