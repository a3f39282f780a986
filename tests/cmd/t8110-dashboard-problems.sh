#!/bin/sh
# The dashboard puts problems first: on generated days built and booted
# with the test doubles of lib-guest.sh (a regression that starts on day
# 2, a conflict, a tree never fetched, a tree rebased, trees moved forward),
# headless Chromium loads the index and each day page; the problems
# section, the per-day totals and the moved and rebased trees are read
# from the DOM the browser built and compared with the day records and
# DIR/regressions.json.  Screenshots go to build/results/dashboard/.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"
. "$(dirname "$0")/lib-guest.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt
DOM="python3 $TOP/tests/cmd/dashboard-dom.py"
SQ="'"
SHOTS=${TIDE_RESULTS:-$TOP/build/results}/dashboard

# chrome OUT.png|- PAGE: the page loaded from its file; a screenshot, or the DOM on stdout.
chrome() {
	profile=$(mktemp -d "$TRASH/chrome.XXXXXX") &&
	if [ "$1" = - ]; then what=--dump-dom; else what=--screenshot=$1; fi &&
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --window-size=1400,1000 "$what" "file://$2" 2>"$TRASH/chrome.err"
}

run_day() {
	tide -C ws -f world/trees.conf run --date "$1" >"run-$1.out" 2>"run-$1.err" || test $? = 1
}

# commits TREE FILE...: one commit per file, "TREE: add FILE".
commits() {
	t=$1; shift
	for f in "$@"; do
		echo "const char *${f%.c} = \"$f\";" >"world/$t/$f" &&
		git -C "world/$t" add "$f" && git -C "world/$t" commit -qm "$t: add $f" || return 1
	done
}

test_expect_success 'setup: three days; on day 2 gpio breaks a test, usb conflicts, drm is rebased' '
	mkdir -p kt && printf "CONFIG_GPIO=y\n" >kt/smoke.config &&
	fake_kernel_source world/mainline &&
	fake_kernel_relinks world/mainline &&
	printf "const char *m = \"main\";\nint shared = 1;\n" >world/mainline/m.c &&
	commit_fake_mainline &&
	make_tree fixes fixes.c "const char *f = \"fixes\";" &&
	make_tree gpio gpio.c "const char *g = \"gpio\";" &&
	make_tree drm drm.c "const char *d = \"drm\";" &&
	commits drm d1.c d2.c d3.c &&
	make_tree net net.c "const char *n = \"net\";" &&
	make_tree usb usb.c "const char *u = \"usb\";" &&
	conf "fixes git fixes#for-next" "gpio git gpio#for-next" "drm git drm#for-next" \
		"net git net#for-next" "usb git usb#for-next" "broken git nowhere#for-next" &&
	printf "#tide\tproject=linux-next\n" >>world/trees.conf &&
	fake_qemu &&
	run_day 2026-03-01 &&
	commits fixes f1.c f2.c &&
	echo "const char *e = \"EDGE_BUG\";" >world/gpio/e.c &&
	git -C world/gpio add e.c && git -C world/gpio commit -qm "gpio: break edge events" &&
	sed -i "s/shared = 1/shared = 2/" world/net/m.c && git -C world/net commit -qam "net: shared 2" &&
	sed -i "s/shared = 1/shared = 3/" world/usb/m.c && git -C world/usb commit -qam "usb: shared 3" &&
	old=$(git -C world/drm rev-parse HEAD) &&
	git -C world/drm reset -q --hard HEAD~3 &&
	git -C world/drm cherry-pick -x "$old~2" "$old~1" >/dev/null &&
	commits drm d4.c &&
	run_day 2026-03-02 &&
	commits gpio g2.c &&
	run_day 2026-03-03
'

test_expect_success 'the records say what the pages must show' '
	day_field 2026-03-02 "\" \".join(t[\"name\"] + \"=\" + t[\"status\"] for t in d[\"trees\"])" >actual &&
	echo "fixes=merged gpio=merged drm=merged net=merged usb=previous broken=fetch-failed" >expect &&
	test_cmp expect actual &&
	day_field 2026-03-02 "\" \".join(\"%s=%s\" % (k, t[\"moved\"][k]) for t in d[\"trees\"] if t[\"name\"] == \"drm\" for k in (\"behind\", \"ahead\", \"dropped\", \"rebased\", \"added\"))" >actual &&
	echo "behind=3 ahead=3 dropped=1 rebased=2 added=1" >expect &&
	test_cmp expect actual &&
	tide -C ws log --changes 2026-03-02 >changes &&
	grep -q "^The drm tree was rebased (1 commit dropped, 2 rebased, 1 new).$" changes &&
	grep -q "^The fixes tree moved forward by 2 commits.$" changes &&
	tide -C ws regressions >regs &&
	grep -q "^still-failing test    smoke/x86_64 gpio.edge_events: first bad 2026-03-02 (last good 2026-03-01), last bad 2026-03-03$" regs
'

test_expect_success TOOL:chromium 'chromium: screenshots of the index and each day' '
	mkdir -p "$SHOTS" &&
	chrome "$SHOTS/t8110-index.png" "$TRASH/ws/dashboard/index.html" &&
	for d in 01 02 03; do
		chrome "$SHOTS/t8110-day-2026-03-$d.png" "$TRASH/ws/dashboard/day-2026-03-$d.html" || exit 1
	done &&
	for f in "$SHOTS"/t8110-*.png; do
		test "$(head -c 8 "$f" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a || exit 1
	done &&
	rm -rf "$SHOTS/t8110" && cp -R ws/dashboard "$SHOTS/t8110"
'

test_expect_success TOOL:chromium 'chromium: the index starts with the newest day'"'"'s problems and the open regressions, as the records say' '
	chrome - "$TRASH/ws/dashboard/index.html" >index.dom &&
	$DOM problems index.dom >actual &&
	$DOM problems-expect ws/index >expect &&
	test_cmp expect actual &&
	grep -q "^regression [0-9a-f]* 2026-03-02$" actual &&
	grep -q "^conflict usb$" actual &&
	grep -q "^left-out broken$" actual &&
	$DOM sections index.dom | grep "^problems" >text &&
	grep -q "usb conflicts with net: its version of next-20260302 merged instead" text &&
	grep -q "broken left out: fetch-failed" text &&
	grep -q "gpio.edge_events (test) on smoke (x86_64): failing since 2026-03-02 (last good 2026-03-01)" text &&
	grep -q "tests failing on smoke (x86_64): gpio.edge_events" text || { cat text; exit 1; }
'

test_expect_success TOOL:chromium 'chromium: each day page starts with its own problems, as the records say' '
	for d in 01 02 03; do
		chrome - "$TRASH/ws/dashboard/day-2026-03-$d.html" >day$d.dom &&
		$DOM problems day$d.dom >actual &&
		$DOM problems-expect ws/2026-03-$d >expect &&
		test_cmp expect actual || exit 1
	done &&
	$DOM sections day01.dom | grep "^problems" >actual &&
	echo "problems : Problems 5/6 merged 1 left out build ok boot passed broken left out: fetch-failed (repository ${SQ}$TRASH/world/nowhere${SQ} does not exist)" >expect &&
	test_cmp expect actual
'

test_expect_success TOOL:chromium 'chromium: the per-day totals are the records'"'"' counts' '
	$DOM totals index.dom >actual &&
	$DOM totals-expect ws/days >expect &&
	test_cmp expect actual &&
	cat >expect <<-\EOT &&
	2026-03-01 5/6 merged 1 left out build ok boot passed
	2026-03-02 5/6 merged 1 conflict 1 left out build ok boot tests-failed
	2026-03-03 5/6 merged 1 conflict 1 left out build ok boot tests-failed
	EOT
	test_cmp expect actual
'

test_expect_success TOOL:chromium 'chromium: a moved tree shows its commits, a rebased one is marked with its patch-id counts' '
	$DOM grid index.dom | grep " 2026-03-02 " >actual &&
	cat >expect <<-\EOT &&
	fixes 2026-03-02 merged | +2 commits
	gpio 2026-03-02 merged | +1 commit
	drm 2026-03-02 merged | rebased: 1 dropped, 2 rebased, 1 new
	net 2026-03-02 merged | +1 commit
	usb 2026-03-02 previous | conflict with net; version of next-20260301; +1 commit
	broken 2026-03-02 fetch-failed | 
	EOT
	test_cmp expect actual &&
	grep -q "class=\"st-merged rebased\"" ws/dashboard/index.html &&
	test $(grep -o "class=\"st-merged rebased\"" ws/dashboard/index.html | wc -l) = 1
'

test_expect_success TOOL:chromium 'chromium: the day page puts the integration date next to the run'"'"'s times' '
	grep -q "<dt>integration date</dt><dd class=\"date\">2026-03-02</dd>" ws/dashboard/day-2026-03-02.html &&
	grep -q "<dt>run</dt><dd class=\"run\">started 20[0-9-]*T[0-9:]*Z, finished 20[0-9-]*T[0-9:]*Z</dd>" ws/dashboard/day-2026-03-02.html &&
	$DOM sections day02.dom | grep "^boot" >boot &&
	grep -q "QEMU tcg, 4 CPUs; booted 3 times, the tests failing on the first 2. console log" boot
'

test_expect_success 'a workspace that does not build gets no build and boot rows, sections or charts' '
	{ tide -C ws2 -f world/trees.conf run --date 2026-03-01 --no-build >out 2>err || test $? = 1; } &&
	grep -q "<tr class=\"totals\">" ws2/dashboard/index.html &&
	! grep -q "data-stage=\"build\"\|data-stage=\"boot\"\|id=\"trend-" ws2/dashboard/index.html &&
	! grep -q "id=\"build\"\|id=\"boot\"" ws2/dashboard/day-2026-03-01.html &&
	grep -q "data-stage=\"build\"" ws/dashboard/index.html &&
	grep -q "id=\"trend-boot\"" ws/dashboard/index.html
'

test_done
