#!/bin/sh
# tide merge-tree against git merge-tree --write-tree (git's default
# merge.directoryRenames=conflict) on generated directory-rename, rename
# and nested criss-cross cases (tests/cmd/merge-gen-dirrename.py): same
# tree on clean merges, same conflicted paths and exit status otherwise.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-merge-compare.sh"

SEED=${TIDE_MERGE_SEED:-1030}
PER_KIND=${TIDE_MERGE_DIRRENAME_PER_KIND:-8}

test_expect_success "generate cases (seed $SEED)" '
	git init -q r &&
	python3 "$TOP/tests/cmd/merge-gen-dirrename.py" $SEED $PER_KIND 3>cases |
		git -C r fast-import --quiet &&
	test -s cases
'

summary=
while read -r n kind; do
	test_expect_success "case $n ($kind)" "merge_compare $n"
	r=$(cat "$TRASH/kind.$n" 2>/dev/null || echo error)
	summary="$summary$kind $r
"
done <"$TRASH/cases"

# A directory of many files moved by one side while the other side adds
# and edits files in it, and many identical (empty) files: every source
# is paired and counted, which must stay near linear (binary searches, a
# bounded scan of identical blobs), not quadratic.
BIG=${TIDE_MERGE_BIG:-6000}
test_expect_success "a directory of $BIG files moved, additions moved along" '
	python3 - $BIG <<-\PY | git -C r fast-import --quiet &&
	import sys
	n = int(sys.argv[1])
	out = []
	def blob(mark, data):
	    out.append("blob\nmark :%d\ndata %d\n%s\n" % (mark, len(data), data))
	def commit(ref, parent, mark, files):
	    out.append("commit refs/heads/%s\nmark :%d\ncommitter T <t@tide.invalid> 1700000000 +0000\ndata 1\nx\n" % (ref, mark))
	    if parent:
	        out.append("from :%d\n" % parent)
	    out.append("deleteall\n")
	    out.extend("M 100644 :%d %s\n" % (b, p) for p, b in files)
	    out.append("\n")
	blob(1, "")
	blob(2, "edited\n")
	blob(3, "new\n")
	for i in range(n):
	    blob(10 + i, "file %d\n" % i * 3)
	base = [("big/f%d.c" % i, 10 + i) for i in range(n)]
	base += [("big/empty%d" % i, 1) for i in range(n // 4)]
	commit("big-base", None, 5, base)
	commit("big-ours", 5, 6, [("lib/big/" + p[4:], b) for p, b in base])
	theirs = [(p, 2 if p == "big/f7.c" else b) for p, b in base]
	commit("big-theirs", 5, 7, theirs + [("big/added.c", 3), ("big/sub/added.c", 3)])
	sys.stdout.write("".join(out))
	PY
	erc=0 grc=0 &&
	{ (cd r && git merge-tree --write-tree --name-only big-ours big-theirs) >exp.big || erc=$?; } &&
	start=$(date +%s) &&
	{ (cd r && tide merge-tree --name-only big-ours big-theirs) >got.big || grc=$?; } &&
	end=$(date +%s) &&
	echo "exit status: git $erc, tide $grc" &&
	test $erc = $grc &&
	head -n 1 exp.big >te && head -n 1 got.big >tg && test_cmp te tg &&
	conflicted_paths exp.big >pe && conflicted_paths got.big >pg && test_cmp pe pg &&
	grep -q "^lib/big/added.c" got.big &&
	test $((end - start)) -lt 60
'

echo "# cases per kind (clean / conflict):"
printf '%s' "$summary" | sort | uniq -c | awk '{ printf "#   %-20s %-8s %d\n", $2, $3, $1 }'

test_done
