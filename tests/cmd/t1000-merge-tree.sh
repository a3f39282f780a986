#!/bin/sh
# tide merge-tree: output, labels, written objects, errors.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: two branches with a content conflict' '
	git init -q r &&
	printf "1\n2\n3\n" >r/f && echo keep >r/k && mkdir r/d && echo x >r/d/x &&
	git -C r add . && git -C r commit -qm base &&
	git -C r tag base &&
	git -C r checkout -q -b left &&
	printf "1\nL\n3\n" >r/f && git -C r commit -qam left &&
	git -C r checkout -q -b right base &&
	printf "1\nR\n3\n" >r/f && echo y >r/d/y && git -C r add . &&
	git -C r commit -qm right &&
	git -C r checkout -q -b clean base && echo z >r/d/z && git -C r add . &&
	git -C r commit -qm clean
'

test_expect_success 'clean merge: same tree as git, exit 0, objects written' '
	(cd r && tide merge-tree left clean) >out &&
	(cd r && git merge-tree --write-tree left clean) >exp &&
	test_cmp exp out &&
	test $(wc -l <out) = 1 &&
	git -C r ls-tree -r $(cat out) >files &&
	grep -q "d/z" files && grep -q "f$" files
'

test_expect_success 'conflict: exit 1 and the stages git prints' '
	(cd r && test_must_fail --status=1 tide merge-tree left right) >out &&
	(cd r && test_must_fail --status=1 git merge-tree --write-tree left right) >exp &&
	sed -n "1,/^\$/p" exp >exp.stages && sed -n "1,/^\$/p" out >out.stages &&
	diff -u exp.stages out.stages &&
	grep -q "^CONFLICT (content): Merge conflict in f" out
'

test_expect_success 'conflict markers carry the revision names' '
	(cd r && test_must_fail --status=1 tide merge-tree left right) >out &&
	tree=$(head -n 1 out) && test -n "$tree" &&
	git -C r cat-file blob "$tree:f" >f &&
	grep -q "^<<<<<<< left\$" f && grep -q "^>>>>>>> right\$" f &&
	grep -q "^=======\$" f
'

test_expect_success '--name-only lists conflicted paths once' '
	(cd r && test_must_fail --status=1 tide merge-tree --name-only left right) >out &&
	sed -n "2p" out >p && echo f >want && diff -u want p &&
	test "$(sed -n 3p out)" = ""
'

test_expect_success '--stdin: each merge as alone, after a status line, then a NUL' '
	(cd r && tide merge-tree left clean) >one &&
	(cd r && test_must_fail tide merge-tree left right) >two &&
	{ echo 1 && cat one && printf "\\0" && echo 0 && cat two && printf "\\0"; } >expect &&
	printf "left clean\n\nleft  right\n" | (cd r && tide merge-tree --stdin) >actual &&
	cmp expect actual &&
	printf "left\n" | (cd r && test_must_fail --status=3 tide merge-tree --stdin) 2>err &&
	grep -q "tide: --stdin: want OURS THEIRS" err &&
	printf "left nosuch\n" | (cd r && test_must_fail --status=3 tide merge-tree --stdin) 2>err &&
	grep -q "nosuch" err &&
	(cd r && test_must_fail --status=2 tide merge-tree --stdin left)
'

test_expect_success 'revisions are any revision syntax, from a subdirectory' '
	(cd r/d && tide merge-tree "left^{commit}" clean~0) >out &&
	(cd r && git merge-tree --write-tree left clean) >exp &&
	diff -u exp out
'

test_expect_success 'a revision that does not exist: exit 3, named' '
	(cd r && test_must_fail --status=3 tide merge-tree left nosuch) 2>err &&
	grep -q "tide: .*nosuch" err
'

test_expect_success 'a revision that is not a commit: exit 3' '
	(cd r && test_must_fail --status=3 tide merge-tree left "left:f") 2>err &&
	grep -q "left:f" err
'

test_expect_success 'conflict-marker-size: read from ours with a work tree, not in a bare repository' '
	git init -q sized &&
	printf "1\n2\n3\n" >sized/f && echo "f conflict-marker-size=32" >sized/.gitattributes &&
	git -C sized add . && git -C sized commit -qm base && git -C sized tag base &&
	git -C sized checkout -q -b left && printf "1\nL\n3\n" >sized/f &&
	git -C sized commit -qam left &&
	git -C sized checkout -q -b right base && printf "1\nR\n3\n" >sized/f &&
	git -C sized commit -qam right &&
	git clone -q --bare sized sized.git &&
	for repo in sized sized.git; do
		(cd $repo && test_must_fail --status=1 tide merge-tree left right) >out &&
		(cd $repo && test_must_fail --status=1 git merge-tree --write-tree left right) >exp &&
		head -n 1 exp >exp.tree && head -n 1 out >out.tree &&
		test_cmp exp.tree out.tree || exit 1
	done &&
	git -C sized.git cat-file blob "$(head -n 1 out):f" >f &&
	grep -q "^<<<<<<< left\$" f &&
	(cd sized && test_must_fail --status=1 tide merge-tree left right) >out &&
	git -C sized cat-file blob "$(head -n 1 out):f" >f &&
	grep -q "^<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<< left\$" f
'

test_expect_success 'merge= attributes: binary and -merge conflict, union is clean, others merge as text' '
	git init -q drv &&
	for f in a b c d e; do printf "1\n2\n3\n4\n5\n" >drv/$f || exit 1; done &&
	printf "a -merge\nb merge=binary\nc merge=union\nd merge=foo\ne merge\n" >drv/.gitattributes &&
	git -C drv add . && git -C drv commit -qm base && git -C drv tag base &&
	git -C drv checkout -q -b left &&
	for f in b c d e; do printf "1\nL\n3\n4\n5\n" >drv/$f || exit 1; done &&
	printf "1\n2\n3\n4\nL5\n" >drv/a && git -C drv commit -qam left &&
	git -C drv checkout -q -b right base &&
	for f in b c d e; do printf "1\nR\n3\n4\n5\n" >drv/$f || exit 1; done &&
	printf "R1\n2\n3\n4\n5\n" >drv/a && git -C drv commit -qam right &&
	(cd drv && test_must_fail --status=1 tide merge-tree left right) >out &&
	(cd drv && test_must_fail --status=1 git merge-tree --write-tree left right) >exp &&
	sed -n "1,/^\$/p" exp >exp.stages && sed -n "1,/^\$/p" out >out.stages &&
	test_cmp exp.stages out.stages &&
	git -C drv cat-file blob "$(head -n 1 out):c" >c &&
	printf "1\nL\nR\n3\n4\n5\n" >c.exp && test_cmp c.exp c &&
	git -C drv cat-file blob "$(head -n 1 out):a" >a &&
	printf "1\n2\n3\n4\nL5\n" >a.exp && test_cmp a.exp a
'

test_expect_success 'not a git repository: exit 3' '
	mkdir -p plain &&
	(cd plain && GIT_CEILING_DIRECTORIES=$TRASH test_must_fail --status=3 tide merge-tree a b) 2>err &&
	grep -q "not a git repository" err
'

test_expect_success 'unrelated histories need --allow-unrelated-histories' '
	git -C r checkout -q --orphan lone && git -C r rm -rqf . &&
	echo z >r/z && git -C r add z && git -C r commit -qm lone &&
	(cd r && test_must_fail --status=3 tide merge-tree left lone) 2>err &&
	grep -q "unrelated histories" err &&
	(cd r && tide merge-tree --allow-unrelated-histories left lone) >out &&
	(cd r && git merge-tree --write-tree --allow-unrelated-histories left lone) >exp &&
	diff -u exp out
'

test_expect_success 'bad command lines exit 2' '
	(cd r && test_must_fail --status=2 tide merge-tree left) 2>err &&
	grep -q "usage: tide merge-tree" err &&
	(cd r && test_must_fail --status=2 tide merge-tree --bogus left right) &&
	(cd r && test_must_fail --status=2 tide merge-tree a b c)
'

test_expect_success '-h prints the usage of the man page SYNOPSIS' '
	tide merge-tree -h >out &&
	for o in --name-only --no-renames --allow-unrelated-histories; do
		grep -q -- "\\[$o\\]" out &&
		tr -d "\\\\" <"$TOP/man/tide-merge-tree.1" | grep -q -- "$o" ||
		{ echo "missing $o"; exit 1; }
	done &&
	grep -q "OURS THEIRS" out
'

test_expect_success 'criss-cross with git'"'"'s commit-graph: the merge bases it gives are git'"'"'s' '
	git init -q cc &&
	printf "1\n2\n3\n4\n5\n" >cc/f && git -C cc add f &&
	GIT_COMMITTER_DATE="1700000000 +0000" git -C cc commit -qm base && git -C cc tag base &&
	git -C cc checkout -q -b b1 && printf "1\nb\n3\n4\n5\n" >cc/f &&
	GIT_COMMITTER_DATE="1600000000 +0000" git -C cc commit -qam b1 &&
	git -C cc checkout -q -b a1 base &&
	printf "1\na\n3\n4\n5\n" >cc/f &&
	GIT_COMMITTER_DATE="1700000200 +0000" git -C cc commit -qam a1 &&
	git -C cc checkout -q -b left a1 &&
	test_must_fail git -C cc merge -q b1 >/dev/null &&
	printf "1\na\n3\n4\nL\n" >cc/f && git -C cc commit -qam left &&
	git -C cc checkout -q -b right b1 &&
	test_must_fail git -C cc merge -q a1 >/dev/null &&
	printf "1\nb\n3\n4\nR\n" >cc/f && git -C cc commit -qam right &&
	git -C cc commit-graph write --reachable &&
	test -f cc/.git/objects/info/commit-graph &&
	(cd cc && test_must_fail --status=1 git merge-tree --write-tree left right) >exp &&
	(cd cc && test_must_fail --status=1 tide merge-tree left right) >out &&
	sed -n "1,/^\$/p" exp >exp.stages && sed -n "1,/^\$/p" out >out.stages &&
	test_cmp exp.stages out.stages &&
	grep -q "^100644 [0-9a-f]* 1	f" out
'

test_expect_success 'a --shared clone reads its alternate'"'"'s commit-graph, its own commits outside it' '
	git clone -q --shared cc sh &&
	test ! -e sh/.git/objects/info/commit-graph &&
	git -C sh checkout -q -b l2 origin/left &&
	printf "0\n1\na\n3\n4\nL\n" >sh/f &&
	GIT_COMMITTER_DATE="1500000000 +0000" git -C sh commit -qam l2 &&
	git -C sh checkout -q -b r2 origin/right &&
	printf "1\nb\n3\n4\nR\nz\n" >sh/f &&
	GIT_COMMITTER_DATE="1500000100 +0000" git -C sh commit -qam r2 &&
	git -C sh merge-base --all l2 r2 >bases &&
	test $(wc -l <bases) = 2 &&
	grc=0 && (cd sh && git merge-tree --write-tree l2 r2) >exp || grc=$? &&
	trc=0 && (cd sh && tide merge-tree l2 r2) >out || trc=$? &&
	test $grc = 1 && test $trc = 1 &&
	sed -i "/^Auto-merging /d" exp &&
	test_cmp exp out
'

test_expect_success 'merge.renameLimit, else diff.renameLimit, bounds inexact renames as in git' '
	git init -q rl &&
	for i in 1 2 3 4 5; do seq 1 50 | sed "s/^/file$i line /" >rl/f$i || exit 1; done &&
	git -C rl add . && git -C rl commit -qm base &&
	git -C rl checkout -q -b side &&
	for i in 1 2 3 4 5; do git -C rl mv f$i g$i && echo extra >>rl/g$i || exit 1; done &&
	git -C rl commit -qam renames && git -C rl checkout -q - &&
	sed -i "s/line 25\$/LINE 25/" rl/f1 rl/f2 rl/f3 rl/f4 rl/f5 &&
	git -C rl commit -qam edit &&
	for cfg in "" merge.renameLimit=2 merge.renameLimit=4 merge.renameLimit=5 \
		merge.renameLimit=0 merge.renameLimit=-1 diff.renameLimit=2 \
		"merge.renameLimit=6 diff.renameLimit=2" "merge.renameLimit=2 diff.renameLimit=6"; do
		rm -rf c && cp -r rl c &&
		for kv in $cfg; do git -C c config "${kv%%=*}" "${kv#*=}" || exit 1; done &&
		grc=0 && (cd c && git merge-tree --write-tree HEAD side) >exp 2>/dev/null || grc=$? &&
		trc=0 && (cd c && tide merge-tree HEAD side) >out 2>err || trc=$? &&
		echo "$cfg: $grc $trc" >>codes &&
		sed -n "1,/^\$/p" exp >exp.stages && sed -n "1,/^\$/p" out >out.stages &&
		test_cmp exp.stages out.stages || exit 1
	done &&
	cat >expect <<-\EOF &&
	: 0 0
	merge.renameLimit=2: 1 1
	merge.renameLimit=4: 1 1
	merge.renameLimit=5: 0 0
	merge.renameLimit=0: 0 0
	merge.renameLimit=-1: 0 0
	diff.renameLimit=2: 1 1
	merge.renameLimit=6 diff.renameLimit=2: 0 0
	merge.renameLimit=2 diff.renameLimit=6: 1 1
	EOF
	test_cmp expect codes &&
	git -C rl config merge.renameLimit lots &&
	(cd rl && test_must_fail --status=3 tide merge-tree HEAD side) 2>err &&
	test_cmp_str "tide: bad merge.renameLimit: failed to parse '"'"'lots'"'"' as a 32-bit integer" err
'

test_done
