# Shared by the tide bisect tests (t6000, t6001): a generated mainline,
# trees and days in the documented shape, and the nobug.sh check.
# Sourced after lib.sh.

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

# The check every test uses (run in the checked-out tree): no file says BUG.
cat >"$TRASH/nobug.sh" <<'EOF'
! grep -rqs BUG .
EOF

# The generated world of tests/cmd/bisect-world.py (one repository, trees
# t01..tNN, a conflict between t03 and t05, a fixup for t07).
# world_gen ARGS...: generate it in $TRASH/bw.
world_gen() {
	python3 "$TOP/tests/cmd/bisect-world.py" "$TRASH/bw" "$@"
}

# world_day D DATE: point the trees at their day-D commits, the base at
# vD, and integrate the day with tide run (exit 1, a tree left out, is
# fine).
world_day() {
	for ref in $(git --git-dir="$TRASH/bw/src.git" for-each-ref --format='%(refname)' "refs/day$1/"); do
		git --git-dir="$TRASH/bw/src.git" update-ref "refs/heads/${ref##*/}" "$ref" || return 1
	done
	{
		printf '#tide\tbase\t%s#v%s\n' "$TRASH/bw/src.git" "$1"
		printf 'Trees included into this release:\n\nName\t\tType\tURL\n----\t\t----\t---\n'
		cat "$TRASH/bw/trees.conf.rows"
	} >"$TRASH/bw/trees.conf" &&
	{ tide -C "$WS" -f "$TRASH/bw/trees.conf" run --date "$2" --no-build --no-boot >"$TRASH/run.out" 2>&1 ||
	  test $? = 1; }
}

# world_resolve DATE: record the resolution of t05's conflict with t03
# ("two-both") the way a person does with tide resolve, and the fixup
# of t07, then integrate DATE again.
world_resolve() {
	tide -C "$WS" -f "$TRASH/bw/trees.conf" resolve t05 --date "$1" >/dev/null &&
	printf 'one\ntwo-both\nthree\nfour\nfive\n' >"$WS/resolve/t05/shared.txt" &&
	tide -C "$WS" -f "$TRASH/bw/trees.conf" resolve --record >/dev/null &&
	mkdir -p "$WS/fixups/t07" &&
	cp "$TRASH/bw/fixup-t07.patch" "$WS/fixups/t07/0001-t07-call-new_name.patch"
}

# day_field DATE EXPR: a value from the workspace's day record, by a python expression on d.
day_field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$WS/days/$1/day.json"
}
