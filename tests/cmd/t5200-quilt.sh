#!/bin/sh
# Quilt trees over HTTP (tests/servers/http-server.py): the series becomes
# one commit per patch and is merged; a second fetch downloads nothing;
# 404, 500, a hanging server and a patch that does not apply are recorded
# in the tree's record while the day goes on.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TRASH/srv"
python3 "$TOP/tests/servers/http-server.py" --root "$TRASH/srv" --port-file "$TRASH/http.port" \
	--log "$TRASH/http.log" --control "$TRASH/control" &
HTTP_PID=$!
# The same files over HTTPS, with a self-signed certificate for 127.0.0.1.
HTTPS_PID=
if openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TRASH/key.pem" -out "$TRASH/cert.pem" \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -days 2 >/dev/null 2>&1; then
	python3 "$TOP/tests/servers/http-server.py" --root "$TRASH/srv" --port-file "$TRASH/https.port" \
		--log "$TRASH/https.log" --cert "$TRASH/cert.pem" --key "$TRASH/key.pem" &
	HTTPS_PID=$!
	test_set_prereq OPENSSL
fi
trap 'kill $HTTP_PID $HTTPS_PID 2>/dev/null; wait $HTTP_PID $HTTPS_PID 2>/dev/null' EXIT
i=0
while { ! test -s "$TRASH/http.port" || { test -n "$HTTPS_PID" && ! test -s "$TRASH/https.port"; }; } &&
	[ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
URL=http://127.0.0.1:$(cat "$TRASH/http.port")/mm/

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >out 2>err || test $? = 1
}

mm_field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d['trees'] if t['name']=='mm'][0]; print($2)" "ws/days/$1/day.json"
}

test_expect_success 'setup: mainline, a git tree and a quilt series served over HTTP' '
	git init -q -b master main &&
	printf "1\n2\n3\n" > main/f && echo x > main/g &&
	git -C main add f g && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && echo fix >> fixes/g && git -C fixes commit -qam "g: fix" &&
	git clone -q main mmsrc &&
	echo mm1 >> mmsrc/f &&
	GIT_AUTHOR_NAME="Andrew M" GIT_AUTHOR_EMAIL=akpm@ex.org GIT_AUTHOR_DATE="2026-11-30T12:00:00+0000" \
		git -C mmsrc commit -qam "mm: first patch" &&
	echo new > mmsrc/h && git -C mmsrc add h &&
	GIT_AUTHOR_NAME="Other Dev" GIT_AUTHOR_EMAIL=dev@ex.org git -C mmsrc commit -qm "mm: add h" &&
	mkdir -p srv/mm && git -C mmsrc format-patch -q -o ../srv/mm v1 &&
	(cd srv/mm && ls *.patch > series) &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\nmm\tquilt\t%s\n" "$URL" > trees.conf &&
	printf "#tide\tmm\ttimeout=2\n" >> trees.conf
'

test_expect_success 'the quilt tree is fetched over HTTP, applied and merged' '
	run_day 2026-12-01 &&
	test "$(mm_field 2026-12-01 "t[\"status\"]")" = merged &&
	git --git-dir=ws/repo.git log --format="%an|%ae|%s" refs/quilt/mm >log &&
	printf "Other Dev|dev@ex.org|mm: add h\nAndrew M|akpm@ex.org|mm: first patch\nTide Test|test@tide.invalid|base\n" >want &&
	cmp want log &&
	git --git-dir=ws/repo.git log -1 --format=%ad --date=iso-strict refs/quilt/mm~1 | grep -q "^2026-11-30T12:00:00" &&
	git --git-dir=ws/repo.git show next-20261201:h | grep -q new &&
	git --git-dir=ws/repo.git show next-20261201:f | grep -q mm1 &&
	test $(grep -c " 200$" http.log) = 3
'

test_expect_success 'a second fetch of the unchanged series downloads nothing' '
	cp http.log before.log &&
	run_day 2026-12-02 &&
	test "$(mm_field 2026-12-02 "t[\"status\"]")" = merged &&
	tail -n +$(($(wc -l <before.log) + 1)) http.log >new.log &&
	test $(wc -l <new.log) = 3 &&
	test $(grep -c " 304$" new.log) = 3 &&
	grep -q "mm: quilt series: 3 requests, 0 downloaded, 3 not modified" ws/tide.log &&
	test "$(git --git-dir=ws/repo.git rev-parse refs/quilt/mm)" = "$(mm_field 2026-12-02 "t[\"sha\"]")"
'

test_expect_success 'a series naming a missing patch: recorded, older version used, day goes on' '
	echo 0003-missing.patch >> srv/mm/series &&
	run_day 2026-12-03 &&
	mm_field 2026-12-03 "t[\"fetch\"][\"error\"]" >e &&
	test_cmp_str "quilt tree '\''mm'\'': cannot fetch '\''0003-missing.patch'\'' from '\''${URL}0003-missing.patch'\'': HTTP 404" e &&
	test "$(mm_field 2026-12-03 "t[\"fetch\"][\"status\"]")" = stale &&
	python3 -c "import json; d=json.load(open(\"ws/days/2026-12-03/day.json\")); assert d[\"status\"]==\"complete\""
'

test_expect_success 'HTTP 500 is recorded' '
	sed -i "/missing/d" srv/mm/series &&
	echo "500 mm/series" >control &&
	run_day 2026-12-04 &&
	mm_field 2026-12-04 "t[\"fetch\"][\"error\"]" | grep -q "HTTP 500"
'

test_expect_success 'a hanging server times out' '
	echo "hang mm/*" >control &&
	start=$(date +%s) &&
	run_day 2026-12-05 &&
	test $(($(date +%s) - start)) -lt 20 &&
	mm_field 2026-12-05 "t[\"fetch\"][\"error\"]" | grep -qi "timeout\|timed out\|too slow" &&
	: >control
'

test_expect_success 'a patch that does not apply names the series, the patch and the file' '
	sed -i "s/^ 3$/ three/" srv/mm/0001-mm-first-patch.patch &&
	run_day 2026-12-06 &&
	mm_field 2026-12-06 "t[\"fetch\"][\"error\"]" >e &&
	test_cmp_str "quilt tree '\''mm'\'': series '\''${URL}series'\'': patch '\''0001-mm-first-patch.patch'\'' does not apply to '\''f'\'': hunk #1 (@@ -1,3 +1,4 @@): line 3: expected '\''three'\'', found '\''3'\''" e
'

test_expect_success OPENSSL 'https: with the CA named by cainfo= the series is fetched' '
	sed -i "s/^ three$/ 3/" srv/mm/0001-mm-first-patch.patch &&
	printf "#tide\tbase\tmain#v1\nmm\tquilt\thttps://127.0.0.1:%s/mm/\n#tide\tmm\ttimeout=2\n" \
		"$(cat https.port)" > trees.conf &&
	run_day 2026-12-07 &&
	mm_field 2026-12-07 "t[\"fetch\"][\"error\"]" | grep -qi "certificate" &&
	printf "#tide\tmm\tcainfo=cert.pem\n" >> trees.conf &&
	rm -rf ws/quilt/mm &&
	run_day 2026-12-08 &&
	test "$(mm_field 2026-12-08 "t[\"status\"]")" = merged &&
	grep -q "GET /mm/series 200" https.log
'

test_done
