#!/bin/sh
# tide's content merges against git 2.39's, byte for byte: random
# three-way texts (tests/cmd/xmerge-gen.py: few distinct lines, Myers'
# fall back, identical and adjacent changes, no final newline, CRLF and
# mixed line ends, add/add, binary files, criss-cross histories whose
# virtual base holds nested conflict markers) merged by
# `tide merge-tree` and `git merge-tree --write-tree`.  The result trees
# must be the same object (so every merged blob, conflict markers and
# labels included), and so must the exit status and the conflicted paths.
. "$(dirname "$0")/lib.sh"

SEED=${TIDE_XMERGE_SEED:-1040}
FILES=${TIDE_XMERGE_FILES:-150}
GROUPS=${TIDE_XMERGE_GROUPS:-8}

test_expect_success "generate $GROUPS groups of $FILES files (seed $SEED)" '
	git init -q --bare r &&
	python3 "$TOP/tests/cmd/xmerge-gen.py" $SEED $FILES $GROUPS |
		git -C r fast-import --quiet &&
	git -C r rev-parse --verify -q g0-ours >/dev/null
'

# compare_group G: both tools on gG-ours and gG-theirs; on a difference
# name the paths whose merged blobs differ.
compare_group() {
	(cd r && git merge-tree --write-tree --name-only g$1-ours g$1-theirs) >exp.$1 2>/dev/null
	erc=$?
	(cd r && tide merge-tree --name-only g$1-ours g$1-theirs) >got.$1 2>err.$1
	grc=$?
	sed -n "2,/^\$/p" exp.$1 | grep -v "^\$" >paths.$1 || :
	if [ $erc != $grc ]; then
		echo "exit status: git $erc, tide $grc"; cat err.$1; return 1
	fi
	if [ "$(head -n 1 exp.$1)" != "$(head -n 1 got.$1)" ]; then
		git -C r diff-tree -r --name-only "$(head -n 1 exp.$1)" "$(head -n 1 got.$1)" |
			tee differ.$1
		return 1
	fi
	sed -n "2,/^\$/p" got.$1 | grep -v "^\$" | test_cmp paths.$1 -
}

g=0
while [ $g -lt $GROUPS ]; do
	test_expect_success "group $g: same trees, exit status and conflicted paths" \
		"compare_group $g"
	g=$((g + 1))
done

# The figures: files merged, conflicted in git's merge, differing.
m=$(git -C "$TRASH/r" ls-tree --name-only g0-ours | wc -l)
total=$((m * GROUPS))
conflicted=$(cat "$TRASH"/paths.* 2>/dev/null | wc -l)
differ=$(cat "$TRASH"/differ.* 2>/dev/null | wc -l)
echo "# $((total - differ)) of $total paths merged identically ($conflicted conflicted in git)"

test_done
