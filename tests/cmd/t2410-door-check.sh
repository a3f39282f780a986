#!/bin/sh
# Objects checked at the door, as git's connectivity check after a fetch
# and git fsck: every commit a new tip brings (not reachable from the
# base, not found good on an earlier day) must parse, and every object
# its trees name must be there, no deeper than max-tree-depth.  A tree
# that fails is left out (or merged at its last good version) with the
# tree, the commit and the reason named; the other trees are merged, the
# day is tagged and tide run exits 1.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

# raw_commit REPO TREE PARENT AUTHOR SUBJECT: a commit written as given,
# unchecked (an author line git fsck only warns about); prints its id.
raw_commit() {
	{
		printf "tree %s\n" "$2"
		[ -z "$3" ] || printf "parent %s\n" "$3"
		printf "author %s 1700000000 +0000\ncommitter C <c@c.invalid> 1700000000 +0000\n\n%s\n" \
			"$4" "$5"
	} | git -C "$1" hash-object -t commit -w --literally --stdin
}

# attack NAME: clone mainline as tree NAME on branch for-next.
attack() {
	git clone -q world/mainline "world/$1" && git -C "world/$1" checkout -q -b for-next
}

# tip NAME COMMIT: NAME's for-next is COMMIT.
tip() {
	git -C "world/$1" update-ref refs/heads/for-next "$2"
}

# refused DATE TREE WHY: the day DATE of g1, TREE and g2 refuses TREE
# with "tree 'TREE' commit ABBREV: WHY", exits 1, merges g1 and g2 and is
# tagged; its record says so.
refused() {
	conf "g1 git g1#for-next" "$2 git $2#for-next" "g2 git g2#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date "$1" >out 2>err &&
	abbrev=$(git -C "world/$2" rev-parse for-next | cut -c1-12) &&
	printf "%s\n" "tide: tree '$2' commit $abbrev: $3" "tide: $2: refused, left out" >expect &&
	grep "refus\|tree '$2'" err >actual &&
	test_cmp expect actual &&
	d=$(echo "$1" | tr -d -) &&
	printf "%s\n" "next-$d: 2 of 3 trees merged, 1 left out" "see 'tide show $1'" >expect &&
	sed "/^\$/,\$d" out >summary && test_cmp expect summary &&
	day_field "$1" "d[\"status\"], *[t[\"status\"] for t in d[\"trees\"]], sep=\" \"" >actual &&
	echo "complete merged rejected merged" >expect && test_cmp expect actual &&
	day_field "$1" "d[\"trees\"][1][\"rejected\"]" >actual &&
	echo "tree '$2' commit $abbrev: $3" >expect && test_cmp expect actual &&
	test "$(git --git-dir=ws/repo.git rev-parse "next-$d")" = "$(day_field "$1" "d[\"commit\"]")" &&
	git --git-dir=ws/repo.git log --format=%B "next-$d" >log &&
	grep -q "Tide-Tree: g1" log && grep -q "Tide-Tree: g2" log && ! grep -q "Tide-Tree: $2" log &&
	# what was published reads whole: every object it names is there
	git --git-dir=ws/repo.git archive "next-$d" | tar tf - >/dev/null
}

test_expect_success 'setup: mainline, two good trees, a first day' '
	make_mainline &&
	make_tree g1 g1.c "g1" &&
	make_tree g2 g2.c "g2" &&
	conf "g1 git g1#for-next" "g2 git g2#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-03-01 >out 2>err &&
	grep -q "^tide: checked at the door: 2 new commits, 2 new trees in " err
'

test_expect_success 'a tip whose author has no e-mail is left out, not the night (was exit 3)' '
	attack noemail &&
	echo ne >world/noemail/ne && git -C world/noemail add ne &&
	c=$(raw_commit world/noemail "$(git -C world/noemail write-tree)" \
		"$(git -C world/noemail rev-parse HEAD)" "No Email" "noemail: tip") &&
	tip noemail $c &&
	refused 2026-03-02 noemail "cannot be read: failed to parse signature - malformed e-mail"
'

test_expect_success 'a commit of its history that does not parse is named' '
	attack histbad &&
	bad=$(raw_commit world/histbad "$(git -C world/histbad write-tree)" \
		"$(git -C world/histbad rev-parse HEAD)" "No Email" "histbad: old") &&
	tip histbad $bad && git -C world/histbad reset -q --hard $bad &&
	commit_file world/histbad hb "hb" &&
	refused 2026-03-03 histbad \
		"commit $(echo $bad | cut -c1-12) of its history cannot be read: failed to parse signature - malformed e-mail"
'

test_expect_success 'a parent that does not exist is named' '
	attack noparent &&
	c=$(raw_commit world/noparent "$(git -C world/noparent write-tree)" \
		2222222222222222222222222222222222222222 "A <a@a.invalid>" "noparent: tip") &&
	tip noparent $c &&
	refused 2026-03-04 noparent \
		"commit 222222222222 of its history cannot be read: object not found - no match for id (2222222222222222222222222222222222222222)"
'

test_expect_success 'a tree naming a blob that does not exist (mktree --missing) is not published' '
	attack missing &&
	t=$({ git -C world/missing ls-tree HEAD &&
	      printf "100644 blob 1111111111111111111111111111111111111111\tghost\n"; } |
		git -C world/missing mktree --missing) &&
	tip missing $(git -C world/missing commit-tree -p HEAD -m "missing: ghost" $t) &&
	refused 2026-03-05 missing \
		"refusing path '\''ghost'\'': blob 1111111111111111111111111111111111111111 is missing"
'

test_expect_success 'an entry whose mode says blob but names a tree is refused' '
	attack notblob &&
	sub=$(git -C world/notblob rev-parse HEAD:d) &&
	t=$({ git -C world/notblob cat-file tree HEAD^{tree} &&
	      python3 -c "import sys; sys.stdout.buffer.write(b\"100644 notblob\\0\" + bytes.fromhex(sys.argv[1]))" $sub; } |
		git -C world/notblob hash-object -t tree -w --literally --stdin) &&
	tip notblob $(git -C world/notblob commit-tree -p HEAD -m "notblob" $t) &&
	refused 2026-03-06 notblob "refusing path '\''notblob'\'': object $sub is not a blob"
'

# deep_tree REPO N: HEAD's tree plus "deep/d/.../d/f", N trees deep below
# the root, written as loose objects by a small writer; prints the tree.
deep_tree() {
	python3 - "$1" "$2" <<-\EOF
	import hashlib, os, subprocess, sys, zlib
	repo, n = sys.argv[1], int(sys.argv[2])
	objdir = os.path.join(repo, ".git", "objects")
	def write(kind, data):
	    raw = b"%s %d\0" % (kind, len(data)) + data
	    h = hashlib.sha1(raw).hexdigest()
	    d = os.path.join(objdir, h[:2]); p = os.path.join(d, h[2:])
	    if not os.path.exists(p):
	        os.makedirs(d, exist_ok=True)
	        with open(p, "wb") as f: f.write(zlib.compress(raw, 1))
	    return bytes.fromhex(h)
	t = write(b"tree", b"100644 f\0" + write(b"blob", b"deep\n"))
	for i in range(n - 1):
	    t = write(b"tree", b"40000 d\0" + t)
	top = subprocess.check_output(["git", "-C", repo, "cat-file", "tree", "HEAD^{tree}"])
	print(write(b"tree", top + b"40000 deep\0" + t).hex())
	EOF
}

test_expect_success 'a tree 60,000 directories deep is refused, no crash (was SIGSEGV)' '
	attack deep &&
	tip deep $(git -C world/deep commit-tree -p HEAD -m "deep" $(deep_tree world/deep 60000)) &&
	conf "g1 git g1#for-next" "deep git deep#for-next" "g2 git g2#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-03-07 >out 2>err &&
	abbrev=$(git -C world/deep rev-parse for-next | cut -c1-12) &&
	# the path is cut in its middle: 100 bytes, [...], 100 bytes
	head=$(printf "d/%.0s" $(seq 1 47)) && tail=$(printf "/d%.0s" $(seq 1 50)) &&
	printf "%s\n" "tide: tree '\''deep'\'' commit $abbrev: refusing path '\''deep/${head}d[...]${tail}'\'': deeper than 4096 directories (max-tree-depth)" \
		"tide: deep: refused, left out" >expect &&
	grep "refus" err >actual && test_cmp expect actual &&
	test "$(day_field 2026-03-07 "*[t[\"status\"] for t in d[\"trees\"]]")" = "merged rejected merged" &&
	git --git-dir=ws/repo.git rev-parse -q --verify next-20260307
'

# A fresh workspace each time: a tree found good is not checked again,
# so a lower limit applies to what comes after it.
test_expect_success 'max-tree-depth= sets the limit; 4096 deep merges by default' '
	attack deep40 &&
	tip deep40 $(git -C world/deep40 commit-tree -p HEAD -m "deep40" $(deep_tree world/deep40 40)) &&
	attack deep4095 &&
	tip deep4095 $(git -C world/deep4095 commit-tree -p HEAD -m "deep4095" $(deep_tree world/deep4095 4095)) &&
	conf "deep4095 git deep4095#for-next" "deep40 git deep40#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-03-08 >out 2>err &&
	printf "#tide\tmax-tree-depth=40\n" >>world/trees.conf &&
	test_must_fail --status=1 tide -C ws40 -f world/trees.conf run --no-build --date 2026-03-09 >out 2>err &&
	grep -q "^tide: tree '\''deep4095'\'' commit [0-9a-f]*: refusing path '\''deep/d/d/d/.*deeper than 40 directories (max-tree-depth)$" err &&
	grep -q "^tide: tree '\''deep40'\'' commit .*deeper than 40 directories" err &&
	sed -i "s/max-tree-depth=40/max-tree-depth=41/" world/trees.conf &&
	test_must_fail --status=1 tide -C ws41 -f world/trees.conf run --no-build --date 2026-03-10 >out 2>err &&
	grep -q "^tide: tree '\''deep4095'\'' commit .*deeper than 41 directories" err &&
	! grep -q "tree '\''deep40'\'' commit" err &&
	sed -i "s/max-tree-depth=41/max-tree-depth=0/" world/trees.conf &&
	test_must_fail --status=3 tide -C ws41 -f world/trees.conf run --no-build --date 2026-03-11 2>err &&
	grep -q "trees.conf:[0-9]*: bad max-tree-depth .0. (a whole number, 1 to 65536)" err
'

test_expect_success 'a refused tip with a good earlier day is merged at that version' '
	good=$(git -C world/g2 rev-parse for-next) &&
	t=$({ git -C world/g2 ls-tree HEAD &&
	      printf "100644 blob 1111111111111111111111111111111111111111\tghost\n"; } |
		git -C world/g2 mktree --missing) &&
	bad=$(git -C world/g2 commit-tree -p HEAD -m "g2: ghost" $t) && tip g2 $bad &&
	conf "g1 git g1#for-next" "g2 git g2#for-next" &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-build --date 2026-03-12 >out 2>err &&
	printf "%s\n" "next-20260312: 2 of 2 trees merged, 1 at an earlier day'\''s version" \
		"see '\''tide show 2026-03-12'\''" >expect &&
	sed "/^\$/,\$d" out >summary && test_cmp expect summary &&
	grep -q "^tide: g2: used the version from next-20260307$" err &&
	day_field 2026-03-12 "d[\"trees\"][1][\"status\"], d[\"trees\"][1][\"sha\"], d[\"trees\"][1][\"attempted_sha\"]" >actual &&
	echo "previous $good $bad" >expect && test_cmp expect actual &&
	git --git-dir=ws/repo.git archive next-20260312 | tar tf - >/dev/null &&
	tip g2 $good
'

test_expect_success 'the check is incremental: trees found good are not read again' '
	conf "g1 git g1#for-next" "g2 git g2#for-next" "deep4095 git deep4095#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-03-13 >out 2>err &&
	grep "^tide: checked at the door" err &&
	grep -q "^tide: checked at the door: 0 new commits, 0 new trees in 0.0[0-9]* s$" err &&
	commit_file world/g1 g1.c "g1 again" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-03-14 >out 2>err &&
	grep -q "^tide: checked at the door: 1 new commits, 1 new trees in " err
'

test_done
