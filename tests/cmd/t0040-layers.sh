#!/bin/sh
# The layer check of make check (tests/check-layers): src/ as it is
# passes; a planted tree with an include up a layer, one across stages,
# a folder missing from the table and an include of no header fails,
# each named FILE:LINE, and the result file counts it.
. "$(dirname "$0")/lib.sh"

test_expect_success 'src/ has no include against the layer table' '
	(cd "$TOP" && tests/check-layers src "$TRASH/layers.result") >out &&
	echo "ok - layers: no include points up a layer or across stages" >expect &&
	test_cmp expect out &&
	echo "1 0" >expect &&
	test_cmp expect layers.result
'

test_expect_success 'setup: a planted tree of three layers' '
	mkdir -p planted/util planted/record planted/fetch planted/merge planted/checks &&
	printf "#include \"util.h\"\n" >planted/util/util.c &&
	: >planted/util/util.h &&
	: >planted/record/day.h &&
	: >planted/fetch/fetch.h &&
	: >planted/merge/merge_day.h &&
	: >planted/checks/checks.h &&
	printf "#include \"util.h\"\n#include \"fetch.h\"\n" >planted/merge/merge_day.c &&
	(cd "$TOP" && tests/check-layers "$TRASH/planted" "$TRASH/planted.result") >out &&
	echo "1 0" >expect &&
	test_cmp expect planted.result
'

test_expect_success 'an include up a layer fails, named FILE:LINE' '
	printf "#include <stdio.h>\n\n#include \"day.h\"\n" >planted/util/text.c &&
	test_must_fail --status=1 "$TOP/tests/check-layers" planted planted.result >out &&
	cat >expect <<-\EOF &&
	planted/util/text.c:3: #include "day.h" points up a layer (util -> record)
	not ok - layers: 1 problem(s) against the layer table
	EOF
	test_cmp expect out &&
	echo "0 1" >expect &&
	test_cmp expect planted.result &&
	rm planted/util/text.c
'

test_expect_success 'an include across stages of one layer fails' '
	printf "#include \"day.h\"\n#include \"checks.h\"\n" >planted/merge/rerere.c &&
	test_must_fail --status=1 "$TOP/tests/check-layers" planted >out &&
	cat >expect <<-\EOF &&
	planted/merge/rerere.c:2: #include "checks.h" points across stages (merge -> checks)
	not ok - layers: 1 problem(s) against the layer table
	EOF
	test_cmp expect out &&
	rm planted/merge/rerere.c
'

test_expect_success 'a folder not in the table, a file outside the folders and an include of no header fail' '
	mkdir planted/extra &&
	printf "#include \"nowhere.h\"\n" >planted/extra/x.c &&
	: >planted/stray.c &&
	test_must_fail --status=1 "$TOP/tests/check-layers" planted >out &&
	cat >expect <<-\EOF &&
	planted/extra/: folder not in the layer table of tests/check-layers
	planted/stray.c: not in a folder of the layer table
	planted/extra/x.c:1: #include "nowhere.h" names no header of planted/
	not ok - layers: 3 problem(s) against the layer table
	EOF
	test_cmp expect out
'

test_expect_success 'make check runs the layer check and counts its result' '
	MAKEFLAGS= make -n -C "$TOP" check >plan &&
	grep -q "^tests/check-layers src " plan &&
	MAKEFLAGS= make -s --no-print-directory -C "$TOP" check-expected T= >expected &&
	grep -qx layers expected
'

test_done
