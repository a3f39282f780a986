#!/bin/sh
# Fetch limits no server can extend: a git server that sends a progress
# message every 2 s and never a pack (tests/servers/git-stall-server.py)
# is given up at the tree's timeout= and at the run's fetch-deadline; the
# day goes on and the lock is released.  Bad limits in trees.conf.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

python3 "$TOP/tests/servers/git-stall-server.py" --port-file "$TRASH/stall.port" \
	--log "$TRASH/stall.log" --interval 2 --lifetime 1200 &
STALL_PID=$!
trap 'kill $STALL_PID 2>/dev/null; wait $STALL_PID 2>/dev/null' EXIT
i=0
while ! test -s "$TRASH/stall.port" && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
STALL=http://127.0.0.1:$(cat "$TRASH/stall.port")

# ASan under a loaded machine: generous, yet far below "for ever".
LIMIT=30

test_expect_success 'setup: mainline and a tree' '
	make_mainline &&
	make_tree t1 a "t1" &&
	make_tree t2 b "t2"
'

test_expect_success 'a server sending progress every 2 s is given up at timeout=6' '
	conf "stall git '"$STALL"'/stall.git#for-next" "t1 git t1#for-next" &&
	printf "#tide\tstall\ttimeout=6\n" >>world/trees.conf &&
	start=$(date +%s) &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --no-boot \
		--date 2026-12-01 >out 2>err &&
	took=$(($(date +%s) - start)) && echo "gave up after $took s" &&
	test $took -lt $LIMIT && test $took -ge 6 &&
	mkdir -p "${TIDE_MEASURE:-$TOP/build/measurements}" &&
	echo "$took" >"${TIDE_MEASURE:-$TOP/build/measurements}/t2210-stall-seconds" &&
	grep -q "1 of 2 trees merged, 1 left out" out &&
	test "$(day_field 2026-12-01 "d[\"trees\"][0][\"status\"]")" = fetch-failed &&
	day_field 2026-12-01 "d[\"trees\"][0][\"fetch\"][\"error\"]" >e &&
	grep -q "/stall.git.: timed out after 6 s" e &&
	test "$(day_field 2026-12-01 "d[\"trees\"][1][\"status\"]")" = merged &&
	test $(grep -c "^progress" stall.log) -ge 2 &&
	! grep -q Sanitizer err
'

test_expect_success 'a server gone silent: the blocked fetch is left behind, the run ends' '
	conf "quiet git '"$STALL"'/silent/q.git#for-next" "t1 git t1#for-next" &&
	printf "#tide\tquiet\ttimeout=3\n" >>world/trees.conf &&
	start=$(date +%s) &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --no-boot \
		--date 2026-12-01 >out 2>err &&
	took=$(($(date +%s) - start)) && echo "took $took s" && test $took -lt $LIMIT &&
	grep -q "POST /silent/q.git/git-upload-pack done" stall.log &&
	day_field 2026-12-01 "d[\"trees\"][0][\"fetch\"][\"error\"]" | grep -q "q.git.: timed out after 3 s" &&
	! grep -q Sanitizer err
'

test_expect_success 'the lock was released: the next run is not refused' '
	conf "t1 git t1#for-next" "t2 git t2#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --no-boot --date 2026-12-02 >out 2>err ||
		{ cat err; exit 1; } &&
	grep -q "2 of 2 trees merged" out
'

test_expect_success 'fetch-deadline: the running fetch is cut off, the queued one never starts' '
	conf "t1 git t1#for-next" "stall git '"$STALL"'/a.git#for-next" \
	     "stall2 git '"$STALL"'/b.git#for-next" "t2 git t2#for-next" &&
	printf "#tide\tfetch-deadline=5\n" >>world/trees.conf &&
	start=$(date +%s) &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --no-boot \
		--jobs 1 --date 2026-12-03 >out 2>err &&
	took=$(($(date +%s) - start)) && echo "took $took s" &&
	test $took -lt $LIMIT && test $took -ge 5 &&
	grep -q "2 of 4 trees merged, 2 left out, 1 not fetched (older commit used)" out &&
	day_field 2026-12-03 "d[\"trees\"][1][\"fetch\"][\"error\"]" | grep -q "a.git.: fetch-deadline reached after" &&
	day_field 2026-12-03 "d[\"trees\"][2][\"fetch\"][\"error\"]" |
		grep -q "b.git.: fetch-deadline reached before the fetch started" &&
	test "$(day_field 2026-12-03 "d[\"trees\"][3][\"fetch\"][\"status\"]")" = stale &&
	test "$(day_field 2026-12-03 "d[\"trees\"][0][\"status\"]")" = merged &&
	! grep -q "POST /b.git" stall.log
'


bad() {
	printf "$1" >bad.conf &&
	test_must_fail --status=3 tide -f bad.conf trees 2>err &&
	printf "tide: bad.conf:%s\n" "$2" >expect &&
	test_cmp expect err
}

test_expect_success 'bad limits in trees.conf: one line naming file and line, exit 3' '
	bad "a\tgit\tx\n#tide\ta\ttimeout=abc\n" "2: tree '"'a'"': bad timeout '"'abc'"' (whole seconds, 1 to 86400)" &&
	bad "a\tgit\tx\n#tide\ta\ttimeout=-1\n" "2: tree '"'a'"': bad timeout '"'-1'"' (whole seconds, 1 to 86400)" &&
	bad "a\tgit\tx\n\n#tide\ta\ttimeout=\n" "3: tree '"'a'"': bad timeout '"''"' (whole seconds, 1 to 86400)" &&
	bad "a\tgit\tx\n#tide\ta\ttimeout=99999999999999999999999\n" \
		"2: tree '"'a'"': bad timeout '"'99999999999999999999999'"' (whole seconds, 1 to 86400)" &&
	bad "a\tgit\tx\n#tide\ta\ttimeout=0\n" "2: tree '"'a'"': bad timeout '"'0'"' (whole seconds, 1 to 86400)" &&
	bad "a\tgit\tx\n#tide\ta\tstall=5s\n" "2: tree '"'a'"': bad stall '"'5s'"' (whole seconds, 1 to 86400)" &&
	bad "a\tquilt\tx\n#tide\ta\tmax-size=10X\n" \
		"2: tree '"'a'"': bad max-size '"'10X'"' (bytes, or a number with K, M or G, up to 64G)" &&
	bad "a\tquilt\tx\n#tide\ta\tmax-size=17179869184G\n" \
		"2: tree '"'a'"': bad max-size '"'17179869184G'"' (bytes, or a number with K, M or G, up to 64G)" &&
	bad "a\tquilt\tx\n#tide\ta\tmax-size=\n" \
		"2: tree '"'a'"': bad max-size '"''"' (bytes, or a number with K, M or G, up to 64G)" &&
	bad "#tide\tfetch-deadline=soon\na\tgit\tx\n" "1: bad fetch-deadline '"'soon'"' (whole seconds, 1 to 86400)" &&
	bad "#tide\tfetch-deadline=5\n#tide\tfetch-deadline=6\n" "2: fetch-deadline given twice"
'

test_expect_success 'good limits are accepted' '
	printf "a\tquilt\tx\n#tide\ta\ttimeout=86400\tstall=1\tmax-size=64G\n#tide\tfetch-deadline=600\n" >good.conf &&
	tide -f good.conf trees >out &&
	printf "a\tquilt\tx\n#tide\ta\tmax-size=1k\tmax-size=100\tmax-size=2M\n" >good.conf &&
	tide -f good.conf trees >out
'

test_done
