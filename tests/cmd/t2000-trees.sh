#!/bin/sh
# tide trees: what trees.conf says, and how bad input is reported.
. "$(dirname "$0")/lib.sh"

test_expect_success 'the linux-next sample parses' '
	tide -f "$TOP/tests/data/Trees.sample" trees >out &&
	test $(grep -vc "^config " out) = $(grep -cE "	(git|quilt|mmotm)	" "$TOP/tests/data/Trees.sample") &&
	test $(grep -c "^config smoke  *x86_64  *tinyconfig .*/smoke.config  *boot pc" out) = 1 &&
	grep -q "^arm64 .* for-next/core$" out &&
	grep -q "^akpm .*mmotm .*http://www.ozlabs.org/~akpm/mmotm/ .*-$" out
'

test_expect_success 'base, contact and options are shown; --json too' '
	printf "#tide\tbase\tm.git#v6.1\ngpio\tgit\tg.git#for-next\n#tide\tgpio\tcontact=L W <l@w.org>\tbuild-each-merge\tfixup=x.patch\n" >trees.conf &&
	tide trees >out &&
	grep -v "^config " out >actual &&
	cat >expect <<-\EOF &&
	base: m.git tag v6.1
	gpio  git    g.git  for-next  L W <l@w.org>
	EOF
	test_cmp expect actual &&
	tide trees --json >json &&
	python3 -c "
import json, os
d = json.load(open(\"json\"))
t = d[\"trees\"][0]
assert d[\"base\"][\"tag\"] == \"v6.1\", d
assert d[\"base\"][\"location\"] == os.getcwd() + \"/m.git\", d
assert t[\"location\"] == os.getcwd() + \"/g.git\", t
assert t[\"opts\"] == {\"build-each-merge\": \"\", \"fixup\": \"x.patch\"}, t
assert t[\"contact\"] == \"L W <l@w.org>\", t
"
'

test_expect_success '-C DIR reads DIR/trees.conf, -f wins' '
	mkdir -p ws && printf "a\tgit\tx\n" >ws/trees.conf &&
	tide -C ws trees >out && grep -q "^a " out &&
	tide -C ws -f trees.conf trees >out && grep -q "^gpio " out
'

# bad TEXT LINE MESSAGE: trees.conf TEXT is refused with exactly
# "tide: bad.conf:LINE: MESSAGE".
bad() {
	printf "$1" >bad.conf &&
	test_must_fail --status=3 tide -f bad.conf trees 2>err &&
	test_cmp_str "tide: bad.conf:$2: $3" err
}

test_expect_success 'each kind of bad input: one line naming file and line, exit 3' '
	bad "a\tgit\tx\nb\tcvs\ty\n" 2 "unknown tree type '\''cvs'\'' (git, quilt or mmotm)" &&
	bad "a\tgit\n" 1 "tree '\''a'\'' has no URL" &&
	bad "a\tgit\tx\na\tgit\ty\n" 2 "duplicate tree name '\''a'\''" &&
	bad "a\tgit\tx#for..next\n" 1 "bad branch name '\''for..next'\''" &&
	bad "a~1\tgit\tx\n" 1 "'\''a~1'\'' is not a valid tree name (printable ASCII, one git reference component)" &&
	bad "#tide\tnope\tcontact=x\n" 1 "'\''#tide'\'' line for unknown tree '\''nope'\''" &&
	bad "#tide\tbase\tmainline\n" 1 "malformed base: expected '\''#tide<TAB>base<TAB>URL#TAG'\''"
'

test_expect_success 'a missing trees.conf is bad input' '
	test_must_fail --status=3 tide -f nothere.conf trees 2>err &&
	test_cmp_str "tide: cannot read trees.conf '\''nothere.conf'\'': no such file" err
'

test_expect_success 'usage matches the man page synopsis' '
	tide trees -h >out && grep -q "^usage: tide trees \[--json\]$" out &&
	if command -v man >/dev/null; then
		MANWIDTH=200 man -l "$TOP/man/tide-trees.1" 2>/dev/null | grep -q "^ *tide trees \[--json\]$"
	fi &&
	test_must_fail --status=2 tide -f trees.conf trees --bogus
'

test_done
