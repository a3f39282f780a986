#!/bin/sh
# A password in a tree's URL is used to fetch and written nowhere: not on
# stderr or stdout, not in tide.log, day.json, reports or Next/Trees.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

# A local port nothing listens on: the fetch fails at once.
closed_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

test_expect_success 'setup: mainline, a tree, a tree behind a URL with a password' '
	make_mainline &&
	make_tree t1 a "t1" &&
	port=$(closed_port) &&
	conf "t1 git t1#for-next" "sec git https://alice:SECRETTOKEN@127.0.0.1:$port/sec.git#for-next" &&
	echo "$port" >port
'

test_expect_success 'the run fails the tree; no output says the password' '
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	grep -q "sec" err &&
	! grep SECRETTOKEN out err &&
	grep -q "alice:\*\*\*@127.0.0.1" err &&
	tide -C ws show 2026-12-01 >show 2>&1 &&
	tide -C ws log >log 2>&1 &&
	tide -f world/trees.conf trees >trees 2>&1 &&
	tide -f world/trees.conf trees --json >trees.json 2>&1 &&
	! grep SECRETTOKEN show log trees trees.json &&
	grep -q "https://alice:\*\*\*@127.0.0.1" trees
'

test_expect_success 'nothing in the workspace holds the password' '
	test -f ws/tide.log && test -f ws/days/2026-12-01/day.json &&
	! grep -r -a SECRETTOKEN ws &&
	test "$(day_field 2026-12-01 "d[\"trees\"][1][\"url\"]")" = "https://alice:***@127.0.0.1:$(cat port)/sec.git" &&
	day_field 2026-12-01 "d[\"trees\"][1][\"fetch\"][\"error\"]" >fetch-error &&
	! grep SECRETTOKEN fetch-error
'

test_expect_success 'Next/Trees names the URL without any userinfo' '
	git -C ws/repo.git show next-20261201:Next/Trees >trees &&
	grep -q "^sec		git	https://127.0.0.1:$(cat port)/sec.git#for-next$" trees &&
	! grep -q alice trees &&
	git -C ws/repo.git log -p --all >history &&
	! grep SECRETTOKEN history
'

# FETCH_HEAD keeps the URL exactly as given: a fetch that succeeded with a
# password would leave it in the workspace.  tide does not write it.
test_expect_success 'a successful fetch leaves no FETCH_HEAD with the URL in it' '
	conf "t1 git t1#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	! grep "world/t1" ws/repo.git/FETCH_HEAD 2>/dev/null
'

test_done
