#!/bin/sh
# tide merge-tree against git merge-tree --write-tree on real history:
# libgit2's (../shared/data/libgit2.bundle, see its README), 200 seeded
# pairs of far-apart branch heads and tags (its 2021 move of src/ to
# src/libgit2/ and src/util/ makes thousands of renames), and every one
# of its merge commits re-merged from its parents.  A clean merge must
# give git's tree, a conflicted one git's stages and git's kinds of
# conflict; a difference says whether it is in the line merge only (as
# Myers would merge the same three versions) or in what was merged where
# (renames).  Skipped, saying so, when the bundle is absent.
. "$(dirname "$0")/lib.sh"

# the project's checkout sits next to shared/ (a worktree one level deeper)
BUNDLE=${TIDE_LIBGIT2_BUNDLE:-}
for d in "$TOP/../shared/data" "$TOP/../../shared/data"; do
	test -n "$BUNDLE" || ! test -f "$d/libgit2.bundle" || BUNDLE=$d/libgit2.bundle
done
BUNDLE=${BUNDLE:-$TOP/../shared/data/libgit2.bundle}
SEED=${TIDE_MERGE_SEED:-1060}
PAIRS=${TIDE_MERGE_REAL_PAIRS:-200}

test -f "$BUNDLE" || test_skip_all "no libgit2 bundle at $BUNDLE"

test_expect_success 'clone the libgit2 bundle' '
	git clone -q --bare "$BUNDLE" lg2.git &&
	git -C lg2.git commit-graph write --reachable 2>/dev/null &&
	test $(git -C lg2.git rev-list --all --merges | wc -l) -gt 1000
'

test_expect_success "$PAIRS far-apart pairs of heads (seed $SEED): git's trees and stages" '
	python3 "$TOP/tests/cmd/merge-real.py" "$TRASH/lg2.git" "$TIDE_BIN" \
		pairs $SEED $PAIRS 100 "$TRASH/pairs.report" ||
	{ cat "$TRASH/pairs.report"; exit 1; }
'
sed 's/^/# pairs: /' "$TRASH/pairs.report" 2>/dev/null

test_expect_success "every merge commit re-merged: git's trees and stages" '
	python3 "$TOP/tests/cmd/merge-real.py" "$TRASH/lg2.git" "$TIDE_BIN" \
		merges "$TRASH/merges.report" ||
	{ cat "$TRASH/merges.report"; exit 1; }
'
sed 's/^/# merge commits: /' "$TRASH/merges.report" 2>/dev/null

test_done
