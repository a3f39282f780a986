#!/bin/sh
# Each tree's work in the merge stage runs in a process of its own with a
# time budget (merge-timeout=, trees.conf) and a memory budget
# (merge-memory, DIR/config): a tree that spends one, crashes its
# process or makes libgit2 fail is left out (or merged at its last good
# version) with the tree, the commit and the reason named; the other
# trees are merged, the day is tagged and tide run exits 1.  Text copied
# from trees into published files is capped: subjects in merge.log and
# day.json, authors, and the diffstat of a merge.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

# day_ok DATE STATUS...: the day is complete, its trees have these
# statuses in order, and next-DATE is its commit.
day_ok() {
	date=$1 && shift &&
	test "$(day_field "$date" "d[\"status\"], *[t[\"status\"] for t in d[\"trees\"]]")" = \
		"complete $*" &&
	test "$(git --git-dir=ws/repo.git rev-parse "next-$(echo "$date" | tr -d -)")" = \
		"$(day_field "$date" "d[\"commit\"]")"
}

# A merge that is slow and big: mainline and the tree "slow" both change
# a file of a million lines, every second and every third line.
test_expect_success 'setup: mainline with a big file, good trees, a first day' '
	git init -q -b master world/mainline &&
	(cd world/mainline && echo a >a && echo b >b && mkdir d && echo x >d/x &&
	 seq 1 1000000 | sed "s/^/line /" >big.txt &&
	 git add . && git commit -qm A && git tag A &&
	 awk "NR%2==0 { print \"ours \" \$0; next } { print }" big.txt >t && mv t big.txt &&
	 echo "mainline x" >d/x && git commit -qam B && git tag v1.0) &&
	make_tree g1 g1.c "g1" &&
	make_tree g2 g2.c "g2" &&
	git clone -q world/mainline world/slow && git -C world/slow checkout -q -b for-next A &&
	commit_file world/slow s.c "s" &&
	conf "g1 git g1#for-next" "slow git slow#for-next" "g2 git g2#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-04-01 >out 2>err &&
	day_ok 2026-04-01 merged merged merged &&
	awk "NR%3==1 { print \"theirs \" \$0; next } { print }" world/slow/big.txt >t &&
	mv t world/slow/big.txt && git -C world/slow commit -qam "slow: every third line"
'

# budget_spent DATE WHY FROM: the day DATE refuses slow's tip with "merge
# stopped: WHY", merges its version of FROM (its commit of 2026-04-01)
# instead, and g1, g2.
budget_spent() {
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date "$1" >out 2>err &&
	abbrev=$(git -C world/slow rev-parse for-next | cut -c1-12) &&
	printf "%s\n" "tide: tree 'slow' commit $abbrev: merge stopped: $2" \
		"tide: slow: used the version from $3" >expect &&
	grep "slow: used\|tree 'slow'" err >actual && test_cmp expect actual &&
	d=$(echo "$1" | tr -d -) &&
	printf "%s\n" "next-$d: 3 of 3 trees merged, 1 at an earlier day's version" \
		"see 'tide show $1'" >expect &&
	sed "/^\$/,\$d" out >summary && test_cmp expect summary &&
	day_ok "$1" merged previous merged &&
	test "$(day_field "$1" "d[\"trees\"][1][\"rejected\"]")" = \
		"tree 'slow' commit $abbrev: merge stopped: $2" &&
	grep -qxF "tree 'slow' commit $abbrev: merge stopped: $2" "ws/days/$1/merge.log" &&
	test "$(day_field "$1" "d[\"trees\"][1][\"sha\"]")" = "$(git -C world/slow rev-parse for-next^)"
}

test_expect_success 'a merge past its merge-timeout= is stopped, the tree merged at its last version' '
	printf "#tide\tslow\tmerge-timeout=1\n" >>world/trees.conf &&
	start=$(date +%s) &&
	budget_spent 2026-04-02 "took more than 1 s (merge-timeout)" next-20260401 &&
	test $(($(date +%s) - start)) -lt 60
'

test_expect_success 'the global merge-timeout= is each tree'\''s default' '
	conf "g1 git g1#for-next" "slow git slow#for-next" "g2 git g2#for-next" &&
	printf "#tide\tmerge-timeout=1\n" >>world/trees.conf &&
	budget_spent 2026-04-03 "took more than 1 s (merge-timeout)" next-20260402 &&
	printf "#tide\tmerge-timeout=0\n" >world/bad.conf &&
	test_must_fail --status=3 tide -f world/bad.conf trees 2>err &&
	grep -q "bad.conf:1: bad merge-timeout .0. (whole seconds, 1 to 86400)" err &&
	printf "x\tgit\tx\n#tide\tx\tmerge-timeout=soon\n" >world/bad.conf &&
	test_must_fail --status=3 tide -f world/bad.conf trees 2>err &&
	grep -q "bad.conf:2: tree .x.: bad merge-timeout .soon." err
'

# merge-memory is also the budget of one content merge (tide-config(5)):
# at 64M big.txt is a binary conflict at once.  What spends the process's
# memory is the width of the tree: slow's tip also adds a directory of
# 200,000 files (the door check reads it, merge.log's diffstat lists it).
test_expect_success 'a merge past merge-memory is stopped, the tree merged at its last version' '
	t=$(python3 - world/slow <<-\EOF
	import hashlib, os, subprocess, sys, zlib
	repo = sys.argv[1]
	def write(kind, data):
	    raw = b"%s %d\0" % (kind, len(data)) + data
	    h = hashlib.sha1(raw).hexdigest()
	    d = os.path.join(repo, ".git", "objects", h[:2])
	    os.makedirs(d, exist_ok=True)
	    with open(os.path.join(d, h[2:]), "wb") as f: f.write(zlib.compress(raw, 1))
	    return bytes.fromhex(h)
	blob = write(b"blob", b"one line\n")
	wide = write(b"tree", b"".join(b"100644 f%07d\0" % i + blob for i in range(200000)))
	top = subprocess.check_output(["git", "-C", repo, "cat-file", "tree", "for-next^{tree}"])
	print(write(b"tree", top + b"40000 wide\0" + wide).hex())
	EOF
	) &&
	git -C world/slow update-ref refs/heads/for-next \
		$(git -C world/slow commit-tree -p for-next^ -m "slow: every third line, and wide" $t) &&
	conf "g1 git g1#for-next" "slow git slow#for-next" "g2 git g2#for-next" &&
	printf "merge-memory = 64M\n" >ws/config.new &&
	cat ws/config >>ws/config.new && mv ws/config.new ws/config &&
	budget_spent 2026-04-04 "used more than 64 MB of memory (merge-memory)" next-20260403 &&
	sed -i "s/^merge-memory = 64M$/merge-memory = 12/" ws/config &&
	test_must_fail --status=3 tide -C ws -f world/trees.conf run --no-build --date 2026-04-05 2>err &&
	grep -q "ws/config:1: bad merge-memory .12. (bytes, or a number with K, M or G, from 1M to 64G)$" err &&
	test ! -e ws/days/2026-04-05 &&
	sed -i "/^merge-memory/d" ws/config
'

test_expect_success 'a merge process that crashes leaves its tree out, not the night' '
	conf "g1 git g1#for-next" "g2 git g2#for-next" &&
	commit_file world/g2 g2.c "g2 again" &&
	TIDE_TEST_MERGE_ABORT=g2 test_must_fail --status=1 \
		tide -C ws -f world/trees.conf run --no-build --date 2026-04-06 >out 2>err &&
	abbrev=$(git -C world/g2 rev-parse for-next | cut -c1-12) &&
	printf "%s\n" "tide: tree '\''g2'\'' commit $abbrev: merge stopped: crashed (signal 6, Aborted)" \
		"tide: g2: its previous version was not merged either: merge stopped: crashed (signal 6, Aborted)" \
		"tide: g2: refused, left out" >expect &&
	grep "g2: \(its\|refused\)\|tree '\''g2'\''" err >actual && test_cmp expect actual &&
	day_ok 2026-04-06 merged rejected
'

test_expect_success 'a blob libgit2 cannot read (bad zlib data) leaves its tree out' '
	git clone -q world/mainline world/corrupt && git -C world/corrupt checkout -q -b for-next A &&
	# a loose object whose header reads, and whose data does not
	blob=$(python3 - world/corrupt <<-\EOF
	import hashlib, os, random, sys, zlib
	random.seed(1)
	data = b"".join(b"corrupt line %d %d\n" % (i, random.randrange(10**9)) for i in range(60000))
	raw = b"blob %d\0" % len(data) + data
	h = hashlib.sha1(raw).hexdigest()
	z = bytearray(zlib.compress(raw, 6))
	for i in range(len(z) - 200, len(z) - 100):
	    z[i] ^= 0x55
	d = os.path.join(sys.argv[1], ".git", "objects", h[:2])
	os.makedirs(d, exist_ok=True)
	open(os.path.join(d, h[2:]), "wb").write(bytes(z))
	print(h)
	EOF
	) &&
	sub=$(printf "100644 blob %s\tx\n" $blob | git -C world/corrupt mktree --missing) &&
	t=$({ git -C world/corrupt ls-tree HEAD | grep -v "	d\$" &&
	      printf "040000 tree %s\td\n" $sub; } | git -C world/corrupt mktree --missing) &&
	git -C world/corrupt update-ref refs/heads/for-next \
		$(git -C world/corrupt commit-tree -p HEAD -m "corrupt: d/x" $t) &&
	conf "g1 git g1#for-next" "corrupt git corrupt#for-next" "g2 git g2#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-04-07 >out 2>err &&
	abbrev=$(git -C world/corrupt rev-parse for-next | cut -c1-12) &&
	printf "%s\n" "tide: tree '\''corrupt'\'' commit $abbrev: cannot merge '\''corrupt'\'': cannot read blob $blob of '\''d/x'\'': incorrect data check" \
		"tide: corrupt: refused, left out" >expect &&
	grep "corrupt: refused\|tree '\''corrupt'\''" err >actual && test_cmp expect actual &&
	day_ok 2026-04-07 merged rejected merged
'

test_expect_success 'a 20 MB commit message is one line of at most 256 bytes of its subject in merge.log' '
	git clone -q world/mainline world/bigmsg && git -C world/bigmsg checkout -q -b for-next &&
	commit_file world/bigmsg bm "bm" &&
	{
		git -C world/bigmsg cat-file commit HEAD | sed "/^\$/q" &&
		head -c 20000000 /dev/zero | tr "\0" x && echo
	} >msg &&
	git -C world/bigmsg update-ref refs/heads/for-next \
		$(git -C world/bigmsg hash-object -t commit -w --stdin <msg) &&
	conf "g1 git g1#for-next" "bigmsg git bigmsg#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-04-08 >out 2>err &&
	abbrev=$(git -C world/bigmsg rev-parse for-next | cut -c1-12) &&
	x256=$(head -c 256 /dev/zero | tr "\0" x) &&
	echo "Merging bigmsg/for-next ($abbrev $x256[...])" >expect &&
	grep "^Merging bigmsg" ws/days/2026-04-08/merge.log >actual && test_cmp expect actual &&
	test $(wc -c <ws/days/2026-04-08/merge.log) -lt 4096 &&
	# the commit checks name it too (no Signed-off-by): cut there as well
	day_field 2026-04-08 "[f[\"subject\"] for f in d[\"checks\"][\"findings\"] if f[\"tree\"] == \"bigmsg\"][0]" >actual &&
	echo "$x256[...]" >expect && test_cmp expect actual &&
	test $(wc -c <ws/days/2026-04-08/day.json) -lt 65536 &&
	git --git-dir=ws/repo.git show next-20260408:Next/merge.log >published &&
	test $(wc -c <published) -lt 4096
'

test_expect_success 'the subjects and authors of a conflict are cut in day.json and the report' '
	git clone -q world/mainline world/longname && git -C world/longname checkout -q -b for-next &&
	echo longname >world/longname/a && git -C world/longname add a &&
	long=$(head -c 100000 /dev/zero | tr "\0" y) &&
	GIT_AUTHOR_NAME="$long" git -C world/longname commit -q -m "$long" &&
	commit_file world/g1 a "g1 a" &&
	conf "g1 git g1#for-next" "longname git longname#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-04-09 >out 2>err &&
	y256=$(head -c 256 /dev/zero | tr "\0" y) &&
	day_field 2026-04-09 "d[\"trees\"][1][\"conflicts\"][0][\"theirs_commits\"][0][\"subject\"]" >actual &&
	echo "$y256[...]" >expect && test_cmp expect actual &&
	day_field 2026-04-09 "d[\"trees\"][1][\"conflicts\"][0][\"theirs_commits\"][0][\"author\"]" >actual &&
	echo "$y256[...]" >expect && test_cmp expect actual &&
	test $(wc -c <ws/days/2026-04-09/reports/longname.txt) -lt 8192 &&
	test $(wc -c <ws/days/2026-04-09/day.json) -lt 65536 &&
	git -C world/g1 reset -q --hard HEAD^
'

test_expect_success 'a tree of a million files lists 1000 of them in merge.log' '
	git clone -q world/mainline world/many && git -C world/many checkout -q -b for-next &&
	t=$(python3 - world/many <<-\EOF
	import hashlib, os, subprocess, sys, zlib
	repo = sys.argv[1]
	def write(kind, data):
	    raw = b"%s %d\0" % (kind, len(data)) + data
	    h = hashlib.sha1(raw).hexdigest()
	    d = os.path.join(repo, ".git", "objects", h[:2])
	    os.makedirs(d, exist_ok=True)
	    with open(os.path.join(d, h[2:]), "wb") as f: f.write(zlib.compress(raw, 1))
	    return bytes.fromhex(h)
	blob = write(b"blob", b"one line\n")
	many = write(b"tree", b"".join(b"100644 f%07d\0" % i + blob for i in range(1000000)))
	top = subprocess.check_output(["git", "-C", repo, "cat-file", "tree", "HEAD^{tree}"])
	print(write(b"tree", top + b"40000 many\0" + many).hex())
	EOF
	) &&
	git -C world/many update-ref refs/heads/for-next \
		$(git -C world/many commit-tree -p HEAD -m "many: a million files" $t) &&
	conf "g1 git g1#for-next" "many git many#for-next" &&
	# under ASan the merge of a million files takes more than the default budget
	echo "merge-memory = 2G" >>ws/config &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-04-10 >out 2>err &&
	sed -i "/^merge-memory/d" ws/config &&
	sed -n "/^Merging many/,/^Merging\|^\$/p" ws/days/2026-04-10/merge.log >log &&
	test $(grep -c "^ many/f[0-9]* | 1 +$" log) = 1000 &&
	grep -qx " 1000 files changed, 1000 insertions(+)" log &&
	grep -qx " ... and 999000 more files changed (merge.log lists 1000 a merge)" log &&
	test $(wc -c <ws/days/2026-04-10/merge.log) -lt 100000
'

# add_files NAME: NAME's for-next gets a commit adding many/f0 .. many/f9999,
# each one line "NAME i".
add_files() {
	git clone -q world/mainline "world/$1" && git -C "world/$1" checkout -q -b for-next &&
	{
		printf "commit refs/heads/for-next\ncommitter C <c@c.invalid> 1700000000 +0000\n" &&
		printf "data <<EOM\n%s: 10000 files\nEOM\nfrom refs/heads/for-next^0\n" "$1" &&
		seq 0 9999 | awk -v n="$1" '{ printf "M 100644 inline many/f%d\ndata <<EOM\n%s %d\nEOM\n", $1, n, $1 }'
	} | git -C "world/$1" fast-import --quiet
}

# A tree that conflicts in 10,000 files with the day (each file added by
# an earlier tree too): its conflicts cost time, and its time budget bounds
# them (it ran past the default 300 s before conflict hunks were read once
# a tree).
test_expect_success 'a tree conflicting in 10,000 files is stopped at its merge-timeout=' '
	add_files c1 && add_files c2 &&
	conf "g1 git g1#for-next" "c1 git c1#for-next" "c2 git c2#for-next" "g2 git g2#for-next" &&
	printf "#tide\tc2\tmerge-timeout=3\n" >>world/trees.conf &&
	start=$(date +%s) &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-04-11 >out 2>err &&
	test $(($(date +%s) - start)) -lt 120 &&
	abbrev=$(git -C world/c2 rev-parse for-next | cut -c1-12) &&
	printf "%s\n" "tide: tree '\''c2'\'' commit $abbrev: merge stopped: took more than 3 s (merge-timeout)" \
		"tide: c2: refused, left out" >expect &&
	grep "c2: refused\|tree '\''c2'\''" err >actual && test_cmp expect actual &&
	day_ok 2026-04-11 merged merged rejected merged &&
	test "$(git --git-dir=ws/repo.git show next-20260411:many/f9999)" = "c1 9999"
'

test_done
