#!/bin/sh
# Fetching: git://, file://, missing branches and URLs, the last day's SHA.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

daemon_pid= http_pid= hang_pid=
stop_daemon() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	[ -n "$http_pid" ] && kill "$http_pid" 2>/dev/null
	[ -n "$hang_pid" ] && kill "$hang_pid" 2>/dev/null
}
trap stop_daemon EXIT

free_port() {
	python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])"
}

test_expect_success 'setup: mainline, trees, a git daemon on 127.0.0.1' '
	make_mainline &&
	make_tree t1 a "t1" &&
	make_tree t2 b "t2" &&
	mkdir srv &&
	git clone -q --bare world/t2 srv/t2.git &&
	git clone -q --bare world/t1 srv/t1.git
'

# The daemon must outlive the subshell of one test, so it starts here.
port=$(free_port)
git daemon --reuseaddr --listen=127.0.0.1 --port="$port" --export-all \
	--base-path="$TRASH/srv" --pid-file="$TRASH/daemon.pid" "$TRASH/srv" \
	>"$TRASH/daemon.log" 2>&1 &
daemon_pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	git ls-remote "git://127.0.0.1:$port/t2.git" >/dev/null 2>&1 && break
	sleep 0.3
done

test_expect_success 'trees are fetched from git:// and file://' '
	conf "t2 git git://127.0.0.1:'"$port"'/t2.git#for-next" \
	     "t1 git file://$TRASH/world/t1#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 --jobs 2 >out 2>err ||
		{ cat err; exit 1; } &&
	grep -q "2 of 2 trees merged" out &&
	test "$(git -C ws/repo.git rev-parse refs/remotes/t2/for-next)" = "$(git -C srv/t2.git rev-parse for-next)" &&
	test "$(day_field 2026-12-01 "d[\"trees\"][0][\"fetch\"][\"status\"]")" = ok &&
	git -C ws/repo.git show next-20261201:b >b && test "$(cat b)" = t2
'

# Smart HTTP: git-http-backend as a CGI of python's http.server (which
# runs CGIs as nobody when started as root, hence safe.directory).
hport=$(free_port)
mkdir -p "$TRASH/http/cgi-bin"
cat >"$TRASH/http/cgi-bin/git" <<EOS
#!/bin/sh
GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*' \\
GIT_PROJECT_ROOT="$TRASH/srv" GIT_HTTP_EXPORT_ALL=1 exec /usr/lib/git-core/git-http-backend
EOS
chmod 755 "$TRASH/http/cgi-bin/git" "$TRASH/http/cgi-bin" "$TRASH/http" "$TRASH"
(cd "$TRASH/http" && exec python3 -m http.server --cgi --bind 127.0.0.1 "$hport" >"$TRASH/http.log" 2>&1) &
http_pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	git ls-remote "http://127.0.0.1:$hport/cgi-bin/git/t1.git" >/dev/null 2>&1 && break
	sleep 0.3
done

test_expect_success 'trees are fetched over smart HTTP' '
	conf "t1 git http://127.0.0.1:'"$hport"'/cgi-bin/git/t1.git#for-next" &&
	tide -C wsh -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err ||
		{ cat err; exit 1; } &&
	grep -q "1 of 1 trees merged" out &&
	grep -q "POST /cgi-bin/git/t1.git/git-upload-pack" http.log &&
	test "$(git -C wsh/repo.git rev-parse refs/remotes/t1/for-next)" = "$(git -C srv/t1.git rev-parse for-next)"
'

# A server that accepts connections and never answers.
hang_port=$(free_port)
python3 -c "
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', int(sys.argv[1]))); s.listen(16)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
" "$hang_port" &
hang_pid=$!
# Until it listens: python alone takes over a second to start on a loaded machine.
python3 -c "
import socket, sys, time
for i in range(300):
    try:
        socket.create_connection(('127.0.0.1', int(sys.argv[1])), 1).close()
        break
    except OSError:
        time.sleep(0.1)
" "$hang_port"

test_expect_success 'a server that hangs is given up after its timeout; the day goes on' '
	conf "hang git git://127.0.0.1:'"$hang_port"'/x.git#for-next" "t1 git t1#for-next" "t2 git t2#for-next" &&
	printf "#tide\thang\ttimeout=2\n" >>world/trees.conf &&
	start=$(date +%s) &&
	test_must_fail --status=1 tide -C wsto -f world/trees.conf run --no-build --jobs 1 --date 2026-12-01 >out 2>err &&
	test $(($(date +%s) - start)) -lt 30 &&
	grep -q "2 of 3 trees merged, 1 left out" out &&
	WS=wsto && test "$(day_field 2026-12-01 "d[\"trees\"][0][\"status\"]")" = fetch-failed &&
	day_field 2026-12-01 "d[\"trees\"][0][\"fetch\"][\"error\"]" | grep -q "timed out after 2 s" &&
	! grep -q "Sanitizer" err
'

test_expect_success 'kill -9 during a slow fetch leaves the earlier day intact' '
	WS=wsto && cp wsto/days/2026-12-01/day.json day1.json &&
	tag1=$(git -C wsto/repo.git rev-parse next-20261201) &&
	sed -i "s/timeout=2/timeout=60/" world/trees.conf &&
	{ "$TIDE_BIN" -C wsto -f world/trees.conf run --no-build --date 2026-12-02 >/dev/null 2>&1 & pid=$!; } &&
	sleep 2 && kill -9 $pid && { wait $pid; rc=$?; test $rc = 137; } &&
	cmp day1.json wsto/days/2026-12-01/day.json &&
	test "$(git -C wsto/repo.git rev-parse next-20261201)" = "$tag1" &&
	test ! -e wsto/days/2026-12-02 &&
	! git -C wsto/repo.git rev-parse -q --verify next-20261202 &&
	sed -i "s/timeout=60/timeout=1/" world/trees.conf &&
	{ test_must_fail --status=1 tide -C wsto -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err || { cat err; exit 1; }; } &&
	test -z "$(ls -A wsto/days | grep "^\.tmp-")"
'

test_expect_success 'a missing branch and a missing URL are recorded by name; the day goes on' '
	make_tree t3 d/z "t3" &&
	conf "t1 git t1#for-next" "nob git t3#no-such-branch" "nourl git does-not-exist#for-next" \
	     "nohost git git://127.0.0.1:'"$port"'/missing.git#for-next" "t3 git t3#for-next" &&
	WS=ws2 &&
	test_must_fail --status=1 tide -C ws2 -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	grep -q "2 of 5 trees merged, 3 left out" out &&
	test "$(day_field 2026-12-01 "d[\"trees\"][1][\"status\"]")" = fetch-failed &&
	day_field 2026-12-01 "d[\"trees\"][1][\"fetch\"][\"error\"]" | grep -q "refs/heads/no-such-branch" &&
	day_field 2026-12-01 "d[\"trees\"][2][\"fetch\"][\"error\"]" | grep -q "does-not-exist" &&
	test "$(day_field 2026-12-01 "d[\"trees\"][3][\"fetch\"][\"status\"]")" = failed &&
	# The fetches run side by side: their lines come in any order.
	grep "^tide: fetch .* failed" err | sort >actual &&
	cat >expect <<-EOF &&
	tide: fetch nob failed: '\''refs/heads/no-such-branch'\'' not found in '\''$TRASH/world/t3'\''
	tide: fetch nohost failed: cannot reach '\''git://127.0.0.1:'"$port"'/missing.git'\'': remote error: access denied or repository not exported: /missing.git
	tide: fetch nourl failed: repository '\''$TRASH/world/does-not-exist'\'' does not exist
	EOF
	test_cmp expect actual &&
	tide -C ws2 show >show && grep -q "^  nourl *fetch-failed" show &&
	git -C ws2/repo.git show next-20261201:d/z >z && test "$(cat z)" = t3
'

test_expect_success 'an unreachable tree is merged at its commit of the last day it merged' '
	old=$(git -C world/t1 rev-parse for-next) && WS=ws3 &&
	conf "t1 git t1#for-next" "t3 git t3#for-next" &&
	tide -C ws3 -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	commit_file world/t1 a "t1 v2" &&
	conf "t1 git moved-away#for-next" "t3 git t3#for-next" &&
	test_must_fail --status=1 tide -C ws3 -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	grep -q "2 of 2 trees merged, 1 not fetched (older commit used)" out &&
	test "$(day_field 2026-12-02 "d[\"trees\"][0][\"fetch\"][\"status\"]")" = stale &&
	day_field 2026-12-02 "d[\"trees\"][0][\"fetch\"][\"error\"]" | grep -q moved-away &&
	test "$(day_field 2026-12-02 "d[\"trees\"][0][\"sha\"]")" = "$old" &&
	test "$(day_field 2026-12-02 "d[\"trees\"][0][\"status\"]")" = merged &&
	git -C ws3/repo.git show next-20261202:a >a && test "$(cat a)" = t1 &&
	grep -q "using its commit of next-20261201" err
'

test_expect_success 'without an earlier day there is nothing to fall back to' '
	conf "t9 git gone#for-next" "t3 git t3#for-next" && WS=ws3 &&
	test_must_fail --status=1 tide -C ws3 -f world/trees.conf run --no-build --date 2026-12-03 >out 2>err &&
	test "$(day_field 2026-12-03 "d[\"trees\"][0][\"status\"]")" = fetch-failed &&
	test "$(day_field 2026-12-03 "d[\"trees\"][0][\"sha\"]")" = None
'

test_expect_success 'an unreachable base with its tag fetched earlier still makes a day' '
	mv world/mainline world/mainline.gone &&
	conf "t3 git t3#for-next" &&
	tide -C ws3 -f world/trees.conf run --no-build --date 2026-12-04 >out 2>err;
	rc=$? && mv world/mainline.gone world/mainline && test $rc = 0 &&
	grep -q "fetched earlier" err
'

test_expect_success 'an unreachable base without the tag is an error naming it' '
	conf "t3 git t3#for-next" &&
	sed "s|mainline#|nomainline#|" world/trees.conf >world/nobase.conf &&
	test_must_fail --status=3 tide -C ws4 -f world/nobase.conf run --no-build --date 2026-12-01 2>err &&
	grep -q "nomainline" err && test ! -e ws4/days/2026-12-01
'

test_done
