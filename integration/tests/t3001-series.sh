#!/bin/sh
# The series of the kernel world: mail format, apply alone, checkpatch
# --strict (MACRO_ARG_REUSE allowed only on for_each_* iterator macros)
# and kernel-doc (-v: "Return:" sections too): no series adds a warning.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
I=$TOP/integration
SRC=$TOP/work/linux-source
M=$TOP/work/world/mainline.git

"$I/import-mainline" >/dev/null

# Every series a test looks at: each tree's own series file (on
# v6.1.192) and each day's (on the day's base: v6.1.192, or with the
# mainline patches its days/N/base lists).  Lines: tree, series, base list.
all_series() {
	for t in "$I"/series/*/; do
		t=$(basename "$t"); echo "$t $I/series/$t/series -"
		for d in "$I"/days/*/; do
			b=-; [ -f "${d}base" ] && b=${d}base
			[ -f "$d$t" ] && echo "$t $d$t $b"
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
	for t in mainline fixes cpumask gpio bitmap mmotm; do
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
# find.h do.  Nothing printed: clean.
checkpatch() {
	(cd "$SRC" && perl scripts/checkpatch.pl --strict --show-types -q "$1") 2>&1 |
	awk -v RS= '/^total: / { next }
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
	test -s cp.out
'

test_expect_success 'the apply check can fail' '
	sed "s/^-\(.*\)$/-\1 x/" "$I/series/gpio/$(head -n 1 "$I/series/gpio/series")" >bad.patch &&
	GIT_INDEX_FILE=$TRASH/idx2 git --git-dir=repo.git read-tree v6.1.192 2>/dev/null ||
	GIT_INDEX_FILE=$TRASH/idx2 git --git-dir=repo.git read-tree $(git --git-dir="$M" rev-parse v6.1.192^{tree}) &&
	! GIT_INDEX_FILE=$TRASH/idx2 git --git-dir=repo.git apply --cached bad.patch 2>/dev/null
'

test_done
