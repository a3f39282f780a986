# Shared helpers for command tests (sourced by tests/cmd/t*.sh).
#
#   test_expect_success 'what it shows' '
#       tide -C ws run --date 2026-01-01 &&
#       test_must_fail tide -C ws run --bogus
#   '
#   test_done
#
# Each test body runs in a subshell with `set -e` semantics via &&-chains,
# inside a scratch directory $TRASH that is removed when the script ends.

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
t_passed=0 t_failed=0

tide() { "$TIDE_BIN" "$@"; }

# Run a command that must fail (exit 1..127 but not a signal or a sanitizer
# abort); with --status=N the exit status must be exactly N.
test_must_fail() {
	want=
	case "$1" in --status=*) want=${1#--status=}; shift ;; esac
	"$@"
	rc=$?
	if [ $rc = 0 ]; then
		echo "test_must_fail: '$*' succeeded" >&2; return 1
	elif [ $rc -gt 127 ]; then
		echo "test_must_fail: '$*' died with $rc" >&2; return 1
	elif [ -n "$want" ] && [ $rc != "$want" ]; then
		echo "test_must_fail: '$*' exited $rc, expected $want" >&2; return 1
	fi
	return 0
}

# Compare whole outputs: the expected file first, so a failure shows the difference.
test_cmp() { diff -u "$1" "$2"; }

test_expect_success() {
	desc=$1 body=$2
	if (cd "$TRASH" && eval "set -e; $body") > "$TRASH/.out" 2>&1; then
		t_passed=$((t_passed + 1))
		echo "ok - $test_name: $desc"
	else
		t_failed=$((t_failed + 1))
		echo "not ok - $test_name: $desc"
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
	echo "$t_passed $t_failed" > "$results/$kind-$test_name"
	echo "$test_name: $t_passed passed, $t_failed failed"
	rm -rf "$TRASH"
	[ $t_failed = 0 ]
}
