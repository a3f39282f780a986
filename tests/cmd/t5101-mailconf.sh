#!/bin/sh
# mail.conf's checks as `tide report --mail` shows them: each bad line is
# named FILE:LINE with what is wrong, exit status 3 (bad input); numbers
# (max-per-day=, timeout=) must be whole numbers.  No mail is sent: the
# file is refused before any server is asked.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: a day with a conflict' '
	git init -q -b master main &&
	printf "1\n2\n3\n" >main/f && git -C main add f && git -C main commit -qm base &&
	git -C main tag v1 &&
	git clone -q main a && git clone -q main b &&
	printf "#tide\tbase\tmain#v1\na\tgit\ta#master\nb\tgit\tb#master\n" >trees.conf &&
	printf "#tide\ta\tcontact=a@ex.org\n#tide\tb\tcontact=b@ex.org\n" >>trees.conf &&
	sed -i "s/^2$/two-a/" a/f && git -C a commit -qam "a: two" &&
	sed -i "s/^2$/two-b/" b/f && git -C b commit -qam "b: two" &&
	{ tide -C ws -f trees.conf run --date 2026-12-01 --no-build --no-boot >/dev/null 2>&1 ||
	  test $? = 1; } &&
	test -f ws/days/2026-12-01/reports/b.json
'

# bad_conf CONTENT MESSAGE: report --mail refuses the file with exactly MESSAGE.
bad_conf() {
	printf "$1" >ws/mail.conf &&
	echo "tide: $PWD/ws/mail.conf:$2" >expect &&
	test_must_fail --status=3 tide -C ws -f trees.conf report --mail >out 2>err &&
	test_cmp expect err &&
	test_must_be_empty out
}

test_must_be_empty() { test ! -s "$1"; }

test_expect_success 'a max-per-day that is not a number is refused' '
	bad_conf "smtp=smtp://127.0.0.1:25\n# limit\nmax-per-day=ten\n" \
		"3: bad max-per-day '"'ten'"' (a whole number of mails, 0 to 100000)" &&
	bad_conf "max-per-day=5 mails\n" \
		"1: bad max-per-day '"'5 mails'"' (a whole number of mails, 0 to 100000)" &&
	bad_conf "max-per-day=-1\n" \
		"1: bad max-per-day '"'-1'"' (a whole number of mails, 0 to 100000)"
'

test_expect_success 'a timeout that is not a number is refused' '
	bad_conf "smtp=smtp://127.0.0.1:25\n\ntimeout=30s\n" \
		"3: bad timeout '"'30s'"' (whole seconds, 1 to 86400)" &&
	bad_conf "timeout=\n" "1: bad timeout '"''"' (whole seconds, 1 to 86400)" &&
	bad_conf "timeout=0\n" "1: bad timeout '"'0'"' (whole seconds, 1 to 86400)"
'

test_expect_success 'a line without = and an unknown key name their line' '
	bad_conf "smtp=smtp://127.0.0.1:25\nfrom\n" \
		"2: bad line '"'from'"' (want key=value)" &&
	bad_conf "# c\n\nsmpt=smtp://127.0.0.1:25\n" "3: unknown key '"'smpt'"'"
'

test_expect_success '--announce --mail reads mail.conf the same way' '
	printf "announce=l@ex.org\ntimeout=five\n" >ws/mail.conf &&
	echo "tide: $PWD/ws/mail.conf:2: bad timeout '"'five'"' (whole seconds, 1 to 86400)" >expect &&
	test_must_fail --status=3 tide -C ws report --announce --mail 2>err &&
	test_cmp expect err
'

test_expect_success 'good numbers pass the parser (a dry run prints the mail)' '
	printf "smtp=smtp://127.0.0.1:25\nmax-per-day=0\ntimeout=86400\n" >ws/mail.conf &&
	tide -C ws -f trees.conf report --mail --dry-run >out &&
	grep -q "^Subject: ws: manual merge of the b tree with the a tree" out
'

test_done
