#!/bin/sh
# The harness itself: planted test scripts (lib.sh, a failing middle
# command, a broken &&-chain, a missing tool, a missing prerequisite, a
# wrong exit status) and what they leave; tests/summarize counting a
# runner that left no result as failed.
. "$(dirname "$0")/lib.sh"

test_lazy_prereq SHFMT 'command -v shfmt && command -v python3'

test_expect_success 'setup: a tree for planted scripts' '
	mkdir -p planted/tests/cmd results &&
	ln -s "$TOP/tests/cmd/lib.sh" "$TOP/tests/cmd/chainlint.py" planted/tests/cmd/
'

# plant NAME <SCRIPT: a test script in a tree of its own that sources the
# real lib.sh (and chainlint.py).  Its bodies leave marks in $MARK.
plant() {
	{ printf "%s\n" ". \"\$(dirname \"\$0\")/lib.sh\"" && cat && echo test_done; } \
		>"$TRASH/planted/tests/cmd/$1.sh"
}

# run_planted NAME: its exit status in NAME.rc, output in NAME.out.
run_planted() {
	rp_rc=0
	mkdir -p "$TRASH/marks" &&
	MARK=$TRASH/marks TIDE_RESULTS=$TRASH/results sh "planted/tests/cmd/$1.sh" >"$1.out" 2>&1 || rp_rc=$?
	echo $rp_rc >"$1.rc"
}

plant t9901-middle <<'EOF'
test_expect_success 'a failing command on a line of its own' '
	true
	false
	touch "$MARK/middle-ran"
'
test_expect_success 'one that passes' 'true'
EOF

test_expect_success 'a failing middle command fails the test, and the rest does not run' '
	run_planted t9901-middle &&
	echo 1 >expect && test_cmp expect t9901-middle.rc &&
	grep "^not ok\|^ok" t9901-middle.out >actual &&
	cat >expect <<-\EOF &&
	not ok - t9901-middle: a failing command on a line of its own (exit 1)
	ok - t9901-middle: one that passes
	EOF
	test_cmp expect actual &&
	! ls marks/middle-ran &&
	echo "1 1 0" >expect &&
	test_cmp expect results/cmd-t9901-middle &&
	tail -n 1 t9901-middle.out >actual &&
	echo "t9901-middle: 1 passed, 1 failed, 0 skipped" >expect &&
	test_cmp expect actual
'

plant t9902-chain <<'EOF'
test_expect_success 'an &&-chain followed by another line' '
	false &&
	touch "$MARK/chain-ran"
	touch "$MARK/after-chain-ran"
'
test_expect_success 'a lone ! line' '
	! true
	touch "$MARK/after-bang-ran"
'
test_expect_success 'an &&-chain in a loop' '
	for i in 1 2; do
		test $i = 2 && touch "$MARK/loop-ran"
	done
'
test_expect_success 'unchained lines left of &&' '
	{ false; touch "$MARK/block-ran"; } &&
	true
'
test_expect_success 'a function defined in the body' '
	f() { false; touch "$MARK/function-ran"; } &&
	f
'
test_expect_success 'what passes the lint' '
	a=1
	{ false || true; } &&
	for i in 1 2; do
		test $i -gt 0 || exit 1
	done &&
	test $a = 1
'
EOF

test_expect_success SHFMT 'the chain lint rejects each broken chain before it runs' '
	run_planted t9902-chain &&
	echo 1 >expect && test_cmp expect t9902-chain.rc &&
	grep "^not ok\|^ok" t9902-chain.out >actual &&
	cat >expect <<-\EOF &&
	not ok - t9902-chain: an &&-chain followed by another line (broken &&-chain, not run)
	not ok - t9902-chain: a lone ! line (broken &&-chain, not run)
	not ok - t9902-chain: an &&-chain in a loop (broken &&-chain, not run)
	not ok - t9902-chain: unchained lines left of && (broken &&-chain, not run)
	not ok - t9902-chain: a function defined in the body (broken &&-chain, not run)
	ok - t9902-chain: what passes the lint
	EOF
	test_cmp expect actual &&
	grep -c "^#   broken &&-chain: line" t9902-chain.out >count &&
	echo 5 >expect && test_cmp expect count &&
	grep -A1 "^#   broken &&-chain: line 2: an &&-chain followed" t9902-chain.out >actual &&
	cat >expect <<-\EOF &&
	#   broken &&-chain: line 2: an &&-chain followed by another command: a failure before its last command is lost (join with &&, or in a loop end it with || exit 1)
	#       false &&
	EOF
	test_cmp expect actual &&
	! ls marks/*-ran
'

plant t9903-missing <<'EOF'
test_expect_success 'a missing tool in the middle' '
	no-such-tool-t0030 --version
	true
'
test_expect_success 'test_must_fail on a missing tool' '
	test_must_fail no-such-tool-t0030 --version
'
test_expect_success TOOL:no-such-tool-t0030 'a test that needs the missing tool' '
	no-such-tool-t0030 --version
'
test_lazy_prereq NEVER 'false'
test_expect_success NEVER,TOOL:sh 'a test that needs a prerequisite that does not hold' 'false'
test_expect_success TOOL:sh 'a test whose tool is there' 'sh -c true'
EOF

test_expect_success 'a missing tool fails the test; a missing prerequisite is a skip, counted' '
	run_planted t9903-missing &&
	echo 1 >expect && test_cmp expect t9903-missing.rc &&
	grep "^not ok\|^ok\|^skip" t9903-missing.out >actual &&
	cat >expect <<-\EOF &&
	not ok - t9903-missing: a missing tool in the middle (exit 127)
	not ok - t9903-missing: test_must_fail on a missing tool (exit 1)
	skip - t9903-missing: a test that needs the missing tool (missing TOOL:no-such-tool-t0030)
	skip - t9903-missing: a test that needs a prerequisite that does not hold (missing NEVER,TOOL:sh)
	ok - t9903-missing: a test whose tool is there
	EOF
	test_cmp expect actual &&
	grep -q "test_must_fail: .no-such-tool-t0030 --version. could not run (exit 127)" t9903-missing.out &&
	echo "1 2 2" >expect &&
	test_cmp expect results/cmd-t9903-missing &&
	tail -n 1 t9903-missing.out >actual &&
	echo "t9903-missing: 1 passed, 2 failed, 2 skipped" >expect &&
	test_cmp expect actual
'

plant t9904-code <<'EOF'
test_expect_success 'the status asked for' 'test_expect_code 3 sh -c "exit 3"'
test_expect_success 'success asked for' 'test_expect_code 0 true'
test_expect_success 'another status' 'test_expect_code 3 sh -c "exit 1"'
test_expect_success 'test_must_fail --status=N, another status' 'test_must_fail --status=2 sh -c "exit 1"'
test_expect_success 'test_must_fail on a command that succeeds' 'test_must_fail true'
test_expect_success 'test_cmp_str, the same text' 'echo "a b" >f && test_cmp_str "a b" f'
test_expect_success 'test_cmp_str, one line more' 'printf "a b\nc\n" >f && test_cmp_str "a b" f'
EOF

test_expect_success 'test_expect_code, test_must_fail and test_cmp_str' '
	run_planted t9904-code &&
	grep "^not ok\|^ok\|^#   test_" t9904-code.out >actual &&
	cat >expect <<-\EOF &&
	ok - t9904-code: the status asked for
	ok - t9904-code: success asked for
	not ok - t9904-code: another status (exit 1)
	#   test_expect_code: '\''sh -c exit 1'\'' exited 1, expected 3
	not ok - t9904-code: test_must_fail --status=N, another status (exit 1)
	#   test_must_fail: '\''sh -c exit 1'\'' exited 1, expected 2
	not ok - t9904-code: test_must_fail on a command that succeeds (exit 1)
	#   test_must_fail: '\''true'\'' succeeded
	ok - t9904-code: test_cmp_str, the same text
	not ok - t9904-code: test_cmp_str, one line more (exit 1)
	EOF
	test_cmp expect actual
'

plant t9905-skipall <<'EOF'
test_skip_all 'planted: the data set is missing'
test_expect_success 'never reached' 'false'
EOF

test_expect_success 'test_skip_all counts one skip and stops the file' '
	run_planted t9905-skipall &&
	echo 0 >expect && test_cmp expect t9905-skipall.rc &&
	cat >expect <<-\EOF &&
	skip - t9905-skipall: all tests (planted: the data set is missing)
	t9905-skipall: 0 passed, 0 failed, 1 skipped
	EOF
	test_cmp expect t9905-skipall.out &&
	echo "0 0 1" >expect && test_cmp expect results/cmd-t9905-skipall
'

test_expect_success 'summarize: every result file counted; a runner that left none is failed, by name' '
	mkdir -p sum &&
	echo "3 0" >sum/unit-test_a &&
	echo "4 0 1" >sum/cmd-t0001-x &&
	test_expect_code 0 "$TOP/tests/summarize" sum unit-test_a cmd-t0001-x >out &&
	cat >expect <<-\EOF &&
	  cmd-t0001-x: 4 passed, 0 failed, 1 skipped
	  unit-test_a: 3 passed, 0 failed, 0 skipped
	7 passed, 0 failed, 1 skipped
	EOF
	test_cmp expect out &&
	test_expect_code 1 "$TOP/tests/summarize" sum unit-test_a cmd-t0001-x fuzz-day kernel-t3000-import >out &&
	cat >expect <<-\EOF &&
	  cmd-t0001-x: 4 passed, 0 failed, 1 skipped
	  unit-test_a: 3 passed, 0 failed, 0 skipped
	  fuzz-day: no result (did not build, died or did not run): counted as 1 failed
	  kernel-t3000-import: no result (did not build, died or did not run): counted as 1 failed
	7 passed, 2 failed, 1 skipped
	EOF
	test_cmp expect out &&
	echo "Segmentation fault" >sum/unit-test_b &&
	test_expect_code 1 "$TOP/tests/summarize" sum >out &&
	grep -qx "  unit-test_b: not a result file (\"Segmentation fault\"): counted as 1 failed" out &&
	rm -r sum && mkdir sum &&
	test_expect_code 1 "$TOP/tests/summarize" sum >out &&
	printf "no test ran\n0 passed, 1 failed, 0 skipped\n" >expect &&
	test_cmp expect out
'

test_expect_success 'make check expects a result from each unit binary, cmd test, fuzz target and kernel test' '
	MAKEFLAGS= make -s --no-print-directory -C "$TOP" check-expected T= >expected &&
	for f in "$TOP"/tests/unit/test_*.c; do
		n=$(basename "$f" .c) && grep -qx "unit-$n" expected || exit 1
	done &&
	for f in "$TOP"/tests/cmd/t[0-9]*.sh; do
		n=$(basename "$f" .sh) && grep -qx "cmd-$n" expected || exit 1
	done &&
	for f in "$TOP"/integration/tests/t[0-9]*.sh; do
		n=$(basename "$f" .sh) && grep -qx "kernel-$n" expected || exit 1
	done &&
	for f in "$TOP"/tests/fuzz/fuzz_*.c; do
		n=$(basename "$f" .c) && grep -qx "fuzz-${n#fuzz_}" expected || exit 1
	done &&
	grep -qx cmd-test-numbers expected
'

test_done
