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
