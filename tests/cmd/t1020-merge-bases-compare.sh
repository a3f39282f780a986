#!/bin/sh
# tide merge-tree against git merge-tree --write-tree when the two sides
# have 3 to 10 merge bases (tests/cmd/merge-gen-bases.py: trees that merged
# the same side branches back in, in different orders), merged into a
# virtual base first: same tree on clean merges, same conflicted paths and
# exit status otherwise.
. "$(dirname "$0")/lib.sh"

SEED=${TIDE_MERGE_SEED:-1020}
COUNT=${TIDE_MERGE_BASES_CASES:-40}

test_expect_success "generate cases (seed $SEED)" '
	git init -q r &&
	python3 "$TOP/tests/cmd/merge-gen-bases.py" $SEED $COUNT 3>cases |
		git -C r fast-import --quiet &&
	test -s cases
'

conflicted_paths() {
	sed -n '2,/^$/p' "$1" | sed '/^$/d' | sort -u
}

compare_case() {
	o=c$1-ours t=c$1-theirs want=${2#bases-}
	test "$(git -C r merge-base --all $o $t | wc -l)" = "$want" || {
		echo "expected $want merge bases"; return 1; }
	(cd r && git merge-tree --write-tree --name-only $o $t) >exp.$1 2>/dev/null
	erc=$?
	(cd r && tide merge-tree --name-only $o $t) >got.$1 2>err.$1
	grc=$?
	if [ $erc != $grc ]; then
		echo "exit status: git $erc, tide $grc"; cat err.$1; diff -u exp.$1 got.$1
		return 1
	fi
	if [ $erc = 0 ]; then
		echo clean >kind.$1
		[ "$(head -n 1 exp.$1)" = "$(head -n 1 got.$1)" ] || {
			echo "clean merge, different trees"; diff -u exp.$1 got.$1; return 1; }
	else
		echo conflict >kind.$1
		conflicted_paths exp.$1 >pe.$1 && conflicted_paths got.$1 >pg.$1 &&
		diff -u pe.$1 pg.$1 && test -s pg.$1
	fi
}

summary=
while read -r n kind; do
	test_expect_success "case $n ($kind)" "compare_case $n $kind"
	r=$(cat "$TRASH/kind.$n" 2>/dev/null || echo error)
	summary="$summary$r
"
done <"$TRASH/cases"

echo "# cases (clean / conflict):"
printf '%s' "$summary" | sort | uniq -c | awk '{ printf "#   %-8s %d\n", $2, $1 }'

test_done
