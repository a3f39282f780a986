#!/bin/sh
# tide bisect on a broken repository: the tool failed (exit 4, not 1 or
# 3), with the missing object named, and the state kept for --continue.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/bisect-lib.sh"

# lose OBJECT: delete a loose object from the workspace repository.
lose() {
	f=$WS/repo.git/objects/$(echo "$1" | cut -c1-2)/$(echo "$1" | cut -c3-) &&
	test -f "$f" && rm -f "$f"
}

# libgit2 1.5 leaks inside git_revwalk_next() when the walk meets a
# missing commit; LeakSanitizer would then exit 1 over tide's status.
no_leak_check() { ASAN_OPTIONS=detect_leaks=0 "$@"; }

test_expect_success 'setup: a day whose tree gpio plants a bug' '
	make_mainline &&
	new_tree gpio && series gpio gpio 4 3 &&
	make_day 2026-01-01 gpio=gpio &&
	cp -R "$WS" ws.orig
'

test_expect_success 'the day commit missing from the repository: exit 4, not bad input' '
	tip=$(git -C "$WS/repo.git" rev-parse next-20260101) &&
	lose "$tip" &&
	test_must_fail --status=4 tide -C "$WS" bisect 2026-01-01 --cmd "sh $TRASH/nobug.sh" >out 2>err &&
	cat >expect <<-EOF &&
	tide: bisect: $WS/days/2026-01-01/day.json: commit not in the repository: object not found - no match for id ($tip)
	tide: the state is kept: '\''tide bisect --continue'\'' resumes
	EOF
	test_cmp expect err
'

test_expect_success 'a merge of the day missing: exit 4' '
	rm -rf "$WS" && cp -R ws.orig "$WS" &&
	merge=$(git -C "$WS/repo.git" rev-parse next-20260101^) &&
	lose "$merge" &&
	no_leak_check test_must_fail --status=4 tide -C "$WS" bisect 2026-01-01 --cmd "sh $TRASH/nobug.sh" >out 2>err &&
	cat >expect <<-EOF &&
	tide: bisect: cannot walk history: object not found - no match for id ($merge)
	tide: the state is kept: '\''tide bisect --continue'\'' resumes
	EOF
	test_cmp expect err
'

test_expect_success 'a commit of the tree missing: exit 4, the object named, --continue too' '
	rm -rf "$WS" && cp -R ws.orig "$WS" &&
	lose "$(git -C gpio rev-parse master~2)" &&
	no_leak_check test_must_fail --status=4 tide -C "$WS" bisect 2026-01-01 --cmd "sh $TRASH/nobug.sh" >out 2>err &&
	grep -q "cannot walk history: object not found.*$(git -C gpio rev-parse master~2)" err &&
	grep -q "the state is kept" err &&
	no_leak_check test_must_fail --status=4 tide -C "$WS" bisect --continue >out 2>err
'

test_expect_success 'a file missing from the repository: exit 4' '
	rm -rf "$WS" && cp -R ws.orig "$WS" &&
	lose "$(git -C gpio rev-parse master:gpio/f2)" &&
	test_must_fail --status=4 tide -C "$WS" bisect 2026-01-01 --cmd "sh $TRASH/nobug.sh" >out 2>err &&
	grep -q "object not found" err
'

test_done
