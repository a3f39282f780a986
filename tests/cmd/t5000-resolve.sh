#!/bin/sh
# Conflicts across days: the report names both sides' commits, a tree with
# no resolution falls back to its previous day's version, `tide resolve`
# records a fix that the next day replays, resolutions are shared with
# `git rerere` both ways, fixup patches, bad input.
. "$(dirname "$0")/lib.sh"

# A 9-line file f in mainline; trees fixes and gpio change lines of it.
setup_world() {
	git init -q -b master main &&
	printf '1\n2\n3\n4\n5\n6\n7\n8\n9\n' > main/f &&
	echo keep > main/g &&
	git -C main add f g && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && git clone -q main gpio &&
	sed -i 's/^9$/nine-fixes/' fixes/f && git -C fixes commit -qam "f: fix nine" &&
	sed -i 's/^1$/one-gpio/' gpio/f && git -C gpio commit -qam "gpio: change one" &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#master\n" > trees.conf &&
	printf "#tide\tfixes\tcontact=fixes@ex.org\n#tide\tgpio\tcontact=gpio@ex.org\n" >> trees.conf
}

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

run_day_in() {
	tide -C "$1" -f trees.conf run --date "$2" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "ws/days/$1/day.json"
}

gpio_field() {
	field "$1" "[t for t in d['trees'] if t['name']=='gpio'][0]$2"
}

test_expect_success 'setup: day 1 merges both trees' '
	setup_world &&
	run_day 2026-12-01 &&
	test "$(gpio_field 2026-12-01 "[\"status\"]")" = merged
'

test_expect_success 'day 2: a conflict with no resolution uses the previous version' '
	sed -i "s/^3$/three-fixes/" fixes/f && git -C fixes commit -qam "f: fix three" &&
	sed -i "s/^3$/three-gpio/" gpio/f && git -C gpio commit -qam "gpio: rework three" &&
	run_day 2026-12-02 &&
	test "$(gpio_field 2026-12-02 "[\"status\"]")" = previous &&
	test "$(gpio_field 2026-12-02 "[\"version_from\"]")" = next-20261201 &&
	test "$(gpio_field 2026-12-02 "[\"sha\"]")" = "$(gpio_field 2026-12-01 "[\"sha\"]")" &&
	git --git-dir=ws/repo.git log -1 --format=%B "$(gpio_field 2026-12-02 "[\"merge_commit\"]")" >msg &&
	grep -q "^Tide-Version-From: next-20261201$" msg
'

test_expect_success 'day 2 report names both sides and how it was handled' '
	tide -C ws report 2026-12-02 >out &&
	sed "s/[0-9a-f]\{12,40\}/OID/g" out >actual &&
	cat >expect <<-\EOF &&
	Hi all,

	Today'\''s ws merge of the gpio tree got a conflict in:

	  f

	between commit:

	  OID ("f: fix three")

	from the fixes tree and commit:

	  OID ("gpio: rework three")

	from the gpio tree.

	The conflict (content, rerere id OID):

	  <<<<<<< next-20261202
	  three-fixes
	  =======
	  three-gpio
	  >>>>>>> gpio/master

	No recorded resolution applies, so I used the version from next-20261201
	of the gpio tree for today.

	-- 
	Cheers,
	tide (next-20261202)
	EOF
	test_cmp expect actual &&
	test -f ws/days/2026-12-02/reports/gpio.txt &&
	test -f ws/days/2026-12-02/reports/gpio.json &&
	! test -f ws/days/2026-12-02/reports/fixes.txt &&
	cmp ws/days/2026-12-02/reports/gpio.txt out
'

test_expect_success 'report --json parses and names the commits' '
	tide -C ws report 2026-12-02 --tree gpio --json >out.json &&
	python3 -c "
import json; r = json.load(open(\"out.json\"))[0]
assert r[\"tree\"] == \"gpio\" and r[\"with\"] == [\"fixes\"], r
f = r[\"files\"][0]
assert f[\"path\"] == \"f\" and len(f[\"conflict_id\"]) == 40
assert [c[\"subject\"] for c in f[\"ours_commits\"]] == [\"f: fix three\"], f
assert \"gpio: rework three\" in [c[\"subject\"] for c in f[\"theirs_commits\"]], f
assert r[\"handled\"] == \"previous\" and r[\"new\"] is True
"
'

test_expect_success 'resolve prepares a worktree with the conflicted file' '
	tide -C ws -f trees.conf resolve gpio --date 2026-12-02 >out &&
	grep -q "1 conflicted file" out &&
	grep -q "^<<<<<<< " ws/resolve/gpio/f &&
	grep -q "^three-gpio$" ws/resolve/gpio/f
'

test_expect_success 'recording a file that still has markers is refused' '
	test_must_fail --status=3 tide -C ws -f trees.conf resolve --record gpio 2>err &&
	grep -q "still has conflict markers" err &&
	! test -d ws/rr-cache/*
'

test_expect_success 'resolve --record stores the fix in git rerere layout' '
	printf "one-gpio\n2\nthree-fixed\n4\n5\n6\n7\n8\nnine-fixes\n" > ws/resolve/gpio/f &&
	tide -C ws -f trees.conf resolve --record >out &&
	id=$(sed -n "s/^gpio: recorded resolution \([0-9a-f]*\) for f$/\1/p" out) &&
	test -n "$id" &&
	test -f ws/rr-cache/$id/preimage && test -f ws/rr-cache/$id/postimage &&
	grep -q "^<<<<<<<$" ws/rr-cache/$id/preimage &&
	echo $id >id &&
	! test -d ws/resolve/gpio
'

test_expect_success 'day 3 replays the recorded resolution with no human step' '
	echo more >> gpio/g && git -C gpio commit -qam "gpio: touch g" &&
	run_day 2026-12-03 &&
	test "$(gpio_field 2026-12-03 "[\"status\"]")" = merged &&
	test "$(gpio_field 2026-12-03 "[\"handled\"]")" = recorded &&
	git --git-dir=ws/repo.git show next-20261203:f >f3 &&
	grep -q "^three-fixed$" f3 && ! grep -q "<<<<<<<" f3 &&
	grep -q "resolved from recorded resolution $(cat id)" ws/days/2026-12-03/reports/gpio.txt &&
	grep -q "^++three-fixed$" ws/days/2026-12-03/reports/gpio.txt &&
	grep -q "Resolved .f. using previous resolution" ws/days/2026-12-03/merge.log
'

test_expect_success 'git rerere in a plain clone replays the resolution tide recorded' '
	git clone -q fixes plain && git -C plain config rerere.enabled true &&
	git -C plain fetch -q ../gpio master &&
	mkdir -p plain/.git/rr-cache && cp -r ws/rr-cache/* plain/.git/rr-cache/ &&
	{ git -C plain merge -q FETCH_HEAD >/dev/null 2>&1; true; } &&
	grep -q "^three-fixed$" plain/f && ! grep -q "<<<<<<<" plain/f
'

test_expect_success 'tide replays a resolution recorded by git rerere' '
	rm -rf ws/rr-cache plain &&
	git clone -q fixes plain && git -C plain config rerere.enabled true &&
	git -C plain fetch -q ../gpio master &&
	{ git -C plain merge -q FETCH_HEAD >/dev/null 2>&1; true; } &&
	grep -q "<<<<<<<" plain/f &&
	printf "one-gpio\n2\nthree-by-git\n4\n5\n6\n7\n8\nnine-fixes\n" > plain/f &&
	git -C plain add f && git -C plain commit -qm merged &&
	mkdir ws/rr-cache && cp -r plain/.git/rr-cache/* ws/rr-cache/ &&
	test -f ws/rr-cache/*/postimage &&
	run_day 2026-12-04 &&
	test "$(gpio_field 2026-12-04 "[\"handled\"]")" = recorded &&
	git --git-dir=ws/repo.git show next-20261204:f | grep -q "^three-by-git$"
'

test_expect_success 'a corrupt entry is reported and the day goes on' '
	for p in ws/rr-cache/*/postimage; do printf "<<<<<<< x\na\n=======\nb\n>>>>>>> y\n" > $p; done &&
	run_day 2026-12-05 &&
	test "$(gpio_field 2026-12-05 "[\"status\"]")" = conflict &&
	grep -q "^Note: f: rr-cache entry .* is corrupt" ws/days/2026-12-05/reports/gpio.txt &&
	test "$(field 2026-12-05 "d[\"status\"]")" = complete
'

test_expect_success 'a tree with no resolution and no earlier version is dropped' '
	git clone -q main net && sed -i "s/^3$/three-net/" net/f && git -C net commit -qam "net: three" &&
	printf "net\tgit\tnet#master\n" >> trees.conf.rows &&
	awk "/^gpio\tgit/ { print; print \"net\tgit\tnet#master\"; next } { print }" trees.conf > t.new &&
	mv t.new trees.conf && rm -rf ws/rr-cache &&
	run_day 2026-12-06 &&
	field 2026-12-06 "[t[\"status\"] for t in d[\"trees\"] if t[\"name\"]==\"net\"][0]" >st &&
	test "$(cat st)" = conflict &&
	grep -q "dropped the net tree" ws/days/2026-12-06/reports/net.txt
'

test_expect_success 'a fixup patch is applied after the tree merges' '
	mkdir -p ws/fixups/fixes &&
	git clone -q main fx && echo fixed-up > fx/g && git -C fx commit -qam "g: semantic fixup" &&
	git -C fx format-patch -q -1 -o ../ws/fixups/fixes &&
	run_day 2026-12-07 &&
	git --git-dir=ws/repo.git show next-20261207:g | grep -q "^fixed-up$" &&
	git --git-dir=ws/repo.git log --format=%s next-20261207 | grep -q "^g: semantic fixup$" &&
	git --git-dir=ws/repo.git log -1 --format=%B --grep="^g: semantic fixup" next-20261207 |
		grep -q "^Tide-Tree: fixes$" &&
	field 2026-12-07 "[t.get(\"fixups\") for t in d[\"trees\"] if t[\"name\"]==\"fixes\"][0]" | grep -q "0001-g-semantic-fixup.patch" &&
	fc=$(field 2026-12-07 "[t[\"fixup_commit\"] for t in d[\"trees\"] if t[\"name\"]==\"fixes\"][0]") &&
	mc=$(field 2026-12-07 "[t[\"merge_commit\"] for t in d[\"trees\"] if t[\"name\"]==\"fixes\"][0]") &&
	test "$(git --git-dir=ws/repo.git rev-parse "$fc^")" = "$mc" &&
	git --git-dir=ws/repo.git merge-base --is-ancestor "$fc" next-20261207 &&
	tide -C ws -f trees.conf resolve gpio --date 2026-12-07 >/dev/null &&
	grep -q "^<<<<<<< " ws/resolve/gpio/f && rm -rf ws/resolve
'

test_expect_success 'a fixup that does not apply is recorded, the day goes on' '
	sed -i "s/^-keep$/-nothere/" ws/fixups/fixes/*.patch &&
	run_day 2026-12-08 &&
	field 2026-12-08 "[t.get(\"fixup_error\") for t in d[\"trees\"] if t[\"name\"]==\"fixes\"][0]" >err &&
	grep -q "does not apply to .g." err &&
	test "$(field 2026-12-08 "d[\"status\"]")" = complete
'

test_expect_success 'resolutions shared through a git branch reach another workspace' '
	git init -q --bare share.git &&
	printf "share=%s/share.git#rerere-cache\nexpire-days=30\n" "$PWD" > ws/rerere.conf &&
	tide -C ws -f trees.conf resolve gpio --date 2026-12-02 >/dev/null &&
	printf "one-gpio\n2\nthree-shared\n4\n5\n6\n7\n8\nnine-fixes\n" > ws/resolve/gpio/f &&
	tide -C ws -f trees.conf resolve --record gpio >/dev/null &&
	run_day 2026-12-09 &&
	grep -q "pushed recorded resolutions to .*share.git#rerere-cache" ws/tide.log &&
	git --git-dir=share.git ls-tree -r --name-only rerere-cache | grep -q "/postimage$" &&
	mkdir ws2 && cp ws/rerere.conf ws2/ &&
	run_day_in ws2 2026-12-09 &&
	grep -q "fetched recorded resolutions from" ws2/tide.log &&
	python3 -c "import json; d=json.load(open(\"ws2/days/2026-12-09/day.json\")); t=[t for t in d[\"trees\"] if t[\"name\"]==\"gpio\"][0]; assert t[\"handled\"]==\"recorded\", t" &&
	git --git-dir=ws2/repo.git show next-20261209:f | grep -q "^three-shared$"
'

test_expect_success 'a trees.conf fixup= patch is applied too' '
	rm -rf ws/fixups fx2 &&
	git clone -q main fx2 && echo extra > fx2/extra.txt && git -C fx2 add extra.txt &&
	git -C fx2 commit -qm "extra: semantic fixup from trees.conf" &&
	git -C fx2 format-patch -q -1 --stdout > extra.patch &&
	printf "#tide\tfixes\tfixup=extra.patch\n" >> trees.conf &&
	run_day 2026-12-10 &&
	git --git-dir=ws/repo.git show next-20261210:extra.txt | grep -q "^extra$" &&
	field 2026-12-10 "[t.get(\"fixups\") for t in d[\"trees\"] if t[\"name\"]==\"fixes\"][0]" | grep -q "extra.patch"
'

test_expect_success 'a modify/delete conflict is reported, and resolve says it is not text' '
	mkdir md && cd md &&
	git init -q -b master main && echo a > main/f && echo b > main/g &&
	git -C main add . && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main x && git clone -q main y &&
	git -C x rm -q g && git -C x commit -qm "x: remove g" &&
	echo c > y/g && git -C y commit -qam "y: change g" &&
	printf "#tide\tbase\tmain#v1\nx\tgit\tx#master\ny\tgit\ty#master\n" > trees.conf &&
	{ tide -C ws -f trees.conf run --date 2026-12-01 --no-build --no-boot >/dev/null 2>&1 || test $? = 1; } &&
	tide -C ws report >out &&
	grep -q "(modify/delete, rerere id" out && grep -q "(\"x: remove g\")" out &&
	grep -q "dropped the y tree" out &&
	tide -C ws -f trees.conf resolve y >out &&
	grep -q "^y: modify/delete conflict in g: not text" out &&
	test_must_fail --status=3 tide -C ws -f trees.conf resolve --record y
'

test_expect_success 'bad input: unknown tree, missing day, bad options' '
	test_must_fail --status=3 tide -C ws report --tree nosuch 2>err && grep -q nosuch err &&
	test_must_fail --status=3 tide -C ws report 2030-01-01 &&
	test_must_fail --status=2 tide -C ws report 2026-13-45 &&
	test_must_fail --status=2 tide -C ws report --bogus &&
	test_must_fail --status=2 tide -C ws report --dry-run &&
	test_must_fail --status=2 tide -C ws -f trees.conf resolve &&
	test_must_fail --status=3 tide -C ws -f trees.conf resolve nosuch &&
	test_must_fail --status=3 tide -C ws -f trees.conf resolve --record
'

test_expect_success '-h matches the man pages synopsis' '
	tide report -h >out && grep -q "^usage: tide report \[DATE\] \[--tree NAME\] \[--json\]$" out &&
	tide resolve -h >out && grep -q "^usage: tide resolve TREE \[--date DATE\]$" out &&
	for m in report resolve; do
		test -f "$TOP/man/tide-$m.1" || exit 1
	done
'

test_done
