#!/bin/sh
# Every command's usage (-h) and its man page agree: the usage lines,
# generated from the command's option table (cmd/opt.h), are the man
# page's SYNOPSIS exactly (like git's t0450), each option the help names
# is documented in man/tide-<cmd>.1, and each command has a page.
. "$(dirname "$0")/lib.sh"

commands=$(tide --help | sed -n 's/^  \([a-z-]*\) .*/\1/p')

# The usage lines of -h (up to the first empty line), one line per form.
usage_forms() {
	awk '/^$/ { exit }
	     /^(usage|   or): / { if (f != "") print f; f = substr($0, 8); next }
	     { sub(/^ +/, ""); f = f " " $0 }
	     END { if (f != "") print f }'
}

test_expect_success 'tide --help lists commands' '
	test -n "$commands"
'

for c in $commands; do
	test_expect_success "tide $c: -h exits 0 and names the command" '
		tide '"$c"' -h >out 2>&1 &&
		grep -q "tide '"$c"'" out
	'
	test_expect_success "tide $c: the usage is the man page SYNOPSIS" '
		python3 "$TOP/tests/cmd/man-synopsis.py" "$TOP/man/tide-'"$c"'.1" >expect &&
		tide '"$c"' -h >help &&
		usage_forms <help >actual &&
		test -s actual &&
		test_cmp expect actual
	'
	test_expect_success "tide $c: a bad option is a usage error naming it" '
		test_must_fail --status=2 tide '"$c"' --no-such-option 2>err &&
		grep -q "^tide: unrecognized option .--no-such-option.$" err &&
		grep -v "^tide: " err | usage_forms >actual &&
		tide '"$c"' -h >help &&
		usage_forms <help >expect &&
		test_cmp expect actual
	'
	test_expect_success "tide $c: a man page documents every option of -h" '
		page="$TOP/man/tide-'"$c"'.1" &&
		test -f "$page" &&
		sed "s/\\\\//g; s/\\\\f[BIRP]//g" "$page" >page.txt &&
		tide '"$c"' -h >help 2>&1 &&
		grep -o -- "--[a-z][a-z-]*" help | sort -u >opts &&
		while read opt; do
			grep -q -- "$opt" page.txt || { echo "$opt missing from tide-'"$c"'.1"; exit 1; }
		done <opts
	'
	test_expect_success "tide.1 mentions tide $c" '
		sed "s/\\\\//g" "$TOP/man/tide.1" | grep -q -- "'"$c"'"
	'
done

test_expect_success 'run and build: -j is --jobs, and documented as such' '
	test_must_fail --status=2 tide -C nowhere run -j 0 2>err &&
	grep -q "^tide: bad --jobs .0. (1 to 64)$" err &&
	test ! -e nowhere &&
	test_must_fail --status=2 tide -C nowhere build -jx 2>err &&
	grep -q "^tide: --jobs wants a positive number, not .x.$" err &&
	for c in run build; do
		grep -qF -- "\\fB\\-j\\fR \\fIN\\fR, \\fB\\-\\-jobs\\fR" "$TOP/man/tide-$c.1" ||
		{ echo "tide-$c.1 does not document -j"; exit 1; }
	done
'

test_expect_success 'the synopsis check can fail: a changed page differs' '
	sed "s/^\\.B tide trees$/.B tide trees \\\\-\\\\-all/" "$TOP/man/tide-trees.1" >changed.1 &&
	grep -q "tide trees .-.-all" changed.1 &&
	python3 "$TOP/tests/cmd/man-synopsis.py" changed.1 >expect &&
	tide trees -h >help &&
	usage_forms <help >actual &&
	! test_cmp expect actual
'

test_done
