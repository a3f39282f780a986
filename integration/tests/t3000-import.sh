#!/bin/sh
# integration/import-mainline: the one-commit mainline repository.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
I=$TOP/integration
W=$TOP/work/world
TARBALL=/usr/src/linux-source-6.1.tar.xz

test_expect_success 'import makes mainline.git tagged with the Makefile version' '
	"$I/import-mainline" >out &&
	v=$(awk -F" = " "/^VERSION =/ {v=\$2} /^PATCHLEVEL =/ {p=\$2} /^SUBLEVEL =/ {s=\$2} END {print \"v\" v \".\" p \".\" s}" "$TOP/work/linux-source/Makefile") &&
	echo "$v" &&
	git --git-dir="$W/mainline.git" rev-parse --verify "refs/tags/$v^{commit}" &&
	grep -q "$v" out
'

test_expect_success 'every file of the tarball is in the commit' '
	tar -tvJf "$TARBALL" | grep -vc "^d" >want &&
	git --git-dir="$W/mainline.git" ls-tree -r --name-only v6.1.192 | wc -l >have &&
	cat want have &&
	test "$(cat want)" = "$(cat have)" &&
	git --git-dir="$W/mainline.git" cat-file -e v6.1.192:.gitignore &&
	git --git-dir="$W/mainline.git" cat-file -e v6.1.192:scripts/checkpatch.pl
'

test_expect_success 'a second run finds the tag and does nothing, quickly' '
	before=$(git --git-dir="$W/mainline.git" rev-parse v6.1.192^{commit}) &&
	start=$(date +%s) &&
	"$I/import-mainline" &&
	end=$(date +%s) &&
	test $((end - start)) -le 10 &&
	test "$(git --git-dir="$W/mainline.git" rev-parse v6.1.192^{commit})" = "$before"
'

test_expect_success 'a fresh import gives the same commit OID (deterministic)' '
	TIDE_IMPORT_FRESH=1 "$I/import-mainline" "$TRASH/fresh" &&
	test "$(git --git-dir="$TRASH/fresh/mainline.git" rev-parse v6.1.192^{commit})" = \
	     "$(git --git-dir="$W/mainline.git" rev-parse v6.1.192^{commit})" &&
	test "$(git --git-dir="$TRASH/fresh/mainline.git" log -1 --format="%an|%ae|%at|%cn|%ct" v6.1.192)" = \
	     "Linux Source Import|import@tide.invalid|1700000000|Linux Source Import|1700000000"
'

test_expect_success 'another world directory borrows the objects' '
	"$I/import-mainline" "$TRASH/other" &&
	test -s "$TRASH/other/mainline.git/objects/info/alternates" &&
	test "$(git --git-dir="$TRASH/other/mainline.git" rev-parse v6.1.192^{commit})" = \
	     "$(git --git-dir="$W/mainline.git" rev-parse v6.1.192^{commit})"
'

test_expect_success 'a missing package is one line naming it, exit 3' '
	test_must_fail --status=3 env TIDE_LINUX_TARBALL=/nonexistent/linux.tar.xz \
		"$I/import-mainline" "$TRASH/none" 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -q "install the Debian package linux-source-6.1" err &&
	test ! -e "$TRASH/none/mainline.git"
'

test_done
