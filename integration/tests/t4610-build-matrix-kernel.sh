#!/bin/sh
# The build matrix on the real kernel world (make check-kernel-full): the
# configurations integration/world declares - x86_64 smoke (the day's
# build and boot), arm64, x86_64 uniprocessor (smoke plus
# kernel-tests/up.config, W=1 and sparse on the day's changed objects,
# booted with one CPU) and x86_64 defconfig with modules (built only);
# the fifth, x86_64 legacy, is built and booted by t4600.
# Day 1 builds smoke, up and arm64; day 2, whose semantic conflict breaks
# kernel/smp.c, builds up (no kernel/smp.c without SMP, so it builds) and
# defconfig (SMP: it fails there too).  Each configuration gets its own O=
# under the workspace; times go to fd 3.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-configs.sh"

WORK=$TOP/work
WORLD=$WORK/matrix-world
WS=$WORK/matrix-ws
KT=$TOP/kernel-tests
export TIDE_KERNEL_TESTS=$KT
exec 3>&1

need_kernel_world

# field EXPR [DATE]: a value from the day's record (default day 1; config_field).
field() { config_field "$WS/days/${2:-2026-01-01}/day.json" "$1"; }

test_expect_success 'lay out day 1: the world declares five configurations' '
	world_day 1 "$WORLD" &&
	tide -f "$WORLD/trees.conf" trees >trees &&
	test "$(grep "^config " trees | cut -d" " -f2 | tr "\n" " ")" = "smoke arm64 up legacy defconfig " &&
	! grep "^config.*!" trees
'

test_expect_success 'tide run builds smoke, up and arm64, and boots each' '
	start=$(date +%s) &&
	rc=0 && tide -C "$WS" -f "$WORLD/trees.conf" run --date 2026-01-01 --configs smoke,up,arm64 >out 2>err || rc=$? &&
	cat out &&
	echo "# matrix day 1: $(( $(date +%s) - start )) s" >&3 &&
	for c in smoke up arm64; do
		echo "# $c: build $(field "round(b(\"$c\")[\"seconds\"])") s, $(field "b(\"$c\").get(\"objects\")") objects;" \
		     "boot $(field "o(\"$c\").get(\"status\")") in $(field "o(\"$c\").get(\"seconds\")") s $(field "o(\"$c\").get(\"counts\")")" >&3
		test "$(field "b(\"$c\")[\"status\"]")" = ok &&
		test "$(field "o(\"$c\")[\"status\"]")" = passed &&
		test "$(field "o(\"$c\")[\"counts\"][\"fail\"]")" = 0 || return 1
	done &&
	test $rc -le 1 &&
	test "$(field "o(\"up\")[\"smp\"]")" = 1 &&
	test "$(field "b(\"arm64\")[\"kernel\"]")" = "$WS/build/out-arm64/arch/arm64/boot/Image"
'

test_expect_success 'the uniprocessor kernel has SMP off and NR_CPUS 1, and the smoke kernel has them on' '
	grep -qx "# CONFIG_SMP is not set" "$WS/build/out-up/.config" &&
	grep -qx "CONFIG_NR_CPUS=1" "$WS/build/out-up/.config" &&
	grep -qx "CONFIG_SMP=y" "$WS/build/out/.config" &&
	grep -qx "CONFIG_NR_CPUS=8" "$WS/build/out/.config" &&
	grep -qx "CONFIG_CPUMASK_KUNIT_TEST=y" "$WS/build/out-up/.config" &&
	test "$(field "[w[\"message\"] for w in b(\"up\")[\"warnings\"] if w[\"kind\"] == \"kconfig\"]")" = "[]" &&
	readelf -h "$WS/build/out-arm64/vmlinux" | grep -q "Machine: *AArch64"
'

test_expect_success 'W=1 and sparse ran on the day'"'"'s changed objects of the uniprocessor build' '
	test "$(field "b(\"up\")[\"checked\"]")" -gt 0 &&
	echo "# up: W=1 and sparse on $(field "b(\"up\")[\"checked\"]") objects in $(field "round(b(\"up\")[\"check_seconds\"])") s, $(field "len(b(\"up\")[\"warnings\"])") warnings" >&3 &&
	grep -q "W=1 .*lib/cpumask.o\|W=1 .*drivers/gpio/" "$WS/days/2026-01-01/build.up.log"
'

test_expect_success 'day 2: the uniprocessor kernel builds (no kernel/smp.c), defconfig breaks on it' '
	"$TOP/integration/world" 2 "$WORLD" >/dev/null &&
	start=$(date +%s) &&
	rc=0 && tide -C "$WS" -f "$WORLD/trees.conf" run --date 2026-01-02 --configs up,defconfig >out 2>err || rc=$? &&
	cat out &&
	echo "# matrix day 2: $(( $(date +%s) - start )) s: up $(field "b(\"up\")[\"status\"]" 2026-01-02) in $(field "round(b(\"up\")[\"seconds\"])" 2026-01-02) s," \
	     "defconfig $(field "b(\"defconfig\")[\"status\"]" 2026-01-02) in $(field "round(b(\"defconfig\")[\"seconds\"])" 2026-01-02) s ($(field "b(\"defconfig\").get(\"objects\")" 2026-01-02) objects)" >&3 &&
	test "$(field "b(\"up\")[\"status\"]" 2026-01-02)" = ok &&
	test "$(field "b(\"defconfig\")[\"status\"]" 2026-01-02)" = failed &&
	field "\"\\n\".join(\"%s %s\" % (e[\"file\"], e[\"message\"]) for e in b(\"defconfig\")[\"errors\"])" 2026-01-02 >errors &&
	grep "^kernel/smp.c redefinition of .cpumask_any_and_but" errors &&
	grep -qx "CONFIG_MODULES=y" "$WS/build/out-defconfig/.config"
'

test_done
