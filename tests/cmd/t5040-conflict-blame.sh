#!/bin/sh
# A conflict names, on each side, the commits that changed the
# conflicting lines: what `git log -L` on the hunks' lines (each side's
# tip, since the merge bases) lists, compared whole on generated
# histories with merges inside the trees; the lines themselves are where
# the hunks' text is in each side's file.  A side that removed the lines,
# and a conflict with no lines (modify/delete), say what their lists are.
. "$(dirname "$0")/lib.sh"

GEN="python3 $TOP/tests/cmd/blame-gen.py"

# day_vs_git REPO DAY: for each conflict of the day, per side, the commits
# recorded ("expect" from git log -L, "actual" from day.json, one line per
# commit: tree, path, side, subject, sorted), and "placed": whether each
# side's lines hold the hunks' sections, as found by their text.
day_vs_git() {
	python3 - "$1" "$2" <<-\EOF
	import json, subprocess, sys
	repo, day = sys.argv[1], json.load(open(sys.argv[2]))
	def git(*a):
	    return subprocess.run(["git", "-C", repo] + list(a), capture_output=True,
	                          text=True, check=True).stdout
	def section_lines(hunk, theirs):
	    want, part, got = ("theirs" if theirs else "ours"), None, []
	    for l in hunk.splitlines():
	        if l.startswith("<<<<<<<"): part = "ours"
	        elif l.startswith("|||||||"): part = "base"
	        elif l.startswith("======="): part = "theirs"
	        elif l.startswith(">>>>>>>"): part = None
	        elif part == want: got.append(l)
	    return got
	def place(file_lines, block):
	    hits = [i for i in range(len(file_lines) - len(block) + 1)
	            if file_lines[i:i + len(block)] == block]
	    return "%d,%d" % (hits[0] + 1, hits[0] + len(block)) if len(hits) == 1 else "?"
	expect, actual, placed = [], [], []
	state = day["base"]["commit"]
	for t in day["trees"]:
	    if t["status"] == "merged":
	        state = t["merge_commit"]
	        continue
	    if t["status"] != "conflict":
	        continue
	    bases = git("merge-base", "--all", state, t["sha"]).split()
	    for c in t["conflicts"]:
	        for side, tip in (("ours", state), ("theirs", t["sha"])):
	            lines = c.get(side + "_lines")
	            got = sorted(x["subject"] for x in c[side + "_commits"])
	            actual += ["%s %s %s %s" % (t["name"], c["path"], side, s) for s in got]
	            if not lines or "@" in lines:
	                expect += ["%s %s %s %s" % (t["name"], c["path"], side, s) for s in got]
	                continue
	            path = c.get(side + "_path") or c["path"]
	            file_lines = git("show", "%s:%s" % (tip, path)).splitlines()
	            blocks = [section_lines(h, side == "theirs") for h in c["hunks"]]
	            found = " ".join(place(file_lines, b) for b in blocks if b)
	            placed.append("%s %s %s %s %s" % (t["name"], c["path"], side, lines,
	                                              "placed" if found == lines else "found at " + found))
	            args = []
	            for r in lines.split():
	                args += ["-L", "%s:%s" % (r, path)]
	            log = git("log", "-s", "--format=%s", *args, tip, "--not", *bases)
	            expect += ["%s %s %s %s" % (t["name"], c["path"], side, s)
	                       for s in sorted(log.splitlines())]
	            print("compared", t["name"], c["path"], side, file=sys.stderr)
	open("expect", "w").write("".join(l + "\n" for l in expect))
	open("actual", "w").write("".join(l + "\n" for l in actual))
	open("placed", "w").write("".join(l + "\n" for l in placed))
	EOF
}

test_expect_success 'generated histories: each side lists what git log -L lists for its lines' '
	: >compared &&
	for seed in 1 2 3 4 5 6 7 8; do
		rm -rf w.git ws expect actual placed &&
		git init -q --bare w.git &&
		$GEN $seed | git -C w.git fast-import --quiet &&
		printf "#tide\tbase\tw.git#v1\nName\tType\tURL\n" >trees.conf &&
		for t in c a b; do printf "%s\tgit\tw.git#%s\n" $t $t >>trees.conf; done &&
		{ tide -C ws -f trees.conf run --no-build --no-boot --date 2026-12-01 >out 2>err ||
		  test $? = 1; } &&
		day_vs_git ws/repo.git ws/days/2026-12-01/day.json 2>>compared &&
		test_cmp expect actual &&
		! grep -v " placed$" placed || { echo "seed $seed"; exit 1; }
	done &&
	# the comparisons made: both sides of several conflicts, not none
	test $(grep -c "^compared .* ours$" compared) -ge 6 &&
	test $(grep -c "^compared .* theirs$" compared) -ge 6
'

# main: f has lines 1-20; "one" changes lines 2, 10 and 18 (and g), "two"
# changes lines 6 and 10 and removes line 14: they conflict at line 10
# only, and the commits that changed other lines of f are not named.
test_expect_success 'setup: a conflict where each side also changed other lines' '
	git init -q -b master main &&
	seq 1 20 >main/f &&
	echo x >main/g &&
	git -C main add f g && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main one && git clone -q main two &&
	sed -i "s/^2$/two-by-one/" one/f && git -C one commit -qam "one: line 2" &&
	sed -i "s/^10$/ten-by-one/" one/f && git -C one commit -qam "one: line 10" &&
	echo y >one/g && git -C one commit -qam "one: g" &&
	sed -i "s/^18$/eighteen-by-one/" one/f && git -C one commit -qam "one: line 18" &&
	sed -i "s/^6$/six-by-two/" two/f && git -C two commit -qam "two: line 6" &&
	sed -i "s/^10$/ten-by-two/" two/f && git -C two commit -qam "two: line 10" &&
	sed -i "/^14$/d" two/f && git -C two commit -qam "two: remove line 14" &&
	printf "#tide\tbase\tmain#v1\nName\tType\tURL\none\tgit\tone#master\ntwo\tgit\ttwo#master\n" >trees.conf
'

test_expect_success 'only the commits that changed the conflicting line are named' '
	test_must_fail --status=1 tide -C ws2 -f trees.conf run --no-build --no-boot --date 2026-12-01 >out 2>err &&
	python3 -c "import json
d = json.load(open(\"ws2/days/2026-12-01/day.json\"))
for c in d[\"trees\"][1][\"conflicts\"]:
    print(c[\"path\"], c[\"ours_lines\"], c[\"theirs_lines\"], c.get(\"blame\"))
    for side in (\"ours\", \"theirs\"):
        for x in c[side + \"_commits\"]:
            print(side, x[\"subject\"])" >actual &&
	cat >expect <<-\EOF &&
	f 10,10 10,10 None
	ours one: line 10
	theirs two: line 10
	EOF
	test_cmp expect actual
'

test_expect_success 'the report names them, and says nothing more when it can tell' '
	tide -C ws2 report 2026-12-01 --tree two >report &&
	sed -n "/^between/,/^from the two/p" report >actual &&
	{
		printf "%s\n\n" "between commit:" &&
		printf "  %s (\"one: line 10\")\n\n" $(git -C one rev-parse --short=12 HEAD~2) &&
		printf "%s\n\n" "from the one tree and commit:" &&
		printf "  %s (\"two: line 10\")\n\n" $(git -C two rev-parse --short=12 HEAD~1) &&
		printf "%s\n" "from the two tree."
	} >expect &&
	test_cmp expect actual &&
	! grep "^Note:" report
'

test_expect_success 'a side that removed the lines names the commit that removed them' '
	git init -q -b master m3 &&
	printf "%s\n" 1 2 3 4 5 6 7 8 9 >m3/f && git -C m3 add f && git -C m3 commit -qm base &&
	git -C m3 tag v1 && git clone -q m3 del && git clone -q m3 mod &&
	sed -i "/^[456]$/d" del/f && git -C del commit -qam "del: remove 4-6" &&
	sed -i "s/^1$/one/" del/f && git -C del commit -qam "del: line 1" &&
	sed -i "s/^5$/five/" mod/f && git -C mod commit -qam "mod: line 5" &&
	printf "#tide\tbase\tm3#v1\nName\tType\tURL\ndel\tgit\tdel#master\nmod\tgit\tmod#master\n" >t3.conf &&
	test_must_fail --status=1 tide -C ws3 -f t3.conf run --no-build --no-boot --date 2026-12-01 >out 2>err &&
	python3 -c "import json
c = json.load(open(\"ws3/days/2026-12-01/day.json\"))[\"trees\"][1][\"conflicts\"][0]
print(c[\"ours_lines\"], c[\"theirs_lines\"], c.get(\"blame\"))
for side in (\"ours\", \"theirs\"):
    for x in c[side + \"_commits\"]:
        print(side, x[\"subject\"])" >actual &&
	cat >expect <<-\EOF &&
	@3 4,6 None
	ours del: remove 4-6
	theirs mod: line 5
	EOF
	test_cmp expect actual
'

test_expect_success 'a conflict with no lines (modify/delete) says its lists are by file' '
	git init -q -b master m4 &&
	printf "%s\n" 1 2 3 >m4/f && echo g >m4/g && git -C m4 add f g && git -C m4 commit -qm base &&
	git -C m4 tag v1 && git clone -q m4 rm && git clone -q m4 ch &&
	git -C rm rm -q f && git -C rm commit -qm "rm: remove f" &&
	echo g2 >rm/g && git -C rm commit -qam "rm: g" &&
	sed -i "s/^2$/two/" ch/f && git -C ch commit -qam "ch: line 2" &&
	printf "#tide\tbase\tm4#v1\nName\tType\tURL\nrm\tgit\trm#master\nch\tgit\tch#master\n" >t4.conf &&
	test_must_fail --status=1 tide -C ws4 -f t4.conf run --no-build --no-boot --date 2026-12-01 >out 2>err &&
	python3 -c "import json
c = json.load(open(\"ws4/days/2026-12-01/day.json\"))[\"trees\"][1][\"conflicts\"][0]
print(c[\"kind\"], c.get(\"ours_lines\"), c.get(\"theirs_lines\"))
print(c.get(\"blame\"))
for side in (\"ours\", \"theirs\"):
    for x in c[side + \"_commits\"]:
        print(side, x[\"subject\"])" >actual &&
	cat >expect <<-\EOF &&
	modify/delete None None
	no conflicting lines to follow (a modify/delete conflict): the commits listed are those that changed the file
	ours rm: remove f
	theirs ch: line 2
	EOF
	test_cmp expect actual &&
	tide -C ws4 report 2026-12-01 --tree ch >report &&
	grep -x "Note: no conflicting lines to follow (a modify/delete conflict): the commits listed are those that changed the file." report
'

test_expect_success 'a side longer than the search says its list stops there' '
	python3 -c "import sys
out = sys.stdout
out.write(\"commit refs/heads/master\nmark :1\ncommitter C <c@example.com> 1700000000 +0000\ndata 4\nbase\n\")
out.write(\"M 100644 inline f\ndata 21\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n\nM 100644 inline g\ndata 2\n0\n\n\")
out.write(\"reset refs/tags/v1\nfrom :1\n\n\")
out.write(\"commit refs/heads/short\nmark :2\ncommitter C <c@example.com> 1700000001 +0000\ndata 13\nshort: line 5\nfrom :1\n\")
out.write(\"M 100644 inline f\ndata 25\n1\n2\n3\n4\nfive-s\n6\n7\n8\n9\n10\n\n\")
out.write(\"commit refs/heads/long\nmark :3\ncommitter C <c@example.com> 1700000002 +0000\ndata 12\nlong: line 5\nfrom :1\n\")
out.write(\"M 100644 inline f\ndata 25\n1\n2\n3\n4\nfive-l\n6\n7\n8\n9\n10\n\n\")
for i in range(5100):
    out.write(\"commit refs/heads/long\ncommitter C <c@example.com> %d +0000\ndata 6\nlong g\nM 100644 inline g\ndata %d\n%d\n\n\" % (1700000003 + i, len(str(i)) + 1, i))
" | { git init -q --bare m5.git && git -C m5.git fast-import --quiet; } &&
	printf "#tide\tbase\tm5.git#v1\nName\tType\tURL\nshort\tgit\tm5.git#short\nlong\tgit\tm5.git#long\n" >t5.conf &&
	test_must_fail --status=1 tide -C ws5 -f t5.conf run --no-build --no-boot --date 2026-12-01 >out 2>err &&
	python3 -c "import json
c = json.load(open(\"ws5/days/2026-12-01/day.json\"))[\"trees\"][1][\"conflicts\"][0]
print(c[\"ours_lines\"], c[\"theirs_lines\"], len(c[\"theirs_commits\"]))
print(c.get(\"blame\").replace(chr(39), \"(q)\"))
print(\"|\".join(x[\"subject\"] for x in c[\"ours_commits\"]))" >actual &&
	cat >expect <<-\EOF &&
	5,5 5,5 0
	the search on long(q)s side stopped after 5000 commits: older commits that changed the lines are not listed
	short: line 5
	EOF
	test_cmp expect actual
'

# git.git, when a clone is at hand (GIT_GIT, default /work/data/git.git):
# two real topics of 2026 that change the same includes of
# odb/source-files.c, merged onto the master they forked from.
GIT_GIT=${GIT_GIT:-/work/data/git.git}
test_lazy_prereq GITGIT 'git -C "$GIT_GIT" cat-file -e e927cfeb21d6a217b708216862deb36f144f064b'
test_expect_success GITGIT 'a real conflict of git.git (GIT_GIT): the day side lists what git log -L lists' '
	git init -q --bare real.git &&
	{
		echo "$(cd "$GIT_GIT" && pwd)/objects" &&
		cat "$GIT_GIT/objects/info/alternates" 2>/dev/null || :
	} >real.git/objects/info/alternates &&
	git -C real.git update-ref refs/tags/base 431cacf73dc3cadc84e86514d7a0a6038a87f2bc &&
	git -C real.git update-ref refs/heads/one 56f3fc9520a52a43aef2cabaf30b71a79c9eca57 &&
	git -C real.git update-ref refs/heads/two e927cfeb21d6a217b708216862deb36f144f064b &&
	printf "#tide\tbase\treal.git#base\nName\tType\tURL\none\tgit\treal.git#one\ntwo\tgit\treal.git#two\n" >t6.conf &&
	test_must_fail --status=1 tide -C ws6 -f t6.conf run --no-build --no-boot --date 2026-12-01 >out 2>err &&
	rm -f expect actual placed compared &&
	day_vs_git ws6/repo.git ws6/days/2026-12-01/day.json 2>compared &&
	test_cmp expect actual &&
	grep -x "two odb/source-files.c ours 16,18 placed" placed &&
	grep -x "compared two odb/source-files.c ours" compared &&
	# the tree side removed nothing and added one line there (a point)
	python3 -c "import json
c = json.load(open(\"ws6/days/2026-12-01/day.json\"))[\"trees\"][1][\"conflicts\"][0]
print(c[\"theirs_lines\"], [x[\"id\"][:10] for x in c[\"theirs_commits\"]])" >actual &&
	python3 -c "print(\"@12 [\x27e927cfeb21\x27]\")" >expect &&
	test_cmp expect actual
'

test_done
