#!/bin/sh
# A quilt tree of patches as they come off a list (git 2.39 format-patch
# with --attach, --encoding, --from, --encode-email-headers; base64 and
# quoted-printable bodies) is applied as git am applies it: same authors,
# dates, messages and trees.
. "$(dirname "$0")/lib.sh"

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >out 2>err || test $? = 1
}

# A format-patch file with its body re-encoded (base64 or quoted-printable).
reencode() {
	python3 - "$1" "$2" <<'PY'
import base64, quopri, sys
enc, path = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
head, body = data.split(b'\n\n', 1)
head = b'\n'.join(l for l in head.split(b'\n') if not l.lower().startswith(b'content-transfer-encoding'))
if enc == 'base64':
    b = base64.encodebytes(body)
else:
    b = quopri.encodestring(body)
open(path, 'wb').write(head + b'\nContent-Transfer-Encoding: ' + enc.encode() + b'\n\n' + b)
PY
}

test_expect_success 'setup: mainline and a series of list-shaped patches' '
	git init -q -b master main &&
	printf "1\n2\n3\n" > main/f && git -C main add f && git -C main commit -qm base &&
	git -C main tag v1 &&
	git clone -q main mmsrc &&
	echo one >> mmsrc/f &&
	GIT_AUTHOR_NAME="Jörg Müller" GIT_AUTHOR_EMAIL=jm@ex.org GIT_AUTHOR_DATE="2026-11-30T12:00:00+0100" \
		git -C mmsrc commit -qam "mm: one" -m "Grüße." -m "Signed-off-by: Jörg Müller <jm@ex.org>" &&
	echo two > mmsrc/g && git -C mmsrc add g &&
	GIT_AUTHOR_NAME="李 明" GIT_AUTHOR_EMAIL=li@ex.cn GIT_AUTHOR_DATE="2026-11-30T13:00:00+0800" \
		git -C mmsrc commit -qm "mm: two, attached" -m "Link: https://lore.kernel.org/r/2@ex.cn" &&
	echo three >> mmsrc/g &&
	GIT_AUTHOR_NAME="Zoë Latin" GIT_AUTHOR_EMAIL=zl@ex.org GIT_AUTHOR_DATE="2026-11-30T14:00:00+0000" \
		git -C mmsrc commit -qam "mm: three, Latin-1" -m "Café." &&
	echo four >> mmsrc/f &&
	GIT_AUTHOR_NAME="Ann Author" GIT_AUTHOR_EMAIL=ann@ex.org GIT_AUTHOR_DATE="2026-11-30T15:00:00+0000" \
		git -C mmsrc commit -qam "mm: four, sent by someone else" -m "Fixes: 0123456789ab (\"mm: x\")" &&
	echo five >> mmsrc/g &&
	GIT_AUTHOR_NAME="Bö Base" GIT_AUTHOR_EMAIL=bb@ex.org GIT_AUTHOR_DATE="2026-11-30T16:00:00+0000" \
		git -C mmsrc commit -qam "mm: five, base64" -m "Reviewed-by: R <r@ex.org>" &&
	echo six >> mmsrc/f &&
	GIT_AUTHOR_NAME="Qüentin P" GIT_AUTHOR_EMAIL=qp@ex.org GIT_AUTHOR_DATE="2026-11-30T17:00:00+0000" \
		git -C mmsrc commit -qam "mm: six, quoted-printable" -m "A line with = and ü." &&
	mkdir -p srv &&
	git -C mmsrc format-patch -q -o ../srv --encode-email-headers --base=v1 v1..HEAD~5 &&
	git -C mmsrc format-patch -q -o ../srv --start-number=2 --attach -1 HEAD~4 &&
	git -C mmsrc format-patch -q -o ../srv --start-number=3 --encoding=ISO-8859-1 -1 HEAD~3 &&
	git -C mmsrc format-patch -q -o ../srv --start-number=4 --from="Sender <s@ex.org>" -1 HEAD~2 &&
	git -C mmsrc format-patch -q -o ../srv --start-number=5 -1 HEAD~1 &&
	git -C mmsrc format-patch -q -o ../srv --start-number=6 -1 HEAD &&
	reencode base64 srv/0005-*.patch && reencode quoted-printable srv/0006-*.patch &&
	grep -q "^Content-Type: multipart/mixed" srv/0002-*.patch &&
	grep -q "charset=ISO-8859-1" srv/0003-*.patch &&
	grep -q "^From: Ann Author <ann@ex.org>$" srv/0004-*.patch &&
	grep -q "^Content-Transfer-Encoding: base64" srv/0005-*.patch &&
	grep -q "^Content-Transfer-Encoding: quoted-printable" srv/0006-*.patch &&
	(cd srv && ls *.patch > series) &&
	printf "#tide\tbase\tmain#v1\nmm\tquilt\tfile://%s/srv/\n" "$TRASH" > trees.conf
'

test_expect_success 'the series is applied as git am applies it' '
	run_day 2026-12-01 &&
	git clone -q main am && git -C am checkout -q v1 &&
	(cd am && git -c user.name=Tide -c user.email=tide@ex.org am -q ../srv/0*.patch) &&
	fmt="%an|%ae|%ad|%B" &&
	git -C am log --format="$fmt" --date=raw v1..HEAD >expect &&
	git --git-dir=ws/repo.git log --format="$fmt" --date=raw refs/quilt/mm --not v1 >actual &&
	diff -u expect actual &&
	test "$(git -C am rev-parse HEAD^{tree})" = "$(git --git-dir=ws/repo.git rev-parse refs/quilt/mm^{tree})" &&
	grep -q "^李 明|li@ex.cn|" actual && grep -q "^Zoë Latin|" actual && grep -q "^Café.$" actual
'

test_expect_success 'a patch mail without hunks is refused, naming the patch' '
	mkdir -p srv2 && cp srv/0001-*.patch srv2/ &&
	printf "From: A <a@ex.org>\nSubject: [PATCH] nothing\n\nWhy.\n---\ndiff --git a/f b/f\nindex 1..2\n" >srv2/0002-empty.patch &&
	(cd srv2 && ls *.patch > series) &&
	printf "#tide\tbase\tmain#v1\nmm\tquilt\tfile://%s/srv2/\n" "$TRASH" > trees.conf &&
	rm -rf ws/quilt &&
	run_day 2026-12-02 &&
	python3 -c "import json; d=json.load(open(\"ws/days/2026-12-02/day.json\")); t=[t for t in d[\"trees\"] if t[\"name\"]==\"mm\"][0]; print(t.get(\"error\") or t.get(\"fetch\", {}).get(\"error\") or t)" >why &&
	grep -q "0002-empty.patch.*no hunks" why
'

test_done
