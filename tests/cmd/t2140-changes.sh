#!/bin/sh
# tide log --changes: linux-next's "Changes since" section, per tree;
# the same section after tide run's summary; show marks resolved and
# fixed-up trees; merge.log has the fixups' "Applying:" lines.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

run_day() {
	tide -C ws run --no-build --date "$1" >"run-$1.out" 2>"run-$1.err" || test $? = 1
}

# add_commits TREE N: N commits on the tree's for-next
add_commits() {
	for i in $(seq "$2"); do
		commit_file "world/$1" "$1-$i" "$1 $i" || return 1
	done
}

test_expect_success 'setup: day 1 with six trees' '
	make_mainline &&
	make_tree fixes a "fixes" && make_tree gpio g "gpio" && make_tree net n "net" &&
	make_tree old o "old" && make_tree spi s "spi" && make_tree drm d/drm "drm" &&
	conf "fixes git fixes#for-next" "gpio git gpio#for-next" "net git net#for-next" \
		"old git old#for-next" "spi git spi#for-next" "drm git drm#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err
'

test_expect_success 'the first day has nothing to compare with' '
	tide -C ws log --changes >actual &&
	echo "2026-12-01 is the first day: nothing to compare with" >expect &&
	test_cmp expect actual
'

test_expect_success 'setup: day 2 moves, rewinds, adds, drops, fails and conflicts' '
	add_commits gpio 2 &&
	git -C world/net reset -q --hard HEAD~1 && add_commits net 2 &&
	make_tree usb u "usb" &&
	commit_file world/fixes b "fixes b" &&
	commit_file world/drm b "drm b" &&
	mkdir -p ws/fixups/usb && git clone -q world/mainline fx &&
	echo fixed >fx/u2 && git -C fx add u2 && git -C fx commit -q -m "usb: fix up the build" &&
	git -C fx format-patch -q -1 -o ../ws/fixups/usb &&
	conf "fixes git fixes#for-next" "gpio git gpio#for-next" "net git net#for-next" \
		"spi git spi-moved#for-next" "drm git drm#for-next" "usb git usb#for-next" &&
	run_day 2026-12-02
'

test_expect_success 'log --changes lists each change in linux-next form' '
	{
	printf "Changes since 20261201:\n\n"
	printf "The fixes tree moved forward by 1 commit.\n\n"
	printf "The gpio tree moved forward by 2 commits.\n\n"
	printf "The net tree was rewound (1 commit dropped, 2 new).\n\n"
	printf "Fetching the spi tree failed (%s), so I used its commit %s of an earlier day.\n\n" \
		"$(day_field 2026-12-02 "d[\"trees\"][3][\"fetch\"][\"error\"]")" \
		"$(git -C world/spi rev-parse --short=12 for-next)"
	printf "The drm tree moved forward by 1 commit.\n\n"
	printf "The drm tree gained a conflict against the fixes tree, so I used the version from next-20261201.\n\n"
	printf "The usb tree is new.\n\n"
	printf "I applied a fixup after merging the usb tree: 0001-usb-fix-up-the-build.patch.\n\n"
	printf "The old tree was dropped from the tree list.\n"
	} >expect &&
	tide -C ws log --changes >actual &&
	test_cmp expect actual &&
	tide -C ws log --changes 2026-12-02 >actual2 && test_cmp expect actual2 &&
	tide -C ws log --changes next-20261202 >actual3 && test_cmp expect actual3
'

test_expect_success 'the run summary ends with the same section' '
	sed -n "/^Changes since/,\$p" run-2026-12-02.out >actual &&
	test_cmp expect actual
'

test_expect_success 'merge.log has the fixup as an Applying: line after the merge' '
	sed -n "/^Merging usb/,\$p" ws/days/2026-12-02/merge.log >usb.log &&
	grep -q "^Applying: usb: fix up the build$" usb.log &&
	test "$(grep -n "^Applying:" usb.log | cut -d: -f1)" -gt "$(grep -n "^Merge made" usb.log | cut -d: -f1)"
'

test_expect_success 'setup: day 3 with a recorded resolution' '
	tide -C ws resolve drm --date 2026-12-02 >out &&
	echo "drm and fixes b" >ws/resolve/drm/b &&
	tide -C ws resolve --record drm >out &&
	sed -i "s/spi-moved/spi/" world/trees.conf &&
	run_day 2026-12-03
'

test_expect_success 'log --changes names the reused resolution' '
	{
	printf "Changes since 20261202:\n\n"
	printf "The drm tree%s conflict was resolved by a recorded resolution.\n\n" "'"'"'s"
	printf "I applied a fixup after merging the usb tree: 0001-usb-fix-up-the-build.patch.\n"
	} >expect &&
	tide -C ws log --changes >actual &&
	test_cmp expect actual
'

test_expect_success 'show marks the resolved and the fixed-up tree' '
	tide -C ws show >out &&
	grep -q "^  drm  *merged  *[0-9a-f]\{12\}  resolved (recorded resolution)$" out &&
	grep -q "^  usb  *merged  *[0-9a-f]\{12\}  fixed up: 0001-usb-fix-up-the-build.patch$" out
'

test_expect_success 'a conflict that goes away is "lost"' '
	git -C world/drm revert --no-edit HEAD >/dev/null &&
	run_day 2026-12-04 &&
	tide -C ws log --changes >out &&
	grep -q "^The drm tree lost its conflict\.$" out &&
	grep -q "^The drm tree moved forward by 1 commit\.$" out
'

test_expect_success 'show keeps its columns for names longer than 20' '
	make_tree a-very-long-tree-name-for-layout z "long" &&
	cat world/trees.conf >c && printf "a-very-long-tree-name-for-layout\tgit\ta-very-long-tree-name-for-layout#for-next\n" >>c &&
	mv c world/trees.conf &&
	run_day 2026-12-05 &&
	tide -C ws show >show &&
	grep "^  [a-z]" show >rows &&
	awk "{ print index(\$0, \$2) }" rows | sort -u >cols &&
	test $(wc -l <cols) = 1 &&
	grep -q "^  a-very-long-tree-name-for-layout merged " rows
'

test_expect_success 'log --changes with a bad day is a usage error' '
	test_must_fail --status=2 tide -C ws log --changes 2026-02-30 2>err &&
	grep -q "bad date" err &&
	test_must_fail --status=3 tide -C ws log --changes 2025-01-01 2>err &&
	grep -q "no day 2025-01-01" err
'

test_done
