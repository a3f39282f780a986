#!/bin/sh
# The report mails in linux-next's layouts, whole: a conflict ("manual
# merge of the X tree with the Y tree", to both trees, Cc the authors,
# the files, each side's commits and trees, what was done, the closing
# paragraph), a build failure after a tree's merge (the configuration,
# the compiler's lines, "Caused by commit" from the day's bisect, what
# was done) and a build warning; and the announcement's counts and the
# configurations built.  The builds are a record written here (the
# layouts read only the record; t5120 builds a fake kernel).
. "$(dirname "$0")/lib.sh"

export GIT_AUTHOR_DATE="2026-11-20T10:00:00Z" GIT_COMMITTER_DATE="2026-11-20T10:00:00Z"

sob="Signed-off-by: Tide Test <test@tide.invalid>"

commit_in() {
	printf '%s\n' "$3" >"$1/$2" && git -C "$1" add "$2" && git -C "$1" commit -q -m "$4" -m "$sob"
}

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

test_expect_success 'setup: gpio conflicts with fixes, spi breaks a build, net warns in another' '
	git init -q -b master main &&
	printf "1\n2\n3\n" >main/f && commit_in main s "s" "core: add f and s" &&
	git -C main add f && git -C main commit -q --amend --no-edit && git -C main tag v1 &&
	for t in fixes gpio spi net; do git clone -q main $t || exit 1; done &&
	{
		printf "#tide\tbase\tmain#v1\n#tide\tproject=linux-next\n"
		for t in fixes gpio spi net; do printf "%s\tgit\t%s#master\n#tide\t%s\tcontact=%s@ex.org\n" $t $t $t $t; done
	} >trees.conf &&
	run_day 2026-12-01 &&
	sed -i "s/^2$/two-fixes/" fixes/f && git -C fixes commit -q -am "fixes: two" -m "$sob" &&
	sed -i "s/^2$/two-gpio/" gpio/f && git -C gpio commit -q -am "gpio: two" -m "$sob" &&
	commit_in spi spi.c "int spi(void) { return x; }" "spi: use x" &&
	commit_in net net.c "int n;" "net: add n" &&
	run_day 2026-12-02 &&
	python3 - ws/days/2026-12-02/day.json "$(git -C spi rev-parse HEAD)" <<-\PY
	import json, sys
	path, spi = sys.argv[1], sys.argv[2]
	d = json.load(open(path))
	d["build"] = {"status": "failed", "failure": "make exited 2", "config": "smoke",
	              "arch": "x86_64", "errors": [{"file": "spi.c", "line": 1, "column": 27,
	              "message": "'"'"'x'"'"' undeclared (first use in this function)",
	              "kind": "compiler", "tree": "spi"}], "new_warnings": []}
	d["configs"] = [{"name": "arm64", "build": {"status": "ok", "config": "arm64", "arch": "arm64",
	              "errors": [], "new_warnings": [{"file": "net.c", "line": 1, "column": 5,
	              "message": "'"'"'n'"'"' defined but not used [-Wunused-variable]",
	              "kind": "compiler", "tree": "net"}]}}]
	d["bisect"] = {"outcome": "found", "tree": "spi", "commit": spi, "subject": "spi: use x"}
	json.dump(d, open(path, "w"), indent=2)
	PY
'

# The three mails of the day (--dry-run without the Date: lines).
cat >"$TRASH/expect-mails" <<\EOF
From: tide <tide@localhost>
To: gpio@ex.org,
	fixes@ex.org
Cc: "Tide Test" <test@tide.invalid>
Subject: linux-next: manual merge of the gpio tree with the fixes tree
Message-ID: <next-20261202.gpio.tide@localhost>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

Hi all,

Today's linux-next merge of the gpio tree got a conflict in:

  f

between commit:

  253ebda500a0 ("fixes: two")

from the fixes tree and commit:

  da05e0d79f8f ("gpio: two")

from the gpio tree.

The conflict (content, rerere id 9942e971968f):

  <<<<<<< next-20261202
  two-fixes
  =======
  two-gpio
  >>>>>>> gpio/master

No recorded resolution applies, so I used the version from next-20261201
of the gpio tree for today.

-- 
Cheers,
tide (next-20261202)

From: tide <tide@localhost>
To: spi@ex.org
Subject: linux-next: build failure after merge of the spi tree
Message-ID: <next-20261202.spi.tide@localhost>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

Hi all,

After merging the spi tree, today's linux-next build (x86_64 smoke)
failed like this:

spi.c:1:27: error: 'x' undeclared (first use in this function)

Caused by commit

  ee4f95bf6ac1 ("spi: use x")

The spi tree is in today's tree as it is.

-- 
Cheers,
tide (next-20261202)

From: tide <tide@localhost>
To: net@ex.org
Subject: linux-next: build warning after merge of the net tree
Message-ID: <next-20261202.net.tide@localhost>
MIME-Version: 1.0
Content-Type: text/plain; charset=UTF-8
Content-Transfer-Encoding: 8bit

Hi all,

After merging the net tree, today's linux-next build (arm64 arm64)
produced this warning:

net.c:1:5: warning: 'n' defined but not used [-Wunused-variable]

The commit of the net tree behind this is not known yet
(tide bisect 2026-12-02 --build finds it).

-- 
Cheers,
tide (next-20261202)

EOF

test_expect_success 'the mails of the day, whole' '
	tide -C ws -f trees.conf report 2026-12-02 --mail --dry-run | sed "/^Date: /d" >actual &&
	test_cmp expect-mails actual
'

test_expect_success 'the announcement: counts against the base, the configurations built' '
	tide -C ws report 2026-12-02 --announce | sed "s/([0-9a-f]\{12\})/(SHA)/" >actual &&
	sed -n "/^Non-merge/,/^ [0-9]* files/p; /^Configurations built/,/^\$/p; /^  [a-z0-9]* ([a-z0-9_]*): /p" actual >parts &&
	git -C ws/repo.git diff --shortstat -M v1 next-20261202 >shortstat &&
	{ echo "Non-merge commits (relative to mainline): 4" && cat shortstat; } >expect &&
	cat >>expect <<-\EOF &&
	Configurations built:

	  smoke (x86_64): failed
	  arm64 (arm64): ok
	EOF
	test_cmp expect parts
'

# Day 3: fixes and gpio now both change line 3 too, a new conflict that
# a resolution recorded by git rerere resolves.  The mail says how, with
# the merge's combined diff after the signature, as git shows the same
# merge made by git (its index line, hunks and all).
test_expect_success 'setup: day 3 resolves a new conflict with a resolution recorded by git' '
	sed -i "s/^3$/three-fixes/" fixes/f && git -C fixes commit -q -am "fixes: three" -m "$sob" &&
	sed -i "s/^3$/three-gpio/" gpio/f && git -C gpio commit -q -am "gpio: three" -m "$sob" &&
	git clone -q fixes plain && git -C plain config rerere.enabled true &&
	git -C plain fetch -q ../gpio master &&
	test_expect_code 1 git -C plain merge -q --no-edit FETCH_HEAD >/dev/null 2>&1 &&
	printf "1\ntwo-both\nthree-gpio\n" >plain/f &&
	git -C plain add f && git -C plain commit -q --no-edit &&
	mkdir -p ws/rr-cache && cp -r plain/.git/rr-cache/* ws/rr-cache/ &&
	run_day 2026-12-03 &&
	git -C ws/repo.git show next-20261203:f >f3 &&
	printf "1\ntwo-both\nthree-gpio\n" >expect && test_cmp expect f3
'

test_expect_success 'the conflict mail of a recorded resolution: git diff --cc of the merge' '
	cat >expect <<-\EOF &&
	From: tide <tide@localhost>
	To: gpio@ex.org,
	TABfixes@ex.org
	Cc: "Tide Test" <test@tide.invalid>
	Subject: linux-next: manual merge of the gpio tree with the fixes tree
	Message-ID: <next-20261203.gpio.tide@localhost>
	MIME-Version: 1.0
	Content-Type: text/plain; charset=UTF-8
	Content-Transfer-Encoding: 8bit

	Hi all,

	Today'"'"'s linux-next merge of the gpio tree got a conflict in:

	  f

	between commits:

	  FIXES3 ("fixes: three")
	  253ebda500a0 ("fixes: two")

	from the fixes tree and commits:

	  GPIO3 ("gpio: three")
	  da05e0d79f8f ("gpio: two")

	from the gpio tree.

	The conflict (content, rerere id RRID):

	  <<<<<<< next-20261203
	  two-fixes
	  three-fixes
	  =======
	  two-gpio
	  three-gpio
	  >>>>>>> gpio/master

	I fixed it up (see below) and can carry the fix as necessary. This
	is now fixed as far as linux-next is concerned, but any non trivial
	conflicts should be mentioned to your upstream maintainer when your
	tree is submitted for merging.

	f: resolved from recorded resolution RRID

	-- 
	Cheers,
	tide (next-20261203)

	EOF
	git -C plain diff-tree --cc --no-commit-id HEAD -- f >>expect &&
	echo >>expect &&
	rrid=$(ls ws/rr-cache) &&
	sed -i -e "s/^TAB/\t/" -e "s/FIXES3/$(git -C fixes rev-parse --short=12 HEAD)/" \
		-e "s/GPIO3/$(git -C gpio rev-parse --short=12 HEAD)/" \
		-e "s/rerere id RRID/rerere id $(echo $rrid | cut -c1-12)/" \
		-e "s/resolution RRID/resolution $rrid/" expect &&
	tide -C ws -f trees.conf report 2026-12-03 --mail --dry-run | sed "/^Date: /d" >actual &&
	test_cmp expect actual
'

# Day 4: both trees add a 12000-line file "big", each its own way, and a
# resolution recorded by git rewrites every line: the combined diff (3
# lines per line, over 256 KiB) is cut at a line end and says so.
test_expect_success 'a combined diff over 256 KiB is cut, saying how much was left out' '
	seq 1 12000 | sed "s/$/ fixes/" >fixes/big && git -C fixes add big &&
	git -C fixes commit -q -m "fixes: add big" -m "$sob" &&
	seq 1 12000 | sed "s/$/ gpio/" >gpio/big && git -C gpio add big &&
	git -C gpio commit -q -m "gpio: add big" -m "$sob" &&
	git -C plain pull -q --no-rebase --no-edit ../fixes master &&
	git -C plain fetch -q ../gpio master &&
	test_expect_code 1 git -C plain merge -q --no-edit FETCH_HEAD >/dev/null 2>&1 &&
	seq 1 12000 | sed "s/$/ both/" >plain/big &&
	git -C plain add big && git -C plain commit -q --no-edit &&
	cp -r plain/.git/rr-cache/* ws/rr-cache/ &&
	run_day 2026-12-04 &&
	git -C ws/repo.git show next-20261204:big >big4 && test_cmp plain/big big4 &&
	tide -C ws -f trees.conf report 2026-12-04 --mail --dry-run >mail &&
	git -C plain diff-tree --cc --no-commit-id HEAD -- big >full &&
	test $(wc -c <full) -gt 262144 &&
	sed -n "/^diff --cc big$/,/ more bytes of the combined diff left out)$/p" mail >cut &&
	n=$(tail -n 1 cut | sed -n "s/^(\([0-9]*\) more bytes of the combined diff left out)$/\1/p") &&
	test -n "$n" &&
	head -n -1 cut >kept &&
	test $(($(wc -c <kept) + n)) = $(wc -c <full) &&
	head -c $(wc -c <kept) full | cmp - kept
'

test_done
