#!/bin/sh
# tide resolve TREE: a full worktree of the conflicted state, a git
# repository mid-merge where git status, git diff, git rerere and a build
# work; tide resolve --record records from it and removes it.
. "$(dirname "$0")/lib.sh"

run_day() {
	tide -C ws run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

test_expect_success 'setup: gpio conflicts with fixes in two files' '
	git init -q -b master main &&
	printf "1\n2\n3\n" >main/f && printf "a\nb\nc\n" >main/g && mkdir main/lib &&
	printf "x\n" >main/lib/util.c &&
	printf "all:\n\tcat f g lib/util.c >out\n" >main/Makefile &&
	git -C main add . && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && git clone -q main gpio &&
	sed -i "s/^2$/two-fixes/" fixes/f && sed -i "s/^b$/b-fixes/" fixes/g &&
	git -C fixes commit -qam "fixes: f and g" &&
	sed -i "s/^2$/two-gpio/" gpio/f && sed -i "s/^b$/b-gpio/" gpio/g &&
	echo y >gpio/lib/new.c && git -C gpio add . && git -C gpio commit -qm "gpio: f, g, new.c" &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#master\n" >trees.conf &&
	tide -C ws -f trees.conf run --date 2026-12-01 --no-build --no-boot >/dev/null 2>&1 || test $? = 1 &&
	test "$(python3 -c "import json; d=json.load(open(\"ws/days/2026-12-01/day.json\")); print(d[\"trees\"][1][\"status\"])")" = conflict
'

test_expect_success 'resolve gives the whole tree, markers in the conflicted files' '
	tide -C ws resolve gpio >out &&
	wt=ws/resolve/gpio &&
	test -f $wt/Makefile && test -f $wt/lib/util.c && test -f $wt/lib/new.c &&
	test "$(cat $wt/lib/new.c)" = y &&
	grep -q "^<<<<<<< next-20261201$" $wt/f && grep -q "^>>>>>>> gpio/master$" $wt/g &&
	grep -q "2 conflicted files in $TRASH/ws/resolve/gpio" out
'

test_expect_success 'it is a git repository in the middle of the merge' '
	wt=ws/resolve/gpio &&
	test "$(git -C $wt rev-parse HEAD)" = "$(git -C ws/repo.git rev-parse next-20261201^)" &&
	test "$(git -C $wt rev-parse MERGE_HEAD)" = "$(git -C gpio rev-parse HEAD)" &&
	git -C $wt status --porcelain >status &&
	printf "UU f\nUU g\nA  lib/new.c\n" >expect &&
	test_cmp expect status &&
	git -C $wt ls-files -u f >stages && test $(wc -l <stages) = 3 &&
	git -C $wt diff --name-only >diffnames && sort -u diffnames >names &&
	printf "f\ng\n" >expect && test_cmp expect names
'

test_expect_success 'the worktree builds' '
	wt=ws/resolve/gpio &&
	make -s -C $wt >/dev/null &&
	grep -q "^y$" $wt/lib/new.c && test -f $wt/out
'

test_expect_success 'git rerere works there and records the id tide records' '
	wt=ws/resolve/gpio &&
	rm -f $wt/out &&
	git -C $wt rerere status >rr && sort rr >rr.sorted &&
	printf "f\ng\n" >expect && test_cmp expect rr.sorted &&
	printf "1\ntwo-both\n3\n" >$wt/f && printf "a\nb-both\nc\n" >$wt/g &&
	git -C $wt rerere &&
	ls $wt/.git/rr-cache >git-ids && test $(wc -l <git-ids) = 2 &&
	cp -r $wt/.git/rr-cache git-rr &&
	tide -C ws resolve --record gpio >out &&
	sed -n "s/^gpio: recorded resolution \([0-9a-f]*\) for .*/\1/p" out | sort >tide-ids &&
	sort git-ids >git-ids.sorted &&
	test_cmp git-ids.sorted tide-ids &&
	for id in $(cat git-ids); do
		cmp git-rr/$id/preimage ws/rr-cache/$id/preimage &&
		cmp git-rr/$id/postimage ws/rr-cache/$id/postimage || exit 1
	done &&
	! test -e ws/resolve/gpio
'

test_expect_success 'the next day replays it' '
	run_day 2026-12-02 &&
	git -C ws/repo.git show next-20261202:f >f && printf "1\ntwo-both\n3\n" >expect && test_cmp expect f &&
	git -C ws/repo.git show next-20261202:g >g && printf "a\nb-both\nc\n" >expect && test_cmp expect g
'

test_expect_success 'a worktree resolved with git commit records too' '
	tide -C ws resolve gpio --date 2026-12-01 >out &&
	wt=ws/resolve/gpio &&
	printf "1\ntwo-committed\n3\n" >$wt/f && printf "a\nb-committed\nc\n" >$wt/g &&
	git -C $wt add f g && git -C $wt commit -q --no-edit &&
	tide -C ws resolve --record gpio >out &&
	test $(grep -c "^gpio: recorded resolution" out) = 2
'

test_expect_success 'an unresolved worktree is refused and kept' '
	tide -C ws resolve gpio --date 2026-12-01 >out &&
	test_must_fail --status=3 tide -C ws resolve --record gpio 2>err &&
	grep -q "still has conflict markers" err &&
	test -d ws/resolve/gpio/.git && rm -rf ws/resolve
'

test_done
