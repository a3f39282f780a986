#!/bin/sh
# tide merge-tree against git merge-tree --write-tree when the two sides
# have 3 to 10 merge bases (tests/cmd/merge-gen-bases.py: trees that merged
# the same side branches back in, in different orders), merged into a
# virtual base first: same tree on clean merges, same conflicted paths and
# exit status otherwise.  In "forked" cases the side branches fork from
# different mainline points, so the merge bases have different merge bases
# of their own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-merge-compare.sh"

SEED=${TIDE_MERGE_SEED:-1020}
COUNT=${TIDE_MERGE_BASES_CASES:-40}

test_expect_success "generate cases (seed $SEED)" '
	git init -q r &&
	python3 "$TOP/tests/cmd/merge-gen-bases.py" $SEED $COUNT 3>cases |
		git -C r fast-import --quiet &&
	test -s cases
'

# compare_case N bases-K: K merge bases, then the comparison.
compare_case() {
	want=${2#bases-}
	test "$(git -C r merge-base --all c$1-ours c$1-theirs | wc -l)" = "$want" || {
		echo "expected $want merge bases"; return 1; }
	merge_compare $1
}

summary=
while read -r n kind; do
	test_expect_success "case $n ($kind)" "compare_case $n $kind"
	r=$(cat "$TRASH/kind.$n" 2>/dev/null || echo error)
	case "$kind" in *forked) r="forked-$r" ;; esac
	summary="$summary$r
"
done <"$TRASH/cases"

echo "# cases (clean / conflict; forked: side branches from different mainline points):"
printf '%s' "$summary" | sort | uniq -c | awk '{ printf "#   %-16s %d\n", $2, $1 }'

test_done
