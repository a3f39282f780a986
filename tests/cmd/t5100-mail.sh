#!/bin/sh
# tide report --mail against a real SMTP server (tests/servers/smtp-sink.py):
# recipients, headers, only new conflicts, once a day, rate limit,
# credentials kept private, a refusing server.  The commits are signed off,
# so the commit checks (t5311) have nothing to mail here.
. "$(dirname "$0")/lib.sh"

# Two servers, started here (not in a test body's subshell) so the trap
# stops them: one that wants a login, one that refuses every recipient.
start_sink() {
	name=$1
	shift
	python3 "$TOP/tests/servers/smtp-sink.py" --dir "$TRASH/$name" --port-file "$TRASH/$name.port" "$@" &
	i=0
	while ! test -s "$TRASH/$name.port" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}
start_sink mail --user next --password Sekr1t-pw
SINK_PID=$!
start_sink refuse --refuse 550
REFUSE_PID=$!
# TLS: a self-signed certificate for 127.0.0.1, a STARTTLS and an smtps server.
TLS_PIDS=
if openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TRASH/key.pem" -out "$TRASH/cert.pem" \
	-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -days 2 >/dev/null 2>&1; then
	start_sink starttls --cert "$TRASH/cert.pem" --key "$TRASH/key.pem"
	TLS_PIDS=$!
	start_sink smtps --cert "$TRASH/cert.pem" --key "$TRASH/key.pem" --smtps
	TLS_PIDS="$TLS_PIDS $!"
	test_set_prereq OPENSSL
fi
trap 'kill $SINK_PID $REFUSE_PID $TLS_PIDS 2>/dev/null; wait $SINK_PID $REFUSE_PID $TLS_PIDS 2>/dev/null' EXIT
PORT=$(cat "$TRASH/mail.port")
REFUSE_PORT=$(cat "$TRASH/refuse.port")

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

test_expect_success 'setup: fixes and gpio conflict on day 2' '
	git init -q -b master main &&
	printf "1\n2\n3\n4\n5\n" > main/f && git -C main add f && git -C main commit -s -qm base &&
	git -C main tag v1 &&
	git clone -q main fixes && git clone -q main gpio && git clone -q main net &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\ngpio\tgit\tgpio#master\nnet\tgit\tnet#master\n" > trees.conf &&
	printf "#tide\tfixes\tcontact=Fixes Maint <fixes@ex.org>\n#tide\tgpio\tcontact=gpio@ex.org\n" >> trees.conf &&
	printf "#tide\tnet\tcontact=net@ex.org\n#tide\tproject=linux-next\n" >> trees.conf &&
	run_day 2026-12-01 &&
	sed -i "s/^3$/three-fixes/" fixes/f && git -C fixes commit -s -qam "f: fix three" &&
	sed -i "s/^3$/three-gpio/" gpio/f && git -C gpio commit -s -qam "gpio: three" &&
	sed -i "s/^5$/five-net/" net/f && git -C net commit -s -qam "net: five" &&
	sed -i "s/^5$/five-fixes/" fixes/f && git -C fixes commit -s -qam "f: fix five" &&
	run_day 2026-12-02 &&
	test -f ws/days/2026-12-02/reports/gpio.json &&
	test -f ws/days/2026-12-02/reports/net.json
'

test_expect_success 'private credentials file is required' '
	printf "user=next\npassword=Sekr1t-pw\n" > ws/smtp-creds && chmod 644 ws/smtp-creds &&
	printf "smtp=smtp://127.0.0.1:%s\nfrom=Tide <next@tide.example>\ncredentials=smtp-creds\ntimeout=5\n" "$PORT" > ws/mail.conf &&
	test_must_fail --status=3 tide -C ws -f trees.conf report 2026-12-02 --mail 2>err &&
	test_cmp_str "tide: credentials file '\''$TRASH/ws/smtp-creds'\'' is accessible by group or others (mode 644; chmod 600 it)" err &&
	! grep -q Sekr1t err &&
	! ls mail/*.eml 2>/dev/null
'

test_expect_success '--dry-run prints the mails with their headers' '
	tide -C ws -f trees.conf report 2026-12-02 --mail --dry-run >out &&
	grep -q "^To: gpio@ex.org,$" out &&
	grep -q "^	Fixes Maint <fixes@ex.org>$" out &&
	grep -q "^Cc: \"Tide Test\" <test@tide.invalid>$" out &&
	grep -q "^Subject: linux-next: manual merge of the gpio tree with the fixes tree$" out &&
	grep -q "^Message-ID: <next-20261202.gpio.tide@tide.example>$" out &&
	grep -q "^Date: " out &&
	grep -q "^From: Tide <next@tide.example>$" out &&
	! ls mail/*.eml 2>/dev/null
'

test_expect_success 'mails arrive with the right recipients' '
	chmod 600 ws/smtp-creds &&
	tide -C ws -f trees.conf report 2026-12-02 --mail >out &&
	cat >expect <<-\EOF &&
	gpio: mailed to gpio@ex.org, Fixes Maint <fixes@ex.org>, cc "Tide Test" <test@tide.invalid>
	net: mailed to net@ex.org, Fixes Maint <fixes@ex.org>, cc "Tide Test" <test@tide.invalid>
	EOF
	test_cmp expect out &&
	ls mail/*.eml >list && test $(wc -l <list) = 2 &&
	grep -l "manual merge of the gpio tree" mail/*.eml >gpio-mail &&
	env=$(sed "s/eml$/env/" gpio-mail) &&
	printf "from next@tide.example\nto gpio@ex.org\nto fixes@ex.org\nto test@tide.invalid\nauth next\n" >want &&
	cmp want "$env" &&
	grep -q "^Today.s linux-next merge of the gpio tree got a conflict in:$" $(cat gpio-mail) &&
	grep -q "(\"f: fix three\")" $(cat gpio-mail)
'

test_expect_success 'the password appears in no log, report or mail' '
	! grep -r "Sekr1t" ws/tide.log ws/days mail out
'

test_expect_success 'a second run the same day mails nothing again' '
	tide -C ws -f trees.conf report 2026-12-02 --mail >out &&
	printf "gpio: already mailed\nnet: already mailed\n" >expect &&
	test_cmp expect out &&
	test $(ls mail/*.eml | wc -l) = 2
'

test_expect_success 'a conflict that is not new is not mailed the next day' '
	run_day 2026-12-03 &&
	tide -C ws -f trees.conf report 2026-12-03 --mail >out &&
	grep -q "^gpio: conflict not new since the previous day, not mailed$" out &&
	test $(ls mail/*.eml | wc -l) = 2
'

test_expect_success 'the daily limit stops mails' '
	echo "max-per-day=1" >> ws/mail.conf &&
	tide -C ws -f trees.conf report 2026-12-03 --mail --all >out &&
	grep -q "^gpio: mailed" out &&
	grep -q "^net: not mailed: 1 mails a day already sent" out &&
	test $(ls mail/*.eml | wc -l) = 3
'

test_expect_success 'a server refusing the mail: exit 1, error named, day untouched' '
	rm -f ws/days/2026-12-03/reports/mail.json &&
	printf "smtp=smtp://127.0.0.1:%s\nfrom=next@tide.example\ntimeout=5\n" "$REFUSE_PORT" > ws/mail.conf &&
	cp ws/days/2026-12-03/day.json before.json &&
	test_must_fail --status=1 tide -C ws -f trees.conf report 2026-12-03 --mail --all 2>err &&
	grep -q "gpio: cannot send mail to gpio@ex.org" err &&
	grep -q "550" err &&
	cmp before.json ws/days/2026-12-03/day.json &&
	grep -q "mail: gpio failed" ws/tide.log &&
	python3 -c "import json; s=json.load(open(\"ws/days/2026-12-03/reports/mail.json\")); assert \"550\" in s[\"failed\"][\"gpio\"], s" &&
	! ls refuse/*.eml 2>/dev/null
'

test_expect_success OPENSSL 'STARTTLS and smtps: the mail goes over TLS' '
	printf "smtp=smtp://127.0.0.1:%s\nstarttls=yes\ncainfo=%s\nfrom=next@tide.example\ntimeout=5\n" \
		"$(cat starttls.port)" "$PWD/cert.pem" > ws/mail.conf &&
	rm -f ws/days/2026-12-03/reports/mail.json &&
	tide -C ws -f trees.conf report 2026-12-03 --mail --all --tree gpio >out &&
	grep -q "^gpio: mailed" out && grep -q "^tls$" starttls/1.env &&
	printf "smtp=smtps://127.0.0.1:%s\ncainfo=%s\nfrom=next@tide.example\ntimeout=5\n" \
		"$(cat smtps.port)" "$PWD/cert.pem" > ws/mail.conf &&
	rm -f ws/days/2026-12-03/reports/mail.json &&
	tide -C ws -f trees.conf report 2026-12-03 --mail --all --tree gpio >out &&
	grep -q "^tls$" smtps/1.env &&
	printf "smtp=smtps://127.0.0.1:%s\nfrom=next@tide.example\ntimeout=5\n" \
		"$(cat smtps.port)" > ws/mail.conf &&
	rm -f ws/days/2026-12-03/reports/mail.json &&
	test_must_fail --status=1 tide -C ws -f trees.conf report 2026-12-03 --mail --all --tree gpio 2>err &&
	grep -qi "certificate" err &&
	test $(ls smtps/*.eml | wc -l) = 1
'

test_expect_success 'the day announcement: printed whole, then mailed once to announce=' '
	tide -C ws report 2026-12-02 --announce >out &&
	sed "s/([0-9a-f]\{12\})/(SHA)/" out >actual &&
	cat >expect <<-\EOF &&
	Subject: linux-next: Tree for Dec 2

	Hi all,

	Changes since 20261201:

	The fixes tree moved forward by 2 commits.

	The gpio tree moved forward by 1 commit.

	The gpio tree gained a conflict against the fixes tree, so I used the version from next-20261201.

	The net tree moved forward by 1 commit.

	The net tree gained a conflict against the fixes tree, so I used the version from next-20261201.

	Non-merge commits (relative to mainline): 3
	 5 files changed, 37 insertions(+), 2 deletions(-)

	The linux-next tree is tagged next-20261202: v1 (SHA) with 1 of 3 trees merged at today'"'"'s version.

	Not merged at today'"'"'s version:

	  gpio   previous
	  net    previous

	Each tree'"'"'s conflicts: tide report 2026-12-02
	EOF
	test_cmp expect actual &&
	printf "smtp=smtp://127.0.0.1:%s\nfrom=Tide <next@tide.example>\ncredentials=smtp-creds\ntimeout=5\n" "$PORT" >ws/mail.conf &&
	test_must_fail --status=3 tide -C ws report 2026-12-02 --announce --mail 2>err &&
	test_cmp_str "tide: no announce= address in $TRASH/ws/mail.conf for --announce --mail" err &&
	echo "announce=linux-next@lists.example" >>ws/mail.conf &&
	before=$(ls mail/*.eml | wc -l) &&
	tide -C ws report 2026-12-02 --announce --mail >out &&
	grep -qx "announcement mailed to linux-next@lists.example" out &&
	test $(ls mail/*.eml | wc -l) = $((before + 1)) &&
	m=$(grep -l "^Subject: linux-next: Tree for Dec 2" mail/*.eml) &&
	grep -q "^Message-ID: <next-20261202.announce.tide@tide.example>" $m &&
	grep -q "^Changes since 20261201:" $m &&
	tide -C ws report 2026-12-02 --announce --mail >out &&
	grep -q "^announcement of next-20261202 already mailed" out &&
	test $(ls mail/*.eml | wc -l) = $((before + 1)) &&
	test_must_fail --status=2 tide -C ws report --announce --json &&
	test_must_fail --status=2 tide -C ws report --announce --tree gpio
'

test_expect_success 'bad mail.conf: credentials in the URL, unknown key' '
	printf "smtp=smtp://u:pw@127.0.0.1:25\n" > ws/mail.conf &&
	test_must_fail --status=3 tide -C ws -f trees.conf report --mail 2>err &&
	test_cmp_str "tide: $TRASH/ws/mail.conf: SMTP URL must not carry credentials; use a credentials file" err &&
	printf "smpt=smtp://127.0.0.1:25\n" > ws/mail.conf &&
	test_must_fail --status=3 tide -C ws -f trees.conf report --mail 2>err &&
	test_cmp_str "tide: $TRASH/ws/mail.conf:1: unknown key '\''smpt'\''" err
'

# check-data RAW: the DATA a server got has no bare CR or LF and no line
# longer than 998 octets; prints the longest line's length.
check_data() {
	python3 -c '
import sys
raw = open(sys.argv[1], "rb").read()
lines = raw.split(b"\r\n")
assert lines[-1] == b"", "DATA does not end with CRLF"
for i, l in enumerate(lines):
    assert b"\r" not in l and b"\n" not in l, "bare CR or LF on line %d" % (i + 1)
    assert len(l) <= 998, "line %d has %d octets" % (i + 1, len(l))
print(max(len(l) for l in lines))' "$1"
}

# mail_body EML: the body of a received mail, its transfer encoding undone.
mail_body() {
	python3 -c '
import email, email.policy, sys
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=email.policy.default)
sys.stdout.write(m.get_content_type() + " " + m["Content-Transfer-Encoding"] + "\n")
sys.stdout.buffer.write(m.get_payload(decode=True))' "$1"
}

# The subject is cut in the record (256 bytes), the conflicting line is not:
# the hunk brings a 200 KB line with bare CRs into the mail.
test_expect_success 'a 200 KB commit subject and conflicting line with bare CRs: lines within 998 octets, no bare CR, the body intact' '
	python3 -c "import sys; sys.stdout.write(\"gpio: long\rsubject \" + \"y\" * 200000 + \"\rend\n\nSigned-off-by: Tide Test <test@tide.invalid>\n\")" >subject &&
	python3 -c "import sys; t = open(\"gpio/f\").read().replace(\"1\\n\", \"one-gpio \" + \"z\" * 200000 + \"\\rend\\n\", 1); open(\"gpio/f\", \"w\").write(t)" &&
	git -C gpio commit -q --cleanup=verbatim -a -F ../subject &&
	sed -i "s/^1$/one-fixes/" fixes/f && git -C fixes commit -s -qam "f: fix one" &&
	run_day 2026-12-04 &&
	grep -q "zzzzz" ws/days/2026-12-04/reports/gpio.txt &&
	printf "smtp=smtp://127.0.0.1:%s\nfrom=Tide <next@tide.example>\ncredentials=smtp-creds\ntimeout=5\n" "$PORT" >ws/mail.conf &&
	before=$(ls mail/*.eml | wc -l) &&
	tide -C ws -f trees.conf report 2026-12-04 --mail --all --tree gpio >out &&
	echo "gpio: mailed to gpio@ex.org, Fixes Maint <fixes@ex.org>, cc \"Tide Test\" <test@tide.invalid>" >expect &&
	test_cmp expect out &&
	n=$((before + 1)) && test -f mail/$n.raw &&
	check_data mail/$n.raw >longest && test $(cat longest) -le 998 &&
	mail_body mail/$n.eml >actual &&
	{ echo "text/plain quoted-printable" &&
	  python3 -c "import sys; sys.stdout.write(open(sys.argv[1], newline=\"\").read().replace(\"\r\n\", \"\n\").replace(\"\r\", \"\n\"))" \
		ws/days/2026-12-04/reports/gpio.txt; } >expect &&
	test_cmp expect actual
'

test_done
