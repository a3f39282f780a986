#!/bin/sh
# The series of the kernel world: mail format, apply alone, checkpatch
# --strict (MACRO_ARG_REUSE allowed only on for_each_* iterator macros)
# and kernel-doc (-v: "Return:" sections too): no series adds a warning.
# Every patch Cc:s whom get_maintainer.pl names for its files.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
I=$TOP/integration
SRC=$TOP/work/linux-source
M=$TOP/work/world/mainline.git

"$I/import-mainline" >/dev/null

# Every series a test looks at: each tree's own series file (on
# v6.1.192) and each day's (on the day's base: v6.1.192, or with the
# mainline patches its days/N/base lists).  Lines: tree, series, base list.
# A list with integration/world's directives (@base, @day, @next, @merge,
# @pick: days 6-8) and mm-next's own series (based on a linux-next day)
# are left to integration/world, which applies them (t3003).
all_series() {
	for t in "$I"/series/*/; do
		t=$(basename "$t")
		[ "$t" = mm-next ] || echo "$t $I/series/$t/series -"
		for d in "$I"/days/*/; do
			b=-; [ -f "${d}base" ] && b=${d}base
			[ -f "$d$t" ] || continue
			grep -q "^@" "$d$t" "${d}base" 2>/dev/null || echo "$t $d$t $b"
		done
	done
}

# apply_list TREE LIST: apply the patches LIST names to $TRASH/idx.
apply_list() {
	for p in $(grep -v "^#" "$2"); do
		GIT_INDEX_FILE=$TRASH/idx git --git-dir=repo.git apply --cached "$I/series/$1/$p" ||
			{ echo "$2: $p does not apply"; return 1; }
	done
}

# base_index BASE: the index $TRASH/idx (of repo.git, in $TRASH) at
# v6.1.192, with the mainline patches the file BASE lists ("-": none).
base_index() {
	GIT_INDEX_FILE=$TRASH/idx git --git-dir=repo.git read-tree $(git --git-dir="$M" rev-parse v6.1.192^{tree}) &&
	{ test "$1" = - || apply_list mainline "$1"; }
}

test_expect_success 'every tree (and mainline) has a README, a series file and its patches' '
	for t in mainline fixes cpumask gpio bitmap mmotm gpio-sim mm-next; do
		test -s "$I/series/$t/README" && test -s "$I/series/$t/series" || exit 1
		for p in $(cat "$I/series/$t/series"); do test -f "$I/series/$t/$p" || exit 1; done
	done
'

test_expect_success 'every patch is a mail with From, Date, [PATCH] Subject and Signed-off-by' '
	for p in "$I"/series/*/*.patch; do
		grep -q "^From: .* <.*@.*>" "$p" &&
		grep -q "^Date: " "$p" &&
		grep -q "^Subject: \[PATCH\] " "$p" &&
		grep -q "^Signed-off-by: .* <.*@.*>" "$p" &&
		grep -q "^---$" "$p" || { echo "bad mail: $p"; exit 1; }
	done
'

test_expect_success 'every series applies alone to its base (v6.1.192 or the day'"'"'s mainline)' '
	git init -q --bare repo.git &&
	echo "$M/objects" >repo.git/objects/info/alternates &&
	all_series | while read -r t s b; do
		base_index "$b" &&
		apply_list "$t" "$s" || exit 1
		echo "$s applies"
	done
'

test_expect_success 'the series of days 4 and 5 need their base: cpumask'"'"'s removal of the fallbacks does not apply to v6.1.192' '
	base_index - &&
	! apply_list cpumask "$I/days/5/cpumask" 2>/dev/null
'

# checkpatch PATCH: checkpatch --strict's findings on PATCH, one block
# each, except MACRO_ARG_REUSE on a for_each_* iterator macro: those must
# name their arguments twice, as upstream's own for_each_*_bit() in
# find.h do.  Also except UNKNOWN_COMMIT_ID: a patch that follows later
# mainline code names the mainline commit, which no v6.1-based tree
# holds (and 6.1's checkpatch, run outside a git tree, cannot look any
# commit up); the form of the reference, commit <12 hex> ("title"), is
# still checked (GIT_COMMIT_ID).  Nothing printed: clean.
checkpatch() {
	(cd "$SRC" && perl scripts/checkpatch.pl --strict --show-types -q "$1") 2>&1 |
	awk -v RS= '/^total: / { next }
		/^WARNING:UNKNOWN_COMMIT_ID:/ { next }
		/^CHECK:MACRO_ARG_REUSE:/ && /\n\+#define for_each_[a-z0-9_]*\(/ { next }
		{ print; print "" }'
}

test_expect_success 'every patch is checkpatch --strict clean (MACRO_ARG_REUSE only on for_each_*)' '
	for p in "$I"/series/*/*.patch; do
		checkpatch "$p" >cp.out &&
		test ! -s cp.out || { cat cp.out; echo "checkpatch: $p"; exit 1; }
	done
'

test_expect_success 'the for_each_* exemption is that narrow: a reused argument elsewhere is found' '
	p=$(grep -l "^+#define for_each_or_bit(" "$I"/series/cpumask/*.patch | head -n 1) &&
	checkpatch "$p" >cp.out && test ! -s cp.out &&
	sed "s/^+#define for_each_or_bit(/+#define walk_or_bit(/" "$p" >bad.patch &&
	checkpatch "$TRASH/bad.patch" >cp.out &&
	grep -q "^CHECK:MACRO_ARG_REUSE: Macro argument reuse .bit." cp.out
'

# cc_check PATCH: PATCH's Cc: lines are, in order, every person
# scripts/get_maintainer.pl names for the files it touches (v6.1.192's
# MAINTAINERS; no git history, no lists: a list is mailed, not tagged).
# The mainline release patch is a release, not a posting: no Cc:.
cc_check() {
	(cd "$SRC" && perl scripts/get_maintainer.pl --nogit --nogit-fallback \
		--norolestats --no-tree --nol "$1") | sed "s/^/Cc: /" >cc.expect &&
	sed -n "/^---\$/q; /^Cc: /p" "$1" >cc.actual &&
	test_cmp cc.expect cc.actual
}

test_expect_success 'every patch Cc:s the maintainers and reviewers get_maintainer.pl names for its files' '
	for p in "$I"/series/*/*.patch; do
		case $p in */mainline/linux-*) continue ;; esac
		cc_check "$p" || { echo "Cc: lines of $p"; exit 1; }
	done &&
	: a patch with a non-ASCII name declares its charset, and git mailinfo keeps the name &&
	p=$I/series/gpio/net-select-gpiolib_legacy-for-drivers-using-gpio-numbers.patch &&
	grep -q "^Content-Type: text/plain; charset=UTF-8$" "$p" &&
	git mailinfo msg diff <"$p" >/dev/null &&
	grep -q "^Cc: \"Toke H.iland-J.rgensen\" <toke@toke.dk>$" msg
'

test_expect_success 'the Cc: check can fail: a maintainer left out, a stray Cc:' '
	p=$I/series/gpio/mfd-select-gpiolib_legacy-for-drivers-using-gpio-numbers.patch &&
	grep -v "^Cc: Lee Jones " "$p" >bad.patch &&
	! cc_check "$TRASH/bad.patch" >/dev/null &&
	sed "s/^\(Cc: Lee Jones .*\)$/\1\nCc: Someone Else <someone@example.org>/" "$p" >bad.patch &&
	! cc_check "$TRASH/bad.patch" >/dev/null
'

# kernel_doc LIST: scripts/kernel-doc -none -v (-v: 6.1's kernel-doc
# checks the "Return:" section only then) on the .c and .h files the
# patches of LIST (one tree's day or series, on the index $TRASH/idx
# holds) touch, written out of the index into $TRASH/kd/; its warnings
# without line numbers (a patch moves the old ones), sorted.
kernel_doc() {
	rm -rf kd && mkdir kd &&
	files=$(for p in $(grep -v "^#" "$2"); do
			sed -n "s|^+++ b/\(.*\.[ch]\)$|\1|p" "$I/series/$1/$p"
		done | sort -u) &&
	for f in $files; do
		# A file the series deletes is not in the index: nothing to check.
		GIT_INDEX_FILE=$TRASH/idx git --git-dir=repo.git ls-files --error-unmatch -- "$f" \
			>/dev/null 2>&1 || continue
		GIT_INDEX_FILE=$TRASH/idx git --git-dir=repo.git --work-tree=kd checkout-index -- "$f" &&
		echo "$f" >>kd.files || return 1
	done &&
	(cd kd && for f in $files; do
		test -f "$f" && perl "$SRC/scripts/kernel-doc" -none -v "$f" 2>&1
	done) | grep ": warning: " | sed "s/^\([^:]*\):[0-9]*: /\1: /" | sort || true
}

test_expect_success 'kernel-doc: no series adds a warning to the files it touches' '
	rm -f kd.files &&
	all_series | while read -r t s b; do
		base_index "$b" &&
		kernel_doc "$t" "$s" >before &&
		apply_list "$t" "$s" &&
		kernel_doc "$t" "$s" >after &&
		comm -13 before after >new &&
		test ! -s new || { echo "kernel-doc, $s:"; cat new; exit 1; }
	done &&
	: the check read the files: cpumask.h, bitmap.c and gpiolib-cdev.c among them &&
	grep -qx include/linux/cpumask.h kd.files &&
	grep -qx lib/bitmap.c kd.files &&
	grep -qx drivers/gpio/gpiolib-cdev.c kd.files
'

test_expect_success 'the kernel-doc check can fail: "Returns" for "Return:", an undescribed parameter' '
	mkdir -p kdbad/lib &&
	printf "/**\n * bad_fn() - count\n * @x: a value\n *\n * Returns the count.\n */\nint bad_fn(int x, int y);\n" >kdbad/lib/bad.c &&
	(cd kdbad && perl "$SRC/scripts/kernel-doc" -none -v lib/bad.c 2>&1) | grep ": warning: " >kd.out &&
	grep -q "No description found for return value of .bad_fn." kd.out &&
	grep -q "parameter or member .y. not described in .bad_fn." kd.out
'

test_expect_success 'the checkpatch check can fail' '
	sed "s/^+\(.*\)$/+\1 /" "$I/series/mmotm/$(head -n 1 "$I/series/mmotm/series")" >bad.patch &&
	checkpatch "$TRASH/bad.patch" >cp.out &&
	test -s cp.out &&
	: a mainline commit named with a short id is still found &&
	sed "s/commit 897fa2c38c07/commit 897fa2c3/" "$I/series/cpumask/cpumask-add-cpumask_any_and_but.patch" >bad.patch &&
	checkpatch "$TRASH/bad.patch" >cp.out &&
	grep -q "^ERROR:GIT_COMMIT_ID:" cp.out
'

test_expect_success 'the apply check can fail' '
	sed "s/^-\(.*\)$/-\1 x/" "$I/series/gpio/$(head -n 1 "$I/series/gpio/series")" >bad.patch &&
	GIT_INDEX_FILE=$TRASH/idx2 git --git-dir=repo.git read-tree v6.1.192 2>/dev/null ||
	GIT_INDEX_FILE=$TRASH/idx2 git --git-dir=repo.git read-tree $(git --git-dir="$M" rev-parse v6.1.192^{tree}) &&
	! GIT_INDEX_FILE=$TRASH/idx2 git --git-dir=repo.git apply --cached bad.patch 2>/dev/null
'

test_done
