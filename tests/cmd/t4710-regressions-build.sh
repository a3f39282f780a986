#!/bin/sh
# Build errors and new warnings followed across days, on generated days
# built with the fake kernel of lib-world.sh (each *.c compiled by gcc
# -Wall, no boot): a new warning is one regression from the day it
# appears to the day it goes, its last good day the last build that
# passed, and a failed build on the way neither fixes nor repeats it; a
# build error is a regression of its own, named by file and message (not
# its line, which moves), without make's "Error 1" line after it, fixed
# by the first build that completes without it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

SQ="'"
W="warning smoke/x86_64 w.c: unused variable ${SQ}unused${SQ} [-Wunused-variable]"
E="build   smoke/x86_64 e.c: ${SQ}undeclared_thing${SQ} undeclared (first use in this function)"

# run_day DATE: integrate and build the day; what changed in DATE.regs.
run_day() {
	rd=0
	tide -C ws -f world/trees.conf run --date "$1" --no-boot >"run-$1.out" 2>"run-$1.err" || rd=$?
	sed -n "/^Regressions:/,\$p" "run-$1.out" >"$1.regs" &&
	return $rd
}

# gpio_e BODY SUBJECT: gpio's e.c, a function returning BODY.
gpio_e() {
	printf "%bint gpio_e(void)\n{\n\treturn %s;\n}\n" "$1" "$2" >world/gpio/e.c &&
	git -C world/gpio add e.c && git -C world/gpio commit -qm "$3"
}

test_expect_success 'setup: a fake kernel, gpio and net trees; day 1 builds' '
	fake_kernel_source world/mainline &&
	echo "const char *m = \"main\";" >world/mainline/m.c &&
	commit_fake_mainline &&
	make_tree gpio gpio.c "const char *g = \"gpio\";" &&
	make_tree net net.c "const char *n = \"net\";" &&
	conf "gpio git gpio#for-next" "net git net#for-next" &&
	mkdir -p ws &&
	run_day 2026-02-01 &&
	test ! -s 2026-02-01.regs &&
	tide -C ws regressions >actual &&
	test_cmp_str "no open regressions through 2026-02-01" actual
'

test_expect_success 'day 2: net adds a warning: new, the day before its last good day' '
	printf "int net_w(void)\n{\n\tint unused;\n\treturn 0;\n}\n" >world/net/w.c &&
	git -C world/net add w.c && git -C world/net commit -qm "net: add w" &&
	run_day 2026-02-02 &&
	printf "Regressions:\nnew: warning smoke (x86_64) w.c: unused variable ${SQ}unused${SQ} [-Wunused-variable] since next-20260202\n" >expect &&
	test_cmp expect 2026-02-02.regs &&
	tide -C ws regressions >actual &&
	echo "new           $W: first bad 2026-02-02 (last good 2026-02-01), last bad 2026-02-02" >expect &&
	test_cmp expect actual
'

test_expect_success 'days 3 and 4: gpio breaks the build: one error, the warning left as it was' '
	gpio_e "" undeclared_thing "gpio: add e" &&
	test_must_fail --status=1 run_day 2026-02-03 &&
	grep -q "make: \*\*\* \[.*e.o\] Error 1" ws/days/2026-02-03/build.log &&
	printf "Regressions:\nnew: build smoke (x86_64) e.c: ${SQ}undeclared_thing${SQ} undeclared (first use in this function) since next-20260203\n" >expect &&
	test_cmp expect 2026-02-03.regs &&
	gpio_e "\n" undeclared_thing "gpio: e one line down" &&
	test_must_fail --status=1 run_day 2026-02-04 &&
	test "$(day_field 2026-02-04 "d[\"build\"][\"errors\"][0][\"line\"]")" = 4 &&
	test ! -s 2026-02-04.regs &&
	tide -C ws regressions >actual &&
	cat >expect <<-EOF &&
	new           $W: first bad 2026-02-02 (last good 2026-02-01), last bad 2026-02-02
	still-failing $E: first bad 2026-02-03 (last good 2026-02-02), last bad 2026-02-04
	EOF
	test_cmp expect actual
'

test_expect_success 'day 5: the error fixed; the warning seen again, still failing' '
	gpio_e "" 0 "gpio: fix e" &&
	run_day 2026-02-05 &&
	printf "Regressions:\nfixed: build smoke (x86_64) e.c: ${SQ}undeclared_thing${SQ} undeclared (first use in this function), failing since next-20260203\n" >expect &&
	test_cmp expect 2026-02-05.regs &&
	tide -C ws regressions >actual &&
	echo "still-failing $W: first bad 2026-02-02 (last good 2026-02-01), last bad 2026-02-05" >expect &&
	test_cmp expect actual
'

test_expect_success 'day 6: the warning gone: fixed, both closed' '
	git -C world/net rm -q w.c && git -C world/net commit -qm "net: drop w" &&
	run_day 2026-02-06 &&
	printf "Regressions:\nfixed: warning smoke (x86_64) w.c: unused variable ${SQ}unused${SQ} [-Wunused-variable], failing since next-20260202\n" >expect &&
	test_cmp expect 2026-02-06.regs &&
	tide -C ws regressions >actual &&
	test_cmp_str "no open regressions through 2026-02-06" actual &&
	tide -C ws regressions --all >actual &&
	cat >expect <<-EOF &&
	fixed         $W: first bad 2026-02-02 (last good 2026-02-01), last bad 2026-02-05, fixed 2026-02-06
	fixed         $E: first bad 2026-02-03 (last good 2026-02-02), last bad 2026-02-04, fixed 2026-02-05
	EOF
	test_cmp expect actual
'

test_done
