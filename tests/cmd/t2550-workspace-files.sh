#!/bin/sh
# Workspace files read as untrusted input (issue 39, item 6): rr-cache
# entries (shared caches fill the store), day records and tide's
# commit-graph are read only as regular files, bounded, never through a
# symbolic link.  A planted link, FIFO or device costs the run neither
# its secrets, its time nor its memory: the tree concerned is handled as
# if the file were not there, the day is tagged, and every reader lists
# the other days.
. "$(dirname "$0")/lib.sh"

# A 9-line file f in mainline; fixes and gpio conflict on line 3.
setup_world() {
	git init -q -b master main &&
	printf '1\n2\n3\n4\n5\n6\n7\n8\n9\n' >main/f &&
	git -C main add f && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && git clone -q main gpio &&
	sed -i 's/^3$/three-fixes/' fixes/f && git -C fixes commit -qam "f: fix three" &&
	sed -i 's/^3$/three-gpio/' gpio/f && git -C gpio commit -qam "gpio: rework three" &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#master\n" >trees.conf
}

# run_day DATE: a run bounded in time (a hang is exit 124), its status in rc.
run_day() {
	rc=0
	timeout 120 "$TIDE_BIN" -C ws -f trees.conf run --date "$1" --no-build --no-boot \
		>out 2>err || rc=$?
}

gpio() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d['trees'] if t['name']=='gpio'][0]; print($2)" "ws/days/$1/day.json"
}

tagged() {
	git --git-dir=ws/repo.git rev-parse -q --verify "refs/tags/$1" >/dev/null
}

test_expect_success 'setup: a recorded resolution that the next day replays' '
	setup_world &&
	run_day 2026-12-01 && test $rc = 1 &&
	tide -C ws -f trees.conf resolve gpio >/dev/null &&
	printf "1\n2\nthree-fixed\n4\n5\n6\n7\n8\n9\n" >ws/resolve/gpio/f &&
	tide -C ws -f trees.conf resolve --record gpio >out &&
	id=$(sed -n "s/^gpio: recorded resolution \([0-9a-f]*\) for f$/\1/p" out) &&
	test -f ws/rr-cache/$id/postimage && echo $id >id &&
	run_day 2026-12-02 && test $rc = 0 &&
	test "$(gpio 2026-12-02 "t[\"handled\"]")" = recorded &&
	echo "1 2 SECRET-KEY 4" >"$TRASH/private" && chmod 600 "$TRASH/private"
'

test_expect_success 'a postimage linked to a private file is refused, not published' '
	id=$(cat id) && p=ws/rr-cache/$id/postimage && cp $p postimage.good &&
	rm $p && ln -s "$TRASH/private" $p &&
	run_day 2026-12-03 && test $rc = 1 &&
	tagged next-20261203 &&
	test "$(gpio 2026-12-03 "t[\"status\"]")" = conflict &&
	gpio 2026-12-03 "t[\"resolution_errors\"][0]" >why &&
	grep -q "rr-cache entry .$id. is unusable: refusing .*/postimage.: a symbolic link" why &&
	! git --git-dir=ws/repo.git grep -q SECRET next-20261203 &&
	! grep -rq SECRET ws/days/2026-12-03 &&
	! grep -rq SECRET ws/repo.git/refs
'

test_expect_success 'a FIFO postimage does not hang the run that holds the lock' '
	id=$(cat id) && p=ws/rr-cache/$id/postimage && rm $p && mkfifo $p &&
	run_day 2026-12-04 && test $rc = 1 &&
	tagged next-20261204 &&
	gpio 2026-12-04 "t[\"resolution_errors\"][0]" | grep -q "not a regular file" &&
	run_day 2026-12-05 && test $rc = 1 && tagged next-20261205
'

test_expect_success 'a postimage linked to /dev/zero costs no memory' '
	id=$(cat id) && p=ws/rr-cache/$id/postimage && rm $p && ln -s /dev/zero $p &&
	rc=0 &&
	/usr/bin/time -f %M -o rss timeout 120 "$TIDE_BIN" -C ws -f trees.conf run \
		--date 2026-12-06 --no-build --no-boot >out 2>err || rc=$? &&
	test $rc = 1 && tagged next-20261206 &&
	test "$(tail -n 1 rss)" -lt 400000 &&
	rm $p && cp postimage.good $p &&
	run_day 2026-12-07 && test $rc = 0 &&
	test "$(gpio 2026-12-07 "t[\"handled\"]")" = recorded
'

test_expect_success 'a FIFO day record: run, log, show and dashboard go on' '
	mv ws/days/2026-12-05/day.json day5.json && mkfifo ws/days/2026-12-05/day.json &&
	run_day 2026-12-08 && test $rc = 0 && tagged next-20261208 &&
	timeout 60 "$TIDE_BIN" -C ws log >log 2>logerr &&
	grep -q "^2026-12-05  -  unreadable$" log &&
	grep -q "^2026-12-08  next-20261208  2/2 merged" log &&
	grep -q "^2026-12-01  next-20261201" log &&
	grep -q "warning: refusing .*2026-12-05/day.json.: not a regular file" logerr &&
	rc=0 && timeout 60 "$TIDE_BIN" -C ws show 2026-12-05 >out 2>err || rc=$? &&
	test $rc = 3 && grep -q "not a regular file" err &&
	rc=0 && timeout 60 "$TIDE_BIN" -C ws show --json 2026-12-05 >out 2>err || rc=$? &&
	test $rc = 3 &&
	timeout 60 "$TIDE_BIN" -C ws show 2026-12-08 >out &&
	timeout 60 "$TIDE_BIN" -C ws dashboard >out 2>err &&
	grep -q "1 day record could not be read" err
'

test_expect_success 'a broken earlier day record: tide log lists every other day, exit 0' '
	rm ws/days/2026-12-05/day.json && echo "{ broken" >ws/days/2026-12-05/day.json &&
	tide -C ws log >log 2>logerr &&
	test "$(wc -l <log)" = 8 &&
	grep -q "^2026-12-05  -  unreadable$" log &&
	grep -q "2026-12-05/day.json:1:" logerr &&
	tide -C ws log --changes 2026-12-06 >out &&
	mv day5.json ws/days/2026-12-05/day.json
'

test_expect_success 'a day record linked from outside the workspace is not read' '
	cp ws/days/2026-12-08/day.json outside.json &&
	rm ws/days/2026-12-08/day.json && ln -s "$TRASH/outside.json" ws/days/2026-12-08/day.json &&
	tide -C ws log >log 2>logerr &&
	grep -q "^2026-12-08  -  unreadable$" log && grep -q "a symbolic link" logerr &&
	rm ws/days/2026-12-08/day.json && cp outside.json ws/days/2026-12-08/day.json
'

test_expect_success 'the commit-graph as a link to /dev/zero is rebuilt, not read' '
	g=ws/repo.git/objects/info/tide-commit-graph && test -f $g &&
	rm $g && ln -s /dev/zero $g &&
	rc=0 &&
	/usr/bin/time -f %M -o rss timeout 120 "$TIDE_BIN" -C ws -f trees.conf run \
		--date 2026-12-09 --no-build --no-boot >out 2>err || rc=$? &&
	test $rc = 0 && tagged next-20261209 &&
	test "$(tail -n 1 rss)" -lt 400000 &&
	grep -q "commit-graph.*not a regular file" ws/tide.log &&
	test -f $g && ! test -L $g
'

test_expect_success 'the commit-graph as a FIFO does not hang the run' '
	g=ws/repo.git/objects/info/tide-commit-graph && rm $g && mkfifo $g &&
	run_day 2026-12-10 && test $rc = 0 && tagged next-20261210 &&
	test -f $g && ! test -p $g
'

test_expect_success 'a shared rr-cache branch: a link entry is not imported, a planted link not pushed' '
	id=$(cat id) && git init -q --bare share.git &&
	G="git --git-dir=share.git" &&
	pre=$($G hash-object -w ws/rr-cache/$id/preimage) &&
	link=$(printf "%s" "$TRASH/private" | $G hash-object -w --stdin) &&
	big=$($G hash-object -w --stdin <postimage.good) &&
	sub=$(printf "100644 blob %s\tpreimage\n120000 blob %s\tpostimage\n100644 blob %s\tpostimage.999999999\n" \
		$pre $link $big | $G mktree) &&
	root=$(printf "040000 tree %s\t%s\n" $sub $id | $G mktree) &&
	$G update-ref refs/heads/rerere-cache $($G commit-tree -m shared $root) &&
	rm -rf ws/rr-cache/$id &&
	fake=$(printf "%040d" 7) && mkdir ws/rr-cache/$fake &&
	cp postimage.good ws/rr-cache/$fake/preimage && ln -s "$TRASH/private" ws/rr-cache/$fake/postimage &&
	printf "share=%s/share.git#rerere-cache\n" "$TRASH" >ws/rerere.conf &&
	run_day 2026-12-11 && test $rc = 1 && tagged next-20261211 &&
	test -f ws/rr-cache/$id/preimage && ! test -e ws/rr-cache/$id/postimage &&
	! test -e ws/rr-cache/$id/postimage.999999999 &&
	gpio 2026-12-11 "t[\"resolution_errors\"][0]" | grep -q "is incomplete" &&
	! git --git-dir=ws/repo.git grep -q SECRET next-20261211 &&
	grep -q "pushed recorded resolutions" ws/tide.log &&
	$G ls-tree -r --name-only rerere-cache >pushed &&
	grep -q "^$fake/preimage$" pushed && ! grep -q "^$fake/postimage$" pushed &&
	! $G grep -q SECRET rerere-cache &&
	rm ws/rerere.conf
'

test_expect_success 'the set of trees found good as a FIFO or a link: not read, the day ships' '
	f=ws/repo.git/tide-fsck-trees && test -f $f &&
	rm $f && mkfifo $f &&
	run_day 2026-12-12 && test $rc = 1 && tagged next-20261212 &&
	test -f $f && ! test -p $f &&
	rm $f && ln -s /dev/zero $f &&
	run_day 2026-12-13 && test $rc = 1 && tagged next-20261213 &&
	! test -L $f
'

test_done
