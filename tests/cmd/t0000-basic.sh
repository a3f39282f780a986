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

test_expect_success 'a write error on stdout is an error' '
	if [ -w /dev/full ]; then
		test_must_fail tide --help >/dev/full
	fi
'

test_done
