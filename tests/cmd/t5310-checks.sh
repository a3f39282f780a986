#!/bin/sh
# The commit checks of tide run (src/checks/checks.c): a day whose trees carry
# one of each problem (a Fixes: tag with a wrong subject and a short id,
# sign-offs missing, a patch carried by two trees, a tree with nothing new
# for a year, a fetch failing day after day) gets exactly those findings
# in its record, shown by tide show, in KCIDB and on the dashboard; each
# is mailed once in linux-next's layout (whole mails compared); the next
# day carries a finding while its commit is in the day.
. "$(dirname "$0")/lib.sh"

test_smtp_sink

# Fixed dates: the commit ids, and so the mails, are the same on every run.
export GIT_AUTHOR_DATE="2026-11-20T10:00:00Z" GIT_COMMITTER_DATE="2026-11-20T10:00:00Z"

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >out 2>err || test $? = 1
}

# The mails of --dry-run without their Date: lines (the time of the run).
dry_run() {
	tide -C ws -f trees.conf report "$1" --mail --dry-run | sed "/^Date: /d"
}

sob="Signed-off-by: Tide Test <test@tide.invalid>"

# commit_in REPO FILE CONTENT SUBJECT [BODY]: one commit with that message.
commit_in() {
	printf '%s\n' "$3" >"$1/$2" && git -C "$1" add "$2" &&
	git -C "$1" commit -q -m "$4" ${5:+-m "$5"}
}

test_expect_success 'setup: a day with one of each problem' '
	git init -q -b master main &&
	commit_in main f 1 "core: add f" "$sob" && git -C main tag v1 &&
	base=$(git -C main rev-parse HEAD) &&
	for t in gpio net old; do git clone -q main $t || exit 1; done &&
	commit_in gpio g g "gpio: add g" "Fixes: $(echo $base | cut -c1-8) (\"core: add F\")
$sob" &&
	commit_in net n n "net: add n" "Signed-off-by: Someone Else <else@ex.org>" &&
	commit_in net g g "net: carry g too" "$sob" &&
	GIT_COMMITTER_DATE="2025-10-01T10:00:00Z" GIT_AUTHOR_DATE="2025-10-01T10:00:00Z" \
		commit_in old o o "old: last change" "$sob" &&
	{
		printf "#tide\tbase\tmain#v1\n#tide\tproject=linux-next\n"
		printf "gpio\tgit\tgpio#master\nnet\tgit\tnet#master\nold\tgit\told#master\n"
		printf "broken\tgit\tnowhere#master\n"
		for t in gpio net old broken; do printf "#tide\t%s\tcontact=%s@ex.org\n" $t $t; done
	} >trees.conf &&
	run_day 2026-12-01 &&
	test -f ws/days/2026-12-01/day.json
'

test_expect_success 'tide run says what the checks found' '
	grep "^tide: checks: " err >actual &&
	sed -i "s/([0-9.]* s)/(S s)/" actual &&
	cat >expect <<-\EOF &&
	tide: checks: 0 mainline commits compared, patch-ids of 4 commits: 4 made, 0 from the cache
	tide: checks: 4 new commits in 3 trees, 5 findings (S s)
	EOF
	test_cmp expect actual
'

test_expect_success 'tide show lists each finding and nothing else' '
	tide -C ws show 2026-12-01 | sed -n "/^checks/,\$p" >actual &&
	sed -i "s/ in [0-9.]* s$/ in S s/; s|$TRASH|TRASH|" actual &&
	cat >expect <<-\EOF &&
	checks  ok: 4 new commits in 3 trees, 5 findings in S s
	        against the base: 5 non-merge commits, 7 files changed, 37 insertions(+)
	        fixes        gpio d5e487242949 ("gpio: add g") since 2026-12-01
	          Fixes: 992e1498 ("core: add F"): short-sha, subject-mismatch
	        signoff      net 06da90e8ffc3 ("net: add n") since 2026-12-01: no Signed-off-by of its author and committer
	        duplicate    net 44bb20ab8e52 ("net: carry g too") since 2026-12-01: also in the gpio tree as d5e487242949
	        stale        old d61d980f87f2 ("old: last change") since 2026-12-01: last commit 2025-10-01, 425 days ago
	        fetch-failed broken since 2026-12-01: 1 day in a row: repository '"'"'TRASH/nowhere'"'"' does not exist
	EOF
	test_cmp expect actual
'

test_expect_success 'the count and the diffstat against the base are git'"'"'s' '
	git -C ws/repo.git diff --shortstat -M v1 next-20261201 >expect &&
	tide -C ws show 2026-12-01 | sed -n "s/^        against the base: [0-9]* non-merge commits, / /p" >actual &&
	test_cmp expect actual &&
	git -C ws/repo.git rev-list --count --no-merges v1..next-20261201 >expect &&
	tide -C ws show 2026-12-01 | sed -n "s/^        against the base: \([0-9]*\) non-merge.*/\1/p" >actual &&
	test_cmp expect actual
'

# The four mails of the first day, whole (--dry-run without the Date: lines).
cat >"$TRASH/expect-mails" <<\EOF
From: tide <tide@localhost>
To: gpio@ex.org
Cc: "Tide Test" <test@tide.invalid>
Subject: linux-next: Fixes tag needs some work in the gpio tree
Message-ID: <next-20261201.checks.fixes.gpio.tide@localhost>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

Hi all,

In commit

  d5e487242949 ("gpio: add g")

Fixes tag

  Fixes: 992e1498 ("core: add F")

has these problem(s):

  - the SHA1 has fewer than 12 digits
    (git writes 12 or more when core.abbrev is 12 or more, or unset
    with git 2.11 or later)
  - the subject is not the target commit's subject
    The target is 992e1498d11c ("core: add f"); git writes the tag with
      git log -1 --format='Fixes: %h ("%s")' 992e1498d11c

-- 
Cheers,
tide (next-20261201)

From: tide <tide@localhost>
To: net@ex.org
Cc: "Tide Test" <test@tide.invalid>
Subject: linux-next: Signed-off-by missing for commit in the net tree
Message-ID: <next-20261201.checks.signoff.net.tide@localhost>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

Hi all,

Commit

  06da90e8ffc3 ("net: add n")

is missing a Signed-off-by from its author and committer.

-- 
Cheers,
tide (next-20261201)

From: tide <tide@localhost>
To: net@ex.org
Cc: gpio@ex.org,
	"Tide Test" <test@tide.invalid>
Subject: linux-next: duplicate patch in the net tree
Message-ID: <next-20261201.checks.duplicate.net.tide@localhost>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

Hi all,

This commit carries the same patch as a commit with another id
in the gpio tree:

  44bb20ab8e52 ("net: carry g too")

There it is commit

  d5e487242949 ("gpio: add g")

-- 
Cheers,
tide (next-20261201)

From: tide <tide@localhost>
To: old@ex.org
Subject: linux-next: trees without a new commit for more than 1 year
Message-ID: <next-20261201.checks.stale.tide@localhost>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

Hi all,

These trees have had no new commit for more than 1 year.
If one should stay in the integration, update its branch (and tell me);
otherwise it can come out of trees.conf.

Tree			Last commit date
  URL
  its newest commit
----			----------------
old			2025-10-01
  old
  d61d980f87f2 ("old: last change")

-- 
Cheers,
tide (next-20261201)

EOF

test_expect_success 'the mails: one per kind and tree, in linux-next'"'"'s layouts' '
	dry_run 2026-12-01 >actual &&
	test_cmp expect-mails actual
'

test_expect_success 'each finding is mailed once: the sent ones are in mail.json' '
	printf "smtp=smtp://127.0.0.1:%s\nfrom=Tide <next@tide.example>\ntimeout=5\n" "$(cat mail.port)" >ws/mail.conf &&
	tide -C ws -f trees.conf report 2026-12-01 --mail >out &&
	cat >expect <<-\EOF &&
	gpio: fixes mailed to gpio@ex.org, cc "Tide Test" <test@tide.invalid>
	net: signoff mailed to net@ex.org, cc "Tide Test" <test@tide.invalid>
	net: duplicate mailed to net@ex.org, cc gpio@ex.org, "Tide Test" <test@tide.invalid>
	stale trees: stale mailed to old@ex.org
	EOF
	test_cmp expect out &&
	test $(ls mail/*.eml | wc -l) = 4 &&
	python3 -c "import json,sys; print(*sorted(k.split(\":\")[0] for k in json.load(open(sys.argv[1]))[\"checks\"]))" \
		ws/days/2026-12-01/reports/mail.json >actual &&
	echo "duplicate fixes signoff stale" >expect &&
	test_cmp expect actual &&
	tide -C ws -f trees.conf report 2026-12-01 --mail >out &&
	test ! -s out &&
	test $(ls mail/*.eml | wc -l) = 4
'

test_expect_success 'the next day carries each finding while its commit is in the day, and mails only what is new' '
	printf "fetch-failed-after = 2\n" >>ws/config &&
	commit_in net n2 n2 "net: more" "$sob" &&
	run_day 2026-12-02 &&
	tide -C ws show 2026-12-02 | sed -n "/^checks/,\$p" | grep -v "^          Fixes" >actual &&
	sed -i "s/ in [0-9.]* s$/ in S s/; s|$TRASH|TRASH|" actual &&
	cat >expect <<-\EOF &&
	checks  ok: 1 new commit in 1 tree, 5 findings in S s
	        against the base: 6 non-merge commits, 8 files changed, 39 insertions(+)
	        fixes        gpio d5e487242949 ("gpio: add g") since 2026-12-01
	        signoff      net 06da90e8ffc3 ("net: add n") since 2026-12-01: no Signed-off-by of its author and committer
	        duplicate    net 44bb20ab8e52 ("net: carry g too") since 2026-12-01: also in the gpio tree as d5e487242949
	        stale        old d61d980f87f2 ("old: last change") since 2026-12-01: last commit 2025-10-01, 426 days ago
	        fetch-failed broken since 2026-12-01: 2 days in a row: repository '"'"'TRASH/nowhere'"'"' does not exist
	EOF
	test_cmp expect actual &&
	tide -C ws -f trees.conf report 2026-12-02 --mail >out &&
	echo "broken: fetch-failed mailed to broken@ex.org" >expect2 &&
	test_cmp expect2 out &&
	test $(ls mail/*.eml | wc -l) = 5 &&
	m=$(grep -l "^Subject: linux-next: error fetching the broken tree$" mail/*.eml) &&
	sed -n "/^Hi all/,\$p" $m | sed "s|$TRASH|TRASH|" >actual2 &&
	cat >expect2 <<-\EOF &&
	Hi all,

	Fetching the broken tree
	(nowhere) has failed 2 days in a row, since 2026-12-01;
	today like this:

	  repository '"'"'TRASH/nowhere'"'"' does not exist

	-- 
	Cheers,
	tide (next-20261202)
	EOF
	test_cmp expect2 actual2
'

test_expect_success 'a rebased tree takes its finding away; a fixed commit is not found again' '
	git -C gpio commit -q --amend -m "gpio: add g" -m "Fixes: $(git -C main rev-parse HEAD | cut -c1-12) (\"core: add f\")
$sob" &&
	run_day 2026-12-03 &&
	tide -C ws show 2026-12-03 | sed -n "/^        [a-z]/p" | awk "{ print \$1, \$2 }" >actual &&
	cat >expect <<-\EOF &&
	against the
	signoff net
	duplicate net
	stale old
	fetch-failed broken
	EOF
	test_cmp expect actual &&
	dry_run 2026-12-03 | grep "^Subject:" >actual &&
	echo "Subject: linux-next: duplicate patch in the net tree" >expect &&
	test_cmp expect actual
'

test_expect_success 'KCIDB: each finding is an issue, the same one on every day it is found' '
	tide -C ws kcidb 2026-12-01 --origin tide >one.json &&
	tide -C ws kcidb 2026-12-02 --origin tide >two.json &&
	python3 -c "import json,sys
for f in sys.argv[1:]:
    print(sorted((i[\"id\"].split(\":\")[2], i[\"misc\"][\"tree\"], i[\"misc\"][\"since\"]) for i in json.load(open(f))[\"issues\"] if \":check:\" in i[\"id\"]))" one.json two.json >actual &&
	cat >expect <<-\EOF &&
	[('"'"'duplicate'"'"', '"'"'net'"'"', '"'"'2026-12-01'"'"'), ('"'"'fetch-failed'"'"', '"'"'broken'"'"', '"'"'2026-12-01'"'"'), ('"'"'fixes'"'"', '"'"'gpio'"'"', '"'"'2026-12-01'"'"'), ('"'"'signoff'"'"', '"'"'net'"'"', '"'"'2026-12-01'"'"'), ('"'"'stale'"'"', '"'"'old'"'"', '"'"'2026-12-01'"'"')]
	[('"'"'duplicate'"'"', '"'"'net'"'"', '"'"'2026-12-01'"'"'), ('"'"'fetch-failed'"'"', '"'"'broken'"'"', '"'"'2026-12-01'"'"'), ('"'"'fixes'"'"', '"'"'gpio'"'"', '"'"'2026-12-01'"'"'), ('"'"'signoff'"'"', '"'"'net'"'"', '"'"'2026-12-01'"'"'), ('"'"'stale'"'"', '"'"'old'"'"', '"'"'2026-12-01'"'"')]
	EOF
	test_cmp expect actual &&
	python3 -c "import json,sys
a = {i[\"id\"] for i in json.load(open(sys.argv[1]))[\"issues\"]}
b = {i[\"id\"] for i in json.load(open(sys.argv[2]))[\"issues\"]}
assert a == b, (a, b)" one.json two.json &&
	python3 -c "
import json, jsonschema, sys
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))" two.json "$TOP/tests/data/kcidb/kcidb-v5.3.schema.json"
'

test_expect_success 'the dashboard'"'"'s day page has the findings' '
	tide -C ws dashboard >/dev/null &&
	python3 "$TOP/tests/cmd/dashboard-dom.py" sections ws/dashboard/day-2026-12-02.html >all &&
	grep "^checks : " all | sed "s|$TRASH|TRASH|" >actual &&
	echo "checks : Commit checks 1 new commit in 1 tree, 5 findings (S s). check tree commit subject what since fixes gpio d5e487242949 gpio: add g Fixes: 992e1498 (\"core: add F\"): short-sha, subject-mismatch 2026-12-01 signoff net 06da90e8ffc3 net: add n no Signed-off-by of its author and committer 2026-12-01 duplicate net 44bb20ab8e52 net: carry g too same patch as d5e487242949 in gpio 2026-12-01 stale old d61d980f87f2 old: last change last commit 2025-10-01, 426 days ago 2026-12-01 fetch-failed broken 2 days in a row: repository '"'"'TRASH/nowhere'"'"' does not exist 2026-12-01" >expect &&
	sed -i "s/([0-9.]* s)/(S s)/" actual &&
	test_cmp expect actual
'

test_expect_success 'the announcement counts against the base and lists stale and failing trees' '
	tide -C ws report 2026-12-02 --announce | sed -n "/^Non-merge/,\$p" | sed "s/([0-9a-f]\{12\})/(SHA)/" >actual &&
	cat >expect <<-\EOF &&
	Non-merge commits (relative to mainline): 6
	 8 files changed, 39 insertions(+)

	The linux-next tree is tagged next-20261202: v1 (SHA) with 3 of 4 trees merged at today'"'"'s version.

	Not merged at today'"'"'s version:

	  broken  fetch-failed

	Trees without a new commit for more than 1 year:

	  old (last commit 2025-10-01)

	Trees whose fetch has failed day after day:

	  broken (2 days, since 2026-12-01)

	Each tree'"'"'s conflicts: tide report 2026-12-02
	EOF
	test_cmp expect actual
'

test_expect_success 'a bad stale-after in DIR/config is named with its line, and the day goes on' '
	printf "stale-after = soon\n" >>ws/config &&
	run_day 2026-12-04 &&
	grep -q "^tide: checks: .*/config:[0-9]*: stale-after wants a number of days (1 to 36500), not .soon. (the default used)$" err &&
	test -f ws/days/2026-12-04/day.json
'

test_expect_success 'mainline duplicates are those a tree does not have, as git cherry finds them' '
	git init -q -b master cm &&
	commit_in cm f 1 "core: add f" "$sob" && git -C cm tag v1 &&
	git clone -q cm early &&
	commit_in cm x x "core: add x" "$sob" && git -C cm tag v2 &&
	git clone -q cm late &&
	git -C late revert --no-edit HEAD >/dev/null &&
	commit_in late x x "late: add x again" "$sob" &&
	commit_in early x x "early: add x" "$sob" &&
	printf "#tide\tbase\tcm#v2\nearly\tgit\tearly#master\nlate\tgit\tlate#master\n" >cm.conf &&
	tide -C cmws -f cm.conf run --date 2026-12-01 --no-build --no-boot >out 2>err &&
	tide -C cmws show 2026-12-01 | sed -n "s/ since 2026-12-01//; /^        duplicate/p" >actual &&
	early=$(git -C early rev-parse --short=12 HEAD) &&
	cat >expect <<-EOF &&
	        duplicate    early $early ("early: add x"): also in mainline as $(git -C cm rev-parse --short=12 v2)
	        duplicate    late $(git -C late rev-parse --short=12 HEAD) ("late: add x again"): also in the early tree as $early
	EOF
	test_cmp expect actual
'

test_done
