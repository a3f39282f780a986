#!/bin/sh
# tide stats TAG: after a "merge window" mainline has two gpio commits as
# they were (same id), a net commit cherry-picked (same patch-id), a net
# commit changed on the way (same subject) and one of its own; net's last
# commit never made it.  The numbers and the list, as text and JSON, and
# the errors.
. "$(dirname "$0")/lib.sh"

export GIT_AUTHOR_DATE="2026-11-20T10:00:00Z" GIT_COMMITTER_DATE="2026-11-20T10:00:00Z"

commit_in() {
	printf '%s\n' "$3" >"$1/$2" && git -C "$1" add "$2" && git -C "$1" commit -q -m "$4"
}

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

test_expect_success 'setup: a day on v1, then v2 takes most of it' '
	git init -q -b master main &&
	commit_in main f 1 "core: add f" && git -C main tag v1 &&
	git clone -q main gpio && git clone -q main net &&
	commit_in gpio g1 1 "gpio: one" && commit_in gpio g2 2 "gpio: two" &&
	commit_in net n1 1 "net: one" && commit_in net n2 2 "net: two" && commit_in net n3 3 "net: later" &&
	printf "#tide\tbase\tmain#v1\ngpio\tgit\tgpio#master\nnet\tgit\tnet#master\n" >trees.conf &&
	run_day 2026-12-01 &&
	git -C main pull -q --no-rebase --no-edit ../gpio master &&
	git -C main fetch -q ../net master &&
	git -C main cherry-pick FETCH_HEAD~2 >/dev/null &&
	git -C main commit -q --amend --no-edit --date="2026-11-21T10:00:00Z" &&
	commit_in main n2 "2, changed on the way" "net: two" &&
	commit_in main m 1 "core: its own" &&
	git -C main tag v2 &&
	sed -i "s/main#v1/main#v2/" trees.conf &&
	run_day 2026-12-02
'

test_expect_success 'tide stats v2: by id, by patch-id, by subject, and what never made it' '
	tide -C ws stats v2 | sed "s/^  [0-9a-f]\{12\} /  ID /" >actual &&
	cat >expect <<-\EOF &&
	v2: 5 commits, 4 (80%) of them in next-20261201:
	  2 by the same id
	  1 by the same patch-id
	  1 by the same subject
	next-20261201: 1 of its 5 commits are not in v2

	net: 1 of 3
	  ID ("net: later")
	EOF
	test_cmp expect actual &&
	tide -C ws stats v2 --day 2026-12-01 | sed "s/^  [0-9a-f]\{12\} /  ID /" >again &&
	test_cmp expect again
'

test_expect_success 'tide stats --json' '
	tide -C ws stats v2 --json >out.json &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
print(d[\"tag\"], d[\"day\"], d[\"commits\"], d[\"in_day\"], d[\"day_commits\"], d[\"never\"])
for t in d[\"trees\"]: print(t[\"tree\"], t[\"commits\"], [c[\"subject\"] for c in t[\"never\"]])" out.json >actual &&
	cat >expect <<-\EOF &&
	v2 2026-12-01 5 {'"'"'by_id'"'"': 2, '"'"'by_patch_id'"'"': 1, '"'"'by_subject'"'"': 1} 5 1
	gpio 2 []
	net 3 ['"'"'net: later'"'"']
	EOF
	test_cmp expect actual
'

test_expect_success 'errors: no such tag, a bad day, a day not before the tag' '
	test_must_fail --status=3 tide -C ws stats v9 2>err &&
	grep -q "^tide: no commit named .v9. in the workspace$" err &&
	test_must_fail --status=2 tide -C ws stats v2 --day yesterday 2>err &&
	grep -q "bad date .yesterday." err &&
	test_must_fail --status=3 tide -C ws stats v1 2>err &&
	grep -q "^tide: no day built on a mainline before .v1. (name one with --day)$" err &&
	test_must_fail --status=3 tide -C ws stats v1 --day 2026-12-02 2>err &&
	grep -q "is not in the history of .v1.$" err &&
	test_must_fail --status=2 tide -C ws stats 2>err
'

test_done
