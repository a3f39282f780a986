#!/bin/sh
# Quilt series as untrusted input (issue 39, items 6 and 10): a count
# limit and a time budget, a cache written without an fsync per patch,
# a patch writing through a symbolic link an earlier one made refused as
# git apply refuses it, a FIFO named by a local series refused unread,
# and Debian's DEP-3 headers running into the diff read as patch(1)
# reads them.  Each time the quilt tree alone is left out: the git tree
# is merged and the day tagged.
. "$(dirname "$0")/lib.sh"

run_day() {
	rc=0
	timeout 300 "$TIDE_BIN" -C ws -f trees.conf run --date "$1" --no-build --no-boot \
		>out 2>err || rc=$?
}

field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t=[t for t in d['trees'] if t['name']==sys.argv[2]][0]; print($3)" "ws/days/$1/day.json" "$2"
}

tagged() {
	git --git-dir=ws/repo.git rev-parse -q --verify "refs/tags/$1" >/dev/null
}

# series N: mm/series and mm/pK.patch for K in 1..N, each adding file nK.
series() {
	python3 - "$1" <<-\EOF
	import sys
	n = int(sys.argv[1])
	with open("mm/series", "w") as s:
	    for k in range(1, n + 1):
	        s.write("p%d.patch\n" % k)
	        with open("mm/p%d.patch" % k, "w") as f:
	            f.write("From: M <m@ex.org>\nSubject: add n%d\n\n---\n"
	                    "--- /dev/null\n+++ b/n/n%d\n@@ -0,0 +1 @@\n+%d\n" % (k, k, k))
	EOF
}

test_expect_success 'setup: mainline, a git tree and a quilt tree' '
	git init -q -b master main && echo a >main/a &&
	git -C main add a && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main net && echo n >net/net.c && git -C net add net.c &&
	git -C net commit -qm "net: add net.c" &&
	mkdir mm && series 3 &&
	printf "#tide\tbase\tmain#v1\nnet\tgit\tnet#master\nmm\tquilt\tmm\n" >trees.conf &&
	run_day 2026-12-01 && test $rc = 0 &&
	test "$(field 2026-12-01 mm "t[\"status\"]")" = merged
'

test_expect_success 'a series of 100,000 patches is refused by its count, at once' '
	python3 -c "
with open(\"mm/series\", \"w\") as s:
    for k in range(100000): s.write(\"p%d.patch\n\" % k)" &&
	start=$(date +%s) &&
	run_day 2026-12-02 && test $rc = 1 &&
	test $(($(date +%s) - start)) -lt 60 &&
	tagged next-20261202 &&
	test "$(field 2026-12-02 net "t[\"status\"]")" = merged &&
	test "$(field 2026-12-02 mm "t[\"fetch\"][\"status\"]")" = stale &&
	field 2026-12-02 mm "t[\"fetch\"][\"error\"]" >msg &&
	grep -q "series of 100000 patches, more than max-patches 10000$" msg
'

test_expect_success 'a long series within max-patches: one sync, not two fsyncs per patch' '
	rm -f mm/*.patch && series 1000 &&
	printf "#tide\tmm\tmax-patches=1000\n" >>trees.conf &&
	rc=0 &&
	ASAN_OPTIONS=detect_leaks=0 strace -f -qq -c -o trace -e trace=fsync,fdatasync,syncfs \
		"$TIDE_BIN" -C ws -f trees.conf run --date 2026-12-03 --no-build --no-boot \
		>out 2>err || rc=$? &&
	test $rc = 0 && tagged next-20261203 &&
	test "$(field 2026-12-03 mm "t[\"status\"]")" = merged &&
	git --git-dir=ws/repo.git show next-20261203:n/n1000 >n && echo 1000 >want && test_cmp want n &&
	calls=$(awk "\$NF ~ /^(fsync|fdatasync)\$/ { n += \$4 } END { print n + 0 }" trace) &&
	echo "fsync calls: $calls" &&
	test "$calls" -lt 200 &&
	grep -q " syncfs$" trace
'

test_expect_success 'series-timeout: a series that takes longer is left out, the day ships' '
	rm -f mm/*.patch && series 4000 &&
	sed -i "/max-patches=/d" trees.conf && cp trees.conf good.conf &&
	printf "#tide\tmm\tmax-patches=4000\tseries-timeout=1\n" >>trees.conf &&
	run_day 2026-12-04 && test $rc = 1 &&
	tagged next-20261204 &&
	test "$(field 2026-12-04 net "t[\"status\"]")" = merged &&
	field 2026-12-04 mm "t[\"fetch\"][\"error\"]" >msg &&
	grep -q "series-timeout of 1 s reached \(fetching\|applying\) patch [0-9]* of 4000" msg &&
	cp good.conf trees.conf
'

test_expect_success 'bad max-patches and series-timeout values are refused at the door' '
	cp trees.conf good.conf &&
	printf "#tide\tmm\tmax-patches=0\n" >>trees.conf &&
	test_must_fail --status=3 tide -C ws -f trees.conf trees 2>err &&
	grep -q "bad max-patches .0. (1 to 1000000)" err &&
	cp good.conf trees.conf && printf "#tide\tmm\tseries-timeout=soon\n" >>trees.conf &&
	test_must_fail --status=3 tide -C ws -f trees.conf trees 2>err &&
	grep -q "bad series-timeout .soon." err &&
	cp good.conf trees.conf
'

test_expect_success 'a patch writing through a link an earlier patch made is refused' '
	rm -f mm/*.patch &&
	cat >mm/link.patch <<-\EOF &&
	From: L <l@ex.org>
	Subject: add a link

	---
	diff --git a/lnk b/lnk
	new file mode 120000
	--- /dev/null
	+++ b/lnk
	@@ -0,0 +1 @@
	+d
	\ No newline at end of file
	EOF
	cat >mm/through.patch <<-\EOF &&
	From: L <l@ex.org>
	Subject: write through it

	---
	diff --git a/lnk/f b/lnk/f
	new file mode 100644
	--- /dev/null
	+++ b/lnk/f
	@@ -0,0 +1 @@
	+x
	EOF
	printf "link.patch\nthrough.patch\n" >mm/series &&
	run_day 2026-12-05 && test $rc = 1 && tagged next-20261205 &&
	test "$(field 2026-12-05 net "t[\"status\"]")" = merged &&
	field 2026-12-05 mm "t[\"fetch\"][\"error\"]" >msg &&
	grep -q "patch .through.patch.: affected file .lnk/f. is beyond a symbolic link$" msg &&
	git init -q ga && git -C ga commit -q --allow-empty -m e &&
	git -C ga apply --index ../mm/link.patch &&
	test_must_fail git -C ga apply --index ../mm/through.patch 2>gaerr &&
	grep -q "beyond a symbolic link" gaerr
'

test_expect_success 'a local series naming a FIFO is refused unread' '
	rm -f mm/*.patch && series 2 && rm mm/p2.patch && mkfifo mm/p2.patch &&
	run_day 2026-12-06 && test $rc = 1 && tagged next-20261206 &&
	field 2026-12-06 mm "t[\"fetch\"][\"error\"]" >msg &&
	grep -q "cannot read .p2.patch. from .*: refusing .*p2.patch.: not a regular file" msg &&
	rm mm/p2.patch
'

test_expect_success 'DEP-3 headers running into the diff apply as patch(1) applies them' '
	cat >mm/trust-machine-keyring-by-default.patch <<-\EOF &&
	Author: Luca Boccassi <bluca@debian.org>
	Description: integrity: trust the machine keyring by default
	 The machine keyring is only trusted when the firmware says so.
	 Trust it by default.
	--- a/a
	+++ b/a
	@@ -1 +1,2 @@
	 a
	+trusted
	EOF
	cat >mm/dep3-author.patch <<-\EOF &&
	From: Ben Hutchings <benh@debian.org>
	Date: Thu, 5 Jan 2023 13:40:32 +0000
	Subject: add b
	Forwarded: not-needed
	Origin: vendor
	Bug-Debian: https://bugs.debian.org/1
	Last-Update: 2023-01-05
	Index: linux/b
	===================================================================
	--- /dev/null
	+++ linux/b
	@@ -0,0 +1 @@
	+b
	EOF
	printf "trust-machine-keyring-by-default.patch\ndep3-author.patch\n" >mm/series &&
	run_day 2026-12-07 && test $rc = 0 && tagged next-20261207 &&
	test "$(field 2026-12-07 mm "t[\"status\"]")" = merged &&
	git --git-dir=ws/repo.git log --format="%an|%s" -2 refs/quilt/mm >log &&
	printf "%s\n" "Ben Hutchings|add b" \
		"Luca Boccassi|integrity: trust the machine keyring by default" >want &&
	test_cmp want log &&
	git clone -q main ref &&
	(cd ref && patch -s -p1 --fuzz=0 <../mm/trust-machine-keyring-by-default.patch &&
	 patch -s -p1 --fuzz=0 <../mm/dep3-author.patch && git add -A && git write-tree) >want &&
	git --git-dir=ws/repo.git rev-parse "refs/quilt/mm^{tree}" >tree &&
	test_cmp want tree
'

test_expect_success 'links planted in the quilt cache are replaced, never written through' '
	rm -f mm/*.patch && mkdir -p mm/sub outside &&
	echo canary >outside/keep && cp outside/keep outside/keep.orig &&
	printf "From: M <m@ex.org>\nSubject: sub\n\n---\n--- /dev/null\n+++ b/s\n@@ -0,0 +1 @@\n+s\n" >mm/sub/p.patch &&
	printf "sub/p.patch\n" >mm/series &&
	rm -rf ws/quilt/mm/sub ws/quilt/mm/series &&
	ln -s "$TRASH/outside" ws/quilt/mm/sub &&
	ln -s "$TRASH/outside/keep" ws/quilt/mm/series &&
	run_day 2026-12-08 && test $rc = 0 && tagged next-20261208 &&
	test "$(field 2026-12-08 mm "t[\"status\"]")" = merged &&
	test_cmp outside/keep.orig outside/keep && test "$(ls outside)" = "keep
keep.orig" &&
	test -d ws/quilt/mm/sub && ! test -L ws/quilt/mm/sub && ! test -L ws/quilt/mm/series &&
	git --git-dir=ws/repo.git show next-20261208:s >s && echo s >want && test_cmp want s
'

test_done
