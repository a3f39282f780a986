#!/bin/sh
# Days 1-5 are what integration/days/expect.json says, as far as the git
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
		for t in fixes cpumask gpio bitmap mmotm; do
			test \"\$(grep -vc '^#' '$I/days/$d/'\$t)\" = \"\$(expect \"e['days']['$d']['patches']['\$t']\")\" || exit 1
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

test_done
