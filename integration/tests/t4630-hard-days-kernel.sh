#!/bin/sh
# The kernel world's hard days, end to end with tide (integration/days/
# README, days 6-8; the values come from integration/days/expect.json):
#
#   day 6: the merge window: v6.2-rc1 pulled cpumask and part of gpio
#          (real merges) and applied two patches trees still carry as
#          its own commits; no tree rebased; mm-next is based on
#          next-20261205 (day 5's linux-next) and its 2 commits are
#          applied at its place; tide's checks find the two patches
#          mainline already has by patch-id;
#   day 7: gpio rebased, bitmap lags on v6.1.193-rc1, mm-next carried a
#          second day (the same 2 commits and 1 more);
#   day 8: mmotm's v2 rewrites the lines mm-next's first commit edits:
#          mm-next is left out, the record and the report name that
#          commit and mmotm; gpio-sim adds a gpio_request() caller
#          without selecting GPIOLIB_LEGACY (with TIDE_CHECK_FULL: the
#          smoke build fails in gpio-sim.c, legacy builds and boots, and
#          tide bisect --build names gpio-sim's commit).
#
# Each day's merged tree is also compared with integration/merge-day's
# (the git CLI reference, which takes a next-based tree the same way).
# make check runs the merges (--no-build: about 4 minutes, most of it
# laying out the days); with TIDE_CHECK_FULL (make check-kernel-full)
# day 6's smoke kernel (v6.2-rc1 with every tree) is also built and
# booted, and day 8 is built in smoke and legacy and bisected.  The worlds and the workspace live under work/ (hard-world-N,
# hard-ws) with fixed paths, so a rerun is ccache-warm.  Times go to
# $TIDE_MEASURE/hard-days.txt.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-configs.sh"

I=$TOP/integration
EXPECT=$I/days/expect.json
WORK=$TOP/work
WORLD=$WORK/hard-world
WS=$WORK/hard-ws
MEASURE=${TIDE_MEASURE:-$TOP/build/measurements}
export TIDE_KERNEL_TESTS=$TOP/kernel-tests
exec 3>&1

need_kernel_world ccache qemu-system-x86_64
mkdir -p "$MEASURE"

# field DAY EXPR: a value from that day's record (config_field); tfield
# DAY EXPR too, with tree(NAME) a tree's record and lists one per line.
field() { config_field "$WS/days/2026-12-0$1/day.json" "$2"; }
tfield() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
def tree(n): return [t for t in d['trees'] if t['name'] == n][0]
r = $2
print('\n'.join(r) if isinstance(r, list) else r)" "$WS/days/2026-12-0$1/day.json"
}

# trees DAY STATUS: the trees of the day with that status, in order.
trees() { tfield "$1" "[t['name'] for t in d['trees'] if t['status'] == '$2']"; }

# run DAY CONFIGS [OPTION...]: tide run of the laid-out day with those
# configurations; exit 0 or 1 is a result (left in rc), more is a
# failure; the time is logged.
run() {
	day=$1 configs=$2 && shift 2 &&
	t0=$(date +%s) &&
	rc=0 && tide -C "$WS" -f "$WORLD-$day/trees.conf" run --date 2026-12-0$day --configs "$configs" "$@" >out 2>err || rc=$? &&
	cat out && echo $rc >rc &&
	echo "# day $day: tide run --configs $configs $* $(( $(date +%s) - t0 )) s, exit $rc" | tee -a "$MEASURE/hard-days.txt" >&3 &&
	test $rc -le 1
}

# outcome DAY: the trees merged, up to date and left out are expect.json's.
outcome() {
	trees $1 up-to-date >up && expect $1 "d['up_to_date']" >want && test_cmp want up &&
	{ trees $1 merged; trees $1 up-to-date; } | sort >merged &&
	expect $1 "d['merged']" | sort >want && test_cmp want merged &&
	expect $1 "[c['tree'] for c in d['conflicts']]" >want &&
	trees $1 conflict >left && test_cmp want left
}

# next_based DAY: mm-next's next_base record is expect.json's.
next_based() {
	for k in day commits applied; do
		test "$(tfield $1 "tree('mm-next')['next_base']['$k']")" = \
		     "$(expect $1 "d['next_based']['mm-next']['$k']")" || { echo "day $1: next_base.$k"; return 1; }
	done
}

# duplicates DAY: the checks' duplicates of mainline are expect.json's.
duplicates() {
	tfield $1 "[f['tree'] + ': ' + f['subject'] for f in d['checks']['findings'] if f['kind'] == 'duplicate' and f.get('other_tree') == 'mainline']" >dups &&
	expect $1 "[x['tree'] + ': ' + x['subject'] for x in d['in_mainline_by_patch_id']]" >want &&
	test_cmp want dups
}

# same_tree_as_git DAY: tide's last merge has merge-day's result tree.
same_tree_as_git() {
	rm -rf "$TRASH/m$1.git" &&
	"$I/merge-day" "$WORLD-$1" "$TRASH/m$1.git" >ref &&
	c=$(tfield $1 "d['commit']") &&
	test "$(git --git-dir="$WS/repo.git" rev-parse "$c^1^{tree}")" = \
	     "$(git --git-dir="$TRASH/m$1.git" rev-parse "refs/heads/result^{tree}")"
}

test_expect_success 'setup: days 6-8 laid out on v6.2-rc1' '
	t0=$(date +%s) &&
	for d in 6 7 8; do
		world_day $d "$WORLD-$d" &&
		grep -qx "#tide	base	mainline.git#v6.2-rc1" "$WORLD-$d/trees.conf" || exit 1
	done &&
	echo "# days 6-8 laid out: $(( $(date +%s) - t0 )) s" | tee -a "$MEASURE/hard-days.txt" >&3
'

test_expect_success 'day 6: the merge window: cpumask up to date, mm-next'"'"'s own commits applied' '
	rm -rf "$WS" &&
	if [ -n "${TIDE_CHECK_FULL:-}" ]; then run 6 smoke; else run 6 smoke --no-build; fi &&
	test "$(cat rc)" = 0 &&
	test "$(tfield 6 "d[\"base\"][\"tag\"]")" = v6.2-rc1 &&
	outcome 6 && next_based 6 &&
	grep -q "mm-next: based on next-20261205: 2 of its 2 commits applied" err &&
	: nothing of next-20261205 itself is in the day &&
	nc=$(git --git-dir="$WORLD-6/trees/mm-next.git" rev-parse next-20261205^{commit}) &&
	! git --git-dir="$WS/repo.git" merge-base --is-ancestor "$nc" "$(tfield 6 "d[\"commit\"]")" &&
	same_tree_as_git 6
'

test_expect_success 'day 6: the patches mainline applied as its own commits are found by patch-id' '
	duplicates 6
'

if [ -n "${TIDE_CHECK_FULL:-}" ]; then
test_expect_success 'day 6: the smoke kernel of v6.2-rc1 with every tree builds, boots, every test passes' '
	test "$(field 6 "b(\"smoke\")[\"status\"]")" = ok &&
	grep -q "^PATCHLEVEL = 2$" "$WS/build/src/Makefile" &&
	test "$(field 6 "o(\"smoke\")[\"status\"]")" = passed &&
	test "$(field 6 "o(\"smoke\")[\"counts\"][\"fail\"]")" = 0 &&
	echo "# day 6 smoke: build $(field 6 "round(b(\"smoke\")[\"seconds\"])") s (ccache $(field 6 "b(\"smoke\").get(\"ccache_stats\")")), boot $(field 6 "o(\"smoke\").get(\"seconds\")") s $(field 6 "o(\"smoke\").get(\"counts\")")" |
		tee -a "$MEASURE/hard-days.txt" >&3
'
else
	test_skip 'day 6: the smoke kernel of v6.2-rc1 with every tree builds, boots, every test passes' 'runs with make check-kernel-full'
fi

test_expect_success 'day 7: mm-next carried a second day, bitmap merged while lagging on v6.1.193-rc1' '
	run 7 smoke --no-build &&
	test "$(cat rc)" = 0 &&
	outcome 7 && next_based 7 && duplicates 7 &&
	grep -q "mm-next: based on next-20261205: 3 of its 3 commits applied" err &&
	git --git-dir="$WORLD-7/trees/bitmap.git" merge-base --is-ancestor v6.1.193-rc1 for-next &&
	! git --git-dir="$WORLD-7/trees/bitmap.git" merge-base --is-ancestor v6.2-rc1 for-next &&
	test "$(tfield 7 "tree(\"bitmap\")[\"sha\"]")" = "$(tfield 6 "tree(\"bitmap\")[\"sha\"]")" &&
	same_tree_as_git 7
'

test_expect_success 'day 8: mm-next left out at the commit that no longer applies, naming mmotm' '
	if [ -n "${TIDE_CHECK_FULL:-}" ]; then run 8 smoke,legacy; else run 8 smoke --no-build; fi &&
	test "$(cat rc)" = 1 &&
	outcome 8 &&
	s=$(expect 8 "d[\"next_based\"][\"mm-next\"][\"failed\"][\"subject\"]") &&
	test "$(tfield 8 "tree(\"mm-next\")[\"next_base\"][\"failed\"][\"subject\"]")" = "$s" &&
	test "$(tfield 8 "tree(\"mm-next\")[\"next_base\"][\"failed\"][\"position\"]")" = \
	     "$(expect 8 "d[\"next_based\"][\"mm-next\"][\"failed\"][\"position\"]")" &&
	tfield 8 "tree(\"mm-next\")[\"reason\"]" >reason &&
	grep -qF "its commit 1 of 3" reason && grep -qF "$s" reason && grep -qF "moved since: mmotm" reason &&
	tfield 8 "[c[\"path\"] for c in tree(\"mm-next\")[\"conflicts\"]]" >files &&
	expect 8 "d[\"conflicts\"][0][\"files\"]" >want && test_cmp want files &&
	tfield 8 "[c[\"tree\"] + \": \" + c[\"subject\"] for c in tree(\"mm-next\")[\"conflicts\"][0][\"ours_commits\"]]" >ours &&
	expect 8 "[\"mmotm: \" + s for s in d[\"conflicts\"][0][\"ours_subjects\"]]" >want && test_cmp want ours &&
	tide -C "$WS" report 2026-12-08 >report &&
	grep -q "^from the mmotm tree and commit:" report &&
	grep -q "^The mm-next tree is based on next-20261205" report &&
	same_tree_as_git 8
'

if [ -n "${TIDE_CHECK_FULL:-}" ]; then
test_expect_success 'day 8: the config-only break: smoke fails in gpio-sim.c, legacy builds' '
	test "$(field 8 "b(\"smoke\")[\"status\"]")" = "$(expect 8 "d[\"configs\"][\"smoke\"][\"build\"]")" &&
	test "$(field 8 "b(\"legacy\")[\"status\"]")" = "$(expect 8 "d[\"configs\"][\"legacy\"][\"build\"]")" &&
	field 8 "b(\"smoke\")[\"errors\"][0][\"file\"]" >file &&
	test "$(cat file)" = "$(expect 8 "d[\"configs\"][\"smoke\"][\"first_error_file\"]")" &&
	field 8 "b(\"smoke\")[\"errors\"][0][\"message\"]" >message && cat message &&
	grep -qF "$(expect 8 "d[\"configs\"][\"smoke\"][\"error\"]")" message &&
	grep -qF "$(expect 8 "d[\"configs\"][\"smoke\"][\"symbol\"]")" message &&
	echo "# day 8 legacy: build $(field 8 "round(b(\"legacy\")[\"seconds\"])") s, boot $(field 8 "o(\"legacy\").get(\"status\")") $(field 8 "o(\"legacy\").get(\"counts\")")" |
		tee -a "$MEASURE/hard-days.txt" >&3
'

test_expect_success 'day 8: tide bisect --build names gpio-sim'"'"'s commit, a semantic conflict with gpio' '
	tree=$(expect 8 "d[\"bisect\"][\"tree\"]") &&
	subject=$(expect 8 "d[\"bisect\"][\"subject\"]") &&
	object=$(expect 8 "d[\"configs\"][\"smoke\"][\"object\"]") &&
	t0=$(date +%s) &&
	tide -C "$WS" bisect 2026-12-08 --build --target "$object" >bisect.out 2>bisect.err &&
	cat bisect.out &&
	echo "# day 8 bisect --build --target $object: $(grep "^steps:" bisect.out), wall $(( $(date +%s) - t0 )) s" |
		tee -a "$MEASURE/hard-days.txt" >&3 &&
	grep -x "tree: $tree" bisect.out &&
	grep "^first bad commit: [0-9a-f]* $subject$" bisect.out &&
	grep "^semantic conflict with $(expect 8 "d[\"bisect\"][\"semantic_conflict_with\"]"):" bisect.out
'
else
	test_skip 'day 8: the config-only break: smoke fails in gpio-sim.c, legacy builds' 'runs with make check-kernel-full'
	test_skip 'day 8: tide bisect --build names gpio-sim'"'"'s commit, a semantic conflict with gpio' 'runs with make check-kernel-full'
fi

test_done
