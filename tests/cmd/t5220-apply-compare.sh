#!/bin/sh
# tide's patch applier against the reference tools: generated patches of
# every form (tests/cmd/apply-gen.py, Debian's DEP-3 headers among them)
# read as a quilt tree's patch is and applied with `tide apply-patch`,
# GNU `patch --fuzz=0` and `git apply --cached` must give the same tree.
# Binary patches are compared with git apply only (patch(1) has none),
# CRLF-mangled patches and --fuzz=1 with patch(1) only (git apply keeps
# the CRs and has no fuzz).
. "$(dirname "$0")/lib.sh"
test_cmp() { diff -u "$1" "$2"; }

test_expect_success 'generated patches: tide, patch(1) and git apply agree' '
	git init -q repo &&
	python3 "$TOP/tests/cmd/apply-gen.py" repo 180 5220 >cases &&
	tail -n 1 cases &&
	grep -v "^ok " cases | grep -v "^cases " >bad || : &&
	if test -s bad; then cat bad; exit 1; fi &&
	grep -q "^cases 180 matched 180$" cases
'

test_expect_success 'every form was generated' '
	for kind in git git-new-delete git-rename git-mode binary-literal binary-delta \
		no-eol crlf-file crlf-patch plain quilt akpm p0 p2 reverse offset conflict fuzz git-copy \
		dep3-run-in dep3-quilt dep3-separator dep3-gbp; do
		grep -q "^ok case [0-9]* $kind " cases || { echo "no $kind case"; exit 1; }
	done
'

test_expect_success 'offsets are reported' '
	git init -q off &&
	printf "%s\n" 1 2 3 4 5 6 7 8 9 10 >off/f &&
	git -C off add f && git -C off commit -q -m base &&
	sed "s/^5$/five/" off/f >off/g && mv off/g off/f && git -C off diff >off.patch &&
	git -C off checkout -q f &&
	{ printf "%s\n" a b; cat off/f; } >off/g && mv off/g off/f &&
	git -C off commit -q -a -m shifted &&
	(cd off && tide apply-patch HEAD ../off.patch >../tree 2>../notes) &&
	echo "f: hunk #1 applied at line 4 (offset 2 lines)" >expect &&
	test_cmp expect notes &&
	(cd off && patch -s --no-backup-if-mismatch -p1 <../off.patch && git add -A && git write-tree) >want &&
	test_cmp want tree
'

test_done
