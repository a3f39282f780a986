# Comparing tide merge-tree with git merge-tree --write-tree on generated
# cases in the repository r (sourced by t1010, t1020, ...).
#
# merge_compare N: merge cN-ours with cN-theirs both ways.  The exit
# status must be the same; a clean merge must give the same tree, a
# conflicted one the same set of conflicted paths.  Writes clean or
# conflict to kind.N for the summary.

# The conflicted paths: the lines after the tree up to the first empty
# one (none when a conflict has no path with stages, like git's
# "directory rename split").
conflicted_paths() {
	awk 'NR > 1 { if ($0 == "") exit; print }' "$1" | sort -u
}

merge_compare() {
	o=c$1-ours t=c$1-theirs
	erc=0 grc=0
	(cd r && git merge-tree --write-tree --name-only $o $t) >exp.$1 2>/dev/null || erc=$?
	(cd r && tide merge-tree --name-only $o $t) >got.$1 2>err.$1 || grc=$?
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
		diff -u pe.$1 pg.$1 && { test -s pg.$1 || grep -q "^CONFLICT" exp.$1; }
	fi
}
