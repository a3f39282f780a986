#!/bin/sh
# tide kcidb: a day as a KCIDB v5.3 document, every document checked
# against the schema's constraints (tests/data/kcidb/validate.py); ids
# stable across days; what a day lacks is left out, not invented.
. "$(dirname "$0")/lib.sh"

export GIT_AUTHOR_DATE="2026-12-01T00:00:00Z" GIT_COMMITTER_DATE="2026-12-01T00:00:00Z"
VALIDATE=$TOP/tests/data/kcidb/validate.py

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

# add_stage DATE: the build and boot records the stages write (docs/design.md),
# with a build error, a KTAP failure, a skip and a name KCIDB refuses.
add_stage() {
	python3 - "ws/days/$1/day.json" "${2:-12}" <<-\PY
	import json, sys
	p, line = sys.argv[1], int(sys.argv[2])
	d = json.load(open(p))
	d["build"] = {"status": "failed", "failure": "make exited 2", "seconds": 95.5,
	  "errors": [{"file": "drivers/gpio/gpiolib.c", "line": line, "column": 3,
	              "message": "gpio_foo undeclared (first use in this function)", "kind": "compiler"}],
	  "errors_total": 1, "warnings": [], "new_warnings": [], "log": "build.log",
	  "jobs": 2, "ccache": True}
	d["boot"] = {"status": "tests-failed", "reason": "1 test failed", "seconds": 3.1,
	  "accel": "tcg", "smp": 4, "cmdline": "console=ttyS0", "console": "console.log",
	  "counts": {"pass": 1, "fail": 1, "skip": 1},
	  "tests": [{"name": "gpio", "ok": False, "directive": None, "diagnostics": []},
	            {"name": "gpio.edge events/rising", "ok": False, "directive": None,
	             "diagnostics": ["# expected 1 event, got 0"]},
	            {"name": "gpio.legacy_api", "ok": True, "directive": "SKIP no config",
	             "diagnostics": []},
	            {"name": "cpumask.weight", "ok": True, "directive": None, "diagnostics": []}],
	  "problems": [], "warnings": []}
	json.dump(d, open(p, "w"))
	PY
}

# summary DOC: one line per object, the fields the tests compare.
summary() {
	python3 - "$1" <<-\PY
	import json, sys
	d = json.load(open(sys.argv[1]))
	print("version", d["version"]["major"], d["version"]["minor"])
	for c in d["checkouts"]:
	    print("checkout", c["id"], c["valid"], c.get("tree_name", "-"),
	          c.get("misc", {}).get("status", "-"), "excerpt" if "log_excerpt" in c else "")
	for b in d["builds"]:
	    print("build", b["id"], b["checkout_id"], b["status"], b["duration"], b.get("log_url", "-"))
	for t in d["tests"]:
	    print("test", t["id"], t["path"], t["status"])
	for i in d["issues"]:
	    if ":check:" not in i["id"]:  # the commit checks' issues: t5310
	        print("issue", i["id"], i["comment"])
	for n in d["incidents"]:
	    print("incident", n["id"], n["issue_id"], n.get("build_id", "-"), n.get("test_id", "-"))
	PY
}

test_expect_success 'setup: a day where gpio conflicts with fixes' '
	git init -q -b master main &&
	printf "1\n2\n3\n" >main/f && git -C main add f && git -C main commit -qm base &&
	git -C main tag v1 &&
	git clone -q main fixes && git clone -q main gpio &&
	sed -i "s/^2$/two-fixes/" fixes/f && git -C fixes commit -qam "fixes: two" &&
	sed -i "s/^2$/two-gpio/" gpio/f && git -C gpio commit -qam "gpio: two" &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#master\n" >trees.conf &&
	run_day 2026-12-01 &&
	test -f ws/days/2026-12-01/day.json
'

test_expect_success 'a day without build or boot: checkouts only, valid against the schema' '
	tide -C ws kcidb >doc.json &&
	"$VALIDATE" doc.json &&
	summary doc.json >actual &&
	cat >expect <<-\EOT &&
	version 5 3
	checkout tide:next-20261201 True ws complete 
	checkout tide:next-20261201:tree:fixes True fixes merged 
	checkout tide:next-20261201:tree:gpio False gpio conflict excerpt
	EOT
	test_cmp expect actual
'

test_expect_success 'the left-out tree carries its conflict as the log excerpt' '
	python3 -c "import json; d=json.load(open(\"doc.json\")); print(d[\"checkouts\"][2][\"log_excerpt\"], end=\"\")" >excerpt &&
	head -n 2 excerpt >actual &&
	printf "CONFLICT (content): f\n<<<<<<< next-20261201\n" >expect &&
	test_cmp expect actual &&
	python3 -c "import json; d=json.load(open(\"doc.json\")); c=d[\"checkouts\"][0]; print(c[\"git_commit_hash\"], *c[\"git_commit_tags\"], c[\"misc\"][\"base_tag\"])" >actual &&
	echo "$(git -C ws/repo.git rev-parse next-20261201^{commit}) next-20261201 v1" >expect &&
	test_cmp expect actual
'

test_expect_success 'build, boot and KTAP results become builds, tests, issues and incidents' '
	add_stage 2026-12-01 &&
	tide -C ws kcidb --origin tide_ci --url https://ci.example.org/days --out doc.json 2026-12-01 &&
	"$VALIDATE" doc.json &&
	summary doc.json | grep -v "^checkout" >actual &&
	hash=$(printf "compiler\ndrivers/gpio/gpiolib.c\ngpio_foo undeclared (first use in this function)" | sha1sum | cut -c1-16) &&
	D=tide_ci:next-20261201 &&
	cat >expect <<-EOT &&
	version 5 3
	build $D:build $D FAIL 95.5 https://ci.example.org/days/2026-12-01/build.log
	test $D:boot boot PASS
	test $D:test:boot.gpio boot.gpio FAIL
	test $D:test:boot.gpio.edge_events_rising boot.gpio.edge_events_rising FAIL
	test $D:test:boot.gpio.legacy_api boot.gpio.legacy_api SKIP
	test $D:test:boot.cpumask.weight boot.cpumask.weight PASS
	issue tide_ci:build:$hash drivers/gpio/gpiolib.c: gpio_foo undeclared (first use in this function)
	issue tide_ci:test:boot.gpio gpio fails
	issue tide_ci:test:boot.gpio.edge_events_rising gpio.edge events/rising fails
	incident $D:build:$hash tide_ci:build:$hash $D:build -
	incident $D:test:boot.gpio tide_ci:test:boot.gpio - $D:test:boot.gpio
	incident $D:test:boot.gpio.edge_events_rising tide_ci:test:boot.gpio.edge_events_rising - $D:test:boot.gpio.edge_events_rising
	EOT
	test_cmp expect actual
'

test_expect_success 'the boot names QEMU, the accelerator and the CPUs; the excerpt has the diagnostics' '
	python3 -c "import json; d=json.load(open(\"doc.json\")); t=d[\"tests\"]; print(t[0][\"environment\"][\"comment\"]); print(t[2][\"log_excerpt\"], end=\"\"); print(t[2][\"misc\"][\"ktap_name\"]); print(t[0][\"log_url\"])" >actual &&
	cat >expect <<-\EOT &&
	QEMU, tcg, 4 CPUs
	# expected 1 event, got 0
	gpio.edge events/rising
	https://ci.example.org/days/2026-12-01/console.log
	EOT
	test_cmp expect actual
'

test_expect_success 'the same breakage the next day is the same issue with a new incident' '
	GIT_COMMITTER_DATE="2026-12-02T00:00:00Z" run_day 2026-12-02 &&
	add_stage 2026-12-02 40 &&
	tide -C ws kcidb --origin tide_ci 2026-12-01 >one.json &&
	tide -C ws kcidb --origin tide_ci next-20261202 >two.json &&
	"$VALIDATE" one.json two.json &&
	python3 -c "import json,sys; print(sorted(i[\"id\"] for i in json.load(open(sys.argv[1]))[\"issues\"]))" one.json >ids1 &&
	python3 -c "import json,sys; print(sorted(i[\"id\"] for i in json.load(open(sys.argv[1]))[\"issues\"]))" two.json >ids2 &&
	test_cmp ids1 ids2 &&
	python3 -c "import json,sys; print(sorted(i[\"id\"] for i in json.load(open(sys.argv[1]))[\"incidents\"]))" two.json >inc2 &&
	grep -q "tide_ci:next-20261202:build:" inc2 && ! grep -q 20261201 inc2
'

test_expect_success 'an excerpt over 16384 characters is cut on a character boundary' '
	python3 - ws/days/2026-12-02/day.json <<-\PY &&
	import json, sys
	p = sys.argv[1]; d = json.load(open(p))
	d["build"]["errors"] = [{"file": "f%d.c" % i, "line": 1, "column": 1,
	    "message": "\u00e9" * 300, "kind": "compiler"} for i in range(80)]
	json.dump(d, open(p, "w"))
	PY
	tide -C ws kcidb >big.json &&
	"$VALIDATE" big.json &&
	python3 -c "import json; b=json.load(open(\"big.json\"))[\"builds\"][0]; print(len(b[\"log_excerpt\"]))" >actual &&
	echo 16384 >expect &&
	test_cmp expect actual
'

test_expect_success 'the validator refuses what KCIDB refuses' '
	python3 - doc.json <<-\PY &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["tests"][1]["path"] = "boot.gpio.edge events"
	d["builds"][0]["status"] = "ok"
	d["checkouts"][0]["origin"] = "Tide"
	d["builds"][0]["log_url"] = None
	json.dump(d, open("bad.json", "w"))
	PY
	test_must_fail "$VALIDATE" bad.json >out &&
	test $(wc -l <out) = 4
'

test_expect_success 'origin from DIR/config; bad origin and URL base are errors' '
	echo "kcidb-origin = nightly_next" >>ws/config &&
	tide -C ws kcidb >doc2.json &&
	"$VALIDATE" doc2.json &&
	grep -q "\"id\": \"nightly_next:next-20261202\"" doc2.json &&
	test_must_fail --status=2 tide -C ws kcidb --origin Bad-Name 2>err &&
	test_cmp_str "tide: KCIDB origin '\''Bad-Name'\'' is not valid: use lower-case letters, digits and '\''_'\''" err &&
	test_must_fail --status=3 tide -C ws kcidb --url https://ci.example.org/ 2>err &&
	test_cmp_str "tide: URL base '\''https://ci.example.org/'\'' is not valid: a URL without a trailing '\''/'\''" err &&
	test_must_fail --status=3 tide -C ws kcidb 2026-11-30 2>err &&
	test_cmp_str "tide: no day 2026-11-30" err &&
	test_must_fail --status=2 tide -C ws kcidb --bogus 2>err
'

test_done
