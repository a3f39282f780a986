#!/bin/sh
# tide run: trees merged in order onto the base tag, recorded and tagged.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

test_expect_success 'setup: mainline and four trees' '
	make_mainline &&
	make_tree t1 a "t1" &&
	make_tree t2 b "t2" &&
	make_tree t3 d/y "t3" &&
	git clone -q world/mainline world/same &&
	git -C world/same checkout -q -b for-next &&
	conf "t1 git t1#for-next" "t2 git t2#for-next" "t3 git t3#for-next" "same git same#for-next"
'

test_expect_success 'run merges every tree and exits 0' '
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	grep -q "^next-20261201: 4 of 4 trees merged$" out &&
	git -C ws/repo.git rev-parse -q --verify refs/tags/next-20261201 &&
	test "$(git -C ws/repo.git rev-parse master)" = "$(git -C ws/repo.git rev-parse next-20261201)"
'

test_expect_success 'the result has every tree and the Next/ files' '
	git -C ws/repo.git show next-20261201:a >a && test "$(cat a)" = t1 &&
	git -C ws/repo.git show next-20261201:b >b && test "$(cat b)" = t2 &&
	git -C ws/repo.git show next-20261201:d/y >y && test "$(cat y)" = t3 &&
	git -C ws/repo.git show next-20261201:localversion-next >lv &&
	test "$(cat lv)" = "-next-20261201" &&
	git -C ws/repo.git log -1 --format=%s next-20261201 >subj &&
	test "$(cat subj)" = "Add linux-next specific files for 20261201"
'

test_expect_success 'Next/SHA1s names the commit of every tree' '
	git -C ws/repo.git show next-20261201:Next/SHA1s >sha1s &&
	for t in t1 t2 t3 same; do
		want=$(git -C world/$t rev-parse for-next) &&
		grep -q "^$t	*$want$" sha1s || { echo "$t: $want"; cat sha1s; exit 1; }
	done &&
	git -C ws/repo.git show next-20261201:Next/Trees >trees &&
	grep -q "^t1		git	t1#for-next$" trees &&
	git -C ws/repo.git show next-20261201:Next/merge.log >log &&
	grep -q "^Merging t2/for-next (" log &&
	grep -q "^ b | 2 +-$" log && grep -q "^ 1 file changed, 1 insertion(+), 1 deletion(-)$" log
'

test_expect_success 'one merge commit per tree, in order, with the Tide-Tree trailer' '
	git -C ws/repo.git log --first-parent --merges --format=%s%n%b next-20261201 >merges &&
	grep "^Merge" merges >subjects &&
	printf "%s\n" "Merge remote-tracking branch '\''t3/for-next'\''" \
		"Merge remote-tracking branch '\''t2/for-next'\''" \
		"Merge remote-tracking branch '\''t1/for-next'\''" >want &&
	test_cmp=$(diff want subjects) && test -z "$test_cmp" &&
	test $(grep -c "^Tide-Tree: t" merges) = 3 &&
	git -C ws/repo.git rev-parse next-20261201~1^2 >p2 &&
	test "$(cat p2)" = "$(git -C world/t3 rev-parse for-next)"
'

test_expect_success 'a tree already contained is up-to-date, without a commit' '
	test "$(day_field 2026-12-01 "d[\"trees\"][3][\"status\"]")" = up-to-date &&
	test "$(day_field 2026-12-01 "d[\"trees\"][3][\"merge_commit\"]")" = None &&
	test "$(day_field 2026-12-01 "d[\"trees\"][0][\"status\"]")" = merged
'

test_expect_success 'the day record matches the repository' '
	test "$(day_field 2026-12-01 "d[\"commit\"]")" = "$(git -C ws/repo.git rev-parse next-20261201)" &&
	test "$(day_field 2026-12-01 "d[\"base\"][\"commit\"]")" = "$(git -C world/mainline rev-parse v1.0)" &&
	test "$(day_field 2026-12-01 "d[\"trees\"][1][\"merge_commit\"]")" = "$(git -C ws/repo.git rev-parse next-20261201~1^1)" &&
	test -s ws/days/2026-12-01/merge.log &&
	grep -q "fetched t1" ws/tide.log
'

test_expect_success 'no objects were copied from local trees (alternates)' '
	grep -q "/world/mainline/.git/objects$" ws/repo.git/objects/info/alternates &&
	test -z "$(find ws/repo.git/objects -name "*.pack")"
'

test_expect_success 'a conflicting tree is left out and recorded; exit 1' '
	make_tree c1 a "c1" "c1: rewrite a" &&
	conf "t1 git t1#for-next" "c1 git c1#for-next" "t2 git t2#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	grep -q "2 of 3 trees merged, 1 left out" out &&
	test "$(day_field 2026-12-02 "d[\"trees\"][1][\"status\"]")" = conflict &&
	test "$(day_field 2026-12-02 "d[\"trees\"][1][\"conflicts\"][0][\"path\"]")" = a &&
	test "$(day_field 2026-12-02 "d[\"trees\"][1][\"conflicts\"][0][\"kind\"]")" = content &&
	day_field 2026-12-02 "d[\"trees\"][1][\"conflicts\"][0][\"hunks\"][0]" >hunk &&
	grep -q "^<<<<<<< next-20261202$" hunk && grep -q "^>>>>>>> c1/for-next$" hunk &&
	test "$(day_field 2026-12-02 "d[\"trees\"][1][\"conflicts\"][0][\"ours_commits\"][0][\"tree\"]")" = t1 &&
	test "$(day_field 2026-12-02 "d[\"trees\"][1][\"conflicts\"][0][\"ours_commits\"][0][\"subject\"]")" = "t1: change a" &&
	test "$(day_field 2026-12-02 "d[\"trees\"][1][\"conflicts\"][0][\"theirs_commits\"][0][\"subject\"]")" = "c1: rewrite a" &&
	git -C ws/repo.git log --format=%b next-20261202 >bodies &&
	! grep -q "Tide-Tree: c1" bodies &&
	git -C ws/repo.git show next-20261202:b >b && test "$(cat b)" = t2 &&
	grep -q "^CONFLICT (content): Merge conflict in a$" ws/days/2026-12-02/merge.log
'

test_expect_success 'tide log: one line per day, newest first' '
	tide -C ws log >out &&
	cat >expect <<-\EOF &&
	2026-12-02  next-20261202  2/3 merged  1 conflict
	2026-12-01  next-20261201  4/4 merged
	EOF
	test_cmp expect out
'

test_expect_success 'tide show: newest day by default, a date, --json' '
	tide -C ws show >out &&
	# the time of the checks is the machine, not the day
	sed -e "s/[0-9a-f]\{12,40\}/OID/g" -e "s/ findings in [0-9.]* s\$/ findings in S s/" out >actual &&
	cat >expect <<-\EOF &&
	2026-12-02  next-20261202  complete
	base    mainline v1.0 OID
	commit  OID
	  t1                   merged       OID
	  c1                   conflict     OID
	      a (content)
	  t2                   merged       OID
	checks  ok: 0 new commits in 0 trees, 2 findings in S s
	        against the base: 3 non-merge commits, 6 files changed, 35 insertions(+), 2 deletions(-)
	        signoff      t1 OID ("t1: change a") since 2026-12-01: no Signed-off-by of its author and committer
	        signoff      t2 OID ("t2: change b") since 2026-12-01: no Signed-off-by of its author and committer
	EOF
	test_cmp expect actual &&
	tide -C ws show 2026-12-01 >out &&
	sed -e "s/[0-9a-f]\{12,40\}/OID/g" -e "s/ findings in [0-9.]* s\$/ findings in S s/" out >actual &&
	cat >expect <<-\EOF &&
	2026-12-01  next-20261201  complete
	base    mainline v1.0 OID
	commit  OID
	  t1                   merged       OID
	  t2                   merged       OID
	  t3                   merged       OID
	  same                 up-to-date   OID
	checks  ok: 3 new commits in 3 trees, 3 findings in S s
	        against the base: 4 non-merge commits, 7 files changed, 41 insertions(+), 2 deletions(-)
	        signoff      t1 OID ("t1: change a") since 2026-12-01: no Signed-off-by of its author and committer
	        signoff      t2 OID ("t2: change b") since 2026-12-01: no Signed-off-by of its author and committer
	        signoff      t3 OID ("t3: change d/y") since 2026-12-01: no Signed-off-by of its author and committer
	EOF
	test_cmp expect actual &&
	tide -C ws show next-20261201 >out2 && cmp out out2 &&
	tide -C ws show --json 2026-12-02 >json &&
	python3 -c "import json; d=json.load(open(\"json\")); assert d[\"tag\"] == \"next-20261202\""
'

test_expect_success 'tide show: a date without a day exits 3' '
	test_must_fail --status=3 tide -C ws show 2026-11-11 2>err &&
	grep -q "no day 2026-11-11" err &&
	test_must_fail --status=3 tide -C ws show yesterday &&
	test_must_fail --status=2 tide -C ws show --bogus
'

test_expect_success 'tide show: a stage record with a key of the wrong type names the file and the key' '
	rm -rf wsb && cp -R ws wsb &&
	python3 - wsb/days/2026-12-02/day.json <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["boot"] = {"status": "passed", "smp": "four"}
	json.dump(d, open(sys.argv[1], "w"))
	EOF
	test_must_fail --status=3 tide -C wsb show 2026-12-02 2>err &&
	echo "tide: $TRASH/wsb/days/2026-12-02/day.json: \"boot\": \"smp\" is not an integer" >want &&
	test_cmp want err
'

test_expect_success 'rerunning a date replaces that day and moves its tag' '
	old=$(git -C ws/repo.git rev-parse next-20261202) &&
	conf "t1 git t1#for-next" "t2 git t2#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	grep -q "2 of 2 trees merged" out &&
	test "$(day_field 2026-12-02 "len(d[\"trees\"])")" = 2 &&
	test "$(git -C ws/repo.git rev-parse next-20261202)" != "$old" &&
	test "$(day_field 2026-12-02 "d[\"commit\"]")" = "$(git -C ws/repo.git rev-parse next-20261202)" &&
	test -z "$(ls -A ws/days | grep -v "^2026-12-0[12]$")"
'

test_expect_success 'a missing base tag exits 3 and changes nothing' '
	cp -r ws/days days.before &&
	sed "s/#v1.0/#v9.9/" world/trees.conf >world/bad.conf &&
	test_must_fail --status=3 tide -C ws -f world/bad.conf run --no-build --date 2026-12-03 2>err &&
	grep -q "base tag .v9.9. not found" err &&
	test ! -e ws/days/2026-12-03 &&
	! git -C ws/repo.git rev-parse -q --verify refs/tags/next-20261203 &&
	diff -r days.before ws/days || { cat err; exit 1; }
'

test_expect_success 'no base line: exit 3 naming the file' '
	printf "t1\tgit\tt1#for-next\n" >world/nobase.conf &&
	test_must_fail --status=3 tide -C ws -f world/nobase.conf run --no-build --date 2026-12-03 2>err &&
	grep -q "nobase.conf: no base" err
'

test_expect_success 'bad options and dates are refused' '
	test_must_fail --status=2 tide -C ws -f world/trees.conf run --jobs 0 &&
	test_must_fail --status=2 tide -C ws -f world/trees.conf run extra &&
	test_must_fail --status=2 tide -C ws -f world/trees.conf run --no-build --date 2026-02-30 2>err &&
	grep -q "bad date" err &&
	tide run -h >out && grep -q "^usage: tide run \[--date YYYY-MM-DD\] \[--no-build\] \[--no-boot\] \[--jobs N\]$" out
'

test_expect_success 'tree names and URLs with shell metacharacters never reach a shell' '
	make_tree "\$(id>pwned)" a "m" &&
	u="x;id>pwned2 \`id>pwned3\` \$(id>pwned4)" &&
	git clone -q world/mainline "world/$u" &&
	git -C "world/$u" checkout -q -b "for-next" &&
	commit_file "world/$u" e "e" &&
	printf "#tide\tbase\tmainline#v1.0\n\$(id>pwned)\tgit\t\$(id>pwned)#for-next\n;id>pwned5|\tgit\t%s#for-next\n" "$u" >world/meta.conf &&
	(cd world && tide -C ../ws2 -f meta.conf run --no-build --date 2026-12-04 >../out 2>../err) &&
	grep -q "2 of 2 trees merged" out &&
	test -z "$(find . -name "pwned*")" &&
	git -C ws2/repo.git rev-parse -q --verify "refs/remotes/\$(id>pwned)/for-next" &&
	git -C ws2/repo.git rev-parse -q --verify "refs/remotes/;id>pwned5|/for-next"
'

test_expect_success 'a quilt tree is applied on the base and merged; a missing one is left out' '
	mkdir -p world/quilt/mm &&
	git clone -q world/mainline qwork &&
	commit_file qwork b "b from quilt" "mm: change b" &&
	git -C qwork format-patch -q -1 -o ../world/quilt/mm &&
	(cd world/quilt/mm && ls *.patch >series) &&
	conf "t1 git t1#for-next" "mm quilt quilt/mm" "gone quilt quilt/nothere" &&
	test_must_fail --status=1 tide -C ws5 -f world/trees.conf run --no-build --date 2026-12-05 >out 2>err &&
	grep -q "2 of 3 trees merged, 1 left out" out &&
	WS=ws5 &&
	test "$(day_field 2026-12-05 "d[\"trees\"][1][\"status\"]")" = merged &&
	test "$(day_field 2026-12-05 "d[\"trees\"][1][\"type\"]")" = quilt &&
	test "$(day_field 2026-12-05 "d[\"trees\"][2][\"status\"]")" = fetch-failed &&
	git -C ws5/repo.git show next-20261205:b >b && test "$(cat b)" = "b from quilt" &&
	git -C ws5/repo.git rev-parse -q --verify refs/quilt/mm &&
	git -C ws5/repo.git log -1 --format=%s next-20261205~1 >s &&
	test "$(cat s)" = "Merge branch '\''quilt/mm'\''"
'

test_expect_success 'a tree merged at an earlier version makes the run exit 1 and is shown' '
	make_tree p1 a "p1" && make_tree p2 b "p2" &&
	conf "p1 git p1#for-next" "p2 git p2#for-next" &&
	tide -C ws6 -f world/trees.conf run --no-build --date 2026-12-06 >out 2>err &&
	commit_file world/p2 a "p2 rewrites a" &&
	test_must_fail --status=1 tide -C ws6 -f world/trees.conf run --no-build --date 2026-12-07 >out 2>err &&
	cat >expect <<-\EOF &&
	next-20261207: 2 of 2 trees merged, 1 at an earlier day'\''s version
	see '\''tide show 2026-12-07'\''

	Changes since 20261206:

	The p2 tree moved forward by 1 commit.

	The p2 tree gained a conflict against the p1 tree, so I used the version from next-20261206.
	EOF
	test_cmp expect out &&
	tide -C ws6 show >show &&
	sed -e "s/[0-9a-f]\{12,40\}/OID/g" -e "s/ findings in [0-9.]* s\$/ findings in S s/" show >actual &&
	cat >expect <<-\EOF &&
	2026-12-07  next-20261207  complete
	base    mainline v1.0 OID
	commit  OID
	  p1                   merged       OID
	  p2                   previous     OID  version of next-20261206
	      a (content)
	checks  ok: 0 new commits in 0 trees, 2 findings in S s
	        against the base: 3 non-merge commits, 6 files changed, 31 insertions(+), 2 deletions(-)
	        signoff      p1 OID ("p1: change a") since 2026-12-06: no Signed-off-by of its author and committer
	        signoff      p2 OID ("p2: change b") since 2026-12-06: no Signed-off-by of its author and committer
	EOF
	test_cmp expect actual &&
	tide -C ws6 log >log && head -1 log | grep -q "2/2 merged  1 at an earlier version$"
'

test_expect_success 're-running an older date leaves master at the newest day' '
	newest=$(git -C ws6/repo.git rev-parse master) &&
	test "$newest" = "$(git -C ws6/repo.git rev-parse next-20261207)" &&
	test_must_fail --status=1 tide -C ws6 -f world/trees.conf run --no-build --date 2026-12-05 >out 2>err &&
	test "$(git -C ws6/repo.git rev-parse master)" = "$newest" &&
	git -C ws6/repo.git rev-parse -q --verify next-20261205
'

test_done
