#!/bin/sh
# .mailmap: the authors in a conflict's record and the recipients of its
# mail are the addresses people use today, per the tree's .mailmap.
. "$(dirname "$0")/lib.sh"

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

test_expect_success 'setup: a .mailmap mapping old addresses, a conflict by old ones' '
	git init -q -b master main &&
	printf "1\n2\n3\n" > main/f &&
	printf "%s\n" "Gpio Maint <gpio@new.example> <gpio@old.example>" \
		"New Name <dev@new.example> Old Name <dev@old.example>" > main/.mailmap &&
	git -C main add f .mailmap && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && git clone -q main gpio &&
	sed -i "s/^2$/two-fixes/" fixes/f &&
	GIT_AUTHOR_NAME="Old Name" GIT_AUTHOR_EMAIL=dev@old.example git -C fixes commit -qam "f: two" &&
	sed -i "s/^2$/two-gpio/" gpio/f &&
	GIT_AUTHOR_NAME=Someone GIT_AUTHOR_EMAIL=other@ex.org git -C gpio commit -qam "gpio: two" &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#master\n" > trees.conf &&
	printf "#tide\tfixes\tcontact=Fixes <fixes@ex.org>\n#tide\tgpio\tcontact=gpio@old.example\n" >> trees.conf &&
	run_day 2026-12-01 &&
	test -f ws/days/2026-12-01/reports/gpio.json
'

test_expect_success 'the record names authors through the .mailmap' '
	authors 2026-12-01 >actual &&
	printf "%s\n" "gpio ours_commits New Name <dev@new.example>" \
		"gpio theirs_commits Someone <other@ex.org>" >expect &&
	diff -u expect actual
'

test_expect_success 'the mail goes to the contact as the .mailmap knows it' '
	tide -C ws -f trees.conf report 2026-12-01 --mail --dry-run >out &&
	grep -q "^To: Gpio Maint <gpio@new.example>$" out &&
	grep -q "^Cc: Fixes <fixes@ex.org>$" out &&
	! grep -q old.example out
'

test_expect_success 'without a .mailmap the addresses stay as they are' '
	git -C main rm -q .mailmap && git -C main commit -qm "no mailmap" && git -C main tag v2 &&
	git -C fixes pull -q --no-rebase --no-edit ../main master 2>/dev/null &&
	git -C gpio pull -q --no-rebase --no-edit ../main master 2>/dev/null &&
	sed -i "s/main#v1/main#v2/" trees.conf &&
	run_day 2026-12-02 &&
	authors 2026-12-02 >actual &&
	grep -q "Old Name <dev@old.example>" actual &&
	tide -C ws -f trees.conf report 2026-12-02 --mail --dry-run --all >out &&
	grep -q "^To: gpio@old.example$" out
'

test_done
