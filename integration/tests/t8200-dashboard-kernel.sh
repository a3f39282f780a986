#!/bin/sh
# The dashboard of the kernel world's days in headless Chromium, made
# from the workspaces the earlier kernel tests leave under work/ (with
# TIDE_CHECK_FULL, day 3 of t6100 is also built and booted): t5300's days 1-3 (day 2: bitmap conflicts with gpio and
# falls back to day 1's version), t6100's days 1-3 with its bisects (day
# 2's build break, day 3's gpio.edge_events failure found in gpio) and
# t4600's day built, booted and smoke-tested.  Screenshots of each index
# and day page land in build/results/dashboard/ (NAME-index.png,
# NAME-day-DATE.png; the pages in NAME/); every grid cell and each day's
# build, boot and bisect words are checked against the day records from
# the DOM Chromium built.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
export TIDE_KERNEL_TESTS=${TIDE_KERNEL_TESTS:-$TOP/kernel-tests}
# Timings go to the real stdout (fd 3); test bodies' output is captured.
exec 3>&1

I=$TOP/integration
EXPECT=$I/days/expect.json
SHOTS=${TIDE_RESULTS:-$TOP/build/results}/dashboard
DOM="python3 $TOP/tests/cmd/dashboard-dom.py"
CONFLICTS=$TOP/work/conflicts-ws
BISECT=$TOP/work/bisect-ws
BUILT=$TOP/work/build-ws
KPROOF=${TIDE_T8200_KPROOF:-$TOP/work/kproof-ws}

# expect DAY PYEXPR: a value from expect.json's day (c = its first conflict, b = its bisect).
expect() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['days'][sys.argv[2]]; c=(d['conflicts'] or [{}])[0]; b=d.get('bisect') or {}; print($2)" "$EXPECT" "$1"
}

chrome() {
	profile=$(mktemp -d "$TRASH/chrome.XXXXXX") &&
	if [ "$1" = - ]; then what=--dump-dom; else what=--screenshot=$1; fi &&
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --window-size=1400,1400 "$what" "file://$2" 2>"$TRASH/chrome.err"
}

is_png() {
	test "$(head -c 8 "$1" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a &&
	test $(wc -c <"$1") -gt 20000
}

# shoot WS NAME: the dashboard of WS in $SHOTS/NAME, a screenshot of each
# page but the trees', the index's DOM in NAME.dom; then every cell and
# every day's stages against the records.
shoot() {
	rm -rf "$SHOTS/$2" "$SHOTS/$2"-*.png && mkdir -p "$SHOTS" &&
	tide -C "$1" dashboard --out "$SHOTS/$2" >"$2.out" &&
	for page in "$SHOTS/$2"/index.html "$SHOTS/$2"/day-*.html; do
		png="$SHOTS/$2-$(basename "$page" .html).png" &&
		chrome "$png" "$page" && is_png "$png" || { echo "no screenshot of $page"; return 1; }
	done &&
	chrome - "$SHOTS/$2/index.html" >"$2.dom" &&
	$DOM grid "$2.dom" >"$2.grid" &&
	sed "s/ |.*//" "$2.grid" >actual &&
	$DOM expect "$1/days" >expect &&
	test_cmp expect actual &&
	$DOM stagewords "$2.dom" >actual &&
	$DOM stagewords-expect "$1/days" >expect &&
	test_cmp expect actual &&
	$DOM links "$SHOTS/$2" >actual &&
	test ! -s actual
}

# needs WS TEST: the workspace an earlier kernel test leaves.
needs() {
	test -f "$1/days/$(ls "$1/days" 2>/dev/null | tail -n 1)/day.json" ||
	{ echo "no day in $1: run integration/check $2 first"; return 1; }
}

if ! command -v chromium >/dev/null; then
	echo "t8200: chromium is not installed (make deps)"
fi

CT=$(expect 2 "c['tree']")
CW=$(expect 2 "c['with']")
BT=$(expect 3 "b['tree']")

test_expect_success "days 1-3 of t5300: day 2's $CT cell is the conflict with $CW, day 1's version used" '
	needs "$CONFLICTS" t5300 &&
	shoot "$CONFLICTS" conflicts &&
	grep "^$CT 2026-12-02 previous | conflict with $CW; version of next-20261201" conflicts.grid &&
	chrome - "$SHOTS/conflicts/day-2026-12-02.html" >day2.dom &&
	$DOM trees day2.dom | grep "^$CT | previous conflict with $CW; .* | report$"
'

# Day 3 as tide run would have built and booted it (its boot fails
# gpio.edge_events): a full kernel build in t6100's workspace, so only
# with make check-kernel-full; make check shows day 3's failure through
# the bisect that found it.
day3_booted=
if [ -n "${TIDE_CHECK_FULL:-}" ]; then
day3_booted=1
test_expect_success "day 3 of t6100 built and booted: its smoke tests fail" '
	needs "$BISECT" t6100 &&
	start=$(date +%s) &&
	tide -C "$BISECT" build 2026-11-03 >build3.out 2>&1 &&
	{ tide -C "$BISECT" boot 2026-11-03 >boot3.out 2>&1 || test $? = 1; } &&
	echo "# day 3 built and booted in $(( $(date +%s) - start )) s" >&3 &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); b=d[\"boot\"]; print(d[\"build\"][\"status\"], b[\"status\"], \"gpio.edge_events\" in [t[\"name\"] for t in b[\"tests\"] if not t[\"ok\"]])" \
		"$BISECT/days/2026-11-03/day.json" >actual &&
	echo "ok tests-failed True" >expect &&
	test_cmp expect actual
'
else
	test_skip 'day 3 of t6100 built and booted: its smoke tests fail' 'runs with make check-kernel-full'
fi

test_expect_success "days 1-3 of t6100: day 3's test failure bisected to $BT, day 2's build break" '
	needs "$BISECT" t6100 &&
	shoot "$BISECT" bisect &&
	$DOM stages bisect.dom >stages &&
	grep "^2026-11-03 .*| bisect found: $BT$" stages &&
	{ test -z "$day3_booted" || $DOM stagewords bisect.dom | grep "^2026-11-03 build ok | boot tests-failed | "; } &&
	grep "^2026-11-02 .*| bisect [a-z-]*" stages &&
	chrome - "$SHOTS/bisect/day-2026-11-03.html" >day3.dom &&
	$DOM sections day3.dom |
		grep "^bisect : Bisect bisect found: $BT --test gpio.edge_events\( --since 2026-11-01\)\{0,1\}: found $BT "
'

test_expect_success 'the day t4600 built and booted: the build, the boot and the smoke tests' '
	needs "$BUILT" t4600 &&
	shoot "$BUILT" build &&
	$DOM stagewords build.dom | grep "^2026-01-01 build ok | boot passed | "
'

test_expect_success "t4720's five days: problems first on the index and each day, as the records and regressions.json say" '
	needs "$KPROOF" t4720 &&
	shoot "$KPROOF" kproof &&
	$DOM problems kproof.dom >actual &&
	$DOM problems-expect "$KPROOF/index" >expect &&
	test_cmp expect actual &&
	grep -q "^flaky " actual &&
	for d in 1 2 3 4 5; do
		chrome - "$SHOTS/kproof/day-2026-12-0$d.html" >day$d.dom &&
		$DOM problems day$d.dom >actual &&
		$DOM problems-expect "$KPROOF/2026-12-0$d" >expect &&
		test_cmp expect actual || exit 1
	done &&
	$DOM problems day3.dom | grep -q "^regression "
'

test_done
