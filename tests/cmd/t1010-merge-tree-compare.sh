#!/bin/sh
# tide merge-tree against git merge-tree --write-tree on many generated
# cases (tests/cmd/merge-gen.py): clean merges must give the same tree
# OID, conflicted ones the same conflicted paths and the same exit status.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-merge-compare.sh"

SEED=${TIDE_MERGE_SEED:-1000}
PER_KIND=${TIDE_MERGE_PER_KIND:-16}
NRANDOM=${TIDE_MERGE_RANDOM:-120}

test_expect_success "generate cases (seed $SEED)" '
	git init -q r &&
	python3 "$TOP/tests/cmd/merge-gen.py" $SEED $PER_KIND $NRANDOM 3>cases |
		git -C r fast-import --quiet &&
	test -s cases
'

# The conflicted paths of a --name-only output (between line 1 and the
# first empty line).
summary=
while read -r n kind; do
	test_expect_success "case $n ($kind)" "merge_compare $n"
	r=$(cat "$TRASH/kind.$n" 2>/dev/null || echo error)
	summary="$summary$kind $r
"
done <"$TRASH/cases"

echo "# cases per kind (clean / conflict):"
printf '%s' "$summary" | sort | uniq -c | awk '{ printf "#   %-16s %-8s %d\n", $2, $3, $1 }'

test_done
