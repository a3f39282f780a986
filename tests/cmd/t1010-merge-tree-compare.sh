#!/bin/sh
# tide merge-tree against git merge-tree --write-tree on many generated
# cases (tests/cmd/merge-gen.py): clean merges must give the same tree
# OID, conflicted ones the same conflicted paths and the same exit status.
. "$(dirname "$0")/lib.sh"

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
conflicted_paths() {
	sed -n '2,/^$/p' "$1" | sed '/^$/d' | sort -u
}

compare_case() {
	o=c$1-ours t=c$1-theirs
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
	test_expect_success "case $n ($kind)" "compare_case $n"
	r=$(cat "$TRASH/kind.$n" 2>/dev/null || echo error)
	summary="$summary$kind $r
"
done <"$TRASH/cases"

echo "# cases per kind (clean / conflict):"
printf '%s' "$summary" | sort | uniq -c | awk '{ printf "#   %-16s %-8s %d\n", $2, $3, $1 }'

test_done
