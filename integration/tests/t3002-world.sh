#!/bin/sh
# integration/world DAY [DIR]: layout, idempotence, rebased days, errors.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
I=$TOP/integration
W=$TRASH/w

tips() {
	for t in fixes cpumask gpio bitmap; do
		git --git-dir="$1/trees/$t.git" rev-parse refs/heads/for-next
	done
}

test_expect_success 'day 1 lays out mainline, the git trees, the quilt tree and trees.conf' '
	"$I/world" 1 "$W" &&
	git --git-dir="$W/mainline.git" rev-parse --verify v6.1.192^{commit} &&
	for t in fixes cpumask gpio bitmap; do
		git --git-dir="$W/trees/$t.git" rev-parse --verify for-next || exit 1
		n=$(git --git-dir="$W/trees/$t.git" rev-list --count v6.1.192..for-next) &&
		test "$n" = "$(grep -vc "^#" "$I/days/1/$t")" || exit 1
	done &&
	test -f "$W/quilt/mmotm/series" &&
	for p in $(cat "$W/quilt/mmotm/series"); do test -f "$W/quilt/mmotm/$p" || exit 1; done &&
	grep -q "^#tide	base	mainline.git#v6.1.192$" "$W/trees.conf" &&
	grep -q "^#tide	gpio	contact=Gale Pinner <gale@gpio.example.org>$" "$W/trees.conf" &&
	grep -E "^[a-z]+		(git|quilt)	" "$W/trees.conf" | cut -f1 | tr "\n" " " >order &&
	test "$(cat order)" = "fixes cpumask gpio bitmap mmotm "
'

test_expect_success 'trees.conf declares the build matrix: smoke first, arm64, up, legacy, defconfig' '
	"$TIDE_BIN" -f "$W/trees.conf" trees >trees &&
	grep "^config " trees | tr -s " " | cut -d" " -f2-4 >configs &&
	printf "%s\n" "smoke x86_64 tinyconfig" "arm64 arm64 tinyconfig" \
		"up x86_64 tinyconfig" "legacy x86_64 tinyconfig" \
		"defconfig x86_64 defconfig" >expect &&
	test_cmp expect configs &&
	grep -q "^config up .* smp 1 W=1 C=1$" trees &&
	grep -q "^config legacy .*/smoke.config,.*/legacy.config  *boot pc$" trees
'

test_expect_success 'the top-level trees.conf declares the same configurations' '
	grep "^#tide	config	" "$TOP/trees.conf" | cut -f3 >top &&
	grep "^#tide	config	" "$W/trees.conf" | cut -f3 >world &&
	test_cmp world top &&
	grep "^#tide	config	legacy	" "$TOP/trees.conf" | cut -f4- >top &&
	grep "^#tide	config	legacy	" "$W/trees.conf" | cut -f4- |
		sed "s|=$TOP/|=|g" >world &&
	test_cmp world top
'

test_expect_success 'trees share the mainline objects (nothing copied)' '
	for t in fixes cpumask gpio bitmap; do
		grep -q "mainline.git/objects" "$W/trees/$t.git/objects/info/alternates" || exit 1
		kb=$(du -sk "$W/trees/$t.git" | cut -f1) &&
		test "$kb" -lt 20000 || { echo "$t: $kb KiB"; exit 1; }
	done
'

test_expect_success 'commits carry the mail authorship (git am semantics)' '
	git --git-dir="$W/trees/gpio.git" log --format="%an <%ae>|%s" v6.1.192..for-next >log &&
	cat log &&
	grep -q "^Gale Pinner <gale@gpio.example.org>|gpiolib: make the legacy GPIO number interface optional$" log &&
	! grep "\[PATCH\]" log &&
	git --git-dir="$W/trees/gpio.git" log -1 --format=%B for-next | grep -q "^Signed-off-by: Gale Pinner" &&
	git --git-dir="$W/trees/gpio.git" log -1 --format=%ad --date=short for-next | grep -q 2026-11-22 &&
	git --git-dir="$W/trees/gpio.git" log -1 --format=%cd --date=short for-next | grep -q 2026-12-01
'

test_expect_success 'a second run is idempotent and quick' '
	tips "$W" >before &&
	start=$(date +%s) &&
	"$I/world" 1 "$W" &&
	end=$(date +%s) &&
	tips "$W" >after &&
	cmp before after &&
	echo "$((end - start)) s" &&
	test $((end - start)) -le 60
'

test_expect_success 'day 2 rebases the trees: new OIDs, same patch ids where unchanged' '
	tips "$W" >day1 &&
	"$I/world" 2 "$W" &&
	tips "$W" >day2 &&
	! grep -F -x -f day1 day2 &&
	git --git-dir="$W/trees/gpio.git" log --format=%s v6.1.192..for-next >subj2 &&
	test "$(wc -l <subj2)" = 23 &&
	test "$(cat "$W/day")" = 2 &&
	test "$(wc -l <"$W/quilt/mmotm/series")" = 3
'

test_expect_success 'day 3 puts the bisect target in the middle of gpio' '
	"$I/world" 3 "$W" &&
	git --git-dir="$W/trees/gpio.git" log --reverse --format=%s v6.1.192..for-next >subj3 &&
	cat subj3 &&
	test "$(sed -n 2p subj3)" = "gpiolib: cdev: use line_event_id() for all edge events" &&
	test "$(wc -l <subj3)" = 24
'

test_expect_success 'a day that does not exist is a clear error, exit 3' '
	test_must_fail --status=3 "$I/world" 99 "$W" 2>err &&
	cat err &&
	grep -q "no day .99." err &&
	test "$(cat "$W/day")" = 3
'

test_expect_success 'usage errors exit 2' '
	test_must_fail --status=2 "$I/world" 2>err &&
	test_must_fail --status=2 "$I/world" one "$W" 2>err
'

test_expect_success 'a patch that does not apply names the series, the patch and the file' '
	mkdir -p src && cp -r "$I/days" "$I/series" src/ &&
	p=src/series/gpio/$(grep -m1 "make-the-legacy" src/days/1/gpio) &&
	sed -i "s/^ \(obj-.*gpiolib-devres.o\)$/ \1 broken/" "$p" &&
	test_must_fail --status=3 env TIDE_WORLD_SRC="$TRASH/src" "$I/world" 1 "$TRASH/w2" 2>err &&
	cat err &&
	test "$(wc -l <err)" = 1 &&
	grep -q "series gpio" err &&
	grep -q "$(basename "$p")" err &&
	grep -q "drivers/gpio/Makefile" err
'

test_expect_success 'day 4 moves the base: a v6.1.193-rc1 tag on v6.1.192, named in trees.conf, under every tree' '
	"$I/world" 4 "$W" &&
	grep -q "^#tide	base	mainline.git#v6.1.193-rc1$" "$W/trees.conf" &&
	git --git-dir="$W/mainline.git" merge-base --is-ancestor v6.1.192 v6.1.193-rc1 &&
	test "$(git --git-dir="$W/mainline.git" rev-list --count v6.1.192..v6.1.193-rc1)" = \
	     "$(grep -vc "^#" "$I/days/4/base")" &&
	git --git-dir="$W/mainline.git" log -1 --format="%cn|%s" v6.1.193-rc1 >tip &&
	test "$(cat tip)" = "Lin Mainwright|Linux 6.1.193-rc1" &&
	for t in cpumask gpio bitmap; do
		git --git-dir="$W/trees/$t.git" merge-base --is-ancestor v6.1.193-rc1 for-next || exit 1
		n=$(git --git-dir="$W/trees/$t.git" rev-list --count v6.1.193-rc1..for-next) &&
		test "$n" = "$(grep -vc "^#" "$I/days/4/$t")" || exit 1
	done &&
	test "$(git --git-dir="$W/trees/fixes.git" rev-parse for-next)" = \
	     "$(git --git-dir="$W/mainline.git" rev-parse v6.1.193-rc1^{commit})"
'

test_expect_success 'the base is the same commit on every run and day that lists it; day 1 is back on v6.1.192' '
	git --git-dir="$W/mainline.git" rev-parse v6.1.193-rc1^{commit} >b4 &&
	"$I/world" 5 "$W" &&
	git --git-dir="$W/mainline.git" rev-parse v6.1.193-rc1^{commit} >b5 &&
	cmp b4 b5 &&
	"$I/world" 1 "$W" &&
	grep -q "^#tide	base	mainline.git#v6.1.192$" "$W/trees.conf" &&
	test "$(git --git-dir="$W/trees/fixes.git" rev-list --count v6.1.192..for-next)" = 1
'

test_expect_success 'a mainline patch that does not apply names series mainline and the patch, exit 3' '
	rm -rf src && mkdir -p src && cp -r "$I/days" "$I/series" src/ &&
	p=src/series/mainline/linux-6.1.193-rc1.patch &&
	sed -i "s/^-SUBLEVEL = 192$/-SUBLEVEL = 191/" "$p" &&
	test_must_fail --status=3 env TIDE_WORLD_SRC="$TRASH/src" "$I/world" 4 "$TRASH/w3" 2>err &&
	cat err &&
	grep -q "series mainline: patch linux-6.1.193-rc1.patch does not apply to Makefile" err
'

test_done
