#!/bin/sh
# tide bisect with --cmd on generated days: stage 1, stage 2, semantic
# conflicts, skips, flaky checks with --retries, resume, bad input.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

# The other check scripts (run in the checked-out tree).
cat >"$TRASH/api.sh" <<'EOF'
for w in $(cat use/* core.c 2>/dev/null); do grep -qw "$w" api.h || exit 1; done
EOF
cat >"$TRASH/skip.sh" <<'EOF'
[ -e SKIP ] && exit 125
! grep -rqs BUG .
EOF
# Fails every other run even where nothing is wrong.
cat >"$TRASH/flaky.sh" <<EOF
n=\$(cat "$TRASH/count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$TRASH/count"
grep -rqs BUG . && exit 1
[ \$((n % 2)) = 0 ] && exit 1
exit 0
EOF

builds_ok() {
	# "steps: N (bound M)": N within M, and M as the issue's formula says.
	line=$(grep '^steps:' "$1") &&
	n=$(echo "$line" | sed 's/steps: \([0-9]*\) .*/\1/') &&
	m=$(echo "$line" | sed 's/.*(bound \([0-9]*\)).*/\1/') &&
	echo "steps $n bound $m max $2" &&
	test "$n" -le "$m" && test "$m" -le "$2"
}

test_expect_success 'setup: mainline, trees, day 2026-01-01' '
	make_mainline &&
	new_tree net && series net net 3 &&
	new_tree gpio && series gpio gpio 8 5 &&
	new_tree usb && series usb usb 3 &&
	make_day 2026-01-01 net=net gpio=gpio usb=usb
'

test_expect_success 'stage 1 names the tree, stage 2 the planted commit' '
	culprit=$(git -C gpio rev-parse HEAD~3) &&
	tide -C ws bisect 2026-01-01 --cmd "sh $TRASH/nobug.sh" >out 2>err &&
	cat out &&
	sed "s/, time: [0-9.]*s$/, time: T/" out >actual &&
	cat >expect <<-EOF &&
	tree: gpio
	first bad commit: $culprit gpio: change 5
	confirmed: the day passes with it reverted
	steps: 9 (bound 10), builds: 0, runs: 9, time: T
	EOF
	test_cmp expect actual &&
	grep "first bad merge: gpio" err
'

test_expect_success 'steps stay within ceil(log2 merges) + ceil(log2 commits) + confirmations' '
	# 4 first-parent commits, 8 gpio commits: 2 + 3 + 2 endpoints + 2 confirmations
	# + 1 alone + 1 the culprit reverted on the day
	builds_ok out 11
'

test_expect_success 'the result is in day.json and --status shows it' '
	grep -q "\"bisect\"" ws/days/2026-01-01/day.json &&
	grep -q "\"outcome\": \"found\"" ws/days/2026-01-01/day.json &&
	grep -q "\"verdict\": \"bad\"" ws/days/2026-01-01/day.json &&
	culprit=$(git -C gpio rev-parse HEAD~3) &&
	tide -C ws bisect --status >st &&
	grep "^status: done" st &&
	grep "^result: found gpio $culprit" st &&
	tide -C ws show 2026-01-01 >show &&
	grep "^bisect  --cmd sh .*nobug.sh: found gpio $(echo $culprit | cut -c1-12) \"gpio: change 5\", confirmed by revert ([0-9]* steps, 0 builds" show
'

# A check that looks at the bisect running it: --status works, a second bisect is refused.
cat >"$TRASH/inner.sh" <<EOF
"$TIDE_BIN" -C "$WS" bisect --status >>"$TRASH/inner-status" 2>&1
"$TIDE_BIN" -C "$WS" bisect 2026-01-01 --cmd true 2>>"$TRASH/inner-err"
echo \$? >>"$TRASH/inner-rc"
! grep -rqs BUG .
EOF

test_expect_success 'a running bisect holds the lock; --status reads it meanwhile' '
	tide -C ws bisect 2026-01-01 --cmd "sh $TRASH/inner.sh" >out &&
	grep "^tree: gpio$" out &&
	grep -q "^status: running" inner-status &&
	grep -q "^step 1: endpoints: the day: bad" inner-status &&
	test "$(sort -u inner-rc)" = 5 &&
	grep -q "locked" inner-err
'

test_expect_success 'a day that passes: nothing to bisect, exit 6' '
	test_must_fail --status=6 tide -C ws bisect 2026-01-01 --cmd true >out &&
	sed "s/, time: [0-9.]*s$/, time: T/" out >actual &&
	cat >expect <<-\EOF &&
	nothing to bisect: 2026-01-01 passes the check
	steps: 1 (bound 2), builds: 0, runs: 1, time: T
	EOF
	test_cmp expect actual
'

test_expect_success 'a check failing on the base: mainline is broken, exit 7' '
	test_must_fail --status=7 tide -C ws bisect 2026-01-01 --cmd false >out &&
	sed -e "s/, time: [0-9.]*s$/, time: T/" -e "s/base [0-9a-f]\{12\} fails/base OID fails/" out >actual &&
	cat >expect <<-\EOF &&
	mainline is broken: the base OID fails the check
	steps: 4 (bound 4), builds: 0, runs: 4, time: T
	EOF
	test_cmp expect actual
'

test_expect_success 'a date with no day: exit 3' '
	test_must_fail --status=3 tide -C ws bisect 2026-01-09 --cmd true 2>err &&
	test_cmp_str "tide: bisect: no day 2026-01-09 ($TRASH/ws/days/2026-01-09/day.json does not exist)" err &&
	test_must_fail --status=3 tide -C ws bisect yesterday --cmd true 2>err &&
	test_cmp_str "tide: bisect: '\''yesterday'\'' is not a date (YYYY-MM-DD or next-YYYYMMDD)" err
'

test_expect_success 'a --cmd that does not exist: exit 3' '
	test_must_fail --status=3 tide -C ws bisect 2026-01-01 --cmd no-such-command-xyz 2>err &&
	tail -n 1 err >actual &&
	test_cmp_str "tide: bisect: --cmd '\''no-such-command-xyz'\'': command not found or not executable (exit 127)" actual
'

test_expect_success 'usage errors exit 2; --help prints the usage' '
	test_must_fail --status=2 tide -C ws bisect &&
	test_must_fail --status=2 tide -C ws bisect 2026-01-01 --build --cmd true &&
	test_must_fail --status=2 tide -C ws bisect 2026-01-01 --retries 0 --cmd true &&
	tide -C ws bisect --help >out && grep "usage: tide bisect DATE" out
'

test_expect_success 'semantic conflict: two trees good alone, bad together' '
	new_tree rename &&
	printf "new_name other_fn\n" >rename/api.h && printf "new_name\n" >rename/core.c &&
	git -C rename commit -q -am "rename: old_name becomes new_name" &&
	new_tree misc && series misc misc 2 &&
	new_tree user &&
	commit_file user use/a "other_fn" "user: use other_fn" &&
	commit_file user use/b "old_name" "user: use old_name" &&
	commit_file user use/c "other_fn" "user: more other_fn" &&
	make_day 2026-01-02 rename=rename misc=misc user=user &&
	culprit=$(git -C user rev-parse HEAD~1) &&
	tide -C ws bisect 2026-01-02 --cmd "sh $TRASH/api.sh" >out 2>err &&
	cat out &&
	sed "s/, time: [0-9.]*s$/, time: T/" out >actual &&
	cat >expect <<-EOF &&
	tree: user
	first bad commit: $culprit user: use old_name
	semantic conflict with rename: the commit passes without it
	confirmed: the day passes with it reverted
	steps: 10 (bound 11), builds: 0, runs: 10, time: T
	EOF
	test_cmp expect actual &&
	grep -q "\"conflicts_with\": \"rename\"" ws/days/2026-01-02/day.json
'

cat >"$TRASH/api2.sh" <<'EOF'
for w in $(cat use/* core.c 2>/dev/null); do cat *.h | grep -qw "$w" || exit 1; done
EOF

test_expect_success 'semantic conflict of a tree that needs an earlier tree to work at all' '
	new_tree fixes &&
	commit_file fixes fixes.h "compat_fn" "fixes: add compat_fn" &&
	new_tree conv &&
	commit_file conv use/a "compat_fn" "conv: use compat_fn" &&
	commit_file conv use/b "old_name" "conv: use old_name too" &&
	commit_file conv use/c "other_fn" "conv: use other_fn" &&
	make_day 2026-01-05 fixes=fixes rename=rename conv=conv &&
	culprit=$(git -C conv rev-parse HEAD~1) &&
	tide -C ws bisect 2026-01-05 --cmd "sh $TRASH/api2.sh" >out 2>err &&
	cat out &&
	grep "^tree: conv$" out &&
	grep "^first bad commit: $culprit conv: use old_name too$" out &&
	grep "^semantic conflict with rename: the commit passes without it$" out &&
	grep "every earlier tree but fixes ...$" err
'

test_expect_success 'a commit broken by itself: one step on mainline alone, its parent, no pair search' '
	new_tree users &&
	commit_file users use/u1 "other_fn" "users: use other_fn" &&
	new_tree docs &&
	commit_file docs use/d1 "other_fn" "docs: use other_fn" &&
	new_tree extra &&
	commit_file extra use/e1 "other_fn" "extra: use other_fn" &&
	new_tree self &&
	commit_file self use/s1 "other_fn" "self: use other_fn too" &&
	commit_file self use/s2 "no_such_function" "self: call what does not exist" &&
	commit_file self use/s3 "other_fn" "self: more" &&
	make_day 2026-01-06 users=users docs=docs extra=extra self=self &&
	culprit=$(git -C self rev-parse HEAD~1) &&
	tide -C ws bisect 2026-01-06 --cmd "sh $TRASH/api.sh" >out 2>err &&
	cat out &&
	grep "^first bad commit: $culprit self: call what does not exist$" out &&
	! grep "^semantic conflict" out &&
	grep "3 of 3 earlier trees touch the same files or symbols" err &&
	grep "semantic: self.s culprit merged on mainline alone ...$" err &&
	grep "semantic: self.s culprit.s parent merged on mainline alone ...$" err &&
	grep "the culprit fails on mainline alone and its parent passes there: the tree.s own failure" err &&
	! grep "every earlier tree but" err &&
	test "$(grep -c ": semantic: " err)" = 2
'

test_expect_success 'a skipped step (exit 125) is stepped around, not blamed' '
	new_tree drv &&
	series drv drv 3 &&
	commit_file drv SKIP "untestable" "drv: untestable 4" &&
	git -C drv rm -q SKIP && git -C drv commit -q -m "drv: testable again 5" &&
	commit_file drv drv/f6 "BUG" "drv: change 6" &&
	series drv drv2 2 &&
	make_day 2026-01-03 net=net drv=drv &&
	culprit=$(git -C drv rev-parse HEAD~2) &&
	tide -C ws bisect 2026-01-03 --cmd "sh $TRASH/skip.sh" >out 2>err &&
	cat out &&
	grep "^first bad commit: $culprit drv: change 6$" out &&
	grep "drv 4/8 .*untestable 4" err &&
	n=$(sed -n "s/^tide: bisect: step \([0-9]*\): tree: drv 4\/8 .*untestable 4.*/\1/p" err) &&
	grep "^tide: bisect: step $n: skip" err
'

test_expect_success 'a flaky check with --retries 3 still finds the planted commit' '
	culprit=$(git -C gpio rev-parse HEAD~3) &&
	rm -f count &&
	tide -C ws bisect 2026-01-01 --retries 3 --cmd "sh $TRASH/flaky.sh" >out 2>err &&
	cat out &&
	grep "^first bad commit: $culprit gpio: change 5$" out &&
	test $(cat count) -gt $(grep "^steps:" out | sed "s/steps: \([0-9]*\) .*/\1/") &&
	grep "^steps: [0-9]* (bound [0-9]*), builds: 0, runs: $(cat count), " out
'

# The fourth run kills tide itself with SIGKILL (no cleanup at all).
cat >"$TRASH/kill.sh" <<EOF
n=\$(cat "$TRASH/count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$TRASH/count"
[ \$n = 3 ] && kill -9 \$(cat "$TRASH/tide.pid")
! grep -rqs BUG .
EOF

test_expect_success 'a bisect killed half-way resumes with --continue' '
	culprit=$(git -C gpio rev-parse HEAD~3) &&
	rm -f count &&
	{ sh -c "echo \$\$ >tide.pid; exec \"$TIDE_BIN\" -C ws bisect 2026-01-01 --cmd \"sh $TRASH/kill.sh\"" >out 2>err
	  echo $? >rc; } &&
	test "$(cat rc)" = 137 &&
	tide -C ws bisect --status >st && cat st &&
	grep "^status: interrupted" st &&
	test $(grep -c "^step" st) = 3 &&
	tide -C ws bisect --continue >out 2>err &&
	cat out err &&
	grep "^first bad commit: $culprit gpio: change 5$" out &&
	test $(grep -c "(recorded)" err) = 3 &&
	builds_ok out 10
'

test_done
