#!/bin/sh
# tide kcidb --submit against a KCIDB-REST stand-in on 127.0.0.1
# (tests/servers/kcidb-server.py): the bearer token from a file and never
# in a message; a server that answers 502 or hangs keeps the documents in
# the spool, and the next --submit sends them, oldest first.  A document
# the server rejects (400) goes to DIR/kcidb-rejected and the others are
# sent; kcidb-timeout bounds the whole submission.
. "$(dirname "$0")/lib.sh"

export GIT_AUTHOR_DATE="2026-12-01T00:00:00Z" GIT_COMMITTER_DATE="2026-12-01T00:00:00Z"
printf 's3cret-token-XYZ\n' >"$TRASH/token"
python3 "$TOP/tests/servers/kcidb-server.py" --port-file "$TRASH/port" --log "$TRASH/server.log" \
	--out-dir "$TRASH/got" --token-file "$TRASH/token" --control "$TRASH/control" --hang-limit 20 &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null' EXIT
i=0
while ! test -s "$TRASH/port" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
URL=http://127.0.0.1:$(cat "$TRASH/port")
VALIDATE=$TOP/tests/data/kcidb/validate.py

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

test_expect_success 'setup: two days' '
	git init -q -b master main &&
	echo a >main/f && git -C main add f && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main net && echo b >net/g && git -C net add g && git -C net commit -qm "net: g" &&
	printf "#tide\tbase\tmain#v1\nnet\tgit\tnet#master\n" >trees.conf &&
	run_day 2026-12-01 && run_day 2026-12-02
'

test_expect_success 'a submission carries the token and the document' '
	tide -C ws kcidb --submit "$URL" --token-file token 2026-12-01 >out 2>err &&
	echo "kcidb: 1 document sent" >expect && test_cmp expect out &&
	echo "POST /submit 200 auth=ok" >expect && test_cmp expect server.log &&
	"$VALIDATE" got/1.json &&
	grep -q "\"id\": *\"tide:next-20261201\"" got/1.json &&
	! ls ws/kcidb-spool/*.json 2>/dev/null
'

test_expect_success 'a wrong token is refused and the document stays spooled; the token is in no message' '
	printf "wrong-token\n" >bad-token &&
	test_must_fail --status=1 tide -C ws kcidb --submit "$URL" --token-file bad-token 2026-12-02 >out 2>err &&
	cat >expect <<-EOF &&
	tide: cannot submit next-20261202.json to $URL/submit: HTTP 401: ok
	tide: 0 documents sent, 1 kept in $TRASH/ws/kcidb-spool for the next --submit
	EOF
	test_cmp expect err &&
	test -f ws/kcidb-spool/next-20261202.json &&
	! grep -q "wrong-token\|s3cret" err out ws/tide.log 2>/dev/null
'

test_expect_success 'a server answering 502 keeps the spool; its answer is cleaned of control characters' '
	echo 502 >control &&
	test_must_fail --status=1 tide -C ws kcidb --submit "$URL" --token-file token 2026-12-01 2>err &&
	grep -q "HTTP 502: Bad Gateway?\[31m$" err &&
	ls ws/kcidb-spool >actual &&
	printf "next-20261201.json\nnext-20261202.json\n" >expect && test_cmp expect actual
'

test_expect_success 'a server that hangs is given up after --timeout, the spool kept' '
	echo hang >control &&
	start=$(date +%s) &&
	test_must_fail --status=1 tide -C ws kcidb --submit "$URL" --token-file token --timeout 2 2>err &&
	test $(( $(date +%s) - start )) -lt 15 &&
	grep -q "cannot submit next-20261201.json to .*: [A-Za-z]* timed out after 2" err &&
	test $(ls ws/kcidb-spool | wc -l) = 2
'

test_expect_success 'the next submission sends everything spooled, oldest first' '
	rm -f control && : >server.log &&
	tide -C ws kcidb --submit "$URL/submit" --token-file token >out &&
	echo "kcidb: 2 documents sent" >expect && test_cmp expect out &&
	printf "POST /submit 200 auth=ok\nPOST /submit 200 auth=ok\n" >expect && test_cmp expect server.log &&
	"$VALIDATE" got/2.json got/3.json &&
	grep -q "\"id\": *\"tide:next-20261201\"" got/2.json &&
	grep -q "\"id\": *\"tide:next-20261202\"" got/3.json &&
	! ls ws/kcidb-spool/*.json 2>/dev/null
'

test_expect_success 'token file from DIR/config; bad token files and URLs are errors' '
	echo "kcidb-token-file = $TRASH/token" >>ws/config &&
	tide -C ws kcidb --submit "$URL" >out &&
	: >empty &&
	test_must_fail --status=3 tide -C ws kcidb --submit "$URL" --token-file empty 2>err &&
	test_cmp_str "tide: token file '\''empty'\'': empty" err &&
	printf "two words\n" >spaced &&
	test_must_fail --status=3 tide -C ws kcidb --submit "$URL" --token-file spaced 2>err &&
	test_cmp_str "tide: token file '\''spaced'\'': not one line of printable characters" err &&
	test_must_fail --status=2 tide -C ws kcidb --submit ftp://127.0.0.1/ 2>err &&
	test_must_fail --status=2 tide -C ws kcidb --submit "$URL" --timeout 0 2>err &&
	test_must_fail --status=2 tide -C ws kcidb --submit "$URL" --out x.json 2>err
'

test_expect_success 'kcidb-submit in DIR/config sends each day after tide run' '
	: >server.log && rm -f got/* &&
	echo "kcidb-submit = $URL" >>ws/config &&
	tide -C ws run --date 2026-12-03 --no-build --no-boot >out 2>err &&
	tail -n 1 out >actual &&
	echo "kcidb: 1 document sent" >expect && test_cmp expect actual &&
	echo "POST /submit 200 auth=ok" >expect && test_cmp expect server.log &&
	"$VALIDATE" got/*.json &&
	grep -q "\"id\": *\"tide:next-20261203\"" got/*.json &&
	! ls ws/kcidb-spool/*.json 2>/dev/null
'

test_expect_success 'a server failing after tide run: exit 1, the day recorded, the document spooled' '
	echo 502 >control &&
	test_must_fail --status=1 tide -C ws run --date 2026-12-04 --no-build --no-boot >out 2>err &&
	grep -q "^tide: 0 documents sent, 1 kept in .*kcidb-spool for the next run" err &&
	test -f ws/days/2026-12-04/day.json &&
	ls ws/kcidb-spool >actual &&
	echo next-20261204.json >expect && test_cmp expect actual &&
	rm -f control &&
	tide -C ws kcidb --submit "$URL" >out &&
	echo "kcidb: 1 document sent" >expect && test_cmp expect out
'

test_expect_success 'a bad kcidb-submit, origin or timeout stops tide run before the day, naming DIR/config:LINE' '
	cp ws/config config.good &&
	sed -i "s|^kcidb-submit = .*|kcidb-submit = ftp://127.0.0.1/|" ws/config &&
	line=$(grep -n "^kcidb-submit" ws/config | cut -d: -f1) &&
	test_must_fail --status=3 tide -C ws run --date 2026-12-05 --no-build --no-boot >out 2>err &&
	echo "tide: $TRASH/ws/config:$line: kcidb-submit wants an http:// or https:// URL, not '\''ftp://127.0.0.1/'\''" >expect &&
	test_cmp expect err &&
	! test -d ws/days/2026-12-05 &&
	cp config.good ws/config && echo "kcidb-origin = Bad-Origin" >>ws/config &&
	test_must_fail --status=3 tide -C ws run --date 2026-12-05 --no-build --no-boot 2>err &&
	line=$(grep -n "^kcidb-origin" ws/config | cut -d: -f1) &&
	test_cmp_str "tide: $TRASH/ws/config:$line: KCIDB origin '\''Bad-Origin'\'' is not valid: use lower-case letters, digits and '\''_'\''" err &&
	cp config.good ws/config && echo "kcidb-timeout = 0" >>ws/config &&
	test_must_fail --status=3 tide -C ws run --date 2026-12-05 --no-build --no-boot 2>err &&
	line=$(grep -n "^kcidb-timeout" ws/config | cut -d: -f1) &&
	test_cmp_str "tide: $TRASH/ws/config:$line: kcidb-timeout wants seconds from 1 to 3600, not '\''0'\''" err &&
	! test -d ws/days/2026-12-05 &&
	cp config.good ws/config
'

test_expect_success 'a document the server rejects goes to kcidb-rejected; the others are sent' '
	echo 502 >control &&
	test_must_fail --status=1 tide -C ws run --date 2026-12-05 --no-build --no-boot >out 2>err &&
	echo "reject:tide:next-20261205" >control && : >server.log &&
	test_must_fail --status=1 tide -C ws run --date 2026-12-06 --no-build --no-boot >out 2>err &&
	tail -n 1 out >actual &&
	echo "kcidb: 1 document sent, 1 rejected (in $TRASH/ws/kcidb-rejected)" >expect &&
	test_cmp expect actual &&
	grep "kcidb" err >actual &&
	echo "tide: kcidb: next-20261205.json rejected, moved to $TRASH/ws/kcidb-rejected: HTTP 400: schema violation: bad '"'"'id'"'"'" >expect &&
	test_cmp expect actual &&
	printf "POST /submit 400 auth=ok\nPOST /submit 200 auth=ok\n" >expect && test_cmp expect server.log &&
	ls ws/kcidb-rejected >actual && echo next-20261205.json >expect && test_cmp expect actual &&
	"$VALIDATE" ws/kcidb-rejected/next-20261205.json &&
	! ls ws/kcidb-spool/*.json 2>/dev/null &&
	grep -q "kcidb: next-20261205.json rejected, moved to .*kcidb-rejected: HTTP 400" ws/tide.log
'

test_expect_success 'the next day is not held up by it: exit 0, one document sent' '
	: >server.log &&
	tide -C ws run --date 2026-12-07 --no-build --no-boot >out 2>err &&
	tail -n 1 out >actual && echo "kcidb: 1 document sent" >expect && test_cmp expect actual &&
	echo "POST /submit 200 auth=ok" >expect && test_cmp expect server.log
'

test_expect_success 'a spooled file that is no document (a FIFO, a directory) is moved aside too' '
	rm -f control &&
	mkfifo ws/kcidb-spool/a-fifo.json && mkdir ws/kcidb-spool/b-dir.json &&
	test_must_fail --status=1 tide -C ws kcidb --submit "$URL" 2026-12-07 >out 2>err &&
	echo "kcidb: 1 document sent, 2 rejected (in $TRASH/ws/kcidb-rejected)" >expect && test_cmp expect out &&
	grep -q "a-fifo.json rejected, .*is not a regular file" err &&
	grep -q "b-dir.json rejected, .*is not a regular file" err &&
	test -p ws/kcidb-rejected/a-fifo.json && test -d ws/kcidb-rejected/b-dir.json
'

test_expect_success 'kcidb-timeout bounds the whole submission, not each document' '
	echo 502 >control &&
	test_must_fail --status=1 tide -C ws kcidb --submit "$URL" 2026-12-01 2>err &&
	test_must_fail --status=1 tide -C ws kcidb --submit "$URL" 2026-12-02 2>err &&
	echo "slow:3" >control && echo "kcidb-timeout = 5" >>ws/config &&
	start=$(date +%s) &&
	test_must_fail --status=1 tide -C ws run --date 2026-12-08 --no-build --no-boot >out 2>err &&
	took=$(($(date +%s) - start)) && echo "took $took s" &&
	grep "^tide:" err >actual &&
	cat actual &&
	grep -q "^tide: cannot submit next-20261202.json to $URL/submit: Operation timed out after" actual &&
	echo "tide: 1 document sent, 2 kept in $TRASH/ws/kcidb-spool for the next run" >expect &&
	tail -n 1 actual >last && test_cmp expect last &&
	ls ws/kcidb-spool >actual &&
	printf "next-20261202.json\nnext-20261208.json\n" >expect && test_cmp expect actual &&
	rm -f control && cp config.good ws/config
'

test_done
