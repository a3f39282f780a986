#!/bin/sh
# Text tide did not write: tree names and branches in trees.conf, NUL
# bytes in config files, commit subjects in Latin-1 or not UTF-8 at all.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

q="'"

test_expect_success 'setup: mainline, a tree and a conflicting tree' '
	make_mainline &&
	make_tree t1 a "t1" "t1: change a" &&
	make_tree ok b "ok"
'

test_expect_success 'a tree name that is not UTF-8 is refused with its line, exit 3' '
	conf "t1 git t1#for-next" "$(printf "bad\377name")" &&
	sed -i "s/^bad\(.*\)name\$/bad\1name\tgit\tok#for-next/" world/trees.conf &&
	test_must_fail --status=3 tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 2>err &&
	grep "trees.conf:7: '\''bad\\\\xffname'\'' is not a valid tree name" err &&
	! test -d ws/days
'

test_expect_success 'names that are not one ASCII ref component are refused, exit 3' '
	for name in a..b .dot -dash x.lock end. @ "a@{b" HEAD "a:b" "a~b" "a^b" "a?b" "a*b" "a[b" "a\\b" \
		"$(printf "caf\303\251")" "$(printf "del\177")"; do
		printf "%s\tgit\tok#for-next\n" "$name" >bad.conf &&
		test_must_fail --status=3 tide -f bad.conf trees 2>err &&
		grep -q "bad.conf:1: .* is not a valid tree name" err ||
		{ echo "accepted: $name"; cat err; exit 1; }
	done &&
	printf "v6.1-fixes\tgit\tok#for-next\n" >good.conf &&
	tide -f good.conf trees >out && grep -q "^v6.1-fixes" out
'

test_expect_success 'a branch that is not a ref name or not UTF-8 is refused, exit 3' '
	for branch in "a..b" "a b" "$(printf "b\377")" "x.lock" "-x"; do
		printf "t\tgit\tok#%s\n" "$branch" >bad.conf &&
		test_must_fail --status=3 tide -f bad.conf trees 2>err &&
		grep -q "bad.conf:1: bad branch name" err ||
		{ echo "accepted: $branch"; cat err; exit 1; }
	done
'

test_expect_success 'trees --json repairs an option that is not UTF-8 instead of dropping it' '
	printf "t\tgit\tok#for-next\n#tide\tt\tk\377ey=v\377\n" >opt.conf &&
	tide -f opt.conf trees --json >out.json &&
	python3 -c "import json; print(json.load(open(\"out.json\"))[\"trees\"][0][\"opts\"])" >actual &&
	printf "{${q}k\357\277\275ey${q}: ${q}v\357\277\275${q}}\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'a NUL byte in trees.conf is an error naming the line, exit 3' '
	conf "t1 git t1#for-next" "ok git ok#for-next" &&
	printf "x\0y\tgit\tok#for-next\nlater\tgit\tok#for-next\n" >>world/trees.conf &&
	test_must_fail --status=3 tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 2>err &&
	test_cmp_str "tide: world/trees.conf:8: NUL byte" err &&
	test_must_fail --status=3 tide -f world/trees.conf trees 2>err &&
	test_cmp_str "tide: world/trees.conf:8: NUL byte" err
'

# Sharing resolutions never stops a day (tide-resolve(1)): the error is reported, not lost.
test_expect_success 'a NUL byte in rerere.conf is reported, not read past' '
	conf "t1 git t1#for-next" &&
	mkdir -p ws && printf "expire-days=30\n\0share=x\n" >ws/rerere.conf &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err &&
	grep -q "rerere.conf:2: NUL byte" err &&
	rm ws/rerere.conf && rm -rf ws/days
'

test_expect_success 'a Latin-1 subject is shown in UTF-8 in the conflict report' '
	git clone -q world/mainline world/l1 &&
	git -C world/l1 checkout -q -b for-next &&
	echo l1 >world/l1/a && git -C world/l1 add a &&
	git -C world/l1 -c i18n.commitEncoding=ISO-8859-1 commit -q \
		-m "$(printf "l1: caf\351 na\357ve")" &&
	git -C world/l1 cat-file commit HEAD >raw && grep -q "^encoding ISO-8859-1" raw &&
	conf "t1 git t1#for-next" "l1 git l1#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-12-02 >out 2>err &&
	printf "l1: caf\303\251 na\303\257ve\n" >expect &&
	python3 -c "import json; r=json.load(open(\"ws/days/2026-12-02/reports/l1.json\")); print(r[\"files\"][0][\"theirs_commits\"][0][\"subject\"])" >actual &&
	test_cmp expect actual &&
	day_field 2026-12-02 "d[\"trees\"][1][\"conflicts\"][0][\"theirs_commits\"][0][\"subject\"]" >actual &&
	test_cmp expect actual &&
	id=$(git -C world/l1 rev-parse --short=12 HEAD) &&
	printf "  %s (\"l1: caf\303\251 na\303\257ve\")\n" "$id" >expect &&
	grep -F "$id" ws/days/2026-12-02/reports/l1.txt >actual &&
	test_cmp expect actual
'

test_expect_success 'a subject that is not UTF-8 at all is kept, bad bytes replaced; no crash' '
	git clone -q world/mainline world/raw &&
	git -C world/raw checkout -q -b for-next &&
	echo raw >world/raw/a && git -C world/raw add a &&
	git -C world/raw -c i18n.commitEncoding=no-such-charset commit -q \
		-m "$(printf "raw: \377\376 bytes")" &&
	git clone -q world/mainline world/bad2 &&
	git -C world/bad2 checkout -q -b for-next &&
	echo bad2 >world/bad2/b && git -C world/bad2 add b &&
	tree=$(git -C world/bad2 write-tree) && parent=$(git -C world/bad2 rev-parse HEAD) &&
	# git commit would take the byte for Latin-1 and convert it: write the object by hand.
	printf "tree %s\nparent %s\nauthor A <a@x> 1700000000 +0000\ncommitter A <a@x> 1700000000 +0000\n\nbad2: \377 plain\n" \
		"$tree" "$parent" >obj &&
	id=$(git -C world/bad2 hash-object -t commit -w --stdin <obj) &&
	git -C world/bad2 update-ref refs/heads/for-next "$id" &&
	commit_file world/ok b "ok2" &&
	conf "t1 git t1#for-next" "raw git raw#for-next" "ok git ok#for-next" "bad2 git bad2#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-12-03 >out 2>err &&
	day_field 2026-12-03 "\" \".join(t[\"name\"] for t in d[\"trees\"])" >names &&
	test "$(cat names)" = "t1 raw ok bad2" &&
	printf "raw: \357\277\275\357\277\275 bytes\n" >expect &&
	day_field 2026-12-03 "d[\"trees\"][1][\"conflicts\"][0][\"theirs_commits\"][0][\"subject\"]" >actual &&
	test_cmp expect actual &&
	printf "bad2: \357\277\275 plain\n" >expect &&
	day_field 2026-12-03 "d[\"trees\"][3][\"conflicts\"][0][\"theirs_commits\"][0][\"subject\"]" >actual &&
	test_cmp expect actual &&
	test -f ws/days/2026-12-03/reports/bad2.txt
'

test_done
