#!/bin/sh
# tide bisect DATE --since GOOD-DATE: trees rebased between two days.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

# rebase_tree DIR: replay the tree's own commits onto mainline's master
# (new SHAs, same patches), as a maintainer rebasing for the next day.
rebase_tree() {
	git -C "$TRASH/$1" fetch -q origin master &&
	git -C "$TRASH/$1" rebase -q origin/master
}

test_expect_success 'setup: day 2026-02-01 good, trees rebased and moved for 2026-02-02' '
	make_mainline &&
	new_tree a && series a a 3 &&
	new_tree b && series b b 4 &&
	new_tree c && series c c 2 &&
	new_tree d && series d d 2 &&
	make_day 2026-02-01 a=a b=b c=c d=d &&
	commit_file mainline main/next "mainline moves on" "mainline: next rc" &&
	for t in a b c; do rebase_tree $t || exit 1; done &&
	series b b5 3 2 &&
	series c c3 1 &&
	make_day 2026-02-02 a=a b=b c=c d=d &&
	! git -C ws/repo.git merge-base --is-ancestor next-20260201 next-20260202
'

test_expect_success 'day against day finds the tree and the new commit' '
	culprit=$(git -C b rev-parse HEAD~1) &&
	tide -C ws bisect 2026-02-02 --since 2026-02-01 --cmd "sh $TRASH/nobug.sh" >out 2>err &&
	cat out err &&
	grep "^tree: b$" out &&
	grep "^first bad commit: $culprit b5: change 2$" out &&
	grep "the tree that made it fail: b" err
'

test_expect_success 'only commits with a new patch id are tested' '
	# b has 7 commits on the new day, 4 of them rebased from the old day.
	grep "b: 7 commits, 3 with a new patch id" err &&
	! grep "tree: b .*\"b: change" err
'

test_expect_success 'steps stay within the bound' '
	line=$(grep "^steps:" out) &&
	n=$(echo "$line" | sed "s/steps: \([0-9]*\) .*/\1/") &&
	m=$(echo "$line" | sed "s/.*(bound \([0-9]*\)).*/\1/") &&
	# 4 moved (mainline, a, b, c), 3 new commits: 2 + 2 + 2 + 2 confirmations
	# + 1: the culprit reverted on the bad day
	test "$n" -le "$m" && test "$m" -le 9 &&
	grep -q "^confirmed: the day passes with it reverted$" out &&
	grep -q "\"since\": \"2026-02-01\"" ws/days/2026-02-02/day.json
'

test_expect_success 'the good day itself failing: exit 7' '
	test_must_fail --status=7 tide -C ws bisect 2026-02-02 --since 2026-02-01 --cmd false >out &&
	grep "the good day is broken too: 2026-02-01" out
'

test_expect_success '--since a day that does not exist: exit 3' '
	test_must_fail --status=3 tide -C ws bisect 2026-02-02 --since 2026-01-30 --cmd true 2>err &&
	grep "no day 2026-01-30" err
'

test_done
