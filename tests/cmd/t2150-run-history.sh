#!/bin/sh
# tide run on real history: the commit-graph it keeps, trees with several
# merge bases, and a tree with no common history.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

G=ws/repo.git/objects/info/tide-commit-graph

# git's check of tide's file (it reads only objects/info/commit-graph)
git_verifies() {
	rm -rf v.git && git init -q --bare v.git &&
	echo "$PWD/ws/repo.git/objects" >v.git/objects/info/alternates &&
	cp $G v.git/objects/info/commit-graph &&
	git -C v.git commit-graph verify
}

test_expect_success 'setup: mainline and two trees' '
	make_mainline &&
	make_tree t1 a "t1" &&
	make_tree t2 b "t2" &&
	conf "t1 git t1#for-next" "t2 git t2#for-next"
'

test_expect_success 'the run writes a commit-graph that git verifies' '
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	grep -q "commit-graph written" ws/tide.log &&
	test -f $G && test -f $G.check &&
	git_verifies
'

test_expect_success 'a truncated commit-graph is not used and is written again' '
	head -c 100 $G >short && mv short $G &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	grep -q "commit-graph on disk truncated, not used: written again" ws/tide.log &&
	git_verifies &&
	test "$(day_field 2026-12-02 "d[\"trees\"][1][\"status\"]")" = merged
'

test_expect_success 'a commit-graph of git is removed, one copied over tide'"'"'s replaced' '
	git -C ws/repo.git commit-graph write --reachable &&
	cp ws/repo.git/objects/info/commit-graph $G &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-03 >out 2>err &&
	grep -q "commit-graph on disk changed on disk, not used: written again" ws/tide.log &&
	grep -q "commit-graph of git.s removed from the workspace" ws/tide.log &&
	test ! -e ws/repo.git/objects/info/commit-graph &&
	git_verifies
'

test_expect_success 'setup: criss-cross trees (two merge bases) and an unrelated one' '
	make_tree cx f "1\n2\n3" "cx: add f" &&
	git clone -q world/cx world/cy &&
	git -C world/cy checkout -q for-next &&
	commit_file world/cx g "cx" "cx: add g" &&
	commit_file world/cy f "1\n2\n3\n4" "cy: extend f" &&
	cxh=$(git -C world/cx rev-parse HEAD) && cyh=$(git -C world/cy rev-parse HEAD) &&
	git -C world/cx pull -q --no-rebase --no-edit ../cy for-next &&
	git -C world/cy pull -q --no-rebase --no-edit ../cx "$cxh" &&
	git -C world/cx rm -q f && git -C world/cx commit -q -m "cx: remove f" &&
	commit_file world/cy f "changed" "cy: change f" &&
	git init -q -b for-next world/lone &&
	commit_file world/lone z "z" "lone: start" &&
	conf "cx git cx#for-next" "lone git lone#for-next" "cy git cy#for-next" "t2 git t2#for-next"
'

test_expect_success 'two merge bases: each side lists only its own commits' '
	git -C world/cy fetch -q ../cx for-next &&
	test $(git -C world/cy merge-base --all HEAD FETCH_HEAD | wc -l) = 2 &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-12-04 >out 2>err &&
	test "$(day_field 2026-12-04 "d[\"trees\"][2][\"status\"]")" = conflict &&
	day_field 2026-12-04 "\"|\".join(c[\"subject\"] for c in d[\"trees\"][2][\"conflicts\"][0][\"ours_commits\"])" >ours &&
	day_field 2026-12-04 "\"|\".join(c[\"subject\"] for c in d[\"trees\"][2][\"conflicts\"][0][\"theirs_commits\"])" >theirs &&
	echo "cx: remove f" >want_ours &&
	echo "cy: change f" >want_theirs &&
	test_cmp want_ours ours &&
	test_cmp want_theirs theirs &&
	day_field 2026-12-04 "d[\"trees\"][2][\"conflicts\"][0][\"ours_commits\"][0][\"tree\"]" >tree &&
	echo cx >want_tree && test_cmp want_tree tree
'

test_expect_success 'no common history: a conflict record, the rest merged' '
	test "$(day_field 2026-12-04 "d[\"trees\"][1][\"status\"]")" = conflict &&
	test "$(day_field 2026-12-04 "d[\"trees\"][1][\"reason\"]")" = "no common history with the day" &&
	test "$(day_field 2026-12-04 "d[\"trees\"][3][\"status\"]")" = merged &&
	grep -q "lone: no common history with the day, left out" ws/tide.log &&
	grep -q "^fatal: refusing to merge unrelated histories$" ws/days/2026-12-04/merge.log &&
	git -C ws/repo.git log --format=%b next-20261204 >bodies &&
	! grep -q "Tide-Tree: lone" bodies
'

test_done
