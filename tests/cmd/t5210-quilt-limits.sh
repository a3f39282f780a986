#!/bin/sh
# Quilt servers that try to exhaust tide (tests/servers/http-server.py's
# control modes): a 5 GB Content-Length, a chunked body without a length,
# a redirect loop, a body dribbled a byte a second.  Each gives a clear
# message and exit 1, the day completes with the other trees, tide's
# memory stays small and the previous copy of the file is untouched.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TRASH/srv"
python3 "$TOP/tests/servers/http-server.py" --root "$TRASH/srv" --port-file "$TRASH/http.port" \
	--log "$TRASH/http.log" --control "$TRASH/control" --stream-limit 60 &
HTTP_PID=$!
trap 'kill $HTTP_PID 2>/dev/null; wait $HTTP_PID 2>/dev/null' EXIT
i=0
while ! test -s "$TRASH/http.port" && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
URL=http://127.0.0.1:$(cat "$TRASH/http.port")/mm/
PATCH=0001-mm-first-patch.patch
# Peak RSS (KB) allowed for a whole ASan run: its own baseline is ~30 MB, so
# a 96 MB body held in memory (the chunked test) would pass it.
MAX_RSS_KB=102400

# run_day DATE: in workspace ${WS:-ws}, exit status 1 expected (a tree had problems).
run_day() {
	test_must_fail --status=1 /usr/bin/time -f "%M" -o rss \
		"$TIDE_BIN" -C "${WS:-ws}" -f trees.conf run --date "$1" --no-build --no-boot >out 2>err &&
	rss=$(tail -n 1 rss) && echo "peak RSS $rss KB" && test "$rss" -lt $MAX_RSS_KB
}

mm_field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d['trees'] if t['name']=='mm'][0]; print($2)" "${WS:-ws}/days/$1/day.json"
}

day_ok() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['status'] == 'complete'; assert [t for t in d['trees'] if t['name'] == 'fixes'][0]['status'] == 'merged'" "ws/days/$1/day.json"
}

# The cached copy and its ETag are what day 1 stored.
cache_intact() {
	cmp srv/mm/$PATCH ws/quilt/mm/$PATCH && cmp meta.day1 ws/quilt/mm/.meta/$PATCH &&
	test -z "$(find ws/quilt/mm -name "*.tmp-*")"
}

conf() {
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\nmm\tquilt\t%s\n" "$URL" >trees.conf &&
	for opt in "$@"; do printf "#tide\tmm\t%s\n" "$opt" >>trees.conf; done
}

test_expect_success 'setup: mainline, a git tree, a quilt series; day 1 caches it' '
	git init -q -b master main &&
	printf "1\n2\n3\n" >main/f && echo g >main/g && git -C main add f g &&
	git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && echo fix >>fixes/g && git -C fixes commit -qam "g: fix" &&
	git clone -q main mmsrc && echo new >mmsrc/h && git -C mmsrc add h &&
	git -C mmsrc commit -qm "mm: first patch" &&
	echo mm >>mmsrc/f && git -C mmsrc commit -qam "mm: second patch" &&
	mkdir -p srv/mm && git -C mmsrc format-patch -q -o ../srv/mm v1 &&
	(cd srv/mm && ls *.patch >series) &&
	conf &&
	tide -C ws -f trees.conf run --date 2026-12-01 --no-build --no-boot >out 2>err ||
		{ cat err; exit 1; } &&
	test "$(mm_field 2026-12-01 "t[\"status\"]")" = merged &&
	cp ws/quilt/mm/.meta/$PATCH meta.day1
'

test_expect_success 'a 5 GB Content-Length: refused at once by max-size, memory stays small' '
	echo "huge mm/$PATCH" >control &&
	start=$(date +%s) &&
	run_day 2026-12-02 &&
	test $(($(date +%s) - start)) -lt 30 &&
	mkdir -p "${TIDE_MEASURE:-$TOP/build/measurements}" &&
	tail -n 1 rss >"${TIDE_MEASURE:-$TOP/build/measurements}/t5210-huge-rss-kb" &&
	printf "%s\n" "tide: quilt tree '"'mm'"': '"'$URL$PATCH'"': larger than max-size 256M" >expect &&
	mm_field 2026-12-02 "\"tide: \" + t[\"fetch\"][\"error\"]" >actual &&
	test_cmp expect actual &&
	test "$(mm_field 2026-12-02 "t[\"fetch\"][\"status\"]")" = stale &&
	day_ok 2026-12-02 && cache_intact &&
	sent=$(sed -n "s|^sent \([0-9]*\) /mm/$PATCH$|\1|p" http.log | tail -n 1) &&
	echo "server sent $sent bytes" && test "$sent" -lt 104857600
'

test_expect_success 'a chunked body without a length stops at max-size; streamed, not held' '
	echo "chunked mm/$PATCH" >control &&
	conf max-size=96M &&
	run_day 2026-12-03 &&
	mm_field 2026-12-03 "t[\"fetch\"][\"error\"]" | grep -q "larger than max-size 96M" &&
	day_ok 2026-12-03 && cache_intact &&
	sent=$(sed -n "s|^sent \([0-9]*\) /mm/$PATCH$|\1|p" http.log | tail -n 1) &&
	echo "server sent $sent bytes" && test "$sent" -ge 100663296
'

test_expect_success 'a redirect loop stops after 5 redirects' '
	echo "loop mm/$PATCH" >control &&
	conf &&
	: >http.log &&
	run_day 2026-12-04 &&
	mm_field 2026-12-04 "t[\"fetch\"][\"error\"]" | grep -q "Maximum (5) redirects followed" &&
	test $(grep -c "GET /mm/$PATCH 302" http.log) = 6 &&
	day_ok 2026-12-04 && cache_intact
'

test_expect_success 'a body dribbled a byte a second is given up at timeout=' '
	echo "dribble mm/$PATCH" >control &&
	conf timeout=3 &&
	start=$(date +%s) &&
	run_day 2026-12-05 &&
	took=$(($(date +%s) - start)) && echo "took $took s" && test $took -lt 30 &&
	mm_field 2026-12-05 "t[\"fetch\"][\"error\"]" | grep -q "/mm/$PATCH.: timed out after 3 s" &&
	day_ok 2026-12-05 && cache_intact
'

test_expect_success 'fetch-deadline cuts a quilt transfer short of its timeout=' '
	echo "dribble mm/$PATCH" >control &&
	conf &&
	printf "#tide\tfetch-deadline=4\n" >>trees.conf &&
	start=$(date +%s) &&
	run_day 2026-12-05 &&
	took=$(($(date +%s) - start)) && echo "took $took s" && test $took -lt 30 &&
	mm_field 2026-12-05 "t[\"fetch\"][\"error\"]" | grep -q "/mm/$PATCH.: fetch-deadline reached" &&
	day_ok 2026-12-05 && cache_intact
'

test_expect_success 'a patch that does not apply is patch-failed, not "not fetched"' '
	: >control &&
	conf && WS=ws2 &&
	sed -i "s/^ 3$/ three/" srv/mm/0002-mm-second-patch.patch &&
	run_day 2026-12-06 &&
	test "$(mm_field 2026-12-06 "t[\"status\"]")" = patch-failed &&
	mm_field 2026-12-06 "t[\"fetch\"][\"error\"]" >e && cat e &&
	msg="quilt tree '\''mm'\'': series '\''${URL}series'\'': patch '\''0002-mm-second-patch.patch'\'' does not apply to '\''f'\'': hunk #1 (@@ -1,3 +1,4 @@): line 3: expected '\''three'\'', found '\''3'\''" &&
	test_cmp_str "$msg" e &&
	grep -qxF "tide: mm: patch failed to apply, left out: $msg" err &&
	! grep -q "not fetched" err out &&
	tide -C ws2 show 2026-12-06 >show && grep -q "^  mm *patch-failed" show
'

test_expect_success 'with an older commit to use, the summary says the patch did not apply' '
	run_day 2026-12-07 &&
	grep -q "2 of 2 trees merged, 1 with a patch that does not apply (older commit used)" out &&
	grep -q "mm: a patch failed to apply, using its commit of next-20261205" err &&
	test "$(mm_field 2026-12-07 "t[\"fetch\"][\"status\"]")" = stale
'

# Stop the server before test_done removes the directory it logs into.
kill $HTTP_PID 2>/dev/null; wait $HTTP_PID 2>/dev/null
test_done
