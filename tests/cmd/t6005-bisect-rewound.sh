#!/bin/sh
# tide bisect --since across three days where a tree was rewound: day 2
# adds "t04: define extra_name" and t06 starts calling it, day 3 drops
# that commit from t04 again.  Day 3 against day 2 names the dropped
# commit; day 3 against day 1 (which had neither) names t06's new call.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

CHECK="sh $TRASH/bw/check.sh"
result() { sed 's/, time: [0-9.]*s$//' "$1"; }

test_expect_success 'setup: three days, t04 rewound on day 3' '
	world_gen --trees 8 --rewind --plant 0 &&
	world_day 1 2026-07-01 &&
	world_resolve 2026-07-01 &&
	world_day 1 2026-07-01 && world_day 2 2026-07-02 && world_day 3 2026-07-03 &&
	git --git-dir=bw/src.git log --format=%s refs/day2/t04 | grep -q "^t04: define extra_name$" &&
	! git --git-dir=bw/src.git log --format=%s refs/day3/t04 | grep -q "extra_name"
'

test_expect_success 'day 3 against day 2: the dropped commit is the culprit' '
	dropped=$(git --git-dir=bw/src.git rev-parse refs/day2/t04) &&
	tide -C ws bisect 2026-07-03 --since 2026-07-02 --cmd "$CHECK" >out 2>err &&
	cat err &&
	cat >expect <<-EOF &&
	tree: t04
	rewound: 1 commit of 2026-07-02 dropped
	dropped commit: $dropped t04: define extra_name
	steps: 6 (bound 8), builds: 0, runs: 6
	EOF
	result out >actual &&
	test_cmp expect actual &&
	grep "t04: 2 commits, 0 with a new patch id, 1 of 2026-07-02.s dropped" err
'

test_expect_success 'the record and tide show name the dropped commit' '
	dropped=$(git --git-dir=ws/../bw/src.git rev-parse refs/day2/t04) &&
	day_field 2026-07-03 "d[\"bisect\"][\"dropped\"][0][\"commit\"]" >c &&
	echo $dropped >expect && test_cmp expect c &&
	tide -C ws show 2026-07-03 >show &&
	grep "^bisect  --cmd .* --since 2026-07-02: found t04 $(echo $dropped | cut -c1-12) \"t04: define extra_name\" (dropped) (6 steps, 0 builds, " show
'

test_expect_success 'a commit already in the good day is never blamed' '
	for c in $(git --git-dir=bw/src.git rev-list refs/day3/t04 ^v3); do
		! grep -q "first bad commit: $c" out || return 1
	done
'

test_expect_success 'day 3 against day 1: the new call in t06 is the culprit' '
	culprit=$(git --git-dir=bw/src.git rev-parse refs/day3/t06) &&
	tide -C ws bisect 2026-07-03 --since 2026-07-01 --cmd "$CHECK" >out 2>err &&
	cat err &&
	grep "^tree: t06$" out &&
	grep "^first bad commit: $culprit t06: call extra_name$" out
'

test_done
