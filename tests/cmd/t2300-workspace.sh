#!/bin/sh
# The workspace: lock, bad workspaces, and runs killed half-way.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

holder=
stop_holder() { [ -n "$holder" ] && kill "$holder" 2>/dev/null; }
trap stop_holder EXIT

test_expect_success 'setup: a world and a first day' '
	make_mainline &&
	make_tree t1 a "t1" && make_tree t2 b "t2" && make_tree t3 d/y "t3" &&
	conf "t1 git t1#for-next" "t2 git t2#for-next" "t3 git t3#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	cp -r ws/days days.day1 &&
	git -C ws/repo.git for-each-ref >refs.day1
'

# hold_lock FILE: hold flock(FILE) for 30 s in this one process, so
# killing it releases the lock (flock(1) would leave its child holding it).
hold_lock() {
	exec python3 -c "import fcntl, sys, time; f = open(sys.argv[1], \"a\"); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(30)" "$1"
}

# wait_locked FILE: until someone holds FILE's lock (at most 10 s).
wait_locked() {
	for i in $(seq 100); do
		flock -n "$1" true || return 0
		sleep 0.1
	done
	return 1
}

# snapshot_same: day 1's record and every ref are as they were.
snapshot_same() {
	diff -r days.day1/2026-12-01 ws/days/2026-12-01 &&
	git -C ws/repo.git for-each-ref refs/tags refs/heads >refs.now &&
	grep -E "refs/(tags|heads)/" refs.day1 >refs.want &&
	diff refs.want refs.now
}

for point in fetch merge:1 merge:2 commit; do
	test_expect_success "a run killed after '$point' leaves the earlier day intact" '
		commit_file world/t2 b "t2 '"$point"'" &&
		rc=0 && TIDE_TEST_DIE_AFTER='"$point"' \
			tide -C ws -f world/trees.conf run --no-build --date 2026-12-02 2>err || rc=$? &&
		test $rc = 137 &&
		test ! -e ws/days/2026-12-02 &&
		! git -C ws/repo.git rev-parse -q --verify refs/tags/next-20261202 &&
		snapshot_same
	'
done

test_expect_success 'a run killed while re-running a date keeps that day as it was' '
	rc=0 && TIDE_TEST_DIE_AFTER=merge:2 \
		tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 2>err || rc=$? &&
	test $rc = 137 &&
	snapshot_same &&
	tide -C ws log >out && test $(wc -l <out) = 1
'

test_expect_success 'the next run cleans up and completes' '
	ls -A ws/days | grep -q "^\.tmp-" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	test -z "$(ls -A ws/days | grep "^\.tmp-")" &&
	git -C ws/repo.git show next-20261202:b >b && test "$(cat b)" = "t2 commit" &&
	diff -r days.day1/2026-12-01 ws/days/2026-12-01 &&
	grep "refs/tags/next-20261201$" refs.day1 >want &&
	git -C ws/repo.git for-each-ref refs/tags/next-20261201 >now && diff want now
'

test_expect_success 'a second run is refused while one holds the lock (exit 5)' '
	echo 4242 >ws/lock &&
	hold_lock ws/lock & holder=$! &&
	wait_locked ws/lock &&
	test_must_fail --status=5 tide -C ws -f world/trees.conf run --no-build --date 2026-12-03 2>err &&
	test_cmp_str "tide: workspace '\''$TRASH/ws'\'' is locked by another run (pid 4242)" err &&
	kill $holder && { wait $holder 2>/dev/null || :; } && holder= &&
	test ! -e ws/days/2026-12-03 &&
	tide -C ws log >out && test $(wc -l <out) = 2
'

test_expect_success 'readers do not need the lock' '
	hold_lock ws/lock & holder=$! &&
	wait_locked ws/lock &&
	tide -C ws log >out && tide -C ws show >out;
	rc=$?; kill $holder; { wait $holder 2>/dev/null || :; }; test $rc = 0
'

test_expect_success 'a repo.git that is not a git repository: exit 3, one line' '
	mkdir -p bad/repo.git && echo junk >bad/repo.git/HEAD &&
	test_must_fail --status=3 tide -C bad -f world/trees.conf run --no-build --date 2026-12-01 2>err &&
	test_cmp_str "tide: '\''$TRASH/bad/repo.git'\'' is not a usable git repository: path is not a repository: $TRASH/bad/repo.git" err &&
	test_must_fail --status=3 tide -C bad log 2>err && grep -q "repo.git" err
'

test_expect_success 'a repo.git missing its refs: exit 3, earlier days survive' '
	cp -r ws corrupt && rm -rf corrupt/repo.git/refs &&
	test_must_fail --status=3 tide -C corrupt -f world/trees.conf run --no-build --date 2026-12-05 2>err &&
	test_cmp_str "tide: '\''$TRASH/corrupt/repo.git'\'' is not a usable git repository: path is not a repository: $TRASH/corrupt/repo.git" err &&
	test ! -e corrupt/days/2026-12-05 &&
	diff -r ws/days/2026-12-01 corrupt/days/2026-12-01
'

test_expect_success 'an unwritable workspace: exit 4 with the path' '
	echo file >plain &&
	test_must_fail --status=4 tide -C plain/ws -f world/trees.conf run --no-build 2>err &&
	grep -q "plain" err &&
	test_must_fail --status=3 tide -C plain -f world/trees.conf run --no-build 2>err &&
	grep -q "not a directory" err &&
	if [ "$(id -u)" != 0 ]; then
		mkdir ro && chmod 555 ro &&
		test_must_fail --status=4 tide -C ro -f world/trees.conf run --no-build 2>err &&
		grep -q "not writable" err
	fi
'

test_expect_success 'no workspace: usage error; a missing one for readers: exit 3' '
	test_must_fail --status=2 tide -f world/trees.conf run 2>err &&
	grep -q "no workspace" err &&
	test_must_fail --status=3 tide -C nowhere log &&
	test ! -e nowhere &&
	TIDE_DIR=ws tide log >out && test $(wc -l <out) = 2
'

test_expect_success 'a bad trees.conf creates no workspace' '
	printf "a\tgit\n" >bad.conf &&
	test_must_fail --status=3 tide -C fresh -f bad.conf run 2>err &&
	test ! -e fresh
'

test_done
