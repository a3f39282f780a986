#!/bin/sh
# tide's content merges on real history (libgit2's, from
# ../shared/data/libgit2.bundle), against git 2.39's merge-tree:
#  - the two merges where libgit2's Myers-based merge disagreed with git
#    (src/libgit2/clone.c: tide merged cleanly where git conflicts;
#    src/libgit2/config.c: tide conflicted where git merges) give git's
#    whole result tree;
#  - every content merge of a seeded sample of branch-head pairs (each
#    path both heads modified from their merge base), gathered into one
#    synthetic merge so renames play no part, gives git's blobs, clean
#    or with conflict markers.
. "$(dirname "$0")/lib.sh"

# ../shared next to the project's checkout (../../shared from a worktree)
BUNDLE=${TIDE_LIBGIT2_BUNDLE:-$TOP/../shared/data/libgit2.bundle}
[ -f "$BUNDLE" ] || [ -n "$TIDE_LIBGIT2_BUNDLE" ] || BUNDLE=$TOP/../../shared/data/libgit2.bundle
SEED=${TIDE_CONTENT_SEED:-1050}
PAIRS=${TIDE_CONTENT_PAIRS:-60}

if [ ! -f "$BUNDLE" ]; then
	echo "ok - $test_name # skip: no libgit2 bundle (../shared/data/libgit2.bundle)"
	test_done
	exit
fi

test_expect_success 'clone the libgit2 bundle' '
	git clone -q --bare "$BUNDLE" lg2.git
'

# same_merge OURS THEIRS: the same exit status, tree and conflicted paths
# (the output up to its first empty line; the messages differ).
same_merge() {
	erc=0 grc=0
	(cd lg2.git && git merge-tree --write-tree --name-only "$1" "$2") >out 2>/dev/null || erc=$?
	sed "/^\$/q" out >exp
	(cd lg2.git && tide merge-tree --name-only "$1" "$2") >out || grc=$?
	sed "/^\$/q" out >got
	test $erc = $grc &&
	test_cmp exp got
}

test_expect_success 'src/libgit2/clone.c conflicts as in git (979615298d, def6360de3)' '
	same_merge 979615298d def6360de3 &&
	grep -qx src/libgit2/clone.c exp
'

test_expect_success 'src/libgit2/config.c merges as in git (0379f86ddf, 155578578b)' '
	same_merge 0379f86ddf 155578578b &&
	! grep -qx src/libgit2/config.c exp
'

# An index of lines (path under pN/) as a tree of lg2.git.
index_tree() {
	rm -f "$TRASH/idx" &&
	GIT_INDEX_FILE="$TRASH/idx" git -C lg2.git update-index --index-info <"$1" &&
	GIT_INDEX_FILE="$TRASH/idx" git -C lg2.git write-tree
}

test_expect_success "content merges of $PAIRS seeded branch-head pairs (seed $SEED)" '
	python3 "$TOP/tests/cmd/content-pairs.py" lg2.git $SEED $PAIRS \
		3>base.idx 4>ours.idx 5>theirs.idx >figures &&
	cb=$(echo base | git -C lg2.git commit-tree "$(index_tree base.idx)") &&
	co=$(echo ours | git -C lg2.git commit-tree -p $cb "$(index_tree ours.idx)") &&
	ct=$(echo theirs | git -C lg2.git commit-tree -p $cb "$(index_tree theirs.idx)") &&
	git -C lg2.git update-ref refs/heads/ours $co &&
	git -C lg2.git update-ref refs/heads/theirs $ct &&
	{ same_merge ours theirs || {
		git -C lg2.git diff-tree -r --name-only "$(head -n 1 exp)" "$(head -n 1 got)";
		false; }; } &&
	{ sed 1d exp | grep -c . || :; } >conflicted
'

if [ -s "$TRASH/figures" ]; then
	set -- $(cat "$TRASH/figures")
	echo "# $4 content merges of $2 branch-head pairs, $(cat "$TRASH/conflicted" 2>/dev/null) conflicted in git"
fi

test_done
