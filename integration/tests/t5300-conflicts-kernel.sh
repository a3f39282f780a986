#!/bin/sh
# Conflicts on the kernel world (integration/world, targets in
# integration/days/expect.json): day 2 records the bitmap/gpio conflict
# with both sides' commits, the tree falls back to its previous day's
# version, `tide resolve --record` (the test plays the human) makes day 3
# merge it with no human step, the mails reach a test SMTP server, and
# the mmotm quilt tree is fetched over HTTP, a second time for nothing.
. "$(dirname "$0")/../../tests/cmd/lib.sh"

I=$TOP/integration
EXPECT=$I/days/expect.json
WORLD=$TOP/work/conflicts-world
WS=$TOP/work/conflicts-ws
# Figures for closing notes; not test results (tests/summarize reads those).
MEASURE=${TIDE_MEASURE:-$TOP/build/measurements}

if [ ! -x "$I/world" ] || [ ! -f "$EXPECT" ] || [ ! -d "$I/days/3" ]; then
	test_skip_all "needs integration/world with days 1-3"
fi
mkdir -p "$MEASURE"

# The quilt trees are served over HTTP from the world's quilt/ directory.
mkdir -p "$WORLD/quilt"
python3 "$TOP/tests/servers/http-server.py" --root "$WORLD/quilt" --port-file "$TRASH/http.port" \
	--log "$TRASH/http.log" &
HTTP_PID=$!
python3 "$TOP/tests/servers/smtp-sink.py" --dir "$TRASH/mail" --port-file "$TRASH/smtp.port" &
SMTP_PID=$!
trap 'kill $HTTP_PID $SMTP_PID 2>/dev/null; wait $HTTP_PID $SMTP_PID 2>/dev/null' EXIT
i=0
while { ! test -s "$TRASH/http.port" || ! test -s "$TRASH/smtp.port"; } && [ $i -lt 100 ]; do
	sleep 0.05; i=$((i + 1))
done
HTTP=http://127.0.0.1:$(cat "$TRASH/http.port")

# expect DAY PYEXPR: a value from expect.json's day (c = its first conflict).
expect() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['days'][sys.argv[2]]; c=(d['conflicts'] or [{}])[0]; print($2)" "$EXPECT" "$1"
}

# run_day N DATE: lay out world day N, quilt rows over HTTP, integrate it as DATE.
run_day() {
	"$I/world" "$1" "$WORLD" >/dev/null &&
	sed "s|^\([^#][^	]*\)\(	*\)quilt\(	*\)quilt/|\1\2quilt\3$HTTP/|" "$WORLD/trees.conf" >"$WORLD/trees-http.conf" &&
	t0=$(date +%s) &&
	{ tide -C "$WS" -f "$WORLD/trees-http.conf" run --date "$2" --no-build --no-boot >"$TRASH/run.out" 2>&1 ||
	  test $? = 1; } &&
	echo "t5300: day $1 integrated in $(($(date +%s) - t0)) s" >>"$MEASURE/conflicts-kernel.txt"
}

tree_field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d['trees'] if t['name']==sys.argv[2]][0]; print($3)" \
		"$WS/days/$1/day.json" "$2"
}

CT=$(expect 2 "c['tree']")
CW=$(expect 2 "c['with']")
CFILE=$(expect 2 "c['files'][0]")

test_expect_success 'day 1 integrates every tree; mmotm comes over HTTP' '
	rm -rf "$WS" &&
	run_day 1 2026-12-01 &&
	grep -q "quilt	*$HTTP/mmotm" "$WORLD/trees-http.conf" &&
	test "$(tree_field 2026-12-01 mmotm "t[\"status\"]")" = merged &&
	grep -q "GET /mmotm/series 200" "$TRASH/http.log"
'

test_expect_success 'a second fetch of the unchanged quilt series downloads nothing' '
	cp "$TRASH/http.log" before.log &&
	run_day 1 2026-12-01 &&
	tail -n +$(($(wc -l <before.log) + 1)) "$TRASH/http.log" >new.log &&
	test -s new.log && ! grep -v " 304$" new.log &&
	grep -q "mmotm: quilt series: [0-9]* requests, 0 downloaded" "$WS/tide.log"
'

test_expect_success "day 2 records the $CT/$CW conflict with both sides' commits" '
	run_day 2 2026-12-02 &&
	tide -C "$WS" report 2026-12-02 --tree "$CT" >report.txt &&
	cat report.txt >>"$MEASURE/conflicts-kernel.txt" &&
	grep -q "^Today.s linux-next merge of the $CT tree got a conflict in:$" report.txt &&
	grep -q "^  $CFILE$" report.txt &&
	grep -q "(\"$(expect 2 "c[\"ours_subjects\"][0]")\")" report.txt &&
	grep -q "(\"$(expect 2 "c[\"theirs_subjects\"][0]")\")" report.txt &&
	grep -q "^from the $CW tree and commit" report.txt &&
	test -f "$WS/days/2026-12-02/reports/$CT.json"
'

test_expect_success "with no resolution, $CT falls back to its day-1 version" '
	test "$(tree_field 2026-12-02 "$CT" "t[\"status\"]")" = previous &&
	grep -q "used the version from next-20261201" "$WS/days/2026-12-02/reports/$CT.txt" &&
	git --git-dir="$WS/repo.git" log -1 --format=%B "$(tree_field 2026-12-02 "$CT" "t[\"merge_commit\"]")" |
		grep -q "^Tide-Version-From: next-20261201$"
'

test_expect_success 'the conflict mail reaches both maintainers' '
	printf "smtp=smtp://127.0.0.1:%s\nfrom=tide <next@tide.example>\n" "$(cat "$TRASH/smtp.port")" >"$WS/mail.conf" &&
	tide -C "$WS" -f "$WORLD/trees-http.conf" report 2026-12-02 --mail >mail.out &&
	grep -l "^Subject: linux-next: manual merge of the $CT tree with the $CW tree$" "$TRASH"/mail/*.eml >list &&
	test $(wc -l <list) = 1 &&
	to=$(sed -n "s/^#tide	$CT	contact=.*<\(.*\)>$/\1/p" "$WORLD/trees.conf") &&
	cc=$(sed -n "s/^#tide	$CW	contact=.*<\(.*\)>$/\1/p" "$WORLD/trees.conf") &&
	printf "from next@tide.example\nto %s\nto %s\n" "$to" "$cc" >want &&
	m=$(cat list) && head -n 3 "${m%.eml}.env" >got &&
	cmp want got
'

test_expect_success 'tide resolve --record: the human fixes the file once' '
	tide -C "$WS" -f "$WORLD/trees-http.conf" resolve "$CT" --date 2026-12-02 >out &&
	f="$WS/resolve/$CT/$CFILE" &&
	grep -q "^<<<<<<< " "$f" &&
	python3 - "$f" "$EXPECT" "$CFILE" <<-\EOF &&
	import json, re, sys
	path, expect, name = sys.argv[1:]
	res = json.load(open(expect))["days"]["2"]["conflicts"][0]["resolution"][name]
	text = open(path).read()
	text = re.sub(r"<<<<<<< [^\n]*\n.*?>>>>>>> [^\n]*\n", lambda m: res, text, count=1, flags=re.S)
	open(path, "w").write(text)
	EOF
	! grep -q "^<<<<<<<" "$f" &&
	tide -C "$WS" -f "$WORLD/trees-http.conf" resolve --record "$CT" >rec &&
	grep -q "recorded resolution [0-9a-f]\{40\} for $CFILE" rec
'

test_expect_success "day 3 reuses the resolution with no human step" '
	run_day 3 2026-12-03 &&
	test "$(tree_field 2026-12-03 "$CT" "t[\"status\"]")" = merged &&
	test "$(tree_field 2026-12-03 "$CT" "t[\"handled\"]")" = recorded &&
	grep -q "resolved from recorded resolution" "$WS/days/2026-12-03/reports/$CT.txt" &&
	git --git-dir="$WS/repo.git" show "next-20261203:$CFILE" >merged &&
	! grep -q "^<<<<<<<\|^>>>>>>>" merged &&
	grep -q "^obj-\$(CONFIG_GPIOLIB_LEGACY)" merged
'

test_expect_success 'a conflict resolved with git rerere in a plain clone is replayed by tide' '
	rm -rf "$WS/rr-cache" clone &&
	git clone -q --shared --no-checkout "$WS/repo.git" clone &&
	git -C clone config rerere.enabled true &&
	git -C clone config core.sparseCheckout true &&
	echo "/drivers/gpio/" > clone/.git/info/sparse-checkout &&
	base=$(tree_field 2026-12-03 "$CT" "t[\"merge_commit\"]") &&
	git -C clone checkout -q "$base^1" &&
	{ git -C clone merge -q "$base^2" >/dev/null 2>&1; true; } &&
	grep -q "^<<<<<<<" "clone/$CFILE" &&
	python3 - "clone/$CFILE" "$EXPECT" "$CFILE" <<-\EOF &&
	import json, re, sys
	path, expect, name = sys.argv[1:]
	res = json.load(open(expect))["days"]["2"]["conflicts"][0]["resolution"][name]
	res = res.replace("gpiolib-legacy.o", "gpiolib-legacy.o # by git rerere")
	text = open(path).read()
	text = re.sub(r"<<<<<<< [^\n]*\n.*?>>>>>>> [^\n]*\n", lambda m: res, text, count=1, flags=re.S)
	open(path, "w").write(text)
	EOF
	git -C clone add -f "$CFILE" && git -C clone commit -qm merged &&
	mkdir -p "$WS/rr-cache" && cp -r clone/.git/rr-cache/* "$WS/rr-cache/" &&
	run_day 3 2026-12-03 &&
	test "$(tree_field 2026-12-03 "$CT" "t[\"handled\"]")" = recorded &&
	git --git-dir="$WS/repo.git" show "next-20261203:$CFILE" | grep -q "by git rerere"
'

test_done
