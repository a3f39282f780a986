#!/bin/sh
# tide dashboard: three real days (a conflict, a fetch failure, a tree at
# its previous day's version, a tree never fetched, a hostile tree name),
# loaded from files in headless Chromium: a screenshot, and each tree's
# cell compared with the day records from the DOM the browser built.
# Bad input: an output directory that cannot be written (tide dashboard
# exit 4, tide run's day unaffected), a day without build or boot.
. "$(dirname "$0")/lib.sh"

DOM="python3 $TOP/tests/cmd/dashboard-dom.py"
SHOTS=${TIDE_RESULTS:-$TOP/build/results}/dashboard
# A tree name with every character HTML and URLs care about that a ref allows.
HOSTILE='n<i>&"#%'

# chrome OUT.png|- PAGE: the page loaded from its file; a screenshot, or the DOM on stdout.
chrome() {
	profile=$(mktemp -d "$TRASH/chrome.XXXXXX") &&
	if [ "$1" = - ]; then what=--dump-dom; else what=--screenshot=$1; fi &&
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --window-size=1400,900 "$what" "file://$2" 2>"$TRASH/chrome.err"
}

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >"run-$1.out" 2>"run-$1.err" ||
	test $? = 1
}

# add_stages: day 2 a failed build with a hostile error and a new warning,
# day 3 a build, a boot with a failing test and a bisect; day 1 nothing.
add_stages() {
	python3 - ws/days <<-\PY
	import json, sys
	def edit(date, f):
	    p = "%s/%s/day.json" % (sys.argv[1], date)
	    d = json.load(open(p)); f(d); json.dump(d, open(p, "w"))
	def two(d):
	    d["build"] = {"status": "failed", "failure": "make exited 2 <script>alert(1)</script>",
	      "seconds": 120.0, "make_seconds": 118.5, "jobs": 2, "log": "build.log",
	      "errors": [{"file": "kernel/smp.c", "line": 12, "column": 3, "kind": "compiler",
	                  "message": "redefinition of 'cpumask_any_and_but' <b>", "tree": "mainline"}],
	      "errors_total": 1, "warnings": [{"file": "a.c", "line": 1, "message": "w"}],
	      "new_warnings": [{"file": "a.c", "line": 1, "message": "unused variable 'x' & more", "tree": "fixes"}]}
	def three(d):
	    d["build"] = {"status": "ok", "seconds": 90.0, "errors": [], "warnings": [],
	      "new_warnings": [], "log": "build.log"}
	    d["boot"] = {"status": "tests-failed", "reason": "1 test failed", "seconds": 3.5,
	      "accel": "tcg", "smp": 4, "console": "console.log",
	      "counts": {"pass": 16, "fail": 1, "skip": 0},
	      "tests": [{"name": "gpio.edge_events", "ok": False, "directive": None,
	                 "diagnostics": ["# expected 1 event, got 0"]},
	                {"name": "gpio.chip_info", "ok": True, "directive": None, "diagnostics": []}]}
	    d["bisect"] = {"outcome": "found", "check": {"kind": "test", "arg": "gpio.edge_events"},
	      "tree": "fixes", "commit": "0123456789abcdef0123456789abcdef01234567",
	      "subject": "fixes: <em>break</em> edge events", "steps_done": 4, "builds": 4,
	      "seconds": 60.0}
	    d["build"].update({"config": "smoke", "arch": "x86_64"})
	    d["configs"] = [
	      {"name": "arm64", "build": {"status": "failed", "failure": "make exited 2",
	        "config": "arm64", "arch": "arm64", "seconds": 80.0, "log": "build.arm64.log",
	        "errors": [{"file": "drivers/gpio/gpiolib.c", "line": 5, "kind": "compiler",
	                    "message": "implicit declaration of <i>gpio_request</i>", "tree": "gpio"}],
	        "warnings": [], "new_warnings": []},
	       "boot": {"status": "skipped", "failure": "no kernel: the build failed"}},
	      {"name": "up", "build": {"status": "ok", "config": "up", "arch": "x86_64",
	        "seconds": 60.0, "log": "build.up.log", "errors": [], "warnings": [],
	        "new_warnings": []},
	       "boot": {"status": "passed", "seconds": 2.5, "accel": "tcg", "smp": 1,
	        "console": "console.up.log", "counts": {"pass": 24, "fail": 0, "skip": 1},
	        "tests": []}},
	      {"name": "defconfig", "build": {"status": "ok", "config": "defconfig",
	        "arch": "x86_64", "seconds": 300.0, "log": "build.defconfig.log", "errors": [],
	        "warnings": [], "new_warnings": []}}]
	    [t for t in d["trees"] if t["name"] == "mm"][0]["build"] = {"status": "ok",
	      "seconds": 30.0, "log": "build-mm.log"}
	edit("2026-12-02", two)
	edit("2026-12-03", three)
	PY
	echo "the log" >ws/days/2026-12-02/build.log &&
	echo "the log" >ws/days/2026-12-03/build.log &&
	echo "the console" >ws/days/2026-12-03/console.log &&
	for f in build.arm64.log build.up.log console.up.log; do
		echo "the log" >ws/days/2026-12-03/$f || return 1
	done &&
	echo "the log" >ws/days/2026-12-03/build-mm.log
}

if ! command -v chromium >/dev/null; then
	echo "t8100: chromium is not installed (make deps)"
fi

test_expect_success 'setup: three days with a conflict, a previous version and fetch failures' '
	git init -q -b master main &&
	printf "1\n2\n3\n" >main/f && printf "a\nb\n" >main/g &&
	git -C main add f g && git -C main commit -qm base && git -C main tag v1 &&
	for t in fixes gpio mm bitmap net; do git clone -q main $t || return 1; done &&
	sed -i "s/^2$/two-fixes/" fixes/f && git -C fixes commit -qam "fixes: two" &&
	sed -i "s/^2$/two-gpio/" gpio/f && git -C gpio commit -qam "gpio: two" &&
	commit_file bitmap b "bitmap" &&
	commit_file net n "net" &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#master\nmm\tgit\tmm#master\nbitmap\tgit\tbitmap#master\n%s\tgit\tnet#master\nbroken\tgit\tnowhere#master\n" "$HOSTILE" >trees.conf &&
	run_day 2026-12-01 &&
	commit_file fixes f2 "more fixes" &&
	sed -i "s/^a$/a-mm/" mm/g && git -C mm commit -qam "mm: a" &&
	sed -i "s/^a$/a-bitmap/" bitmap/g && git -C bitmap commit -qam "bitmap: a" &&
	git -C net branch -q -m master gone &&
	run_day 2026-12-02 &&
	git -C net branch -q -m gone master &&
	run_day 2026-12-03 &&
	add_stages
'

test_expect_success 'tide run wrote the dashboard after each day' '
	test -f ws/dashboard/index.html &&
	test -f ws/dashboard/style.css &&
	grep -q "data-date=\"2026-12-03\"" ws/dashboard/index.html &&
	! grep -q "warning" run-2026-12-01.err run-2026-12-02.err run-2026-12-03.err
'

test_expect_success 'tide dashboard writes an index, a page per day and per tree, one CSS file' '
	tide -C ws dashboard >out &&
	echo "dashboard: 3 days, 6 trees, 11 files in $TRASH/ws/dashboard" >expect &&
	test_cmp expect out &&
	(cd ws/dashboard && ls) >actual &&
	cat >expect <<-\EOT &&
	day-2026-12-01.html
	day-2026-12-02.html
	day-2026-12-03.html
	index.html
	style.css
	tree-bitmap.html
	tree-broken.html
	tree-fixes.html
	tree-gpio.html
	tree-mm.html
	tree-n_3Ci_3E_26_22_23_25.html
	EOT
	test_cmp expect actual
'

test_expect_success 'chromium: a screenshot of the index' '
	mkdir -p "$SHOTS" &&
	chrome "$SHOTS/t8100-index.png" "$TRASH/ws/dashboard/index.html" &&
	chrome "$SHOTS/t8100-day3.png" "$TRASH/ws/dashboard/day-2026-12-03.html" &&
	for f in "$SHOTS/t8100-index.png" "$SHOTS/t8100-day3.png"; do
		test "$(head -c 8 "$f" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a &&
		test $(wc -c <"$f") -gt 20000 || return 1
	done
'

test_expect_success 'chromium: every cell of the grid shows the status day.json has' '
	chrome - "$TRASH/ws/dashboard/index.html" >index.dom &&
	$DOM grid index.dom >grid &&
	sed "s/ |.*//" grid >actual &&
	$DOM expect ws/days >expect &&
	test_cmp expect actual &&
	test $(wc -l <actual) = 18
'

test_expect_success 'chromium: the cells name the conflicting tree, the version used, the fetch failure' '
	cat >expect <<-EOT &&
	fixes 2026-12-01 merged | 
	fixes 2026-12-02 merged | +1 commit
	fixes 2026-12-03 merged | unchanged
	gpio 2026-12-01 conflict | with fixes
	gpio 2026-12-02 conflict | with fixes
	gpio 2026-12-03 conflict | with fixes
	mm 2026-12-01 up-to-date | 
	mm 2026-12-02 merged | +1 commit
	mm 2026-12-03 merged | unchanged
	bitmap 2026-12-01 merged | 
	bitmap 2026-12-02 previous | conflict with mm; version of next-20261201; +1 commit
	bitmap 2026-12-03 previous | conflict with mm; version of next-20261202
	$HOSTILE 2026-12-01 merged | 
	$HOSTILE 2026-12-02 merged | fetch failed, older commit
	$HOSTILE 2026-12-03 merged | unchanged
	broken 2026-12-01 fetch-failed | 
	broken 2026-12-02 fetch-failed | 
	broken 2026-12-03 fetch-failed | 
	EOT
	test_cmp expect grid &&
	test $(grep -o "class=\"st-merged stale\"" ws/dashboard/index.html | wc -l) = 1
'

test_expect_success 'chromium: build, boot and bisect per day; a day without them invents nothing' '
	$DOM stages index.dom >actual &&
	cat >expect <<-\EOT &&
	2026-12-01 no build | no boot | 
	2026-12-02 build failed 120.0 s 1 new warning | no boot | 
	2026-12-03 build ok 90.0 s | boot tests-failed 3.5 s 16 passed, 1 failed, 0 skipped | bisect found: fixes
	EOT
	test_cmp expect actual &&
	$DOM stagewords index.dom >actual &&
	$DOM stagewords-expect ws/days >expect &&
	test_cmp expect actual &&
	chrome - "$TRASH/ws/dashboard/day-2026-12-01.html" >day1.dom &&
	$DOM sections day1.dom | grep -v "^trees\|^problems\|^checks" >actual &&
	cat >expect <<-\EOT &&
	build : Build This day was not built.
	boot : Boot This day was not booted.
	EOT
	test_cmp expect actual &&
	! grep -q "build.log\|console.log" ws/dashboard/day-2026-12-01.html
'

test_expect_success 'chromium: the day page has the errors, new warnings, failed tests and bisect, escaped' '
	chrome - "$TRASH/ws/dashboard/day-2026-12-02.html" >day2.dom &&
	chrome - "$TRASH/ws/dashboard/day-2026-12-03.html" >day3.dom &&
	$DOM sections day2.dom >actual &&
	$DOM sections day3.dom >>actual &&
	sed -i "/^trees/d; /^problems/d; /^checks/d" actual &&
	cat >expect <<-\EOT &&
	build : Build build failed 120.0 s 1 new warning: make exited 2 <script>alert(1)</script>; make 118.5 s, -j2; 1 warning. build log Errors (1) kernel/smp.c:12: redefinition of '"'"'cpumask_any_and_but'"'"' <b> (mainline) New warnings (1) a.c:1: unused variable '"'"'x'"'"' & more (fixes)
	boot : Boot This day was not booted.
	build : Build Configuration smoke, the day'"'"'s own; the others are under Configurations. build ok 90.0 s; 0 warnings. build log
	boot : Boot boot tests-failed 3.5 s 16 passed, 1 failed, 0 skipped: 1 test failed; QEMU tcg, 4 CPUs. console log Failed tests gpio.edge_events # expected 1 event, got 0
	configs : Configurations arm64 (arm64) build failed 80.0 s: make exited 2; 0 warnings. build log Errors (1) drivers/gpio/gpiolib.c:5: implicit declaration of <i>gpio_request</i> (gpio) boot skipped: no kernel: the build failed. up (x86_64) build ok 60.0 s; 0 warnings. build log boot passed 2.5 s 24 passed, 0 failed, 1 skipped; QEMU tcg, 1 CPUs. console log defconfig (x86_64) build ok 300.0 s; 0 warnings.
	bisect : Bisect bisect found: fixes --test gpio.edge_events: found fixes 0123456789ab "fixes: <em>break</em> edge events" (4 steps, 4 builds, 60s)
	EOT
	test_cmp expect actual &&
	$DOM elements day2.dom >actual &&
	$DOM elements day3.dom >>actual &&
	! grep -w "script\|b\|em" actual
'

test_expect_success 'chromium: each day page starts with its totals and problems, escaped' '
	$DOM sections day1.dom | grep "^problems" >actual &&
	$DOM sections day2.dom | grep "^problems" >>actual &&
	$DOM sections day3.dom | grep "^problems" >>actual &&
	cat >expect <<-EOT &&
	problems : Problems 4/6 merged 1 conflict 2 left out gpio conflicts with fixes: left out broken left out: fetch-failed (repository '"'"'$TRASH/nowhere'"'"' does not exist)
	problems : Problems 4/6 merged 2 conflicts 2 left out build failed gpio conflicts with fixes: left out bitmap conflicts with mm: its version of next-20261201 merged instead $HOSTILE not fetched: an older commit merged ('"'"'refs/heads/master'"'"' not found in '"'"'$TRASH/net'"'"') broken left out: fetch-failed (repository '"'"'$TRASH/nowhere'"'"' does not exist) build failed on smoke (x86_64): make exited 2 <script>alert(1)</script>; kernel/smp.c:12: redefinition of '"'"'cpumask_any_and_but'"'"' <b>
	problems : Problems 4/6 merged 2 conflicts 2 left out 3/4 builds ok 1/2 boots passed gpio conflicts with fixes: left out bitmap conflicts with mm: its version of next-20261202 merged instead broken left out: fetch-failed (repository '"'"'$TRASH/nowhere'"'"' does not exist) tests failing on smoke (x86_64): gpio.edge_events build failed on arm64 (arm64): make exited 2; drivers/gpio/gpiolib.c:5: implicit declaration of <i>gpio_request</i>
	EOT
	test_cmp expect actual
'

test_expect_success 'chromium: the day page lists each tree with its details and report' '
	$DOM trees day2.dom | cut -d"|" -f1,2,4,5 | sed "s/  */ /g" >actual &&
	cat >expect <<-EOT &&
	fixes | merged +1 commit | | 
	gpio | conflict with fixes | f (content) | report
	mm | merged +1 commit | | 
	bitmap | previous conflict with mm; version of next-20261201; +1 commit | g (content) | report
	$HOSTILE | merged fetch failed, older commit | fetch: '"'"'refs/heads/master'"'"' not found in '"'"'$TRASH/net'"'"' | 
	broken | fetch-failed | fetch: repository '"'"'$TRASH/nowhere'"'"' does not exist | 
	EOT
	test_cmp expect actual
'

test_expect_success 'chromium: a tree built after its merge shows that build and its log' '
	$DOM trees day3.dom | grep "^mm " | cut -d"|" -f1,2,4 | sed "s/ *$//" >actual &&
	echo "mm | merged unchanged | build after its merge: ok log" >expect &&
	test_cmp expect actual &&
	grep -q "href=\"../days/2026-12-03/build-mm.log\">log</a>" ws/dashboard/day-2026-12-03.html
'

test_expect_success 'chromium: the tree page has one row per day, newest first' '
	chrome - "$TRASH/ws/dashboard/tree-n_3Ci_3E_26_22_23_25.html" >tree.dom &&
	$DOM trees tree.dom | cut -d"|" -f1,2 | sed "s/ *$//" >actual &&
	cat >expect <<-\EOT &&
	2026-12-03 | merged unchanged
	2026-12-02 | merged fetch failed, older commit
	2026-12-01 | merged
	EOT
	test_cmp expect actual &&
	grep -q "<h1>tide: n&lt;i&gt;&amp;&quot;#%</h1>" ws/dashboard/tree-n_3Ci_3E_26_22_23_25.html
'

test_expect_success 'every link names a file of the dashboard or the day, and every anchor exists' '
	$DOM links ws/dashboard >actual &&
	test_must_be_empty() { test ! -s "$1" || { cat "$1"; return 1; }; } &&
	test_must_be_empty actual &&
	grep -q "href=\"../days/2026-12-02/reports/gpio.txt\"" ws/dashboard/day-2026-12-02.html
'

test_expect_success 'the trend has a point per day with a time, a gap where there is none' '
	$DOM svg index.dom >actual &&
	cat >expect <<-\EOT &&
	trend-build lines 2 points 2
	trend-boot lines 1 points 1
	EOT
	test_cmp expect actual
'

test_expect_success '--out elsewhere: the links still reach the days' '
	tide -C ws dashboard --out "$TRASH/pub/dash" >out &&
	grep -q "href=\"../../ws/days/2026-12-02/merge.log\"" pub/dash/day-2026-12-02.html &&
	$DOM links pub/dash >actual &&
	test ! -s actual
'

test_expect_success 'a day record that cannot be read: a warning naming it, the day marked; a missing log is not linked' '
	cp -R ws ws2 && echo "{" >ws2/days/2026-12-02/day.json &&
	rm ws2/days/2026-12-03/console.log &&
	tide -C ws2 dashboard >out 2>err &&
	grep -q "^tide: warning: 1 day record could not be read, marked unreadable (.*ws2/days/2026-12-02/day.json: " err &&
	grep -q "^dashboard: 2 days, 6 trees, 11 files in " out &&
	chrome - "$TRASH/ws2/dashboard/index.html" >ws2.dom &&
	$DOM stagewords ws2.dom >actual &&
	cat >expect <<-\EOT &&
	2026-12-01 no build | no boot | -
	2026-12-02 unreadable | unreadable | unreadable
	2026-12-03 build ok | boot tests-failed | bisect found
	EOT
	test_cmp expect actual &&
	grep -q "could not be read" ws2/dashboard/day-2026-12-02.html &&
	grep -q "console log" ws/dashboard/day-2026-12-03.html &&
	! grep -q "2026-12-03/console.log" ws2/dashboard/day-2026-12-03.html &&
	grep -q "href=\"../days/2026-12-03/console.up.log\">console log" ws2/dashboard/day-2026-12-03.html
'

test_expect_success 'an output directory that cannot be written: exit 4, naming it' '
	echo file >notadir &&
	test_must_fail --status=4 tide -C ws dashboard --out notadir 2>err &&
	test_cmp_str "tide: cannot write the dashboard to '\''notadir'\'': '\''notadir'\'' exists and is not a directory" err &&
	test_must_fail --status=4 tide -C ws dashboard --out notadir/sub 2>err &&
	test_cmp_str "tide: cannot write the dashboard to '\''notadir/sub'\'': cannot create directory '\''notadir/sub'\'': Not a directory" err &&
	test_must_fail --status=2 tide -C ws dashboard --bogus 2>err &&
	test_must_fail --status=2 tide -C ws dashboard extra 2>err
'

test_expect_success 'tide run with an unwritable dashboard: a warning, the day recorded as always' '
	rm -rf ws/dashboard && echo file >ws/dashboard &&
	test_expect_code 1 tide -C ws -f trees.conf run --date 2026-12-04 --no-build --no-boot >out 2>err &&
	grep -q "^tide: warning: cannot write the dashboard to .$TRASH/ws/dashboard.: " err &&
	grep -q "^next-20261204: 4 of 6 trees merged" out &&
	tide -C ws show 2026-12-04 >show &&
	grep -q "^2026-12-04  next-20261204  complete" show &&
	test "$(cat ws/dashboard)" = file
'

test_expect_success 'a workspace with no day yet: exit 3' '
	mkdir empty && git init -q --bare empty/repo.git &&
	test_must_fail --status=3 tide -C empty dashboard 2>err &&
	test_cmp_str "tide: no day in workspace '\''$TRASH/empty'\'' yet" err
'

test_done
