#!/bin/sh
# tide bisect on days made by `tide run` itself (the producer of the
# day's history and day.json), one day alone and day against day.
. "$(dirname "$0")/lib.sh"

# series DIR N [BAD] [TAG]: N commits writing DIR/fI (TAG distinguishes
# later batches); commit BAD plants "BUG".
series() {
	i=1
	while [ $i -le $2 ]; do
		if [ "$i" = "${3:-0}" ]; then txt="BUG"; else txt="fine $i"; fi
		commit_file "$TRASH/$1" "$1/${4:-f}$i" "$txt" "$1: ${4:-change} $i" || return 1
		i=$((i + 1))
	done
}

test_expect_success 'setup: two days made by tide run, trees rebased in between' '
	git init -q -b master mainline &&
	commit_file mainline README "mainline" "mainline: base" &&
	git -C mainline tag v1 &&
	for t in fixes net gpio usb mm; do
		git clone -q mainline $t && series $t 4 || exit 1
	done &&
	printf "#tide\tbase\tmainline#v1\nTrees included into this release:\n\nName\t\tType\tURL\n----\t\t----\t---\n" >trees.conf &&
	for t in fixes net gpio usb mm; do printf "%s\t\tgit\t%s#master\n" $t $t >>trees.conf; done &&
	tide -C ws -f trees.conf run --date 2026-04-01 --no-build --no-boot &&
	commit_file mainline README "mainline rc2" "mainline: rc2" &&
	git -C mainline tag v2 &&
	sed -i "s/#v1/#v2/" trees.conf &&
	for t in fixes net gpio usb mm; do
		git -C $t pull -q --rebase origin master || exit 1
	done &&
	series gpio 5 3 new &&
	series usb 2 0 new &&
	tide -C ws -f trees.conf run --date 2026-04-02 --no-build --no-boot &&
	echo "! grep -rqs BUG ." >nobug.sh
'

test_expect_success 'a day made by tide run: stage 1 then stage 2' '
	culprit=$(git -C gpio rev-parse HEAD~2) &&
	tide -C ws bisect 2026-04-02 --cmd "sh $TRASH/nobug.sh" >out 2>err &&
	cat out &&
	grep "^tree: gpio$" out &&
	grep "^first bad commit: $culprit gpio: new 3$" out &&
	tide -C ws show 2026-04-02 >show &&
	grep "^bisect  .*: found gpio" show
'

test_expect_success 'the same day against the day before' '
	culprit=$(git -C gpio rev-parse HEAD~2) &&
	tide -C ws bisect 2026-04-02 --since 2026-04-01 --cmd "sh $TRASH/nobug.sh" >out 2>err &&
	cat out &&
	grep "^first bad commit: $culprit gpio: new 3$" out &&
	grep "gpio: 9 commits, 5 with a new patch id" err
'

test_expect_success 'the good day passes: nothing to bisect' '
	test_must_fail --status=6 tide -C ws bisect 2026-04-01 --cmd "sh $TRASH/nobug.sh" >out &&
	grep "nothing to bisect" out
'

test_done
