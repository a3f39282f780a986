#!/bin/sh
# A day is installed whole or not at all: its directory, master and the
# tag.  A run on a file system filled up to every 4 KB step of free space
# (and to every count of free inodes) either exits 0 or 1 with the day,
# master and the tag all there, or exits 4 with none of them, the earlier
# day untouched and no message naming an empty path.  A ref that cannot
# be written (its lock taken) puts everything back.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

t_skipped=0
# test_skip DESC WHY: a test that cannot run here, said so and not counted.
test_skip() {
	t_skipped=$((t_skipped + 1))
	echo "skip - $test_name: $1: $2"
}

test_expect_success 'setup: a day of three trees (one conflicting), the next day changed' '
	make_mainline &&
	make_tree t1 a "t1" &&
	make_tree t2 d/y "t2" &&
	make_tree t3 a "t3" &&
	conf "t1 git t1#for-next" "t2 git t2#for-next" "t3 git t3#for-next" &&
	test_must_fail --status=1 tide -C tmpl -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	commit_file world/t1 d/z "t1 again" &&
	commit_file world/t2 d/y "t2 again"
'

# check_day RC: the invariant after a run of 2026-12-02 in fs/ws that exited RC.
check_day() {
	day=no tag=no master=no
	[ -e fs/ws/days/2026-12-02 ] && day=yes
	git --git-dir=fs/ws/repo.git rev-parse -q --verify refs/tags/next-20261202 >/dev/null && tag=yes
	[ "$(git --git-dir=fs/ws/repo.git rev-parse master)" != "$master0" ] && master=yes
	state="exit $1, day $day, master $master, tag $tag"
	if grep -q "''" err; then echo "$state: a message names an empty path:"; cat err; return 1; fi
	if ! diff -r tmpl/days/2026-12-01 fs/ws/days/2026-12-01 >/dev/null; then
		echo "$state: the earlier day changed"; return 1
	fi
	if ls -d fs/ws/days/.tmp-* >/dev/null 2>&1; then echo "$state: a temporary day is left"; return 1; fi
	case "$1 $day $master $tag" in
	"0 yes yes yes" | "1 yes yes yes")
		test "$(git --git-dir=fs/ws/repo.git rev-parse next-20261202)" = \
			"$(WS=fs/ws day_field 2026-12-02 "d[\"commit\"]")" || { echo "$state: tag and record differ"; return 1; }
		return 0 ;;
	"4 no no no")
		grep -q "No space left on device" err || { echo "$state: not said why:"; cat err; return 1; }
		return 0 ;;
	esac
	echo "$state:"; cat err; return 1
}

# run_full [KEEP]: day 2026-12-02 in a copy of tmpl on fs/ (filled up to
# KEEP bytes free), then the invariant.
run_full() {
	cp -a tmpl fs/ws &&
	master0=$(git --git-dir=fs/ws/repo.git rev-parse master) &&
	if [ -n "${1:-}" ]; then
		avail=$(df --output=avail -B1 fs | tail -1) &&
		{ head -c $((avail - $1)) /dev/zero >fs/filler 2>/dev/null || :; }
	fi &&
	rc=0 && tide -C fs/ws -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err || rc=$?
	check_day $rc
}

# Free space in 4 KB steps (tmpfs pages) until three runs in a row install the day.
full_disk_steps() {
	keep=0 ok=0 failed=0
	while [ $ok -lt 3 ] && [ $keep -le 1048576 ]; do
		rm -rf fs/* &&
		run_full $keep || { echo "with $keep bytes free"; return 1; }
		if [ $rc = 4 ]; then ok=0 failed=$((failed + 1)); else ok=$((ok + 1)); fi
		keep=$((keep + 4096))
	done
	echo "$failed runs stopped by the full disk, then installed from $((keep - 3 * 4096)) bytes free"
	[ $failed -gt 5 ] && [ $ok = 3 ]
}

# Free inodes one at a time, the same way.
full_inode_steps() {
	base=$(find tmpl | wc -l) extra=0 ok=0 failed=0
	while [ $ok -lt 3 ] && [ $extra -le 200 ]; do
		mount -t tmpfs -o size=16m,nr_inodes=$((base + 2 + extra)) tmpfs fs &&
		run_full || { echo "with $extra inodes free"; umount fs; return 1; }
		umount fs
		if [ $rc = 4 ]; then ok=0 failed=$((failed + 1)); else ok=$((ok + 1)); fi
		extra=$((extra + 1))
	done
	echo "$failed runs stopped by the inodes, then installed with $((extra - 3)) free"
	[ $failed -gt 5 ] && [ $ok = 3 ]
}

mkdir -p "$TRASH/fs"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4m tmpfs "$TRASH/fs" 2>/dev/null; then
test_expect_success 'every 4 KB of free space: the whole day or none of it' '
	full_disk_steps
'
	umount "$TRASH/fs"
test_expect_success 'every free inode: the whole day or none of it' '
	full_inode_steps
'
else
	test_skip 'every 4 KB of free space' 'cannot mount a tmpfs (needs root)'
	test_skip 'every free inode' 'cannot mount a tmpfs (needs root)'
fi

# locked REF DATE: a run of DATE in a copy of tmpl (plus its day 2026-12-02
# when DATE is that day again) with REF's lock taken exits 4 and leaves
# the workspace as it was.
locked() {
	rm -rf ws2 && cp -a tmpl ws2 &&
	if [ "$2" = again ]; then
		test_expect_code 1 tide -C ws2 -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
			commit_file world/t2 d/y "t2 once more"
	fi
	git -C ws2/repo.git for-each-ref refs/heads refs/tags >refs.before &&
	(cd ws2/days && find . -type f | sort | xargs md5sum) >days.before &&
	touch "ws2/repo.git/$1.lock" &&
	test_must_fail --status=4 tide -C ws2 -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	grep -q "^tide: cannot update '$1': failed to lock file" err &&
	git -C ws2/repo.git for-each-ref refs/heads refs/tags >refs.after && test_cmp refs.before refs.after &&
	(cd ws2/days && find . -type f | sort | xargs md5sum) >days.after &&
	test_cmp days.before days.after &&
	! ls -d ws2/days/.tmp-* 2>/dev/null &&
	rm "ws2/repo.git/$1.lock" &&
	test_must_fail --status=1 tide -C ws2 -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	git --git-dir=ws2/repo.git rev-parse -q --verify next-20261202
}

test_expect_success 'a tag that cannot be written: master and the day put back' '
	locked refs/tags/next-20261202
'

test_expect_success 'master that cannot be written: the day put back' '
	locked refs/heads/master
'

test_expect_success 'a day run again whose tag cannot be written: the old day, master and tag kept' '
	locked refs/tags/next-20261202 again
'

[ $t_skipped = 0 ] || echo "$test_name: $t_skipped skipped"
test_done
