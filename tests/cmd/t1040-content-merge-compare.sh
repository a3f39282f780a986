#!/bin/sh
# tide's content merges against git 2.39's, byte for byte: random
# three-way texts (tests/cmd/xmerge-gen.py: few distinct lines, Myers'
# fall back, identical and adjacent changes, no final newline, CRLF and
# mixed line ends, add/add, binary files, criss-cross histories whose
# virtual base holds nested conflict markers) merged by
# `tide merge-tree` and `git merge-tree --write-tree`.  The result trees
# must be the same object (so every merged blob, conflict markers and
# labels included), and so must the exit status and the conflicted paths.
# Then the content limits (big-file-threshold, merge-memory), in
# merge-tree and in a day.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

SEED=${TIDE_XMERGE_SEED:-1040}
FILES=${TIDE_XMERGE_FILES:-150}
GROUPS=${TIDE_XMERGE_GROUPS:-8}

test_expect_success "generate $GROUPS groups of $FILES files (seed $SEED)" '
	git init -q --bare r &&
	python3 "$TOP/tests/cmd/xmerge-gen.py" $SEED $FILES $GROUPS |
		git -C r fast-import --quiet &&
	git -C r rev-parse --verify -q g0-ours >/dev/null
'

# compare_group G: both tools on gG-ours and gG-theirs; on a difference
# name the paths whose merged blobs differ.
compare_group() {
	erc=0 grc=0
	(cd r && git merge-tree --write-tree --name-only g$1-ours g$1-theirs) >exp.$1 2>/dev/null || erc=$?
	(cd r && tide merge-tree --name-only g$1-ours g$1-theirs) >got.$1 2>err.$1 || grc=$?
	sed -n "2,/^\$/p" exp.$1 | grep -v "^\$" >paths.$1 || :
	if [ $erc != $grc ]; then
		echo "exit status: git $erc, tide $grc"; cat err.$1; return 1
	fi
	if [ "$(head -n 1 exp.$1)" != "$(head -n 1 got.$1)" ]; then
		git -C r diff-tree -r --name-only "$(head -n 1 exp.$1)" "$(head -n 1 got.$1)" |
			tee differ.$1
		return 1
	fi
	sed -n "2,/^\$/p" got.$1 | grep -v "^\$" | test_cmp paths.$1 -
}

g=0
while [ $g -lt $GROUPS ]; do
	test_expect_success "group $g: same trees, exit status and conflicted paths" \
		"compare_group $g"
	g=$((g + 1))
done

# The limits (not git's: git merges any text under 1 GiB by lines).
# big.txt, LINES lines, changed at its start by ours and its end by theirs.
big_repo() {
	git init -q --bare "$1" &&
	python3 - "$2" <<-\PY | git -C "$1" fast-import --quiet
	import sys
	n = int(sys.argv[1]); out = sys.stdout.buffer
	base = b"".join(b"line %010d\n" % i for i in range(n))
	ours = b"ours\n" + base[16:]
	theirs = base[:-16] + b"theirs\n"
	for m, d in ((1, base), (2, ours), (3, theirs)):
	    out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (m, len(d), d))
	for ref, m, b, p in ((b"base", 10, 1, 0), (b"ours", 11, 2, 10), (b"theirs", 12, 3, 10)):
	    out.write(b"commit refs/heads/%s\nmark :%d\ncommitter T <t@x> 1700000000 +0000\n"
	              b"data 1\nx\n" % (ref, m))
	    if p:
	        out.write(b"from :%d\n" % p)
	    out.write(b"M 100644 :%d big.txt\n" % b)
	PY
}

test_expect_success 'a file over --big-file-threshold is a binary conflict keeping ours' '
	big_repo small.git 1000 &&
	(cd small.git && git merge-tree --write-tree ours theirs) >exp &&
	(cd small.git && tide merge-tree ours theirs) >got &&
	test_cmp exp got &&
	(cd small.git && test_must_fail --status=1 tide merge-tree --big-file-threshold=10K \
		--name-only ours theirs) >got &&
	sed -n 2p got >paths && echo big.txt >want && test_cmp want paths &&
	grep -q "^CONFLICT (binary): Merge conflict in big.txt" got &&
	test "$(git -C small.git rev-parse "$(head -n 1 got)":big.txt)" = \
		"$(git -C small.git rev-parse ours:big.txt)"
'

test_expect_success 'a merge over --merge-memory is a binary conflict keeping ours' '
	(cd small.git && test_must_fail --status=1 tide merge-tree --merge-memory=100K \
		--name-only ours theirs) >got &&
	sed -n 2p got >paths && test_cmp want paths &&
	test "$(git -C small.git rev-parse "$(head -n 1 got)":big.txt)" = \
		"$(git -C small.git rev-parse ours:big.txt)" &&
	test_must_fail --status=2 tide merge-tree --merge-memory=lots ours theirs 2>err &&
	grep -q "bad --merge-memory .lots." err
'

# 64 MB a side: over the threshold, it is never read (RSS far below it).
test_expect_success 'a big file is not read: 64 MB text changed on both sides' '
	big_repo big.git 4194304 &&
	(cd big.git && test_must_fail --status=1 /usr/bin/time -f %M -o ../rss "$TIDE_BIN" \
		merge-tree --big-file-threshold=16M --name-only ours theirs) >got &&
	sed -n 2p got >paths && test_cmp want paths &&
	echo "# RSS $(tail -n 1 rss) KB" &&
	test "$(tail -n 1 rss)" -lt 60000
'

test_expect_success 'tide-config: a bad big-file-threshold is bad input naming the line' '
	mkdir ws && printf "# limits\nbig-file-threshold = lots\n" >ws/config &&
	test_must_fail --status=3 tide -C ws log 2>err &&
	grep -q "ws/config:2: bad big-file-threshold .lots." err
'

test_expect_success 'tide run: two trees change a big file: a binary conflict, a Bin diffstat, the day ships' '
	git init -q -b master world/mainline &&
	python3 -c "import sys; sys.stdout.write(\"\".join(\"line %010d\\n\" % i for i in range(100000)))" \
		>world/mainline/big.txt &&
	git -C world/mainline add big.txt && git -C world/mainline commit -qm mainline &&
	git -C world/mainline tag v1.0 &&
	for t in t1 t2; do
		git clone -q world/mainline world/$t &&
		git -C world/$t checkout -q -b for-next &&
		sed -i "s/^line 0000000005\$/$t was here/" world/$t/big.txt &&
		git -C world/$t commit -qam "$t: change big.txt" || exit 1
	done &&
	conf "t1 git t1#for-next" "t2 git t2#for-next" &&
	mkdir -p run && echo "big-file-threshold = 1M" >run/config &&
	test_must_fail --status=1 tide -C run -f world/trees.conf run --no-build --no-boot \
		--date 2026-12-01 >out 2>err &&
	grep -q "^next-20261201: 1 of 2 trees merged, 1 left out$" out &&
	grep -q "t2: conflict in 1 path (big.txt), left out" err &&
	WS=run day_field 2026-12-01 "\" \".join(c[\"kind\"] for t in d[\"trees\"] for c in t.get(\"conflicts\", []))" >kinds &&
	echo binary >want && test_cmp want kinds &&
	old=$(git -C world/mainline cat-file -s v1.0:big.txt) &&
	new=$(git -C world/t1 cat-file -s for-next:big.txt) &&
	git -C run/repo.git show next-20261201:Next/merge.log >log &&
	grep -q "^ big.txt | Bin $old -> $new bytes\$" log
'

# The figures: files merged, conflicted in git's merge, differing.
m=$(git -C "$TRASH/r" ls-tree --name-only g0-ours | wc -l)
total=$((m * GROUPS))
conflicted=$(cat "$TRASH"/paths.* 2>/dev/null | wc -l)
differ=$(cat "$TRASH"/differ.* 2>/dev/null | wc -l)
echo "# $((total - differ)) of $total paths merged identically ($conflicted conflicted in git)"

test_done
