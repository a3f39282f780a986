#!/bin/sh
# A password in a tree's URL is used to fetch and written nowhere: not on
# stderr or stdout, not in tide.log, day.json, reports or Next/Trees,
# whatever way the fetch fails: refused, timeout=, stall=, a server gone
# silent, fetch-deadline (running and queued), HTTP errors and redirect
# loops from libgit2, quilt downloads failing in libcurl, the base, a
# rerere share URL, a kcidb-submit URL.  Servers on 127.0.0.1:
# tests/servers/git-stall-server.py and http-server.py.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

PW=Pa55w0rd-LEAK-7f3e
mkdir -p "$TRASH/srv/q"
python3 "$TOP/tests/servers/git-stall-server.py" --port-file "$TRASH/stall.port" \
	--log "$TRASH/stall.log" --interval 1 --lifetime 1200 &
STALL_PID=$!
python3 "$TOP/tests/servers/http-server.py" --root "$TRASH/srv" --port-file "$TRASH/http.port" \
	--log "$TRASH/http.log" --control "$TRASH/control" --stream-limit 20 &
HTTP_PID=$!
trap 'kill $STALL_PID $HTTP_PID 2>/dev/null; wait $STALL_PID $HTTP_PID 2>/dev/null' EXIT
i=0
while { ! test -s "$TRASH/stall.port" || ! test -s "$TRASH/http.port"; } && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
STALL=http://alice:$PW@127.0.0.1:$(cat "$TRASH/stall.port")
HTTP=http://alice:$PW@127.0.0.1:$(cat "$TRASH/http.port")
printf "%s\n" "hang hang/*" "huge huge/*" "loop loop.git/*" "500 broken.git/*" >"$TRASH/control"

# no_password FILE...: none of the files (nor anything under ws) holds $PW.
no_password() {
	if grep -r -a -l "$PW" ws "$@"; then
		echo "the password is in the files above"
		return 1
	fi
}

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

test_expect_success 'every way a fetch fails: no password in the record, the workspace or any output' '
	mkdir -p srv/q srv/huge && echo "0001-x.patch" >srv/q/series && echo "0001-x.patch" >srv/huge/series &&
	conf "t1 git t1#for-next" \
	     "slow git $STALL/slow.git#for-next" \
	     "stalled git $STALL/stalled.git#for-next" \
	     "silent git $STALL/silent/s.git#for-next" \
	     "gone git $HTTP/gone.git#for-next" \
	     "broken git $HTTP/broken.git#for-next" \
	     "loop git $HTTP/loop.git#for-next" \
	     "qgone quilt $HTTP/qgone/" \
	     "qhang quilt $HTTP/hang/" \
	     "qhuge quilt $HTTP/huge/" &&
	printf "#tide\tslow\ttimeout=3\n#tide\tstalled\tstall=2\n#tide\tsilent\ttimeout=3\n" >>world/trees.conf &&
	printf "#tide\tqhang\ttimeout=2\n#tide\tqhuge\tmax-size=1K\n" >>world/trees.conf &&
	printf "share=%s/rerere.git#rr\n" "$HTTP" >ws/rerere.conf &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --jobs 8 \
		--date 2026-12-03 >out 2>err &&
	grep -q "1 of 10 trees merged, 9 left out" out &&
	for t in 1 2 3 4 5 6 7 8 9; do
		day_field 2026-12-03 "d[\"trees\"][$t][\"name\"], d[\"trees\"][$t][\"fetch\"][\"error\"]"
	done >errors &&
	cat errors &&
	grep -q "^slow .*alice:\*\*\*@127.0.0.1:[0-9]*/slow.git.: timed out after 3 s" errors &&
	grep -q "^stalled .*alice:\*\*\*@127.0.0.1:[0-9]*/stalled.git.: no data for 2 s" errors &&
	grep -q "^silent .*alice:\*\*\*@.*timed out after 3 s" errors &&
	grep -q "^gone .*404" errors && grep -q "^broken .*500" errors && grep -q "^loop .*redirect" errors &&
	grep -q "^qgone .*alice:\*\*\*@.*HTTP 404" errors &&
	grep -q "^qhang .*alice:\*\*\*@.*hang/series.: timed out after 2 s" errors &&
	grep -q "^qhuge .*alice:\*\*\*@.*larger than max-size 1K" errors &&
	grep -q "recorded resolutions: .*alice:\*\*\*@" ws/tide.log &&
	rm ws/rerere.conf &&
	no_password out err errors
'

test_expect_success 'fetch-deadline: the running fetch, the queued one, a quilt tree after it' '
	conf "slow git $STALL/slow.git#for-next" "queued git $STALL/queued.git#for-next" \
	     "late quilt $HTTP/q/" "t1 git t1#for-next" &&
	printf "#tide\tfetch-deadline=3\n" >>world/trees.conf &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --jobs 1 \
		--date 2026-12-04 >out 2>err &&
	for t in 0 1 2; do
		day_field 2026-12-04 "d[\"trees\"][$t][\"name\"], d[\"trees\"][$t][\"fetch\"][\"error\"]"
	done >errors &&
	cat errors &&
	grep -q "^slow .*alice:\*\*\*@.*slow.git.: fetch-deadline reached after" errors &&
	grep -q "^queued .*alice:\*\*\*@.*queued.git.: fetch-deadline reached before the fetch started" errors &&
	grep -q "^late .*alice:\*\*\*@.*fetch-deadline reached" errors &&
	no_password out err errors
'

test_expect_success 'a base behind a password that cannot be fetched (a new workspace): the message is redacted' '
	conf "t1 git t1#for-next" &&
	sed -i "s|^#tide\tbase\t.*|#tide\tbase\t$STALL/base.git#v1.0|" world/trees.conf &&
	printf "#tide\tfetch-deadline=2\n" >>world/trees.conf &&
	test_must_fail --status=3 tide -C ws2 -f world/trees.conf run --no-build --date 2026-12-05 >out 2>err &&
	cat err &&
	grep -q "^tide: base tag .v1.0. not found in .http://alice:\*\*\*@127.0.0.1:[0-9]*/base.git.$" err &&
	grep -q "alice:\*\*\*@127.0.0.1" ws2/tide.log &&
	no_password out err ws2
'

test_expect_success 'a kcidb-submit URL and an SMTP URL with a password: redacted or refused' '
	test_must_fail --status=1 tide -C ws kcidb --submit "http://alice:$PW@127.0.0.1:$(cat port)/" \
		2026-12-03 >out 2>err &&
	grep -q "alice:\*\*\*@127.0.0.1" err &&
	printf "smtp=smtp://alice:%s@127.0.0.1:%s\nfrom=next@tide.example\n" "$PW" "$(cat port)" >ws/mail.conf &&
	test_must_fail tide -C ws -f world/trees.conf report 2026-12-03 --mail >>out 2>>err &&
	rm ws/mail.conf &&
	no_password out err
'

test_expect_success 'show, log, report, reproducer and the dashboard: no password' '
	tide -C ws show 2026-12-03 >show 2>&1 &&
	tide -C ws show 2026-12-04 --json >show.json 2>&1 &&
	tide -C ws log >log 2>&1 &&
	tide -C ws log --changes 2026-12-04 >changes 2>&1 &&
	{ tide -C ws report 2026-12-03 >report 2>&1 || test $? = 1; } &&
	tide -C ws -f world/trees.conf reproducer 2026-12-03 >repro 2>&1 &&
	tide -C ws dashboard >dash 2>&1 &&
	grep -q "alice:\*\*\*@" show &&
	test -f ws/dashboard/index.html &&
	grep -r -q "alice:\*\*\*@" ws/dashboard &&
	no_password show show.json log changes report repro dash
'

test_expect_success 'a record written before messages were redacted: show and the dashboard redact it' '
	python3 -c "import json,sys; p=sys.argv[1]; d=json.load(open(p)); d[\"trees\"][1][\"fetch\"][\"error\"]=\"'"'"'$STALL/slow.git'"'"': timed out after 3 s\"; json.dump(d, open(p, \"w\"))" \
		ws/days/2026-12-03/day.json &&
	grep -q "$PW" ws/days/2026-12-03/day.json &&
	tide -C ws show 2026-12-03 >show 2>&1 &&
	rm -rf ws/dashboard && tide -C ws dashboard >dash 2>&1 &&
	grep -q "alice:\*\*\*@127.0.0.1:[0-9]*/slow.git.: timed out after 3 s" show &&
	! grep -r -a -l "$PW" show dash ws/dashboard
'

test_done
