#!/bin/sh
# A tree conflicting in 10,000 files of one directory: its conflicts are
# recorded whole (each file's hunk, the commit of each side that changed
# the line), the trees around it are merged and the day is tagged.  The
# hunks, the recorded resolutions and the attribution read each tree
# once, not once per file (8 minutes before; `make bench-merge-real`
# prints the time of such a tree next to git merge-tree's).  The run's
# time goes to $TIDE_MEASURE/t2170-many-conflicts.
. "$(dirname "$0")/lib.sh"

N=10000

# gen N: base (dir/f00000.c .. of 10 lines, a, b), branches conf1 and conf2
# changing line 6 of every file differently, good1 and good2 changing a
# and b.
gen() {
	python3 - "$1" <<-\EOF
	import sys
	n, out, mark = int(sys.argv[1]), sys.stdout.buffer, [0]
	def blob(data):
	    mark[0] += 1
	    out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (mark[0], len(data), data))
	    return mark[0]
	def commit(ref, msg, parent, files, when):
	    mark[0] += 1
	    out.write(b"commit %s\nmark :%d\n" % (ref, mark[0]))
	    out.write(b"author A <a@example.com> %d +0000\ncommitter A <a@example.com> %d +0000\n" % (when, when))
	    out.write(b"data %d\n%s\n" % (len(msg), msg))
	    if parent:
	        out.write(b"from :%d\n" % parent)
	    for path, b in files:
	        out.write(b"M 100644 :%d %s\n" % (b, path))
	    out.write(b"\n")
	    return mark[0]
	def text(i, tag):
	    return b"".join(b"line %d of file %d%s\n" % (k, i, tag if k == 5 else b"") for k in range(10))
	files = [(b"dir/f%05d.c" % i, blob(text(i, b""))) for i in range(n)]
	files += [(b"a", blob(b"a\n")), (b"b", blob(b"b\n"))]
	base = commit(b"refs/heads/master", b"base", None, files, 1700000000)
	out.write(b"reset refs/tags/v1\nfrom :%d\n\n" % base)
	for name, tag in ((b"conf1", b" one"), (b"conf2", b" two")):
	    fs = [(b"dir/f%05d.c" % i, blob(text(i, tag))) for i in range(n)]
	    commit(b"refs/heads/" + name, name + b": change every file", base, fs, 1700000100)
	commit(b"refs/heads/good1", b"good1: change a", base, [(b"a", blob(b"good1\n"))], 1700000200)
	commit(b"refs/heads/good2", b"good2: change b", base, [(b"b", blob(b"good2\n"))], 1700000300)
	EOF
}

test_expect_success 'setup: two trees changing the same line of 10,000 files' '
	git init -q --bare w.git &&
	gen $N | git -C w.git fast-import --quiet &&
	{
		printf "#tide\tbase\tw.git#v1\nName\tType\tURL\n" &&
		for t in good1 conf1 conf2 good2; do printf "%s\tgit\tw.git#%s\n" $t $t; done
	} >trees.conf
'

# The tree's merge process needs 94 MB in a release build and over 512 MB
# (merge-memory's default) under ASan, whose shadow memory and quarantine
# count in its RSS: the budget is t2420's subject, not this test's.
test_expect_success 'the day merges the others, records every conflict and is tagged' '
	mkdir ws && echo "merge-memory = 2G" >ws/config &&
	start=$(date +%s) &&
	test_must_fail --status=1 tide -C ws -f trees.conf run --no-build --no-boot \
		--date 2026-12-01 >out 2>err &&
	end=$(date +%s) &&
	m=${TIDE_MEASURE:-$TOP/build/measurements} && mkdir -p "$m" &&
	echo "$N conflicts: tide run $((end - start)) s (ASan build)" >"$m/t2170-many-conflicts" &&
	git -C ws/repo.git rev-parse -q --verify refs/tags/next-20261201 &&
	git -C ws/repo.git show next-20261201:a >a && test "$(cat a)" = good1 &&
	git -C ws/repo.git show next-20261201:b >b && test "$(cat b)" = good2 &&
	grep -x "next-20261201: 3 of 4 trees merged, 1 left out" out
'

test_expect_success 'each conflict has its hunk and the one commit of each side' '
	python3 -c "import json
d = json.load(open(\"ws/days/2026-12-01/day.json\"))
t = d[\"trees\"][2]
print(t[\"name\"], t[\"status\"], len(t[\"conflicts\"]))
odd = [c[\"path\"] for c in t[\"conflicts\"]
       if c[\"hunks\"] != [\"<<<<<<< next-20261201\nline 5 of file %d one\n=======\nline 5 of file %d two\n>>>>>>> conf2/conf2\n\" % (int(c[\"path\"][5:10]), int(c[\"path\"][5:10]))]
       or [x[\"subject\"] for x in c[\"ours_commits\"]] != [\"conf1: change every file\"]
       or [x[\"subject\"] for x in c[\"theirs_commits\"]] != [\"conf2: change every file\"]
       or c[\"ours_lines\"] != \"6,6\" or c.get(\"blame\")]
print(len(odd), odd[:3])" >actual &&
	printf "%s\n" "conf2 conflict 10000" "0 []" >expect &&
	test_cmp expect actual
'

test_done
