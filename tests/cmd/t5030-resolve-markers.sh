#!/bin/sh
# Resolutions as git makes them (issue 39, item 8): conflict markers of
# the size .gitattributes gives (git.git sets conflict-marker-size=32 for
# its test scripts, which hold 7-character marker lines as text) in the
# day's report, the resolve worktree and the rr-cache preimage, with
# git rerere's id; --record refuses git's 32-character markers; modes
# are kept; tide resolve says when a resolution is already recorded.
. "$(dirname "$0")/lib.sh"

M32='<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<'

# t/t1.sh (executable) holds a here-document of 7-character marker lines;
# fixes and gpio change its line "3".
setup_world() {
	git init -q -b master main && mkdir main/t &&
	echo "t/*.sh conflict-marker-size=32" >main/.gitattributes &&
	printf 'cat <<EOF\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\nEOF\n1\n2\n3\n4\n' >main/t/t1.sh &&
	chmod +x main/t/t1.sh &&
	git -C main add . && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && git clone -q main gpio &&
	sed -i "s/^3$/three-fixes/" fixes/t/t1.sh && git -C fixes commit -qam "t1: fix three" &&
	sed -i "s/^3$/three-gpio/" gpio/t/t1.sh && git -C gpio commit -qam "t1: gpio three" &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#master\n" >trees.conf
}

run_day() {
	rc=0
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >out 2>err || rc=$?
}

gpio() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d['trees'] if t['name']=='gpio'][0]; print($2)" "ws/days/$1/day.json"
}

test_expect_success 'setup: git merges the two with 32-character markers, rerere records' '
	setup_world &&
	git clone -q fixes plain && git -C plain config rerere.enabled true &&
	git -C plain fetch -q ../gpio master &&
	test_must_fail git -C plain merge -q FETCH_HEAD >/dev/null 2>&1 &&
	grep -q "^$M32 HEAD$" plain/t/t1.sh &&
	ls plain/.git/rr-cache >git-id && test "$(wc -l <git-id)" = 1
'

test_expect_success 'the day records hunks with the markers git writes' '
	run_day 2026-12-01 && test $rc = 1 &&
	test "$(gpio 2026-12-01 "t[\"status\"]")" = conflict &&
	gpio 2026-12-01 "t[\"conflicts\"][0][\"hunks\"][0]" >hunk &&
	head -n 1 hunk | grep -q "^$M32 next-20261201$" &&
	grep -q "^>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>>> gpio/master$" hunk &&
	tide -C ws report 2026-12-01 >report &&
	grep -q "^  $M32 next-20261201$" report &&
	grep -q "rerere id $(cut -c1-12 git-id))" report
'

test_expect_success 'tide resolve: the executable stays one, markers and preimage as git has them' '
	tide -C ws -f trees.conf resolve gpio >out &&
	grep -q "1 conflicted file" out &&
	test -x ws/resolve/gpio/t/t1.sh &&
	grep -q "^$M32 next-20261201$" ws/resolve/gpio/t/t1.sh &&
	grep -q "^<<<<<<< HEAD$" ws/resolve/gpio/t/t1.sh &&
	test "$(ls ws/resolve/gpio/.git/rr-cache)" = "$(cat git-id)" &&
	test_cmp plain/.git/rr-cache/$(cat git-id)/preimage \
		ws/resolve/gpio/.git/rr-cache/$(cat git-id)/preimage
'

test_expect_success 'resolve --record refuses git.git-sized markers left in the file' '
	test_must_fail --status=3 tide -C ws -f trees.conf resolve --record gpio 2>err &&
	grep -q "t/t1.sh. still has conflict markers (32 characters long, its conflict-marker-size)" err &&
	! test -d ws/rr-cache/$(cat git-id) &&
	test -d ws/resolve/gpio
'

test_expect_success 'a fix that keeps the 7-character text is recorded under git rerere id' '
	printf "cat <<EOF\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> b\nEOF\n1\n2\nthree-both\n4\n" \
		>ws/resolve/gpio/t/t1.sh &&
	tide -C ws -f trees.conf resolve --record gpio >out &&
	echo "gpio: recorded resolution $(cat git-id) for t/t1.sh" >expect &&
	test_cmp expect out &&
	test_cmp plain/.git/rr-cache/$(cat git-id)/preimage ws/rr-cache/$(cat git-id)/preimage
'

test_expect_success 'the next day replays it: no marker and the mode in next-DATE' '
	run_day 2026-12-02 && test $rc = 0 &&
	test "$(gpio 2026-12-02 "t[\"handled\"]")" = recorded &&
	git --git-dir=ws/repo.git show next-20261202:t/t1.sh >t1 &&
	grep -q "^three-both$" t1 && ! grep -q "^<<<<<<<<" t1 &&
	grep -q "^<<<<<<< HEAD$" t1 &&
	git --git-dir=ws/repo.git ls-tree next-20261202 t/t1.sh | grep -q "^100755 "
'

test_expect_success 'git rerere replays what tide recorded' '
	git -C plain merge --abort && rm -rf plain/.git/rr-cache &&
	cp -r ws/rr-cache plain/.git/rr-cache &&
	{ git -C plain merge -q FETCH_HEAD >/dev/null 2>&1 || :; } &&
	grep -q "^three-both$" plain/t/t1.sh && ! grep -q "^<<<<<<<<" plain/t/t1.sh
'

test_expect_success 'tide resolve says a resolution is recorded and what it changes' '
	tide -C ws -f trees.conf resolve gpio --date 2026-12-01 >out &&
	grep -q "^gpio: t/t1.sh: already resolved by recorded resolution $(cat git-id), which the next run applies; --record replaces it. It changes:$" out &&
	grep -q "^    -$M32 next-20261201$" out &&
	grep -q "^    +three-both$" out &&
	grep -q "1 conflicted file" out
'

test_expect_success 'and when the recorded one no longer applies' '
	id=$(cat git-id) &&
	printf "something else entirely\n" >ws/rr-cache/$id/preimage &&
	tide -C ws -f trees.conf resolve gpio --date 2026-12-01 >out &&
	grep -q "^gpio: t/t1.sh: recorded resolution $id does not apply: recorded resolution .$id. no longer applies; --record adds a variant for this conflict$" out
'

test_done
