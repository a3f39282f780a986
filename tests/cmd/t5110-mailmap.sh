#!/bin/sh
# .mailmap: the authors in a conflict's record are named through the
# base's .mailmap, never a tree's; a conflict mail goes to trees.conf's
# contact= as written, whatever .mailmap a tree merged earlier in the day
# ships (one that maps another tree's contact to an attacker's address),
# and Cc's the commits' authors as the base's .mailmap names them.
. "$(dirname "$0")/lib.sh"

test_smtp_sink

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

authors() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for t in d['trees']:
    for c in t.get('conflicts', []):
        for k in ('ours_commits', 'theirs_commits'):
            for x in c[k]: print(t['name'], k, x['author'])" "ws/days/$1/day.json"
}

test_expect_success 'setup: the base maps an old address; fixes maps gpio'"'"'s contact, gpio renames fixes'"'"' author' '
	git init -q -b master main &&
	printf "1\n2\n3\n" > main/f &&
	printf "%s\n" "# people" "New Name <dev@new.example> Old Name <dev@old.example>" "# end" > main/.mailmap &&
	git -C main add f .mailmap && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && git clone -q main gpio &&
	sed -i "s/^2$/two-fixes/" fixes/f &&
	sed -i "1i Evil Inbox <evil@attacker.example> <gpio@ex.org>" fixes/.mailmap &&
	GIT_AUTHOR_NAME="Old Name" GIT_AUTHOR_EMAIL=dev@old.example git -C fixes commit -qam "f: two" &&
	sed -i "s/^2$/two-gpio/" gpio/f &&
	echo "Framed Person <framed@evil.example> Old Name <dev@old.example>" >>gpio/.mailmap &&
	GIT_AUTHOR_NAME=Someone GIT_AUTHOR_EMAIL=other@ex.org git -C gpio commit -qam "gpio: two" &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#master\n" > trees.conf &&
	printf "#tide\tfixes\tcontact=Fixes <fixes@ex.org>\n#tide\tgpio\tcontact=gpio@ex.org\n#tide\tproject=linux-next\n" >> trees.conf &&
	run_day 2026-12-01 &&
	test -f ws/days/2026-12-01/reports/gpio.json &&
	git -C ws/repo.git show next-20261201:.mailmap | grep -q "^Evil Inbox"
'

test_expect_success 'the record names authors through the base'"'"'s .mailmap, not the tree'"'"'s' '
	authors 2026-12-01 >actual &&
	printf "%s\n" "gpio ours_commits New Name <dev@new.example>" \
		"gpio theirs_commits Someone <other@ex.org>" >expect &&
	test_cmp expect actual
'

test_expect_success 'the mail goes to the contacts as trees.conf writes them, Cc the authors as the base maps them' '
	printf "smtp=smtp://127.0.0.1:%s\nfrom=Tide <next@tide.example>\ntimeout=5\n" "$(cat mail.port)" >ws/mail.conf &&
	tide -C ws -f trees.conf report 2026-12-01 --mail --dry-run >all &&
	awk "/^Date: / { n++ } n == 1" all >out &&
	sed -n "/^To:/,/^Subject:/p" out >actual &&
	printf "%s\n" "To: gpio@ex.org," "	Fixes <fixes@ex.org>" "Cc: \"New Name\" <dev@new.example>," \
		"	\"Someone\" <other@ex.org>" \
		"Subject: linux-next: manual merge of the gpio tree with the fixes tree" >expect &&
	test_cmp expect actual &&
	tide -C ws -f trees.conf report 2026-12-01 --mail >out &&
	grep -x "gpio: mailed to gpio@ex.org, Fixes <fixes@ex.org>, cc \"New Name\" <dev@new.example>, \"Someone\" <other@ex.org>" out &&
	printf "from next@tide.example\nto gpio@ex.org\nto fixes@ex.org\nto dev@new.example\nto other@ex.org\n" >expect &&
	test_cmp expect mail/1.env &&
	! grep -r attacker mail ws/days &&
	! grep -r framed mail
'

test_done
