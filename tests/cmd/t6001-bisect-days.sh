#!/bin/sh
# tide bisect DATE --since GOOD-DATE: trees rebased between two days.
. "$(dirname "$0")/lib.sh"

WS=$TRASH/ws

# A mainline with an API header and a user of it.
make_mainline() {
	git init -q -b master "$TRASH/mainline" &&
	commit_file "$TRASH/mainline" api.h "old_name other_fn" "mainline: api" &&
	commit_file "$TRASH/mainline" core.c "old_name" "mainline: core" &&
	git -C "$TRASH/mainline" tag v1
}

# new_tree DIR: a tree branched from mainline's v1.
new_tree() {
	git clone -q "$TRASH/mainline" "$TRASH/$1" &&
	git -C "$TRASH/$1" checkout -q -B master v1
}

# series DIR PREFIX N [BAD]: N commits writing PREFIX/fI; commit BAD plants "BUG".
series() {
	i=1
	while [ $i -le $3 ]; do
		if [ "$i" = "${4:-0}" ]; then txt="BUG here"; else txt="fine $i"; fi
		commit_file "$TRASH/$1" "$2/f$i" "$txt" "$2: change $i" || return 1
		i=$((i + 1))
	done
}

# make_day DATE NAME=DIR...: the day's history in the documented shape
# (base, one "Tide-Tree:" merge per tree, the Next/ files commit, tagged),
# pushed into the workspace, with its day.json.
make_day() {
	date=$1; shift
	tag=next-$(echo "$date" | tr -d -)
	int=$TRASH/int
	[ -d "$WS/repo.git" ] || git init -q --bare "$WS/repo.git"
	rm -rf "$int" && git clone -q "$TRASH/mainline" "$int" &&
	base=$(git -C "$int" rev-parse HEAD) &&
	trees= &&
	for nd in "$@"; do
		name=${nd%%=*} dir=${nd#*=}
		git -C "$int" fetch -q "$TRASH/$dir" "master:refs/remotes/$name/master" &&
		sha=$(git -C "$int" rev-parse "$name/master") &&
		git -C "$int" merge -q --no-ff --no-edit \
			-m "Merge remote-tracking branch '$name/master'" -m "Tide-Tree: $name" \
			"$name/master" &&
		mc=$(git -C "$int" rev-parse HEAD) &&
		trees="$trees${trees:+,}{\"name\":\"$name\",\"type\":\"git\",\"sha\":\"$sha\",\"status\":\"merged\",\"merge_commit\":\"$mc\"}" ||
		return 1
	done
	mkdir -p "$int/Next" && echo "$*" >"$int/Next/Trees" &&
	git -C "$int" add Next && git -C "$int" commit -q -m "Add linux-next specific files for $tag" &&
	git -C "$int" tag "$tag" &&
	tip=$(git -C "$int" rev-parse HEAD) &&
	git -C "$int" push -q -f "$WS/repo.git" "HEAD:refs/heads/master" "$tag" &&
	mkdir -p "$WS/days/$date" &&
	printf '{"version":1,"date":"%s","tag":"%s","status":"complete","base":{"tag":"v1","commit":"%s"},"commit":"%s","trees":[%s]}\n' \
		"$date" "$tag" "$base" "$tip" "$trees" >"$WS/days/$date/day.json"
}

cat >"$TRASH/nobug.sh" <<'EOF'
! grep -rqs BUG .
EOF

# rebase_tree DIR: replay the tree's own commits onto mainline's master
# (new SHAs, same patches), as a maintainer rebasing for the next day.
rebase_tree() {
	git -C "$TRASH/$1" fetch -q origin master &&
	git -C "$TRASH/$1" rebase -q origin/master
}

test_expect_success 'setup: day 2026-02-01 good, trees rebased and moved for 2026-02-02' '
	make_mainline &&
	new_tree a && series a a 3 &&
	new_tree b && series b b 4 &&
	new_tree c && series c c 2 &&
	new_tree d && series d d 2 &&
	make_day 2026-02-01 a=a b=b c=c d=d &&
	commit_file mainline main/next "mainline moves on" "mainline: next rc" &&
	for t in a b c; do rebase_tree $t || exit 1; done &&
	series b b5 3 2 &&
	series c c3 1 &&
	make_day 2026-02-02 a=a b=b c=c d=d &&
	! git -C ws/repo.git merge-base --is-ancestor next-20260201 next-20260202
'

test_expect_success 'day against day finds the tree and the new commit' '
	culprit=$(git -C b rev-parse HEAD~1) &&
	tide -C ws bisect 2026-02-02 --since 2026-02-01 --cmd "sh $TRASH/nobug.sh" >out 2>err &&
	cat out err &&
	grep "^tree: b$" out &&
	grep "^first bad commit: $culprit b5: change 2$" out &&
	grep "the tree that made it fail: b" err
'

test_expect_success 'only commits with a new patch id are tested' '
	# b has 7 commits on the new day, 4 of them rebased from the old day.
	grep "b: 7 commits, 3 with a new patch id" err &&
	! grep "tree: b .*\"b: change" err
'

test_expect_success 'builds stay within the bound' '
	line=$(grep "^builds:" out) &&
	n=$(echo "$line" | sed "s/builds: \([0-9]*\) .*/\1/") &&
	m=$(echo "$line" | sed "s/.*(bound \([0-9]*\)).*/\1/") &&
	# 4 moved (mainline, a, b, c), 3 new commits: 2 + 2 + 2 + 2 confirmations
	test "$n" -le "$m" && test "$m" -le 8 &&
	grep -q "\"since\": \"2026-02-01\"" ws/days/2026-02-02/day.json
'

test_expect_success 'the good day itself failing: exit 7' '
	test_must_fail --status=7 tide -C ws bisect 2026-02-02 --since 2026-02-01 --cmd false >out &&
	grep "the good day is broken too: 2026-02-01" out
'

test_expect_success '--since a day that does not exist: exit 3' '
	test_must_fail --status=3 tide -C ws bisect 2026-02-02 --since 2026-01-30 --cmd true 2>err &&
	grep "no day 2026-01-30" err
'

test_done
