#!/bin/sh
# A tree based on linux-next (man/trees.conf.5, TREES BASED ON LINUX-NEXT):
# developed on top of a day tide made (next-YYYYMMDD), it is recognised
# by that day's commit on its first-parent line, and only its own commits
# are applied, at its place in the merge order, onto the day's state, as
# git rebase --onto does; when one no longer applies the tree is left out
# and the record and the report name the commit and the trees that moved
# under it.  Ordinary trees are not touched.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

# next_tree NAME TAG: world/NAME, branch for-next at the workspace's day TAG
# (as a maintainer fetches linux-next and starts from its tag).
next_tree() {
	rm -rf "world/$1" &&
	git init -q "world/$1" &&
	git -C "world/$1" fetch -q "$TRASH/ws/repo.git" "refs/tags/$2:refs/tags/$2" &&
	git -C "world/$1" checkout -q -b for-next "$2"
}

# rebase_tree NAME: the tree's commits made again with a new committer date,
# as a tree rebased onto the same base (same changes, new ids).
rebase_tree() {
	GIT_COMMITTER_DATE="$1" git -C "world/$2" rebase -q --force-rebase v1.0
}

# lines FILE N: a file of N numbered lines, so changes in different places
# merge and changes of one line conflict.
lines() {
	seq 1 "$2" | sed 's/^/line /' >"$1"
}

test_expect_success 'setup: mainline with text files, trees t1 and t2, day 1' '
	git init -q -b master world/mainline &&
	lines world/mainline/a 20 && lines world/mainline/b 20 &&
	mkdir world/mainline/d && lines world/mainline/d/x 20 &&
	git -C world/mainline add . && git -C world/mainline commit -qm mainline &&
	git -C world/mainline tag v1.0 &&
	git clone -q world/mainline world/t1 && git -C world/t1 checkout -q -b for-next &&
	sed -i "s/^line 3$/line 3 by t1/" world/t1/a && git -C world/t1 commit -qam "t1: change a" &&
	git clone -q world/mainline world/t2 && git -C world/t2 checkout -q -b for-next &&
	sed -i "s/^line 3$/line 3 by t2/" world/t2/b && git -C world/t2 commit -qam "t2: change b" &&
	conf "t1 git t1#for-next" "t2 git t2#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	grep -q "^next-20261201: 2 of 2 trees merged$" out
'

test_expect_success 'setup: mm-next is developed on next-20261201: a new file, then d/x changed' '
	next_tree mm next-20261201 &&
	commit_file world/mm m "mm" "mm: add m" &&
	sed -i "s/^line 10$/line 10 by mm/" world/mm/d/x &&
	git -C world/mm commit -qam "mm: change d/x" &&
	test "$(git -C world/mm rev-list --count next-20261201..for-next)" = 2 &&
	git -C world/mm cat-file -e for-next:localversion-next
'

test_expect_success 'day 2: t1 rebased, mm-next between t1 and t2: its two commits are applied, nothing of next-20261201 else' '
	rebase_tree "2026-12-02 01:00:00 +0000" t1 &&
	sed -i "s/^line 5$/line 5 by t2/" world/t2/b && git -C world/t2 commit -qam "t2: change b again" &&
	conf "t1 git t1#for-next" "mm-next git mm#for-next" "t2 git t2#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	cat out err &&
	grep -q "^next-20261202: 3 of 3 trees merged$" out &&
	grep -q "mm-next: based on next-20261201: 2 of its 2 commits applied" err &&
	test "$(day_field 2026-12-02 "d[\"trees\"][1][\"status\"]")" = merged &&
	day_field 2026-12-02 "json.dumps(d[\"trees\"][1][\"next_base\"], sort_keys=True)" >nb &&
	test_cmp_str "{\"applied\": 2, \"commit\": \"$(git -C ws/repo.git rev-parse next-20261201)\", \"commits\": 2, \"day\": \"next-20261201\", \"empty\": 0}" nb &&
	test "$(day_field 2026-12-02 "d[\"trees\"][1][\"sha\"]")" = "$(git -C world/mm rev-parse for-next)"
'

test_expect_success 'day 2: the day does not contain next-20261201; the tree of the result is git rebase --onto of the two commits' '
	r=ws/repo.git &&
	test_must_fail git -C $r merge-base --is-ancestor next-20261201 next-20261202 &&
	m=$(day_field 2026-12-02 "d[\"trees\"][1][\"merge_commit\"]") &&
	t1m=$(day_field 2026-12-02 "d[\"trees\"][0][\"merge_commit\"]") &&
	test "$(git -C $r rev-parse $m^1)" = "$t1m" &&
	git -C $r log --format=%s $t1m..$m^2 >picked &&
	printf "%s\n" "mm: change d/x" "mm: add m" >want && test_cmp want picked &&
	git -C $r log -1 --format=%b $m^2 >body &&
	grep -qx "(cherry picked from commit $(git -C world/mm rev-parse for-next))" body &&
	test "$(git -C $r log -1 --format=%an $m^2)" = "Tide Test" &&
	git clone -q --shared $r ref && git -C ref checkout -q --detach $t1m &&
	git -C ref fetch -q ../world/mm for-next &&
	git -C ref rebase -q --onto $t1m next-20261201 FETCH_HEAD &&
	test "$(git -C ref rev-parse HEAD^{tree})" = "$(git -C $r rev-parse $m^2^{tree})" &&
	test "$(git -C $r rev-parse $m^{tree})" = "$(git -C $r rev-parse $m^2^{tree})" &&
	git -C $r show next-20261202:d/x | grep -qx "line 10 by mm" &&
	git -C $r show next-20261202:b | grep -qx "line 5 by t2" &&
	git -C $r show next-20261202:localversion-next >lv && test_cmp_str -next-20261202 lv &&
	grep -q "^Applying the 2 commits of mm-next after next-20261201$" ws/days/2026-12-02/merge.log &&
	grep -q "^Applying: mm: change d/x$" ws/days/2026-12-02/merge.log
'

test_expect_success 'day 2: tide bisect names the applied commit that broke the day' '
	printf "%s\n" "! grep -q \"line 10 by mm\" d/x" >"$TRASH/nomm.sh" &&
	tide -C ws bisect 2026-12-02 --cmd "sh $TRASH/nomm.sh" >out 2>err &&
	cat out &&
	m=$(day_field 2026-12-02 "d[\"trees\"][1][\"merge_commit\"]") &&
	grep -qx "tree: mm-next" out &&
	grep -qx "first bad commit: $(git -C ws/repo.git rev-parse $m^2) mm: change d/x" out &&
	test "$(git -C ws/repo.git rev-parse $m^2)" != "$(git -C world/mm rev-parse for-next)"
'

test_expect_success 'day 3: t1 changes the line mm-next changed: its commit 2 does not apply, mm-next is left out naming t1' '
	sed -i "s/^line 10$/line 10 by t1/" world/t1/d/x && git -C world/t1 commit -qam "t1: change d/x" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-12-03 >out 2>err &&
	cat out err &&
	grep -q "^next-20261203: 2 of 3 trees merged, 1 left out$" out &&
	abbrev=$(git -C world/mm rev-parse --short=12 for-next) &&
	grep -q "mm-next: based on next-20261201: its commit 2 of 2, $abbrev (\"mm: change d/x\"), does not apply onto today.s state; moved since: t1, left out" err &&
	test "$(day_field 2026-12-03 "d[\"trees\"][1][\"status\"]")" = conflict &&
	test "$(day_field 2026-12-03 "d[\"trees\"][1][\"next_base\"][\"failed\"][\"position\"]")" = 2 &&
	test "$(day_field 2026-12-03 "d[\"trees\"][1][\"next_base\"][\"applied\"]")" = 1 &&
	test "$(day_field 2026-12-03 "d[\"trees\"][1][\"conflicts\"][0][\"path\"]")" = d/x &&
	test "$(day_field 2026-12-03 "d[\"trees\"][1][\"conflicts\"][0][\"ours_commits\"][0][\"tree\"]")" = t1 &&
	test "$(day_field 2026-12-03 "d[\"trees\"][1][\"conflicts\"][0][\"ours_commits\"][0][\"subject\"]")" = "t1: change d/x" &&
	day_field 2026-12-03 "[c[\"subject\"] for c in d[\"trees\"][1][\"conflicts\"][0][\"theirs_commits\"]]" >theirs &&
	test_cmp_str "['"'"'mm: change d/x'"'"']" theirs &&
	git -C ws/repo.git show next-20261203:b | grep -qx "line 5 by t2" &&
	test_expect_code 128 git -C ws/repo.git cat-file -e next-20261203:m 2>/dev/null &&
	grep -q "^Patch failed at 0002 mm: change d/x$" ws/days/2026-12-03/merge.log
'

test_expect_success 'day 3: the report names the commit that no longer applies and the tree that moved' '
	tide -C ws report 2026-12-03 --tree mm-next >report &&
	cat report &&
	sed -n "/^between commit/,/^from the mm-next tree/p" report | sed "s/[0-9a-f]\{12\} /OID /" >actual &&
	cat >expect <<-\EOF &&
	between commit:

	  OID ("t1: change d/x")

	from the t1 tree and commit:

	  OID ("mm: change d/x")

	from the mm-next tree.
	EOF
	test_cmp expect actual &&
	grep -q "^The mm-next tree is based on next-20261201: I applied its commits onto today.s tree$" report &&
	grep -q "^one by one, as a quilt series, and its commit 2 of 2 above no longer$" report
'

test_expect_success 'day 4: mm-next rebased onto next-20261203, its last commit on a change of t2, merged after it: left out, naming t2' '
	next_tree mm2 next-20261203 &&
	git -C world/mm2 fetch -q ../mm for-next &&
	git -C world/mm2 cherry-pick FETCH_HEAD~1 >/dev/null &&
	sed -i "s/^line 10 by t1$/line 10 by t1 and mm/" world/mm2/d/x &&
	git -C world/mm2 commit -qam "mm: change d/x, v2" &&
	sed -i "s/^line 3 by t2$/line 3 by t2, again/" world/mm2/b &&
	git -C world/mm2 commit -qam "mm: take a change of t2" &&
	sed -i "s/^line 3 by t2$/line 3 by t2, again/" world/t2/b && git -C world/t2 commit -qam "t2: change b once more" &&
	conf "t1 git t1#for-next" "mm-next git mm2#for-next" "t2 git t2#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-12-04 >out 2>err &&
	abbrev=$(git -C world/mm2 rev-parse --short=12 for-next) &&
	day_field 2026-12-04 "d[\"trees\"][1][\"reason\"]" >why &&
	test_cmp_str "based on next-20261203: its commit 3 of 3, $abbrev (\"mm: take a change of t2\"), does not apply onto today'"'"'s state; not merged before it today: t2" why &&
	test "$(day_field 2026-12-04 "d[\"trees\"][1][\"next_base\"][\"applied\"]")" = 2
'

test_expect_success 'day 5: merged after t2, mm-next is carried again; the change t2 made already is not applied twice' '
	conf "t1 git t1#for-next" "t2 git t2#for-next" "mm-next git mm2#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-05 >out 2>err &&
	grep -q "^next-20261205: 3 of 3 trees merged$" out &&
	test "$(day_field 2026-12-05 "d[\"trees\"][2][\"next_base\"][\"day\"]")" = next-20261203 &&
	test "$(day_field 2026-12-05 "d[\"trees\"][2][\"next_base\"][\"applied\"]")" = 2 &&
	test "$(day_field 2026-12-05 "d[\"trees\"][2][\"next_base\"][\"empty\"]")" = 1 &&
	git -C ws/repo.git show next-20261205:d/x | grep -qx "line 10 by t1 and mm" &&
	git -C ws/repo.git show next-20261205:m >m && test_cmp_str mm m
'

test_expect_success 'a tree at a linux-next day with nothing of its own is up to date; a merge among its commits leaves it out' '
	next_tree idle next-20261205 &&
	next_tree merging next-20261205 &&
	git -C world/merging checkout -q -b side && commit_file world/merging s "s" "side: add s" &&
	git -C world/merging checkout -q for-next && commit_file world/merging u "u" "merging: add u" &&
	git -C world/merging merge -q --no-edit side &&
	conf "t1 git t1#for-next" "idle git idle#for-next" "merging git merging#for-next" "t2 git t2#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-12-06 >out 2>err &&
	cat err &&
	test "$(day_field 2026-12-06 "d[\"trees\"][1][\"status\"]")" = up-to-date &&
	test "$(day_field 2026-12-06 "d[\"trees\"][2][\"status\"]")" = conflict &&
	day_field 2026-12-06 "d[\"trees\"][2][\"reason\"]" >why &&
	test_cmp_str "based on linux-next: merge $(git -C world/merging rev-parse --short=12 for-next) among its commits after the linux-next day: a tree based on linux-next is taken as a series of single-parent commits" why &&
	test_expect_code 128 git -C ws/repo.git cat-file -e next-20261206:s 2>/dev/null
'

test_expect_success 'ordinary trees are merged whole, as before (only mm-next has a next_base record)' '
	for d in 2026-12-02 2026-12-03 2026-12-04 2026-12-05; do
		day_field $d "sorted(t[\"name\"] for t in d[\"trees\"] if \"next_base\" in t)" >names &&
		test_cmp_str "['"'"'mm-next'"'"']" names || exit 1
	done &&
	t2m=$(day_field 2026-12-02 "d[\"trees\"][2][\"merge_commit\"]") &&
	test "$(git -C ws/repo.git rev-parse $t2m^2)" = "$(day_field 2026-12-02 "d[\"trees\"][2][\"sha\"]")"
'

test_done
