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

echo "# cases per kind (clean / conflict):"
printf '%s' "$summary" | sort | uniq -c | awk '{ printf "#   %-20s %-8s %d\n", $2, $3, $1 }'

test_done
