#!/bin/sh
. "$(dirname "$0")/lib.sh"

test_expect_success 'no command prints usage and exits 2' '
	test_must_fail --status=2 tide 2>err &&
	grep -q "usage: tide" err
'

test_expect_success 'unknown command exits 2 and names it' '
	test_must_fail --status=2 tide frobnicate 2>err &&
	grep -q "frobnicate" err
'

test_expect_success '--help lists every command' '
	tide --help >out &&
	for c in trees run log show merge-tree build boot report resolve bisect; do
		grep -q "^  $c " out || { echo "missing $c"; exit 1; }
	done
'

test_lazy_prereq DEVFULL 'test -w /dev/full'
test_expect_success DEVFULL 'a write error on stdout is an error (exit 4), said on stderr' '
	test_must_fail --status=4 tide --help >/dev/full 2>err &&
	test_cmp_str "tide: cannot write to standard output: No space left on device" err
'

test_done
