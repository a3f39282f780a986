#!/bin/sh
# Every command's usage (-h) and its man page agree: each option the usage
# names is documented in man/tide-<cmd>.1, and each command has a page.
. "$(dirname "$0")/lib.sh"

commands=$(tide --help | sed -n 's/^  \([a-z-]*\) .*/\1/p')

test_expect_success 'tide --help lists commands' '
	test -n "$commands"
'

for c in $commands; do
	test_expect_success "tide $c: -h exits 0 and names the command" '
		tide '"$c"' -h >out 2>&1 &&
		grep -q "tide '"$c"'" out
	'
	test_expect_success "tide $c: a man page documents every option of -h" '
		page="$TOP/man/tide-'"$c"'.1" &&
		test -f "$page" &&
		sed "s/\\\\//g; s/\\\\f[BIRP]//g" "$page" >page.txt &&
		tide '"$c"' -h 2>&1 | grep -o -- "--[a-z][a-z-]*" | sort -u >opts &&
		while read opt; do
			grep -q -- "$opt" page.txt || { echo "$opt missing from tide-'"$c"'.1"; exit 1; }
		done <opts
	'
	test_expect_success "tide.1 mentions tide $c" '
		sed "s/\\\\//g" "$TOP/man/tide.1" | grep -q -- "'"$c"'"
	'
done

test_done
