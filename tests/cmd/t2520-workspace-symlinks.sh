#!/bin/sh
# Symlinks planted in the workspace are not followed: DIR/lock and
# DIR/tide.log pointing at a canary leave the canary as it was.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

test_expect_success 'setup: mainline, a tree, a workspace, a canary' '
	make_mainline &&
	make_tree t1 a "t1" &&
	conf "t1 git t1#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	echo "do not touch" >canary && cp canary canary.orig
'

test_expect_success 'DIR/lock as a symlink: refused with a clear error, canary untouched' '
	rm -f ws/lock && ln -s "$TRASH/canary" ws/lock &&
	test_must_fail --status=4 tide -C ws -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	test_cmp_str "tide: '\''$TRASH/ws/lock'\'' is a symbolic link; not following it (remove it: tide creates the lock)" err &&
	cmp canary canary.orig &&
	! test -d ws/days/2026-12-02 &&
	rm ws/lock
'

test_expect_success 'DIR/tide.log as a symlink: the run goes on, nothing appended to the canary' '
	rm -f ws/tide.log && ln -s "$TRASH/canary" ws/tide.log &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-03 >out 2>err &&
	cmp canary canary.orig &&
	test -f ws/days/2026-12-03/day.json
'

test_done
