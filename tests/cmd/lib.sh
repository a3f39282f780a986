# Shared helpers for command tests (sourced by tests/cmd/t*.sh).
#
#   test_expect_success 'what it shows' '
#       tide -C ws run --date 2026-01-01 &&
#       test_must_fail tide -C ws run --bogus
#   '
#   test_done
#
# Each test body runs in a subshell inside a scratch directory $TRASH
# (removed when the script ends), with `set -e` in force: a command that
# fails on a line of its own fails the test.  A failure inside an
# &&-chain only ends the chain, so before a body runs, tests/cmd/chainlint
# checks that no &&-chain is followed by another command (where its
# failure would be lost); a body is either one &&-chain or plain lines,
# and a loop ends a chain with `|| exit 1`.
#
#   test_expect_success PREREQ 'what' '...'  runs only when every prerequisite
#       of the comma-separated list holds (test_set_prereq, test_lazy_prereq,
#       or TOOL:name for a command on PATH); otherwise it is counted skipped
#   test_expect_code N CMD...   CMD must exit with status N exactly
#   test_cmp EXPECT ACTUAL      whole outputs; test_cmp_str TEXT FILE for one line
#   test_must_fail [--status=N] CMD...   CMD must fail (not die, not be missing)
#   test_skip 'what' 'why'      a test (or group, said so) cannot run here: one skip
#   test_skip_all 'why'         the whole file is skipped (counted once), exits
#
# test_done records "passed failed skipped" in $TIDE_RESULTS/cmd-NAME (or
# kernel-NAME) and exits: nothing after it runs.

TOP=$(cd "$(dirname "$0")/../.." && pwd)
export TIDE_BIN=${TIDE_BIN:-$TOP/build/asan/tide}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export GIT_AUTHOR_NAME="Tide Test" GIT_AUTHOR_EMAIL="test@tide.invalid"
export GIT_COMMITTER_NAME="Tide Test" GIT_COMMITTER_EMAIL="test@tide.invalid"
export GIT_CONFIG_NOSYSTEM=1 HOME=${TMPDIR:-/tmp}
unset TIDE_DIR GIT_DIR GIT_WORK_TREE
test_name=$(basename "$0" .sh)
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/tide-$test_name.XXXXXX")
t_passed=0 t_failed=0 t_skipped=0
t_prereqs=" " t_noprereqs=" "

tide() { "$TIDE_BIN" "$@"; }

# Run a command that must fail (exit 1..125: not a signal or a sanitizer
# abort, and not 126/127, the shell's "cannot run" and "not found"); with
# --status=N the exit status must be exactly N.
test_must_fail() {
	want=
	case "$1" in --status=*) want=${1#--status=}; shift ;; esac
	rc=0
	"$@" || rc=$?
	if [ $rc = 0 ]; then
		echo "test_must_fail: '$*' succeeded" >&2; return 1
	elif [ $rc -gt 127 ]; then
		echo "test_must_fail: '$*' died with $rc" >&2; return 1
	elif [ -n "$want" ] && [ $rc != "$want" ]; then
		echo "test_must_fail: '$*' exited $rc, expected $want" >&2; return 1
	elif [ -z "$want" ] && [ $rc -ge 126 ]; then
		echo "test_must_fail: '$*' could not run (exit $rc)" >&2; return 1
	fi
	return 0
}

# Run a command whose exit status must be exactly $1 (0 included).
test_expect_code() {
	want=$1
	shift
	rc=0
	"$@" || rc=$?
	if [ $rc != "$want" ]; then
		echo "test_expect_code: '$*' exited $rc, expected $want" >&2; return 1
	fi
	return 0
}

# test_smtp_sink: an SMTP server on 127.0.0.1 (tests/servers/smtp-sink.py)
# writing each mail it takes to $TRASH/mail/; its port in $TRASH/mail.port,
# its PID in SINK_PID; stopped by PID when the test file exits.
test_smtp_sink() {
	python3 "$TOP/tests/servers/smtp-sink.py" --dir "$TRASH/mail" --port-file "$TRASH/mail.port" &
	SINK_PID=$!
	trap 'kill $SINK_PID 2>/dev/null; wait $SINK_PID 2>/dev/null' EXIT
	i=0
	while ! test -s "$TRASH/mail.port" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}

# Compare whole outputs: the expected file first, so a failure shows the difference.
test_cmp() { diff -u "$1" "$2"; }

# test_cmp_str TEXT FILE: FILE is TEXT and a newline, nothing else (a
# message that must be the whole of stderr).
test_cmp_str() {
	printf '%s\n' "$1" >"$TRASH/.expect" &&
	diff -u "$TRASH/.expect" "$2"
}

# Prerequisites: test_set_prereq NAME says NAME holds; test_lazy_prereq
# NAME 'script' decides the first time NAME is asked (script runs in a
# subshell in $TRASH; exit 0 means it holds); TOOL:cmd holds when cmd is
# on PATH.  test_have_prereq A,B,... holds when all of them do.
test_set_prereq() { t_prereqs="$t_prereqs$1 "; }
test_lazy_prereq() { eval "t_lazy_$1=\$2"; }
test_have_prereq() {
	for hp_p in $(echo "$1" | tr , ' '); do
		case "$t_prereqs" in *" $hp_p "*) continue ;; esac
		case "$t_noprereqs" in *" $hp_p "*) return 1 ;; esac
		case "$hp_p" in
		TOOL:*)
			hp_ok=0
			command -v "${hp_p#TOOL:}" >/dev/null 2>&1 || hp_ok=1 ;;
		*)
			eval "hp_script=\${t_lazy_$hp_p:-}"
			[ -n "$hp_script" ] || { t_noprereqs="$t_noprereqs$hp_p "; return 1; }
			hp_ok=0
			(cd "$TRASH" && eval "$hp_script") >/dev/null 2>&1 || hp_ok=1 ;;
		esac
		if [ $hp_ok = 0 ]; then
			t_prereqs="$t_prereqs$hp_p "
		else
			t_noprereqs="$t_noprereqs$hp_p "
			return 1
		fi
	done
	return 0
}

# The chain lint, once a file: a body it rejects fails without running.
t_lint=$TOP/tests/cmd/chainlint.py
test_lint_body_() {
	[ -z "${TIDE_NO_CHAINLINT:-}" ] || return 0
	# One simple command on one line has nothing to chain (t1010's cases).
	case $1 in
	*[\;\&\|\!\{\(\`]*|*"
"*) ;;
	*) return 0 ;;
	esac
	if [ -z "${t_lint_ok:-}" ]; then
		t_lint_ok=yes
		if ! command -v shfmt >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
			t_lint_ok=no
			t_skipped=$((t_skipped + 1))
			echo "skip - $test_name: chain lint (needs shfmt and python3: make deps)"
		fi
	fi
	[ "$t_lint_ok" = yes ] || return 0
	printf '%s' "$1" | python3 "$t_lint" >"$TRASH/.lint" 2>&1
}

test_expect_success() {
	prereq=
	[ $# = 3 ] && { prereq=$1; shift; }
	desc=$1 body=$2
	if [ -n "$prereq" ] && ! test_have_prereq "$prereq"; then
		t_skipped=$((t_skipped + 1))
		echo "skip - $test_name: $desc (missing $prereq)"
		return 0
	fi
	if ! test_lint_body_ "$body"; then
		t_failed=$((t_failed + 1))
		echo "not ok - $test_name: $desc (broken &&-chain, not run)"
		sed 's/^/#   /' "$TRASH/.lint"
		return 0
	fi
	# Not the condition of an if, nor part of an && or || list: there the
	# shell would switch set -e off inside the body.
	case $- in *e*) t_e=yes; set +e ;; *) t_e= ;; esac
	(
		cd "$TRASH" || exit 1
		set -e
		eval "$body"
	) > "$TRASH/.out" 2>&1
	t_rc=$?
	[ -z "$t_e" ] || set -e
	if [ $t_rc = 0 ]; then
		t_passed=$((t_passed + 1))
		echo "ok - $test_name: $desc"
	else
		t_failed=$((t_failed + 1))
		echo "not ok - $test_name: $desc (exit $t_rc)"
		sed 's/^/#   /' "$TRASH/.out" | tail -n 40
	fi
}

# Make a commit in repository $1 that writes file $2 with content $3.
commit_file() {
	mkdir -p "$1/$(dirname "$2")" &&
	printf '%s\n' "$3" > "$1/$2" &&
	git -C "$1" add -- "$2" &&
	git -C "$1" commit -q -m "${4:-change $2}"
}

test_done() {
	results=${TIDE_RESULTS:-$TOP/build/results}
	mkdir -p "$results"
	# The kernel tests (integration/tests) share numbers with command tests.
	case "$0" in
	*integration/tests/*) kind=kernel ;;
	*) kind=cmd ;;
	esac
	echo "$t_passed $t_failed $t_skipped" > "$results/$kind-$test_name"
	echo "$test_name: $t_passed passed, $t_failed failed, $t_skipped skipped"
	rm -rf "$TRASH"
	[ $t_failed = 0 ] && exit 0
	exit 1
}

# A test (or a group of them, said so in DESC) that cannot run here:
# test_skip DESC WHY counts one skip and says why.
test_skip() {
	t_skipped=$((t_skipped + 1))
	echo "skip - $test_name: $1 ($2)"
}

# Skip the whole file (a tool or a data set it needs is missing): one skip
# in the counts, the reason on the output; exits.
test_skip_all() {
	echo "skip - $test_name: all tests ($1)"
	t_skipped=$((t_skipped + 1))
	test_done
}
