#!/bin/sh
# A day's reproducer: tide run writes reproducer.sh and metadata.json
# beside the record; the script fetches the trees at the day's commits
# into a fresh directory, replays the day's recorded resolution and
# fixup, and checks that tide makes the same merged tree.  A tampered
# commit is a clear mismatch; a URL's password is written nowhere.
. "$(dirname "$0")/lib.sh"

export TIDE="$TIDE_BIN"
D=ws/days/2026-12-02

# A local port nothing listens on: the fetch fails at once.
closed_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

meta() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "${2:-$D}/metadata.json"
}

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

# mainline with f (9 lines) and g; fixes and gpio conflict in line 3 on
# day 2; net merges cleanly; sec sits behind a URL with a password.
test_expect_success 'setup: a world of four trees, day 1' '
	git init -q -b master main &&
	printf "1\n2\n3\n4\n5\n6\n7\n8\n9\n" > main/f && echo keep > main/g &&
	git -C main add f g && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && git clone -q main gpio && git clone -q main "net" &&
	git -C gpio checkout -q -b for-next &&
	sed -i "s/^9$/nine-fixes/" fixes/f && git -C fixes commit -qam "f: fix nine" &&
	sed -i "s/^1$/one-gpio/" gpio/f && git -C gpio commit -qam "gpio: change one" &&
	commit_file net net.c "int net;" &&
	port=$(closed_port) &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#for-next\n" > trees.conf &&
	printf "net\tgit\tnet#master\n" >> trees.conf &&
	printf "sec\tgit\thttps://alice:SECRETTOKEN@127.0.0.1:%s/sec.git#master\n" "$port" >> trees.conf &&
	run_day 2026-12-01 &&
	test -x ws/days/2026-12-01/reproducer.sh &&
	test -f ws/days/2026-12-01/metadata.json
'

test_expect_success 'day 2: a conflict resolved by a recorded resolution, and a fixup' '
	sed -i "s/^3$/three-fixes/" fixes/f && git -C fixes commit -qam "f: fix three" &&
	sed -i "s/^3$/three-gpio/" gpio/f && git -C gpio commit -qam "gpio: rework three" &&
	tide -C ws -f trees.conf resolve gpio --date 2026-12-01 >/dev/null 2>&1 || : &&
	rm -rf ws/resolve &&
	run_day 2026-12-02 &&
	tide -C ws -f trees.conf resolve gpio --date 2026-12-02 >/dev/null &&
	printf "one-gpio\n2\nthree-fixed\n4\n5\n6\n7\n8\nnine-fixes\n" > ws/resolve/gpio/f &&
	tide -C ws -f trees.conf resolve --record gpio >/dev/null &&
	mkdir -p ws/fixups/net &&
	git clone -q main fx && echo fixed-up > fx/g && git -C fx commit -qam "g: semantic fixup" &&
	git -C fx format-patch -q -1 -o ../ws/fixups/net &&
	run_day 2026-12-02 &&
	python3 -c "
import json; d = json.load(open(\"$D/day.json\"))
t = {x[\"name\"]: x for x in d[\"trees\"]}
assert t[\"gpio\"][\"handled\"] == \"recorded\", t[\"gpio\"]
assert t[\"net\"][\"fixups\"], t[\"net\"]
assert t[\"sec\"][\"status\"] == \"fetch-failed\", t[\"sec\"]
"
'

test_expect_success 'metadata.json: base, trees, resolution, fixup, tree ids' '
	test "$(meta "d[\"base\"][\"commit\"]")" = "$(git -C main rev-parse v1)" &&
	test "$(meta "d[\"base\"][\"tag\"]")" = v1 &&
	test "$(meta "[t[\"commit\"] for t in d[\"trees\"] if t[\"name\"]==\"gpio\"][0]")" = "$(git -C gpio rev-parse for-next)" &&
	test "$(meta "[t[\"branch\"] for t in d[\"trees\"] if t[\"name\"]==\"gpio\"][0]")" = for-next &&
	test "$(meta "[t[\"url\"] for t in d[\"trees\"] if t[\"name\"]==\"gpio\"][0]")" = "$PWD/gpio" &&
	test "$(meta "[t[\"status\"] for t in d[\"trees\"] if t[\"name\"]==\"gpio\"][0]")" = merged &&
	test "$(meta "[t[\"status\"] for t in d[\"trees\"] if t[\"name\"]==\"sec\"][0]")" = "left out" &&
	id=$(meta "[t[\"resolutions\"][0][\"id\"] for t in d[\"trees\"] if t[\"name\"]==\"gpio\"][0]") &&
	test -f $D/rr-cache/$id/postimage && cmp $D/rr-cache/$id/postimage ws/rr-cache/$id/postimage &&
	fc=$(meta "[t[\"fixups\"][0][\"commit\"] for t in d[\"trees\"] if t[\"name\"]==\"net\"][0]") &&
	test "$fc" = "$(python3 -c "import json; print([t[\"fixup_commit\"] for t in json.load(open(\"$D/day.json\"))[\"trees\"] if t[\"name\"]==\"net\"][0])")" &&
	grep -q "^Subject: \[PATCH\] g: semantic fixup" $D/fixups/net/0001.patch &&
	c=$(git --git-dir=ws/repo.git rev-parse next-20261202) &&
	test "$(meta "d[\"day\"][\"commit\"]")" = "$c" &&
	test "$(meta "d[\"day\"][\"tree\"]")" = "$(git --git-dir=ws/repo.git rev-parse "$c^{tree}")" &&
	test "$(meta "d[\"day\"][\"merged_tree\"]")" = "$(git --git-dir=ws/repo.git rev-parse "$c^1^{tree}")" &&
	meta "d[\"trees_conf\"][\"content\"]" | grep -q "^gpio	git	gpio#for-next$" &&
	test "$(meta "d[\"build\"]")" = None && test "$(meta "d[\"boot\"]")" = None &&
	meta "d[\"toolchain\"][\"from\"][\"gcc\"]" | grep -q "probed\|unknown"
'

test_expect_success 'the password is in none of the files' '
	! grep -r SECRETTOKEN $D ws/days/2026-12-01 &&
	! grep -r "alice" $D/metadata.json $D/reproducer.sh $D/trees.pinned.conf &&
	meta "d[\"trees_conf\"][\"content\"]" | grep -q "https://127.0.0.1:[0-9]*/sec.git#master"
'

test_expect_success 'the reproducer in a fresh directory makes the same merged tree' '
	$D/reproducer.sh --no-build --no-boot repro >out 2>err &&
	grep -q "same merged tree as next-20261202: $(meta "d[\"day\"][\"merged_tree\"]")" out &&
	test "$(git --git-dir=repro/ws/repo.git rev-parse "next-20261202^1^{tree}")" = "$(meta "d[\"day\"][\"merged_tree\"]")" &&
	git --git-dir=repro/ws/repo.git show next-20261202:f | grep -q "^three-fixed$" &&
	git --git-dir=repro/ws/repo.git show next-20261202:g | grep -q "^fixed-up$" &&
	python3 -c "
import json; d = json.load(open(\"repro/ws/days/2026-12-02/day.json\"))
t = {x[\"name\"]: x for x in d[\"trees\"]}
assert t[\"gpio\"][\"handled\"] == \"recorded\", t[\"gpio\"]
assert \"sec\" not in t
"
'

test_expect_success 'the script wants an empty directory, and says how it is used' '
	test_must_fail --status=1 $D/reproducer.sh --no-build repro 2>err &&
	test_cmp_str "reproducer.sh: '\''$TRASH/repro'\'' is not empty: give a fresh directory" err &&
	test_must_fail --status=2 $D/reproducer.sh 2>err &&
	grep -q "^usage: reproducer.sh \[--no-build\] \[--no-boot\] DIR$" err
'

test_expect_success 'a tampered tree commit is a clear mismatch' '
	mkdir tampered && cp -R $D/. tampered/ &&
	old=$(git -C gpio rev-parse for-next) && new=$(git -C gpio rev-parse for-next^) &&
	sed -i "s/$old/$new/" tampered/reproducer.sh &&
	test_must_fail --status=1 tampered/reproducer.sh --no-build --no-boot repro2 >out 2>err &&
	grep -q "^reproducer.sh: MISMATCH: the merged tree of next-20261202 is [0-9a-f]* here, the day had $(meta "d[\"day\"][\"merged_tree\"]")$" err
'

test_expect_success 'a commit no tree has cannot be fetched' '
	mkdir gone && cp -R $D/. gone/ &&
	old=$(git -C net rev-parse master) &&
	sed -i "s/$old/0123456789012345678901234567890123456789/" gone/reproducer.sh &&
	test_must_fail --status=1 gone/reproducer.sh --no-build repro3 >out 2>err &&
	test_cmp_str "reproducer.sh: cannot fetch commit 0123456789012345678901234567890123456789 from '\''$TRASH/net'\''" err
'

test_expect_success 'a day with a tree left out reproduces without it' '
	sed -i "s/^5$/five-fixes/" fixes/f && git -C fixes commit -qam "f: fix five" &&
	sed -i "s/^5$/five-gpio/" gpio/f && git -C gpio commit -qam "gpio: rework five" &&
	run_day 2026-12-03 &&
	D3=ws/days/2026-12-03 &&
	test "$(meta "[t[\"status\"] for t in d[\"trees\"] if t[\"name\"]==\"gpio\"][0]" $D3)" = "left out" &&
	test "$(meta "[t[\"commit\"] for t in d[\"trees\"] if t[\"name\"]==\"gpio\"][0]" $D3)" = "$(git -C gpio rev-parse for-next)" &&
	$D3/reproducer.sh --no-build repro4 >out 2>err &&
	grep -q "same merged tree as next-20261203" out &&
	python3 -c "
import json; d = json.load(open(\"repro4/ws/days/2026-12-03/day.json\"))
t = {x[\"name\"]: x for x in d[\"trees\"]}
assert t[\"gpio\"][\"status\"] == \"conflict\", t[\"gpio\"]
"
'

# A tree name may hold quotes, $ and parentheses: $(>pwned) makes a file
# if anything evaluates it.
test_expect_success 'hostile tree names are quoted in the script' '
	mkdir hostile && cd hostile &&
	git init -q -b master main && echo a > main/a && git -C main add a &&
	git -C main commit -qm base && git -C main tag v1 &&
	name="it'"'"'s\$(>pwned)\`>pwned2\`" &&
	git clone -q main "$name" && commit_file "$name" b "b" &&
	printf "#tide\tbase\tmain#v1\n%s\tgit\t%s#master\n" "$name" "$name" > trees.conf &&
	tide -C ws -f trees.conf run --date 2026-12-01 --no-build --no-boot >/dev/null 2>&1 &&
	grep -q "^it.s.(>pwned)" ws/days/2026-12-01/trees.pinned.conf &&
	ws/days/2026-12-01/reproducer.sh --no-build r >out 2>err &&
	! test -e pwned && ! test -e r/pwned && ! test -e pwned2 &&
	grep -q "fetching it.s.(>pwned)" out && grep -q "same merged tree" out &&
	test -d "r/trees/$name.git"
'

test_expect_success 'tide reproducer rewrites a day, keeping the conf it ran with' '
	rm $D/reproducer.sh $D/metadata.json &&
	tide -C ws -f trees.conf reproducer 2026-12-02 >out &&
	test "$(cat out)" = "$PWD/$D/reproducer.sh" &&
	test -x $D/reproducer.sh &&
	printf "# later\n" >> trees.conf &&
	tide -C ws -f trees.conf reproducer next-20261202 >/dev/null &&
	! meta "d[\"trees_conf\"][\"content\"]" | grep -q "# later" &&
	tide -C ws reproducer >/dev/null &&
	test -f ws/days/2026-12-02/metadata.json &&
	test_must_fail --status=3 tide -C ws reproducer 2027-01-01 2>err &&
	test_cmp_str "tide: no day 2027-01-01" err &&
	test_must_fail --status=2 tide -C ws reproducer a b
'

test_done
