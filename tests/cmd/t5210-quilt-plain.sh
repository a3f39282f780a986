#!/bin/sh
# Quilt trees made of plain diffs, as akpm's mm and distribution queues
# carry them (quilt's "Index:" form, akpm's "diff -puN a/f~name", -p0 and
# -R series options): they integrate through `tide run`, and a hunk that
# does not apply gives a message naming the patch, file, hunk and lines.
. "$(dirname "$0")/lib.sh"
test_cmp() { diff -u "$1" "$2"; }

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >out 2>err || test $? = 1
}

mm_field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d['trees'] if t['name']=='mm'][0]; print($2)" "ws/days/$1/day.json"
}

test_expect_success 'setup: mainline and a series of plain diffs' '
	git init -q -b master main &&
	mkdir -p main/mm main/lib &&
	printf "%s\n" 1 2 3 4 5 6 7 8 9 10 >main/mm/vmscan.c &&
	printf "%s\n" a b c d e f >main/lib/list.c &&
	git -C main add . && git -C main commit -qm base && git -C main tag v1 &&
	mkdir mm &&
	cat >mm/quilt-style.patch <<-\EOT &&
	From: Quilt User <q@ex.org>
	Subject: mm: quilt style

	A patch as quilt refresh writes it.

	---
	 mm/vmscan.c | 2 +-

	Index: linux/mm/vmscan.c
	===================================================================
	--- linux.orig/mm/vmscan.c
	+++ linux/mm/vmscan.c
	@@ -2,7 +2,7 @@
	 2
	 3
	 4
	-5
	+five
	 6
	 7
	 8
	EOT
	cat >mm/akpm-style.patch <<-\EOT &&
	From: Andrew Morton <akpm@ex.org>
	Subject: lib: akpm style

	Signed-off-by: Andrew Morton <akpm@ex.org>
	---

	 lib/list.c |    1 +
	 1 file changed, 1 insertion(+)

	diff -puN lib/list.c~lib-akpm-style lib/list.c
	--- a/lib/list.c~lib-akpm-style
	+++ a/lib/list.c
	@@ -3,4 +3,5 @@ b
	 c
	 d
	 e
	+e2
	 f
	diff -puN /dev/null lib/new.c
	--- /dev/null
	+++ a/lib/new.c
	@@ -0,0 +1 @@
	+new file
	_
	EOT
	cat >mm/p0.patch <<-\EOT &&
	From: Zero Strip <z@ex.org>
	Subject: mm: p0

	---
	--- mm/vmscan.c	2026-11-30 10:00:00.000000000 +0000
	+++ mm/vmscan.c	2026-11-30 10:01:00.000000000 +0000
	@@ -6,5 +6,5 @@
	 6
	 7
	-8
	+eight
	 9
	 10
	EOT
	cat >mm/reverse.patch <<-\EOT &&
	From: Rev Erse <r@ex.org>
	Subject: lib: applied with -R

	---
	--- a/lib/list.c
	+++ b/lib/list.c
	@@ -1,3 +1,3 @@
	-A
	+a
	 b
	 c
	EOT
	printf "%s\n" "# plain diffs" quilt-style.patch akpm-style.patch "p0.patch -p0" \
		"reverse.patch -R" >mm/series &&
	printf "#tide\tbase\tmain#v1\nmm\tquilt\tmm\n" >trees.conf
'

test_expect_success 'the series integrates through tide run' '
	run_day 2026-12-01 &&
	test "$(mm_field 2026-12-01 "t[\"status\"]")" = merged &&
	git --git-dir=ws/repo.git log --format="%an|%s" refs/quilt/mm >log &&
	printf "%s\n" "Rev Erse|lib: applied with -R" "Zero Strip|mm: p0" \
		"Andrew Morton|lib: akpm style" "Quilt User|mm: quilt style" "Tide Test|base" >want &&
	test_cmp want log &&
	git --git-dir=ws/repo.git show next-20261201:mm/vmscan.c >vmscan &&
	printf "%s\n" 1 2 3 4 five 6 7 eight 9 10 >want && test_cmp want vmscan &&
	git --git-dir=ws/repo.git show next-20261201:lib/list.c >list &&
	printf "%s\n" A b c d e e2 f >want && test_cmp want list &&
	git --git-dir=ws/repo.git show next-20261201:lib/new.c >new &&
	echo "new file" >want && test_cmp want new
'

test_expect_success 'the same patches, applied by patch(1) in a checkout, give the same tree' '
	git clone -q main ref &&
	(cd ref && for p in quilt-style.patch akpm-style.patch; do patch -s -p1 <../mm/$p; done &&
	 patch -s -p0 <../mm/p0.patch && patch -s -p1 -R <../mm/reverse.patch &&
	 git add -A && git write-tree) >want &&
	git --git-dir=ws/repo.git rev-parse "refs/quilt/mm^{tree}" >tree &&
	test_cmp want tree
'

test_expect_success 'a hunk that does not apply: the record names patch, file, hunk and lines' '
	sed -i "s/^ 7$/ seven/" mm/p0.patch &&
	run_day 2026-12-02 &&
	test "$(mm_field 2026-12-02 "t[\"fetch\"][\"status\"]")" = stale &&
	mm_field 2026-12-02 "t[\"fetch\"][\"error\"]" | sed "s|/[^'"'"']*/mm/series|DIR/mm/series|" >msg &&
	echo "quilt tree '"'"'mm'"'"': series '"'"'DIR/mm/series'"'"': patch '"'"'p0.patch'"'"' does not apply to '"'"'mm/vmscan.c'"'"': hunk #1 (@@ -6,5 +6,5 @@): line 7: expected '"'"'seven'"'"', found '"'"'7'"'"'" >want &&
	test_cmp want msg
'

test_expect_success 'a path with .. in a patch is refused, naming the patch and the line' '
	sed -i "s/^ seven$/ 7/" mm/p0.patch &&
	sed -i "s|^+++ a/lib/new.c|+++ a/../new.c|" mm/akpm-style.patch &&
	run_day 2026-12-03 &&
	mm_field 2026-12-03 "t[\"fetch\"][\"error\"]" >msg &&
	grep "patch .akpm-style.patch.: line 21: refusing path .\.\./new\.c." msg
'

test_done
