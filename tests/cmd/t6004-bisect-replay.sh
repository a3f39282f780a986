#!/bin/sh
# tide bisect replays the day as tide run built it: a day whose t05
# needed a recorded resolution (its conflict with t03) and whose t07
# needed a fixup (t02 renamed what it calls), bisected to the planted
# commit with --since and alone; a check killed half-way, --status and
# --continue; a merge no recorded resolution resolves is skipped with
# the reason.  The world is tests/cmd/bisect-world.py.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

CHECK="sh $TRASH/bw/check.sh"

# The output without the time, which varies.
result() { sed 's/, time: [0-9.]*s$//' "$1"; }

test_expect_success 'setup: day 1 with a recorded resolution and a fixup, day 2 breaks in t05' '
	world_gen --trees 8 &&
	world_day 1 2026-05-01 &&
	test "$(day_field 2026-05-01 "[t[\"status\"] for t in d[\"trees\"] if t[\"name\"]==\"t05\"][0]")" = conflict &&
	world_resolve 2026-05-01 &&
	world_day 1 2026-05-01 &&
	world_day 2 2026-05-02 &&
	for d in 2026-05-01 2026-05-02; do
		test "$(day_field $d "[t.get(\"handled\") for t in d[\"trees\"] if t[\"name\"]==\"t05\"][0]")" = recorded &&
		day_field $d "[t.get(\"fixups\") for t in d[\"trees\"] if t[\"name\"]==\"t07\"][0]" | grep -q t07-call-new_name ||
		return 1
	done
'

test_expect_success 'day against day replays the resolution and the fixup: the planted commit' '
	culprit=$(git --git-dir=bw/src.git rev-parse refs/day2/t05~1) &&
	tide -C ws bisect 2026-05-02 --since 2026-05-01 --cmd "$CHECK" >out 2>err &&
	cat err &&
	cat >expect <<-EOF &&
	tree: t05
	first bad commit: $culprit t05: new 2
	confirmed: the day passes with it reverted
	steps: 9 (bound 11), builds: 0, runs: 9
	EOF
	result out >actual &&
	test_cmp expect actual &&
	grep "t05: 6 commits, 3 with a new patch id, 0 of 2026-05-01.s dropped" err &&
	grep "step [0-9]*: merged [0-9]* trees.*1 conflict resolved from recorded resolutions, 1 fixup applied" err
'

test_expect_success 'each step says what it merges and checks out before the command runs' '
	grep -c "^tide: bisect: step [0-9]*: .* \.\.\.$" err >n.start &&
	grep -c "^tide: bisect: checked out [0-9a-f]* (.*); running sh " err >n.run &&
	test "$(cat n.start)" = 9 && test "$(cat n.run)" = 9
'

test_expect_success 'the day alone: stage 2 merges t05 commits with the recorded resolution' '
	culprit=$(git --git-dir=bw/src.git rev-parse refs/day2/t05~1) &&
	tide -C ws bisect 2026-05-02 --cmd "$CHECK" >out 2>err &&
	cat err &&
	grep "^first bad commit: $culprit t05: new 2$" out &&
	! grep "skip" err &&
	grep "t05: 6 commits since its merge base" err
'

# The third run of the check dies by a signal: tide stops (exit 4), the state is kept.
cat >"$TRASH/dies.sh" <<EOF
n=\$(cat "$TRASH/count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$TRASH/count"
[ \$n = 2 ] && kill -TERM \$PPID \$\$
sh "$TRASH/bw/check.sh"
EOF

test_expect_success 'a fixup that breaks the day is named, not the tree it follows' '
	printf "%s\n" "From: Tide Test <test@tide.invalid>" "Subject: [PATCH] t07: a bad fixup" "" "---" \
		"diff --git a/t07/bad b/t07/bad" "new file mode 100644" "--- /dev/null" "+++ b/t07/bad" \
		"@@ -0,0 +1 @@" "+BUG in a fixup" >ws/fixups/t07/0002-t07-a-bad-fixup.patch &&
	world_day 1 2026-05-03 &&
	rm ws/fixups/t07/0002-t07-a-bad-fixup.patch &&
	day_field 2026-05-03 "[t.get(\"fixups\") for t in d[\"trees\"] if t[\"name\"]==\"t07\"][0]" | grep -q 0002 &&
	fixup=$(git --git-dir=ws/repo.git log --format=%H -1 --grep="^t07: a bad fixup" next-20260503) &&
	tide -C ws bisect 2026-05-03 --cmd "$CHECK" >out 2>err &&
	cat err &&
	grep "^tree: t07$" out &&
	grep "^first bad commit: $fixup t07: a bad fixup$" out &&
	grep "fixups: t07: up to fixup 1/2 \"t07: call new_name after t02.s rename\" ...$" err
'

test_expect_success 'a check killed by a signal stops the bisect; --status says so' '
	rm -f count &&
	test_must_fail --status=4 tide -C ws bisect 2026-05-02 --since 2026-05-01 --cmd "sh $TRASH/dies.sh" >out 2>err &&
	grep "killed by signal 15" err &&
	tide -C ws bisect --status >st &&
	cat st &&
	grep "^status: stopped$" st &&
	grep "^stopped by: --cmd .sh .*dies.sh. was killed by signal 15 (.tide bisect --continue. resumes)$" st &&
	test $(grep -c "^step" st) = 2
'

test_expect_success '--continue replays the two decided steps and finds the commit' '
	culprit=$(git --git-dir=bw/src.git rev-parse refs/day2/t05~1) &&
	tide -C ws bisect --continue >out 2>err &&
	cat err &&
	grep "^first bad commit: $culprit t05: new 2$" out &&
	test $(grep -c "(recorded)" err) = 2 &&
	tide -C ws bisect --status >st &&
	grep "^status: done$" st &&
	grep "^result: found t05 $culprit$" st &&
	! grep "^stopped by" st
'

test_expect_success 'without the recorded resolution each t05 merge is skipped, saying why' '
	mv ws/rr-cache rr-saved &&
	test_must_fail --status=1 tide -C ws bisect 2026-05-02 --cmd "$CHECK" >out 2>err &&
	mv rr-saved ws/rr-cache &&
	cat out &&
	grep "^skipped steps leave a range: " out &&
	grep "step [0-9]*: skip: the merge of t05 conflicts in shared.txt (no recorded resolution)" err
'

test_expect_success 'day against day without it: exit 4 naming the merge that conflicts' '
	mv ws/rr-cache rr-saved &&
	test_must_fail --status=4 tide -C ws bisect 2026-05-02 --since 2026-05-01 --cmd "$CHECK" 2>err &&
	mv rr-saved ws/rr-cache &&
	grep "of 2026-05-02 cannot be merged again: the merge of t05 conflicts in shared.txt (no recorded resolution)" err
'

test_done
