#!/bin/sh
# Rename detection as git's diffcore-rename does it, and bounded.
#
# Scoring: generated renames whose similarity sits near git's thresholds
# (50%, and 75% for a unique file name), with CRLF, long lines, NUL
# bytes, sizes near the 2:1 pre-filter, destinations of equal score,
# identical copies and shared file names (tests/cmd/merge-gen-renames.py):
# each merge gives git's stages, and git's tree when clean.
#
# Virtual bases: a directory renamed in one merge base while two others
# change a file in it combine into the base (git.git's merge of 20 bases
# where contrib/coccinelle/ had become tools/coccinelle/).
#
# Hostile sides: 100,000 added files (past merge.renameLimit: exact and
# same-name renames only, as git, with a warning), 200,000 copies of one
# blob moved (linear: git's exact matching is quadratic there and takes
# minutes), files over 64 MiB (never read, a warning).
. "$(dirname "$0")/lib.sh"

SEED=${TIDE_MERGE_SEED:-1070}
PER_KIND=${TIDE_MERGE_RENAME_PER_KIND:-20}
GEN="$TOP/tests/cmd/merge-gen-renames.py"

# The exit status, the tree of a clean merge and the stages must be git's.
rename_compare() {
	erc=0 grc=0
	(cd r && git merge-tree --write-tree c$1-ours c$1-theirs) >exp.$1 || erc=$?
	(cd r && tide merge-tree c$1-ours c$1-theirs) >got.$1 2>err.$1 || grc=$?
	test $erc = $grc || { echo "exit status: git $erc, tide $grc"; cat err.$1; return 1; }
	if [ $erc = 0 ]; then
		test_cmp exp.$1 got.$1
	else
		sed -n '2,/^$/p' exp.$1 >exp.stages.$1 && sed -n '2,/^$/p' got.$1 >got.stages.$1 &&
		test_cmp exp.stages.$1 got.stages.$1
	fi
}

test_expect_success "generate scoring cases (seed $SEED)" '
	git init -q r &&
	python3 "$GEN" scores $SEED $PER_KIND 3>cases | git -C r fast-import --quiet &&
	test -s cases
'

while read -r n kind; do
	test_expect_success "case $n ($kind)" "rename_compare $n"
done <"$TRASH/cases"

test_expect_success 'a rename in one merge base and changes in two others combine' '
	git init -q vb && (
		cd vb &&
		mkdir c && seq 1 20 | sed "s/^/line /" >c/s.cocci && echo other >c/other &&
		git add . && git commit -qm root && git tag root &&
		git checkout -q -b b1 root && git mv c t && git commit -qm "c/ to t/" &&
		git checkout -q -b b2 root && sed -i "s/^line 3\$/line 3 (b2)/" c/s.cocci &&
		git commit -qam b2 &&
		git checkout -q -b b3 root && sed -i "s/^line 15\$/line 15 (b3)/" c/s.cocci &&
		git commit -qam b3 &&
		seq 1 20 | sed "s/^/line /; s/^line 3\$/line 3 (b2)/; s/^line 15\$/line 15 (b3)/" >both &&
		sed "s/^line 4\$/line 4 (ours)/" both >o && sed "s/^line 16\$/line 16 (theirs)/" both >t &&
		for side in o t; do
			sub=$(printf "100644 blob %s\tother\n100644 blob %s\ts.cocci\n" \
				$(git rev-parse root:c/other) $(git hash-object -w $side) | git mktree) &&
			tree=$(printf "040000 tree %s\tt\n" $sub | git mktree) &&
			git branch $side $(git commit-tree $tree -p b1 -p b2 -p b3 -m $side) || exit 1
		done &&
		test $(git merge-base --all o t | wc -l) = 3 &&
		git merge-tree --write-tree o t >../exp &&
		tide merge-tree o t >../got
	) &&
	test_cmp exp got
'

test_expect_success 'a side adding 100,000 files: past merge.renameLimit, as git does, and says so' '
	git init -q adds &&
	python3 "$GEN" adds 2000 100000 | git -C adds fast-import --quiet &&
	(cd adds && test_must_fail --status=1 git merge-tree --write-tree adds-ours adds-theirs) >exp &&
	(cd adds && test_must_fail --status=1 tide merge-tree adds-ours adds-theirs) >got 2>err &&
	sed "/^\$/q" exp >exp.stages && sed "/^\$/q" got >got.stages &&
	test_cmp exp.stages got.stages &&
	test $(grep -c "^100644 .* 3	src/" got) = 2000 &&
	grep "^tide: warning: inexact rename detection was skipped: it would need merge.renameLimit of 102000 (7000 is used)" err
'

test_expect_success '3,000 copies of one blob moved: git'"'"'s merge' '
	git init -q same3 &&
	python3 "$GEN" same 3000 | git -C same3 fast-import --quiet &&
	(cd same3 && git merge-tree --write-tree same-ours same-theirs) >exp &&
	(cd same3 && tide merge-tree same-ours same-theirs) >got &&
	test_cmp exp got
'

test_expect_success '200,000 copies of one blob moved: each destination looks at few sources' '
	git init -q same &&
	python3 "$GEN" same 200000 | git -C same fast-import --quiet &&
	(cd same && timeout 300 "$TIDE_BIN" merge-tree same-ours same-theirs) >got &&
	tree=$(cat got) &&
	echo "edited by theirs" >want &&
	git -C same cat-file blob "$tree:b/edited" >edited && test_cmp want edited &&
	test $(git -C same ls-tree -r "$tree" | wc -l) = 200001 &&
	test_must_fail git -C same rev-parse -q --verify "$tree:a"
'

test_expect_success 'files over 64 MiB are never read to compare them, and that is said' '
	git init -q big &&
	python3 "$GEN" big 65 | git -C big fast-import --quiet &&
	(cd big && /usr/bin/time -f "%M" "$TIDE_BIN" merge-tree big-ours big-theirs) >got 2>err &&
	grep "^tide: warning: 2 files larger than 64 MiB were paired by identical content only" err &&
	tree=$(cat got) &&
	git -C big rev-parse -q --verify "$tree:dir/added.txt" &&
	git -C big rev-parse -q --verify "$tree:new/big.txt" &&
	(cd big && /usr/bin/time -f "%M" "$TIDE_BIN" merge-tree big-base big-base) >/dev/null 2>base.err &&
	rss=$(tail -n 1 err) small=$(tail -n 1 base.err) &&
	echo "peak RSS: $rss KB, an empty merge: $small KB" &&
	test $rss -lt $((small + 65536))
'

test_done
