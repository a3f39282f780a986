#!/bin/sh
# Trees whose tree objects name "..", "a/b", ".git" (and its NTFS and HFS+
# spellings), a symbolic link ".gitmodules" or a mode git does not write
# are refused before the merge: the day goes on without them (or with
# their last good version), says why, exits 1, and nothing outside the
# workspace (nor its repository and earlier days) is touched, with the
# build stage on so the checkout of DIR/build/src runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt


# raw_tree REPO: a tree object written from raw entries, unchecked (git
# hash-object --literally), as a hostile tree would be.  Stdin has lines
# "MODE<TAB>NAME<TAB>OID"; NAME may hold \xNN escapes.  Entries are put in
# git's order (a tree's name sorts as if it ended in '/'), so the only
# thing wrong with the tree is what the test put in it.
raw_tree() {
	python3 -c '
import sys
entries = []
for line in sys.stdin.buffer.read().split(b"\n"):
    if line:
        mode, name, oid = line.split(b"\t")
        name = name.decode("ascii").encode("latin-1").decode("unicode_escape").encode("latin-1")
        entries.append((mode, name, bytes.fromhex(oid.decode())))
key = lambda e: e[1] + (b"/" if e[0] == b"40000" else b"")
out = b"".join(m + b" " + n + b"\0" + o for m, n, o in sorted(entries, key=key))
sys.stdout.buffer.write(out)' | git -C "$1" hash-object -t tree --literally -w --stdin
}

# evil_tree NAME ENTRY...: clone mainline as tree NAME (branch for-next)
# whose tip's root tree is mainline's plus the raw ENTRY lines.
evil_tree() {
	tn=$1 && shift &&
	git clone -q world/mainline "world/$tn" &&
	git -C "world/$tn" checkout -q -b for-next &&
	{
		git -C "world/$tn" ls-tree HEAD | sed "s/^\([0-9]*\) [a-z]* /\1\t/" |
			awk -F "\t" "{ print \$1 \"\t\" \$3 \"\t\" \$2 }" &&
		for e in "$@"; do printf "%s\n" "$e"; done
	} | sed "s/^040000/40000/" > "world/$tn.entries" &&
	tree=$(raw_tree "world/$tn" < "world/$tn.entries") &&
	commit=$(git -C "world/$tn" commit-tree -p HEAD -m "$tn: hostile" "$tree") &&
	git -C "world/$tn" update-ref refs/heads/for-next "$commit"
}

# sub_tree REPO ENTRY...: a tree of the raw entries; prints its id.
sub_tree() {
	repo=$1 && shift &&
	for e in "$@"; do printf "%s\n" "$e"; done | raw_tree "$repo"
}

# What must not change: the canary above the workspace, the day already
# made, the repository's config and hooks; and no "pwned" anywhere.
snapshot() {
	(cd "$TRASH" &&
	 find canary ws/days/2026-01-01 ws/repo.git/config ws/repo.git/hooks | sort &&
	 cat canary/* ws/repo.git/config &&
	 find . -name pwned -o -name PWNED)
}

# run_evil DATE TREE WHY PATH: day DATE with gpio and TREE refuses TREE
# with "refusing path 'PATH': WHY", exits 1, merges gpio, builds.
run_evil() {
	conf "gpio git gpio#for-next" "$2 git $2#for-next" &&
	snapshot > before &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-boot --date "$1" >out 2>err &&
	snapshot > after && test_cmp before after &&
	abbrev=$(git -C "world/$2" rev-parse HEAD | cut -c1-12) &&
	printf "%s\n" "tide: tree '$2' commit $abbrev: refusing path '$4': $3" > expect &&
	echo "tide: $2: refused, left out" >> expect &&
	grep "refus" err > actual && test_cmp expect actual &&
	d=$(echo "$1" | tr -d -) &&
	echo "next-$d: 1 of 2 trees merged, 1 left out" > expect &&
	echo "see 'tide show $1'" >> expect &&
	sed "/^\$/,\$d" out >summary && test_cmp expect summary &&
	grep -qxF "The $2 tree was refused (tree '$2' commit $abbrev: refusing path '$4': $3)." out &&
	test "$(day_field "$1" "d[\"status\"]")" = complete &&
	test "$(day_field "$1" "d[\"trees\"][0][\"status\"]")" = merged &&
	test "$(day_field "$1" "d[\"trees\"][1][\"status\"]")" = rejected &&
	test "$(day_field "$1" "d[\"trees\"][1][\"merge_commit\"]")" = None &&
	test "$(day_field "$1" "d[\"trees\"][1][\"rejected\"]")" = \
		"tree '$2' commit $abbrev: refusing path '$4': $3" &&
	test "$(day_field "$1" "d[\"build\"][\"status\"]")" = ok &&
	! git --git-dir=ws/repo.git log --format=%B "next-$d" | grep -q "Tide-Tree: $2" &&
	test ! -e ws/build/src/.git && test -f ws/build/src/gpio.c
}

test_expect_success 'setup: a fake kernel, a good tree, a canary above the workspace' '
	mkdir -p kt canary &&
	echo "do not touch" > canary/keep &&
	printf "CONFIG_GPIO=y\n" > kt/smoke.config &&
	fake_kernel_source world/mainline "\$(CC) -c \$(CURDIR)/\$< -o \$@" &&
	echo "int m(void) { return 0; }" > world/mainline/m.c &&
	commit_fake_mainline &&
	make_tree gpio gpio.c "int g(void) { return 0; }" &&
	make_tree prev prev.c "int p(void) { return 0; }" &&
	conf "gpio git gpio#for-next" "prev git prev#for-next" &&
	tide -C ws -f world/trees.conf run --no-boot --date 2026-01-01 >out 2>err &&
	test "$(day_field 2026-01-01 "d[\"trees\"][1][\"status\"]")" = merged &&
	test -f ws/repo.git/tide-fsck-trees
'

# The payload every attack carries: a file "pwned" that would land in canary/.
pwned_blob() {
	echo pwned | git -C world/mainline hash-object -w --stdin
}

test_expect_success 'an entry ".." is refused' '
	blob=$(pwned_blob) && git clone -q world/mainline world/tmp1 &&
	c=$(sub_tree world/mainline "100644	pwned	$blob") &&
	t=$(sub_tree world/mainline "40000	canary	$c") &&
	t=$(sub_tree world/mainline "40000	..	$t") &&
	t=$(sub_tree world/mainline "40000	..	$t") &&
	evil_tree dotdot "40000	..	$t" &&
	run_evil 2026-01-02 dotdot "name is '\''..'\''" ".."
'

test_expect_success 'an entry with "/" (../../../canary/pwned) is refused' '
	evil_tree slash "100644	../../../canary/pwned	$(pwned_blob)" &&
	run_evil 2026-01-03 slash "name contains '\''/'\''" "../../../canary/pwned"
'

test_expect_success 'a nested entry ".." names its directory' '
	c=$(sub_tree world/mainline "100644	pwned	$(pwned_blob)") &&
	d=$(sub_tree world/mainline "40000	..	$c") &&
	evil_tree nested "40000	drivers	$d" &&
	run_evil 2026-01-04 nested "name is '\''..'\''" "drivers/.."
'

dotgit_why="name is '.git' or a spelling of it that NTFS or HFS+ would take for it"

test_expect_success 'entries ".git", ".GIT", ".git.", "git~1", ".g\u200cit" are refused' '
	cfg=$(printf "[core]\n\tfsmonitor = touch pwned\n" | git -C world/mainline hash-object -w --stdin) &&
	g=$(sub_tree world/mainline "100644	config	$cfg") &&
	n=0 &&
	for name in .git .GIT .git. git~1 ".g\\xe2\\x80\\x8cit"; do
		n=$((n + 1)) &&
		evil_tree "dotgit$n" "40000	$name	$g" &&
		run_evil "2026-02-0$n" "dotgit$n" "$dotgit_why" "$name" || exit 1
	done &&
	test ! -e "ws/build/src/.g$(printf "\342\200\214")it"
'

test_expect_success 'a symbolic link ".gitmodules" is refused' '
	link=$(printf "../../../canary" | git -C world/mainline hash-object -w --stdin) &&
	evil_tree gitmodules "120000	.gitmodules	$link" &&
	run_evil 2026-01-11 gitmodules "'\''.gitmodules'\'' is a symbolic link" ".gitmodules" &&
	test ! -L ws/build/src/.gitmodules
'

test_expect_success 'a mode git does not write is refused' '
	evil_tree badmode "104755	setuid	$(pwned_blob)" &&
	run_evil 2026-01-12 badmode "bad file mode 104755" "setuid"
'

test_expect_success 'a refused tree with a good earlier day is merged at that version' '
	blob=$(pwned_blob) &&
	good=$(git -C world/prev rev-parse HEAD) &&
	git -C world/prev fetch -q ../mainline &&
	{
		git -C world/prev ls-tree HEAD | sed "s/^\([0-9]*\) [a-z]* /\1\t/" |
			awk -F "\t" "{ print \$1 \"\t\" \$3 \"\t\" \$2 }" | sed "s/^040000/40000/" &&
		printf "100644\t..\t%s\n" "$blob"
	} > world/prev.entries &&
	git -C world/mainline cat-file blob $blob >/dev/null &&
	git -C world/prev fetch -q ../mainline "+refs/heads/*:refs/mainline/*" &&
	tree=$(raw_tree world/prev < world/prev.entries) &&
	commit=$(git -C world/prev commit-tree -p HEAD -m "prev: hostile" "$tree") &&
	git -C world/prev update-ref refs/heads/for-next "$commit" &&
	conf "gpio git gpio#for-next" "prev git prev#for-next" &&
	snapshot > before &&
	test_must_fail --status=1 tide -C ws -f world/trees.conf run --no-boot --date 2026-01-13 >out 2>err &&
	snapshot > after && test_cmp before after &&
	echo "next-20260113: 2 of 2 trees merged, 1 at an earlier day'\''s version" > expect &&
	echo "see '\''tide show 2026-01-13'\''" >> expect &&
	sed "/^\$/,\$d" out >summary && test_cmp expect summary &&
	grep -q "^tide: tree '\''prev'\'' commit $(echo $commit | cut -c1-12): refusing path '\''..'\'': name is '\''..'\''$" err &&
	grep -q "^tide: prev: used the version from next-20260101$" err &&
	test "$(day_field 2026-01-13 "d[\"trees\"][1][\"status\"]")" = previous &&
	test "$(day_field 2026-01-13 "d[\"trees\"][1][\"sha\"]")" = "$good" &&
	test "$(day_field 2026-01-13 "d[\"trees\"][1][\"attempted_sha\"]")" = "$commit" &&
	test "$(day_field 2026-01-13 "d[\"trees\"][1][\"version_from\"]")" = next-20260101 &&
	day_field 2026-01-13 "d[\"trees\"][1][\"rejected\"]" | grep -q "refusing path '\''..'\''" &&
	test "$(day_field 2026-01-13 "d[\"build\"][\"status\"]")" = ok &&
	test -f ws/build/src/prev.c
'

test_expect_success 'tide show names the refused path' '
	tide -C ws show 2026-01-02 >show &&
	abbrev=$(git -C world/dotdot rev-parse HEAD | cut -c1-12) &&
	grep -q "^  dotdot  *rejected  *$abbrev" show &&
	grep -q "^      tree '\''dotdot'\'' commit $abbrev: refusing path '\''..'\'': name is '\''..'\''$" show &&
	grep -q "refusing path" ws/days/2026-01-02/merge.log
'

test_expect_success 'tide report lists refused trees after the conflicts' '
	a=$(git -C world/dotdot rev-parse HEAD | cut -c1-12) &&
	c=$(git -C world/prev rev-parse HEAD | cut -c1-12) &&
	tide -C ws report 2026-01-02 >actual &&
	cat >expect <<-EOF &&
	no conflicts on 2026-01-02
	tree '\''dotdot'\'' commit $a: refusing path '\''..'\'': name is '\''..'\'' (left out)
	EOF
	test_cmp expect actual &&
	tide -C ws report 2026-01-13 --tree prev >actual &&
	cat >expect <<-EOF &&
	no conflicts on 2026-01-13 for prev
	tree '\''prev'\'' commit $c: refusing path '\''..'\'': name is '\''..'\'' (merged at its version of next-20260101)
	EOF
	test_cmp expect actual
'

test_expect_success 'a refused base leaves no day (exit 3)' '
	evil_tree evilbase "100644	..	$(pwned_blob)" &&
	git -C world/evilbase tag v2.0 &&
	{
		printf "#tide\tbase\tevilbase#v2.0\n" &&
		printf "Name\t\tType\tURL\n----\t\t----\t---\n" &&
		printf "gpio\tgit\tgpio#for-next\n"
	} > world/trees.conf &&
	test_must_fail --status=3 tide -C ws -f world/trees.conf run --no-boot --date 2026-01-20 >out 2>err &&
	grep -q "^tide: base tag '\''v2.0'\'' commit [0-9a-f]*: refusing path '\''..'\'': name is '\''..'\''$" err &&
	test ! -e ws/days/2026-01-20
'

test_done
