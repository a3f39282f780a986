#!/bin/sh
# What a crash or a full disk does to a run: the day's directory is
# synced after the rename that installs it; a full disk is reported as
# such, not as a missing object later on.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

test_expect_success 'setup: mainline and two trees' '
	make_mainline &&
	make_tree t1 a "t1" &&
	make_tree t2 b "t2" &&
	conf "t1 git t1#for-next" "t2 git t2#for-next"
'

# strace (LeakSanitizer cannot run under ptrace): the directory holding the renamed day is opened and fsync()ed after the rename.
check_synced_after_rename() {
	python3 - "$1" "$2" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
days = sys.argv[2]
renamed = None
for i, l in enumerate(lines):
    if re.search(r'rename(at2)?\(.*"%s/\.tmp-[^"]*",.*"%s/2026-12-0\d"' % (days, days), l):
        renamed = i
if renamed is None:
    sys.exit("no rename of the day directory in the trace")
fds = set()
for l in lines[renamed + 1:]:
    m = re.search(r'open(at)?\(.*"%s/?",.*O_DIRECTORY.*\) = (\d+)' % days, l)
    if m:
        fds.add(m.group(2))
    m = re.search(r'fsync\((\d+)\)\s+= 0', l)
    if m and m.group(1) in fds:
        sys.exit(0)
sys.exit("days/ not fsync()ed after the rename")
PY
}

if strace -f -o /dev/null true 2>/dev/null; then
test_expect_success 'a new day: days/ is fsync()ed after the rename' '
	ASAN_OPTIONS=detect_leaks=0 strace -f -o trace -e trace=openat,open,rename,renameat,renameat2,fsync \
		"$TIDE_BIN" -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	check_synced_after_rename trace "$TRASH/ws/days"
'
test_expect_success 'a day run again replaces the old one: days/ is fsync()ed after the exchange' '
	ASAN_OPTIONS=detect_leaks=0 strace -f -o trace -e trace=openat,open,rename,renameat,renameat2,fsync \
		"$TIDE_BIN" -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	check_synced_after_rename trace "$TRASH/ws/days" &&
	test -f ws/days/2026-12-01/day.json && ! ls -d ws/days/.tmp-* 2>/dev/null
'
else
	test_skip 'days/ is fsync()ed after the rename' 'strace cannot trace here'
	test_skip 'days/ is fsync()ed after the exchange' 'strace cannot trace here'
fi

# A 2 MB tmpfs filled up to KEEP bytes: a run that fails must say why.
full_disk_runs() {
	keep=32768
	while [ $keep -le 102400 ]; do
		rm -rf fs/* &&
		avail=$(df --output=avail -B1 fs | tail -1) &&
		{ head -c $((avail - keep)) /dev/zero >fs/filler 2>/dev/null || :; } &&
		rc=0 &&
		tide -C fs/ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err || rc=$?
		if [ $rc -gt 127 ]; then echo "keep $keep: died ($rc)"; cat err; return 1; fi
		if grep -q "object not found" err; then echo "keep $keep:"; cat err; return 1; fi
		if [ $rc = 4 ] && ! grep -q "No space left on device" err; then
			echo "keep $keep: exit 4 without saying the disk is full:"; cat err; return 1
		fi
		keep=$((keep + 4096))
	done
}

mkdir -p "$TRASH/fs"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=2m tmpfs "$TRASH/fs" 2>/dev/null; then
test_expect_success 'a full disk is reported as "No space left on device", at every point' '
	full_disk_runs
'
	umount "$TRASH/fs"
else
	test_skip 'a full disk is reported as such' 'cannot mount a tmpfs (needs root)'
fi

[ $t_skipped = 0 ] || echo "$test_name: $t_skipped skipped"
test_done
