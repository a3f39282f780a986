#!/bin/sh
# The series of the kernel world: mail format, apply alone, checkpatch.
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
		GIT_INDEX_FILE=$TRASH/idx git --git-dir=repo.git read-tree $(git --git-dir="$M" rev-parse v6.1.192^{tree}) &&
		{ test "$b" = - || apply_list mainline "$b"; } &&
		apply_list "$t" "$s" || exit 1
		echo "$s applies"
	done
'

test_expect_success 'the series of days 4 and 5 need their base: cpumask'"'"'s removal of the fallbacks does not apply to v6.1.192' '
	GIT_INDEX_FILE=$TRASH/idx git --git-dir=repo.git read-tree $(git --git-dir="$M" rev-parse v6.1.192^{tree}) &&
	! apply_list cpumask "$I/days/5/cpumask" 2>/dev/null
'

test_expect_success 'every patch is checkpatch --strict clean' '
	for p in "$I"/series/*/*.patch; do
		# Iterator macros must name their arguments twice, as upstream'"'"'s
		# for_each_*_bit() do: the only check allowed.
		(cd "$SRC" && perl scripts/checkpatch.pl --strict --ignore MACRO_ARG_REUSE -q "$p") >cp.out 2>&1 ||
			{ cat cp.out; echo "checkpatch: $p"; exit 1; }
		test ! -s cp.out || { cat cp.out; exit 1; }
	done
'

test_expect_success 'the checkpatch check can fail' '
	sed "s/^+\(.*\)$/+\1 /" "$I/series/mmotm/$(head -n 1 "$I/series/mmotm/series")" >bad.patch &&
	! (cd "$SRC" && perl scripts/checkpatch.pl --strict --ignore MACRO_ARG_REUSE -q "$TRASH/bad.patch") >/dev/null 2>&1
'

test_expect_success 'the apply check can fail' '
	sed "s/^-\(.*\)$/-\1 x/" "$I/series/gpio/$(head -n 1 "$I/series/gpio/series")" >bad.patch &&
	GIT_INDEX_FILE=$TRASH/idx2 git --git-dir=repo.git read-tree v6.1.192 2>/dev/null ||
	GIT_INDEX_FILE=$TRASH/idx2 git --git-dir=repo.git read-tree $(git --git-dir="$M" rev-parse v6.1.192^{tree}) &&
	! GIT_INDEX_FILE=$TRASH/idx2 git --git-dir=repo.git apply --cached bad.patch 2>/dev/null
'

test_done
