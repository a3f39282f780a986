#!/bin/sh
# The man pages render: no groff warnings, and no words run together.
. "$(dirname "$0")/lib.sh"

for page in "$TOP"/man/*.[15]; do
	name=$(basename "$page")
	test_expect_success "$name renders without warnings" '
		MANWIDTH=80 man --warnings -l "$page" >out 2>err &&
		test ! -s err &&
		test -s out
	'
done

test_expect_success 'tide-resolve.1: the trailer sentence ends before the next one' '
	MANWIDTH=80 man -l "$TOP/man/tide-resolve.1" 2>/dev/null | tr -s " \n" "  " >text &&
	grep -q "Tide-Tree: TREE\. A fixup that does not apply" text &&
	! grep -q "TREE\.A" text
'

test_done
