#!/bin/sh
# tide try: a developer's series against a day.  Where it applies (base,
# day, its base-commit), which trees it collides with, the build on top
# of the day; and the workspace is the same afterwards.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt
command -v test_cmp >/dev/null || test_cmp() { diff -u "$@"; }
# Fixed dates: the same patches make the same commits, so JSON compares whole.
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

# The workspace as try must leave it: every file but DIR/try, and the refs.
ws_state() {
	(cd ws && find . -mindepth 1 -path ./try -prune -o -printf '%p %s %T@\n' | sort) &&
	git --git-dir=ws/repo.git for-each-ref
}

# JSON with object ids and the scratch path made stable.
normalize() {
	sed -e 's/[0-9a-f]\{40\}/SHA/g' -e "s|$TRASH|TRASH|g"
}

# A report with every object id (12 or 40 digits) as OID.
oids() {
	sed "s/[0-9a-f]\{12,40\}/OID/g" "$1"
}

test_expect_success 'setup: mainline, gpio and cpumask trees, a day with a fake kernel build' '
	mkdir -p kt &&
	printf "CONFIG_GPIO=y\n" > kt/smoke.config &&
	fake_kernel_source world/mainline "cd \$(O) && \$(CC) -Wall -c \$(CURDIR)/\$< -o \$(notdir \$@)" &&
	seq 1 10 > world/mainline/a &&
	printf "int m(void) { return 0; }\n" > world/mainline/m.c &&
	printf "int g(void) { return 0; }\n" > world/mainline/g.c &&
	commit_fake_mainline &&
	git clone -q world/mainline world/gpio &&
	git -C world/gpio checkout -q -b for-next &&
	sed -i "s/^2\$/2 gpio/" world/gpio/a &&
	printf "int g(int x) { return x; }\n" > world/gpio/g.c &&
	git -C world/gpio commit -qam "gpio: g takes an argument" &&
	make_tree cpumask c.c "int c(void) { return 0; }" &&
	conf "gpio git gpio#for-next" "cpumask git cpumask#for-next" &&
	tide -C ws -f world/trees.conf run --no-boot --date 2026-01-01 >out 2>err &&
	test "$(day_field 2026-01-01 "d[\"build\"][\"status\"]")" = ok &&
	git clone -q world/mainline dev &&
	ws_state >state.before
'

test_expect_success 'a series that applies everywhere and collides with nothing: exit 0' '
	git -C dev checkout -q -b clean v1.0 &&
	sed -i "s/^9\$/9 dev/" dev/a && git -C dev commit -qam "dev: change line 9" &&
	git -C dev format-patch -q -o "$TRASH/clean" v1.0 &&
	tide -C ws try clean >out &&
	oids out >actual &&
	cat >expect <<-\EOF &&
	tide try: 1 patch from '\''clean'\'' on next-20260101

	tested on:
	  day:         2026-01-01 next-20260101 OID
	  base:        v1.0 OID
	  commit:      OID (the series on the day)

	apply:
	  base (v1.0)                  ok
	  day (next-20260101)          ok

	trees (the series merged from v1.0):
	  gpio                 ok
	  cpumask              ok

	result: ok
	EOF
	test_cmp expect actual
'

test_expect_success 'a series that conflicts with gpio names the tree, the path and the hunk' '
	git -C dev checkout -q -b conflicting v1.0 &&
	sed -i "s/^2\$/2 dev/" dev/a && git -C dev commit -qam "dev: change line 2" &&
	git -C dev format-patch -q -o "$TRASH/conflict" v1.0 &&
	test_must_fail --status=1 tide -C ws try conflict >out &&
	oids out >actual &&
	cat >expect <<-\EOF &&
	tide try: 1 patch from '\''conflict'\'' on next-20260101

	tested on:
	  day:         2026-01-01 next-20260101 OID
	  base:        v1.0 OID

	apply:
	  base (v1.0)                  ok
	  day (next-20260101)          failed: patch 1/1 "dev: change line 2": does not apply to '\''a'\'': hunk #1 (@@ -1,5 +1,5 @@): line 2: expected '\''2'\'', found '\''2 gpio'\''
	      @@ -1,5 +1,5 @@
	       1
	      -2
	      +2 dev
	       3
	       4
	       5

	trees (the series merged from v1.0):
	  gpio                 conflict: a (content)
	      a:
	        <<<<<<< next
	        2 gpio
	        =======
	        2 dev
	        >>>>>>> series
	        gpio commit OID gpio: g takes an argument
	  cpumask              ok

	result: problems: apply conflict
	EOF
	test_cmp expect actual
'

test_expect_success '--json of the conflicting series, whole' '
	test_must_fail --status=1 tide -C ws try conflict --json >out.json &&
	normalize <out.json >actual &&
	cat >expect <<-\EOF &&
	{
	  "version": 1,
	  "series": {
	    "source": "conflict",
	    "base_commit": null,
	    "cover": null,
	    "version": 1,
	    "patches": [
	      {
	        "name": "conflict #1",
	        "subject": "dev: change line 2",
	        "author": "Tide Test <test@tide.invalid>"
	      }
	    ]
	  },
	  "day": {
	    "date": "2026-01-01",
	    "tag": "next-20260101",
	    "commit": "SHA",
	    "base": "v1.0",
	    "base_commit": "SHA"
	  },
	  "apply": [
	    {
	      "onto": "base",
	      "label": "v1.0",
	      "status": "ok",
	      "commit": "SHA",
	      "tip": "SHA"
	    },
	    {
	      "onto": "day",
	      "label": "next-20260101",
	      "status": "failed",
	      "commit": "SHA",
	      "patch": 1,
	      "subject": "dev: change line 2",
	      "file": "a",
	      "hunk": "@@ -1,5 +1,5 @@\n 1\n-2\n+2 dev\n 3\n 4\n 5\n",
	      "error": "does not apply to @Q@a@Q@: hunk #1 (@@ -1,5 +1,5 @@): line 2: expected @Q@2@Q@, found @Q@2 gpio@Q@"
	    }
	  ],
	  "merged_from": "v1.0",
	  "trees": [
	    {
	      "name": "gpio",
	      "status": "conflict",
	      "day_status": "merged",
	      "conflicts": [
	        {
	          "path": "a",
	          "kind": "content",
	          "hunks": [
	            "<<<<<<< next\n2 gpio\n=======\n2 dev\n>>>>>>> series\n"
	          ],
	          "commits": [
	            "f3c6c4e3b4d1 gpio: g takes an argument"
	          ]
	        }
	      ]
	    },
	    {
	      "name": "cpumask",
	      "status": "ok",
	      "day_status": "merged",
	      "conflicts": []
	    }
	  ],
	  "commit": null,
	  "problems": [
	    "apply",
	    "conflict"
	  ],
	  "result": "problems"
	}
	EOF
	id=$(git -C world/gpio rev-parse --short=12 for-next) &&
	sed -i -e "s/f3c6c4e3b4d1/$id/" -e "s/@Q@/$(printf "\047")/g" expect &&
	test_cmp expect actual
'

test_expect_success 'a series made on the day: not on the base, needs gpio' '
	git -C dev checkout -q -b onnext v1.0 &&
	git -C dev pull -q --no-rebase "$TRASH/world/gpio" for-next &&
	sed -i "s/^2 gpio\$/2 gpio dev/" dev/a && git -C dev commit -qam "dev: on top of gpio" &&
	git -C dev format-patch -q -o "$TRASH/onnext" -1 &&
	tide -C ws try onnext >out &&
	oids out >actual &&
	cat >expect <<-\EOF &&
	tide try: 1 patch from '\''onnext'\'' on next-20260101

	tested on:
	  day:         2026-01-01 next-20260101 OID
	  base:        v1.0 OID
	  commit:      OID (the series on the day)

	apply:
	  base (v1.0)                  failed: patch 1/1 "dev: on top of gpio": does not apply to '\''a'\'': hunk #1 (@@ -1,5 +1,5 @@): line 2: expected '\''2 gpio'\'', found '\''2'\''
	      @@ -1,5 +1,5 @@
	       1
	      -2 gpio
	      +2 gpio dev
	       3
	       4
	       5
	  day (next-20260101)          ok
	  after gpio                   ok

	trees (the series merged from after gpio):
	  gpio                 needed (the series applies from this tree on)
	  cpumask              ok

	result: ok
	EOF
	test_cmp expect actual
'

test_expect_success 'an mbox with a cover letter and base-commit' '
	git -C dev checkout -q -b two v1.0 &&
	sed -i "s/^8\$/8 one/" dev/a && git -C dev commit -qam "dev: one" &&
	sed -i "s/^9\$/9 two/" dev/a && git -C dev commit -qam "dev: two" &&
	git -C dev format-patch -q --cover-letter --base=v1.0 --stdout v1.0 >two.mbox &&
	tide -C ws try two.mbox --json >out.json &&
	python3 -c "import json,sys; d=json.load(open(\"out.json\")); s=d[\"series\"]; \
		assert [p[\"subject\"] for p in s[\"patches\"]] == [\"dev: one\", \"dev: two\"], s; \
		assert s[\"cover\"] == \"*** SUBJECT HERE ***\" and s[\"base_commit\"] == sys.argv[1], s; \
		assert [a[\"onto\"] for a in d[\"apply\"]] == [\"base\", \"day\", \"base-commit\"]; \
		assert d[\"result\"] == \"ok\"" "$(git -C dev rev-parse v1.0)"
'

test_expect_success 'a directory with a series file, in its order' '
	mkdir q && git -C dev format-patch -q -o "$TRASH/q" v1.0..two &&
	(cd q && ls 0*.patch | sort -r >series) &&
	test_must_fail --status=1 tide -C ws try q >out &&
	grep -q "^  base (v1.0)  *failed: patch 1/2 \"dev: two\"" out
'

test_expect_success 'a git range, in another repository and in the workspace one' '
	tide -C ws try --repo dev v1.0..two >out &&
	oids out >actual &&
	cat >expect <<-\EOF &&
	tide try: 2 patches from '\''v1.0..two'\'' on next-20260101

	tested on:
	  day:         2026-01-01 next-20260101 OID
	  base:        v1.0 OID
	  commit:      OID (the series on the day)

	apply:
	  base (v1.0)                  ok
	  day (next-20260101)          ok

	trees (the series merged from v1.0):
	  gpio                 ok
	  cpumask              ok

	result: ok
	EOF
	test_cmp expect actual &&
	test_must_fail --status=1 tide -C ws try --repo dev v1.0..conflicting >out &&
	grep -q "^  gpio  *conflict: a (content)$" out &&
	rc=0 &&
	tide -C ws try refs/remotes/cpumask/for-next~1..refs/remotes/cpumask/for-next >out2 || rc=$? &&
	test $rc -le 1 && grep -q "^tide try: 1 patch from " out2 &&
	grep -q "^  base (v1.0)  *ok$" out2
'

test_expect_success 'bad input: exit 3 with a message naming the culprit' '
	printf "From: x\nSubject: hi\n\njust text\n" >bad.mbox &&
	test_must_fail --status=3 tide -C ws try bad.mbox 2>err &&
	test_cmp_str "tide: series '\''bad.mbox'\'': bad.mbox: no patch: every mail is a reply or has no diff" err &&
	mkdir missing && cp clean/*.patch missing/ &&
	printf "0001-dev-change-line-9.patch\nnope.patch\n" >missing/series &&
	test_must_fail --status=3 tide -C ws try missing 2>err &&
	test_cmp_str "tide: patch '\''nope.patch'\'' of series '\''missing'\'' does not exist" err &&
	printf "Subject: [PATCH] x\n\n---\ndiff --git a/../x b/../x\n--- a/../x\n+++ b/../x\n@@ -1 +1 @@\n-a\n+b\n" >evil.patch &&
	test_must_fail --status=3 tide -C ws try evil.patch 2>err &&
	test_cmp_str "tide: patch '\''evil.patch'\'' touches '\''../x'\'', outside the tree" err &&
	sed "s|a/\.\./x|a/.git/config|g; s|b/\.\./x|b/.git/config|g" evil.patch >git.patch &&
	test_must_fail --status=3 tide -C ws try git.patch 2>err &&
	test_cmp_str "tide: patch '\''git.patch'\'' touches '\''.git/config'\'', outside the tree" err &&
	test_must_fail --status=3 tide -C ws try --day 2025-01-01 clean 2>err &&
	test_cmp_str "tide: no day 2025-01-01 in workspace '\''$TRASH/ws'\''" err &&
	test_must_fail --status=3 tide -C ws try --day 2025-13-01 clean 2>err &&
	test_cmp_str "tide: '\''2025-13-01'\'' is not a day (YYYY-MM-DD)" err &&
	test_must_fail --status=3 tide -C ws try nothere 2>err &&
	test_cmp_str "tide: '\''nothere'\'' is not a file, a directory or a revision range A..B" err &&
	test_must_fail --status=3 tide -C ws try v0.0..v1.0 2>err &&
	test_cmp_str "tide: unknown revision range '\''v0.0..v1.0'\'': revspec '\''v0.0'\'' not found" err &&
	test_must_fail --status=2 tide -C ws try 2>err &&
	head -n 1 err >actual &&
	test_cmp_str "tide: missing SERIES" actual &&
	test_must_fail --status=2 tide -C ws try clean --jobs 0 2>err &&
	head -n 1 err >actual &&
	test_cmp_str "tide: --jobs wants a positive number, not '\''0'\''" actual
'

test_expect_success 'bad input in posted series: each names the file, the message and the line' '
	p=clean/0001-dev-change-line-9.patch &&
	sed "s/^Subject: \[PATCH\]/Subject: [PATCH 1\/2]/" $p >one.patch &&
	{ cat one.patch && echo && cat one.patch; } >dup.mbox &&
	test_must_fail --status=3 tide -C ws try dup.mbox 2>err &&
	echo "tide: series '\''dup.mbox'\'': dup.mbox: duplicate patch 1/2 (v1): dup.mbox: message 1 (line 1), '\''[PATCH 1/2] dev: change line 9'\'' and dup.mbox: message 2 (line 25), '\''[PATCH 1/2] dev: change line 9'\''" >expect &&
	test_cmp expect err &&
	head -c 3000 /dev/urandom | tr "\n" x >garbage.mbox &&
	test_must_fail --status=3 tide -C ws try garbage.mbox 2>err &&
	test_cmp_str "tide: series '\''garbage.mbox'\'': garbage.mbox: not an mbox: line 1 is neither a '\''From '\'' line nor a mail header" err &&
	sed "/^Subject/a Content-Type: text/plain; charset=x-klingon" $p >cs.patch &&
	test_must_fail --status=3 tide -C ws try cs.patch 2>err &&
	test_cmp_str "tide: series '\''cs.patch'\'': cs.patch: message 1 (line 1), '\''[PATCH] dev: change line 9'\'': unknown charset '\''x-klingon'\'' in the body" err &&
	sed "s/^Subject: .*/Subject: =?x-klingon?B?aGVsbG8=?=/" $p >cs2.patch &&
	test_must_fail --status=3 tide -C ws try cs2.patch 2>err &&
	test_cmp_str "tide: series '\''cs2.patch'\'': cs2.patch: message 1 (line 1), '\''=?x-klingon?B?aGVsbG8=?='\'': unknown charset '\''x-klingon'\'' in the Subject" err
'

test_expect_success 'a 1 GB series file is refused unread; a 70 MB mail by the mail limit' '
	sed -n "1,/^---$/p" clean/0001-dev-change-line-9.patch >huge.mbox &&
	truncate -s 1G huge.mbox &&
	test_must_fail --status=3 /usr/bin/time -f "%M" -o rss "$TIDE_BIN" -C ws try huge.mbox 2>err &&
	test_cmp_str "tide: series '\''huge.mbox'\'': '\''huge.mbox'\'' is 1024 MB, over the 256 MB limit of a series file" err &&
	test "$(tail -1 rss)" -lt 200000 &&
	{ sed -n "1,/^---$/p" clean/0001-dev-change-line-9.patch &&
	  printf "Content-Type: application/octet-stream\n\n" &&
	  head -c 70000000 /dev/zero | tr "\0" A; } >big.patch &&
	test_must_fail --status=3 tide -C ws try big.patch 2>err &&
	test_cmp_str "tide: series '\''big.patch'\'': big.patch: message 1 (line 1), '\''[PATCH] dev: change line 9'\'': 70000225 bytes, over the 64 MB limit of a mail" err
'

test_expect_success 'an absolute path in a patch is stripped into the tree (-p1), never outside' '
	sed "s|a/a|/etc/passwd|; s|b/a|/etc/passwd|" clean/0001-dev-change-line-9.patch >abs.patch &&
	test_must_fail --status=1 tide -C ws try abs.patch >out &&
	oids out >actual &&
	cat >expect <<-\EOF &&
	tide try: 1 patch from '\''abs.patch'\'' on next-20260101

	tested on:
	  day:         2026-01-01 next-20260101 OID
	  base:        v1.0 OID

	apply:
	  base (v1.0)                  failed: patch 1/1 "dev: change line 9": does not apply to '\''etc/passwd'\'': no such file
	  day (next-20260101)          failed: patch 1/1 "dev: change line 9": does not apply to '\''etc/passwd'\'': no such file
	  after gpio                   failed: patch 1/1 "dev: change line 9": does not apply to '\''etc/passwd'\'': no such file
	  after cpumask                failed: patch 1/1 "dev: change line 9": does not apply to '\''etc/passwd'\'': no such file

	trees (the series merged from nowhere: it applies nowhere):
	  gpio                 untested
	  cpumask              untested

	result: problems: apply
	EOF
	test_cmp expect actual
'

test_expect_success '--build: a clean series builds, only its file recompiles' '
	git -C dev checkout -q -b buildok v1.0 &&
	printf "int m(void) { return 1; }\n" >dev/m.c && git -C dev commit -qam "dev: m returns 1" &&
	git -C dev format-patch -q -o "$TRASH/buildok" v1.0 &&
	tide -C ws try --build buildok >out &&
	grep -q "^build: ok (.*1 files checked out, seeded from the day.s build), 0 new errors, 0 new warnings$" out &&
	grep -q "^result: ok$" out &&
	test -f ws/try/out/m.o && test -f ws/try/seed &&
	grep -c "^# tide: make" ws/try/build.log >/dev/null &&
	! grep -q "g\.c" ws/try/build.log
'

test_expect_success '--build: warnings and errors the day does not have, with file:line' '
	git -C dev checkout -q -b warn v1.0 &&
	printf "int m(void) { int unused; return 0; }\n" >dev/m.c && git -C dev commit -qam "dev: warn" &&
	git -C dev format-patch -q -o "$TRASH/warn" v1.0 &&
	test_must_fail --status=1 tide -C ws try --build warn >out &&
	grep -q "^  warning: m.c:1:[0-9]*: unused variable .unused." out &&
	grep -q "^result: problems: warnings$" out &&
	git -C dev checkout -q -b oldapi v1.0 &&
	printf "int x;\nint m(void) { return nope; }\n" >dev/m.c && git -C dev commit -qam "dev: use nope" &&
	git -C dev format-patch -q -o "$TRASH/oldapi" v1.0 &&
	test_must_fail --status=1 tide -C ws try --build --json oldapi >out.json &&
	python3 -c "import json; d=json.load(open(\"out.json\")); b=d[\"build\"]; \
		assert b[\"status\"] == \"failed\" and d[\"problems\"][0] == \"build\", d[\"problems\"]; \
		assert b[\"new_errors\"][0][\"file\"] == \"m.c\" and b[\"new_errors\"][0][\"line\"] == 2, b[\"new_errors\"]"
'

test_expect_success '--build on a series that does not apply to the day is skipped' '
	test_must_fail --status=1 tide -C ws try --build conflict >out &&
	grep -q "^build: skipped: the series does not apply to the day$" out
'

test_expect_success '--build with configurations declared: the first by default, --config NAME, each in its O=' '
	printf "CONFIG_FIRST=y\n" >world/first.config &&
	printf "CONFIG_SECOND=y\n" >world/second.config &&
	{ cat world/trees.conf &&
	  printf "%s\n" \
		"#tide	config	first	base=tinyconfig	fragment=first.config" \
		"#tide	config	second	base=tinyconfig	fragment=second.config"; } >world/configs.conf &&
	tide -C ws3 -f world/configs.conf run --no-boot --date 2026-01-01 >out 2>err &&
	test -f ws3/build/out-first/m.o && test -f ws3/build/out-second/m.o &&
	tide -C ws3 -f world/configs.conf try --build buildok >out &&
	grep -q "^build: ok (.*seeded from the day.s build), 0 new errors, 0 new warnings$" out &&
	grep -qx "CONFIG_FIRST=y" ws3/try/out-first/.config &&
	test -f ws3/try/out-first/m.o && ! test -e ws3/try/out &&
	tide -C ws3 -f world/configs.conf try --build --config second buildok >out &&
	grep -q "^build: ok (.*seeded from the day.s build), 0 new errors, 0 new warnings$" out &&
	grep -qx "CONFIG_SECOND=y" ws3/try/out-second/.config &&
	test_must_fail --status=3 tide -C ws3 -f world/configs.conf try --build --config third buildok 2>err &&
	grep -q "no configuration .third. in .*(it declares: first, second)" err
'

test_expect_success 'objects behind alternates of alternates (shared clones of shared clones)' '
	git clone -q --bare --shared world/mainline world/shared.git &&
	git clone -q --bare --shared world/shared.git world/deep.git &&
	git -C world/deep.git branch -q for-next v1.0 &&
	printf "#tide\tbase\tshared.git#v1.0\nName\t\tType\tURL\n----\t\t----\t---\ndeep\t\tgit\tdeep.git#for-next\n" >world/deep.conf &&
	rc=0 && tide -C ws2 -f world/deep.conf run --no-build --date 2026-01-01 >out 2>err || rc=$? &&
	test $rc -le 1 &&
	tide -C ws2 try clean >out &&
	grep -q "^  base (v1.0)  *ok$" out &&
	grep -q "^result: ok$" out
'

test_expect_success 'the workspace is unchanged except DIR/try' '
	ws_state >state.after &&
	test_cmp state.before state.after
'

test_done
