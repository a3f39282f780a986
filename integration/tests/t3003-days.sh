#!/bin/sh
# Days 1-8 are what integration/days/expect.json says, as far as the git
# CLI can tell without tide: bases, merges, conflicts, identical hunks,
# targets.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
I=$TOP/integration
E=$I/days/expect.json

# expect PYTHON-EXPRESSION: evaluate on the parsed expect.json ("e").
expect() { python3 -c "import json,sys; e=json.load(open('$E')); r=$1; print(' '.join(r) if isinstance(r, list) else r)"; }

for d in $(ls "$I/days" | grep -E "^[0-9]+$" | sort -n); do
	test_expect_success "day $d: merges and conflicts as expect.json says" "
		'$I/world' $d '$TRASH/w$d' >/dev/null &&
		'$I/merge-day' '$TRASH/w$d' '$TRASH/m$d.git' >out &&
		cat out &&
		test \"\$(grep ' merged\$' out | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ \$//')\" = \"\$(expect \"e['days']['$d']['merged']\")\" &&
		grep ' conflict ' out | sed 's/ conflict / /' >got &&
		expect \"[c['tree'] + ' ' + ' '.join(c['files']) for c in e['days']['$d']['conflicts']]\" | sed 's/ \\([a-z]*\\) /\\n\\1 /g' >want &&
		if [ -s got ]; then cmp got want; else test -z \"\$(cat want)\"; fi
	"
	test_expect_success "day $d: patch counts as expect.json says" "
		for t in \$(expect \"list(e['days']['$d']['patches'])\"); do
			test \"\$(grep -vc '^[#@]' '$I/days/$d/'\$t)\" = \"\$(expect \"e['days']['$d']['patches']['\$t']\")\" || exit 1
		done
	"
done

# The conflicted file of merging tree $2 onto the day's state before it.
conflict_file() {
	m=$TRASH/m$1.git
	state=$(git --git-dir="$m" rev-parse refs/heads/result) &&
	git --git-dir="$m" merge-tree --write-tree "$state" "refs/remotes/$2/for-next" >mt || true
	tree=$(head -n 1 mt) &&
	git --git-dir="$m" cat-file -p "$tree:$3" | sed 's/^\([<>]\{7\}\) .*/\1/'
}

test_expect_success 'days 2 and 3 give the same conflict hunks (a resolution is reusable)' '
	conflict_file 2 bitmap drivers/gpio/Makefile >c2 &&
	conflict_file 3 bitmap drivers/gpio/Makefile >c3 &&
	cat c2 &&
	grep -q "^<<<<<<<" c2 &&
	sed -n "/^<<<<<<</,/^>>>>>>>/p" c2 >h2 &&
	sed -n "/^<<<<<<</,/^>>>>>>>/p" c3 >h3 &&
	test -s h2 && cmp h2 h3
'

test_expect_success 'the recorded resolution gives a file that builds the legacy object by its option' '
	python3 -c "import json; print(json.load(open(\"$E\"))[\"days\"][\"2\"][\"conflicts\"][0][\"resolution\"][\"drivers/gpio/Makefile\"], end=\"\")" >res &&
	grep -q "^obj-\$(CONFIG_GPIOLIB_LEGACY)	+= gpiolib-legacy.o$" res &&
	sed -n "/^<<<<<<</,/^>>>>>>>/!p" c2 >outside &&
	grep -q "gpiolib-of.o" outside
'

test_expect_success 'day 2 semantic conflict: both sides exist, merge cleanly, and clash by name' '
	f=$(expect "e[\"days\"][\"2\"][\"build\"][\"semantic_conflict\"][\"subjects\"][\"fixes\"]") &&
	c=$(expect "e[\"days\"][\"2\"][\"build\"][\"semantic_conflict\"][\"subjects\"][\"cpumask\"]") &&
	git --git-dir="$TRASH/w2/trees/fixes.git" log --format=%s v6.1.192..for-next | grep -qxF "$f" &&
	git --git-dir="$TRASH/w2/trees/cpumask.git" log --format=%s v6.1.192..for-next | grep -qxF "$c" &&
	r=$(git --git-dir="$TRASH/m2.git" rev-parse refs/heads/result) &&
	git --git-dir="$TRASH/m2.git" show "$r:kernel/smp.c" | grep -q "^static unsigned int cpumask_any_and_but(" &&
	git --git-dir="$TRASH/m2.git" show "$r:include/linux/cpumask.h" | grep -q "^unsigned int cpumask_any_and_but(" &&
	r3=$(git --git-dir="$TRASH/m3.git" rev-parse refs/heads/result) &&
	! git --git-dir="$TRASH/m3.git" show "$r3:kernel/smp.c" | grep -q "^static unsigned int cpumask_any_and_but("
'

test_expect_success 'day 3 bisect target: the gpio commit in the middle, absent before' '
	s=$(expect "e[\"days\"][\"3\"][\"bisect\"][\"subject\"]") &&
	pos=$(expect "e[\"days\"][\"3\"][\"bisect\"][\"position\"]") &&
	git --git-dir="$TRASH/w3/trees/gpio.git" log --reverse --format=%s v6.1.192..for-next >g3 &&
	test "$(sed -n "${pos}p" g3)" = "$s" &&
	test "$pos" -gt 1 && test "$pos" -lt "$(wc -l <g3)" &&
	! git --git-dir="$TRASH/w2/trees/gpio.git" log --format=%s v6.1.192..for-next | grep -qxF "$s" &&
	r3=$(git --git-dir="$TRASH/m3.git" rev-parse refs/heads/result) &&
	git --git-dir="$TRASH/m3.git" show "$r3:drivers/gpio/gpiolib-cdev.c" | grep -q "GPIO_V2_LINE_EVENT_RISING_EDGE + !!level"
'

test_expect_success 'the bitmap tree alone does not build (ordering dependency)' '
	git --git-dir="$TRASH/w1/trees/bitmap.git" show for-next:kernel/smp.c | grep -q cpumask_first_and_and &&
	! git --git-dir="$TRASH/w1/trees/bitmap.git" show for-next:include/linux/cpumask.h | grep -q cpumask_first_and_and &&
	git --git-dir="$TRASH/w1/trees/fixes.git" show for-next:include/linux/cpumask.h | grep -q "^#ifndef cpumask_first_and_and"
'

# base DAY: the day's base tag, from its trees.conf.
base() { sed -n "s/^#tide	base	mainline.git#//p" "$TRASH/w$1/trees.conf"; }

test_expect_success 'days 1-3 are on v6.1.192, days 4 and 5 on the tag expect.json names' '
	for d in 1 2 3 4 5; do
		want=$(expect "(e[\"days\"][\"$d\"].get(\"base\") or e[\"base\"])[\"tag\"]") &&
		test "$(base $d)" = "$want" || { echo "day $d: $(base $d), want $want"; exit 1; }
	done &&
	test "$(base 4)" = v6.1.193-rc1
'

test_expect_success 'day 4: v6.1.193-rc1 is v6.1.192 + the subjects expect.json lists, with the compat layer' '
	m=$TRASH/w4/mainline.git &&
	git --git-dir="$m" log --reverse --format=%s v6.1.192..v6.1.193-rc1 >subjects &&
	python3 -c "import json; print(\"\\n\".join(json.load(open(\"$E\"))[\"days\"][\"4\"][\"base\"][\"subjects\"]))" >want &&
	test_cmp want subjects &&
	git --git-dir="$m" cat-file -t v6.1.193-rc1 | grep -qx tag &&
	git --git-dir="$m" show v6.1.193-rc1:Makefile | grep -qx "EXTRAVERSION = -rc1" &&
	git --git-dir="$m" show v6.1.193-rc1:include/linux/cpumask.h | grep -q "^#ifndef cpumask_weight_andnot" &&
	test "$(git --git-dir="$TRASH/w5/mainline.git" rev-parse v6.1.193-rc1^{commit})" = \
	     "$(git --git-dir="$m" rev-parse v6.1.193-rc1^{commit})"
'

test_expect_success 'days 4 and 5: fixes is up to date, every other tree is rebased onto v6.1.193-rc1' '
	for d in 4 5; do
		w=$TRASH/w$d &&
		test "$(git --git-dir="$w/trees/fixes.git" rev-parse for-next)" = \
		     "$(git --git-dir="$w/mainline.git" rev-parse v6.1.193-rc1^{commit})" &&
		for t in cpumask gpio bitmap; do
			git --git-dir="$w/trees/$t.git" merge-base --is-ancestor v6.1.193-rc1 for-next || exit 1
		done || exit 1
	done
'

test_expect_success 'day 4: the gpio event ids are right again (v2 of the day-3 target)' '
	s=$(expect "e[\"days\"][\"3\"][\"bisect\"][\"subject\"]") &&
	git --git-dir="$TRASH/w4/trees/gpio.git" log --reverse --format=%s v6.1.193-rc1..for-next | sed -n 2p >s4 &&
	test "$(cat s4)" = "$s" &&
	r4=$(git --git-dir="$TRASH/m4.git" rev-parse refs/heads/result) &&
	git --git-dir="$TRASH/m4.git" show "$r4:drivers/gpio/gpiolib-cdev.c" | grep -q "GPIO_V2_LINE_EVENT_FALLING_EDGE - !!level"
'

test_expect_success 'day 5 semantic conflict: bitmap calls what cpumask removes, on a base that has it' '
	b=$(expect "e[\"days\"][\"5\"][\"build\"][\"semantic_conflict\"][\"subjects\"][\"bitmap\"]") &&
	c=$(expect "e[\"days\"][\"5\"][\"build\"][\"semantic_conflict\"][\"subjects\"][\"cpumask\"]") &&
	sym=$(expect "e[\"days\"][\"5\"][\"build\"][\"symbol\"]") &&
	w=$TRASH/w5 &&
	git --git-dir="$w/trees/bitmap.git" log --format=%s v6.1.193-rc1..for-next | grep -qxF "$b" &&
	git --git-dir="$w/trees/cpumask.git" log --format=%s v6.1.193-rc1..for-next | grep -qxF "$c" &&
	git --git-dir="$w/trees/bitmap.git" show for-next:kernel/smp.c | grep -q "$sym(" &&
	git --git-dir="$w/trees/bitmap.git" show for-next:include/linux/cpumask.h | grep -q "^#ifndef $sym" &&
	! git --git-dir="$w/trees/cpumask.git" show for-next:include/linux/cpumask.h | grep -q "$sym" &&
	r5=$(git --git-dir="$TRASH/m5.git" rev-parse refs/heads/result) &&
	git --git-dir="$TRASH/m5.git" show "$r5:kernel/smp.c" | grep -q "$sym(" &&
	! git --git-dir="$TRASH/m5.git" show "$r5:include/linux/cpumask.h" | grep -q "$sym" &&
	! git --git-dir="$TRASH/m4.git" show "$(git --git-dir="$TRASH/m4.git" rev-parse refs/heads/result):kernel/smp.c" | grep -q "$sym("
'

test_expect_success 'day 5 bisect target: the last bitmap commit, absent on day 4' '
	s=$(expect "e[\"days\"][\"5\"][\"bisect\"][\"subject\"]") &&
	pos=$(expect "e[\"days\"][\"5\"][\"bisect\"][\"position\"]") &&
	of=$(expect "e[\"days\"][\"5\"][\"bisect\"][\"of\"]") &&
	git --git-dir="$TRASH/w5/trees/bitmap.git" log --reverse --format=%s v6.1.193-rc1..for-next >b5 &&
	test "$(sed -n "${pos}p" b5)" = "$s" &&
	test "$(wc -l <b5)" = "$of" &&
	! git --git-dir="$TRASH/w4/trees/bitmap.git" log --format=%s v6.1.193-rc1..for-next | grep -qxF "$s"
'

test_expect_success 'day 6: v6.2-rc1 is v6.1.192 + the subjects expect.json lists, pulls as real merges' '
	m=$TRASH/w6/mainline.git &&
	git --git-dir="$m" log --reverse --first-parent --format=%s v6.1.192..v6.2-rc1 >subjects &&
	python3 -c "import json; print(\"\\n\".join(json.load(open(\"$E\"))[\"days\"][\"6\"][\"base\"][\"subjects\"]))" >want &&
	test_cmp want subjects &&
	test "$(base 6)" = v6.2-rc1 && test "$(base 7)" = v6.2-rc1 && test "$(base 8)" = v6.2-rc1 &&
	git --git-dir="$m" show v6.2-rc1:Makefile | grep -qx "PATCHLEVEL = 2" &&
	for t in cpumask gpio; do
		n=$(expect "e[\"days\"][\"6\"][\"base\"][\"pulled\"][\"$t\"]") &&
		mc=$(git --git-dir="$m" log --merges --format=%H --grep="^Merge tag .$t-for-v6.2" v6.2-rc1) &&
		test "$(git --git-dir="$m" rev-list --count "$mc^1..$mc^2")" = "$n" || exit 1
	done &&
	test "$(git --git-dir="$TRASH/w7/mainline.git" rev-parse v6.2-rc1^{commit})" = "$(git --git-dir="$m" rev-parse v6.2-rc1^{commit})"
'

test_expect_success 'day 6: cpumask is in mainline whole, gpio in part, as the same commits (not rebased)' '
	w=$TRASH/w6 &&
	git --git-dir="$w/mainline.git" merge-base --is-ancestor "$(git --git-dir="$w/trees/cpumask.git" rev-parse for-next)" v6.2-rc1 &&
	! git --git-dir="$w/mainline.git" merge-base --is-ancestor "$(git --git-dir="$w/trees/gpio.git" rev-parse for-next)" v6.2-rc1 &&
	test "$(git --git-dir="$w/trees/gpio.git" rev-parse for-next)" = "$(git --git-dir="$TRASH/w5/trees/gpio.git" rev-parse for-next)" &&
	test "$(git --git-dir="$w/trees/cpumask.git" rev-parse for-next)" = "$(git --git-dir="$TRASH/w5/trees/cpumask.git" rev-parse for-next)"
'

test_expect_success 'days 6-8: the patches mainline applied as its own commits: same patch-id, other id' '
	for d in 6 7 8; do
		w=$TRASH/w$d &&
		python3 -c "import json; [print(x[\"tree\"] + \"\t\" + x[\"subject\"]) for x in json.load(open(\"$E\"))[\"days\"][\"$d\"][\"in_mainline_by_patch_id\"]]" >dups &&
		while IFS="	" read -r t s; do
			tc=$(git --git-dir="$w/trees/$t.git" log --format="%H %s" for-next | grep -F " $s" | cut -d" " -f1) &&
			mc=$(git --git-dir="$w/mainline.git" log --format="%H %s" v6.1.193-rc1..v6.2-rc1 | grep -F " $s" | cut -d" " -f1) &&
			test -n "$tc" && test -n "$mc" && test "$tc" != "$mc" &&
			test "$(git --git-dir="$w/trees/$t.git" show "$tc" | git patch-id --stable | cut -d" " -f1)" = \
			     "$(git --git-dir="$w/mainline.git" show "$mc" | git patch-id --stable | cut -d" " -f1)" || exit 1
		done <dups || exit 1
	done
'

test_expect_success 'days 6-8: each tree is on the base expect.json names (bitmap lags on days 7 and 8)' '
	for d in 6 7 8; do
		w=$TRASH/w$d &&
		for t in $(expect "list(e[\"days\"][\"$d\"][\"tree_bases\"])"); do
			b=$(expect "e[\"days\"][\"$d\"][\"tree_bases\"][\"$t\"]") &&
			first=$(git --git-dir="$w/trees/$t.git" rev-list --reverse "$b..for-next" | head -n 1) &&
			test "$(git --git-dir="$w/trees/$t.git" rev-parse "$first^")" = \
			     "$(git --git-dir="$w/mainline.git" rev-parse "$b^{commit}")" &&
			! git --git-dir="$w/trees/$t.git" merge-base --is-ancestor v6.2-rc1 for-next ||
			{ echo "day $d: $t not on $b"; exit 1; }
		done || exit 1
	done &&
	git --git-dir="$TRASH/w7/trees/gpio.git" merge-base --is-ancestor v6.2-rc1 for-next
'

test_expect_success 'days 6-8: mm-next is next-20261205 plus its own commits, the same ids from day to day' '
	for d in 6 7 8; do
		g="git --git-dir=$TRASH/w$d/trees/mm-next.git" &&
		n=$(expect "e[\"days\"][\"$d\"][\"next_based\"][\"mm-next\"][\"commits\"]") &&
		$g cat-file -e next-20261205:localversion-next &&
		test "$($g rev-list --count next-20261205..for-next)" = "$n" &&
		$g log --reverse --format=%H next-20261205..for-next >ids$d || exit 1
	done &&
	head -n 2 ids7 | cmp - ids6 && cmp ids7 ids8 &&
	: next-20261205 is day 5 merged by the reference integrator, mmotm included &&
	git --git-dir="$TRASH/w6/trees/mm-next.git" show next-20261205:mm/vmscan.c | grep -q "being scanned that the high$"
'

test_expect_success 'day 8: mm-next left out at its first commit, which mmotm'"'"'s v2 moved the lines of' '
	s=$(expect "e[\"days\"][\"8\"][\"conflicts\"][0][\"ours_subjects\"][0]") &&
	grep -qxF "Subject: [PATCH] $s" "$I/series/mmotm/$(grep vmscan "$I/days/8/mmotm")" &&
	t=$(expect "e[\"days\"][\"8\"][\"next_based\"][\"mm-next\"][\"failed\"][\"subject\"]") &&
	test "$(git --git-dir="$TRASH/w8/trees/mm-next.git" log --reverse --format=%s next-20261205..for-next | head -n 1)" = "$t" &&
	git --git-dir="$TRASH/m8.git" show refs/heads/result:mm/vmscan.c | grep -q "being scanned for the high$"
'

test_done
