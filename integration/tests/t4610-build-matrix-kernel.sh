#!/bin/sh
# The build matrix on the real kernel world (make check-kernel-full):
# day 1 with three configurations declared in trees.conf - x86_64 smoke
# (the day's build and boot), x86_64 uniprocessor (smoke plus
# kernel-tests/up.config, W=1 on the day's changed objects, booted with
# one CPU) and arm64 cross-compiled with Debian's gcc-aarch64-linux-gnu
# (tinyconfig plus kernel-tests/arm64.config, built, not booted yet).
# Each gets its own O= under the workspace; times go to fd 3.
. "$(dirname "$0")/../../tests/cmd/lib.sh"

WORK=$TOP/work
WORLD=$WORK/matrix-world
WS=$WORK/matrix-ws
KT=$TOP/kernel-tests
export TIDE_KERNEL_TESTS=$KT
exec 3>&1

if [ ! -d "$WORK/world/mainline.git" ]; then
	"$TOP/integration/import-mainline" >/dev/null || { t_failed=1; test_done; }
fi
make -s -C "$KT" || exit 1

field() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" \
		"$WS/days/2026-01-01/day.json"
}

test_expect_success 'lay out day 1 with three configurations' '
	mkdir -p "$WORLD" &&
	if [ ! -d "$WORLD/mainline.git" ]; then
		git clone -q --bare --shared "$WORK/world/mainline.git" "$WORLD/mainline.git"
	fi &&
	"$TOP/integration/world" 1 "$WORLD" >/dev/null &&
	printf "%s\n" \
		"#tide	config	smoke	base=tinyconfig	fragment=$KT/smoke.config	boot=yes" \
		"#tide	config	up	base=tinyconfig	fragment=$KT/smoke.config	fragment=$KT/up.config	boot=yes	smp=1	w1=yes	sparse=yes" \
		"#tide	config	arm64	arch=arm64	base=tinyconfig	fragment=$KT/arm64.config" \
		>>"$WORLD/trees.conf" &&
	tide -f "$WORLD/trees.conf" trees >trees &&
	test "$(grep -c "^config " trees)" = 3 &&
	! grep "^config.*!" trees
'

test_expect_success 'tide run builds each configuration and boots smoke and up' '
	start=$(date +%s) &&
	rc=0 && tide -C "$WS" -f "$WORLD/trees.conf" run --date 2026-01-01 >out 2>err || rc=$? &&
	cat out &&
	echo "# matrix day 1: $(( $(date +%s) - start )) s" >&3 &&
	for n in 0 1 2; do
		echo "# $(field "([d[\"build\"]] + [c[\"build\"] for c in d[\"configs\"]])[$n][\"config\"]"):" \
		     "build $(field "round(([d[\"build\"]] + [c[\"build\"] for c in d[\"configs\"]])[$n][\"seconds\"])") s," \
		     "$(field "([d[\"build\"]] + [c[\"build\"] for c in d[\"configs\"]])[$n].get(\"objects\")") objects" >&3
	done &&
	test $rc -le 1 &&
	test "$(field "d[\"build\"][\"status\"]")" = ok &&
	test "$(field "d[\"configs\"][0][\"build\"][\"status\"]")" = ok &&
	test "$(field "d[\"configs\"][1][\"build\"][\"status\"]")" = ok &&
	test -f "$WS/build/out-arm64/arch/arm64/boot/Image" &&
	test "$(field "d[\"configs\"][1][\"build\"][\"kernel\"]")" = "$WS/build/out-arm64/arch/arm64/boot/Image"
'

test_expect_success 'the uniprocessor kernel has SMP off and NR_CPUS 1, and the smoke kernel has them on' '
	grep -qx "# CONFIG_SMP is not set" "$WS/build/out-up/.config" &&
	grep -qx "CONFIG_NR_CPUS=1" "$WS/build/out-up/.config" &&
	grep -qx "CONFIG_SMP=y" "$WS/build/out/.config" &&
	grep -qx "CONFIG_NR_CPUS=8" "$WS/build/out/.config" &&
	grep -qx "CONFIG_CPUMASK_KUNIT_TEST=y" "$WS/build/out-up/.config" &&
	test "$(field "[w[\"message\"] for w in d[\"configs\"][0][\"build\"][\"warnings\"] if w[\"kind\"] == \"kconfig\"]")" = "[]" &&
	readelf -h "$WS/build/out-arm64/vmlinux" | grep -q "Machine: *AArch64"
'

test_expect_success 'W=1 ran on the day'"'"'s changed objects of the uniprocessor build' '
	test "$(field "d[\"configs\"][0][\"build\"][\"checked\"]")" -gt 0 &&
	echo "# up: W=1 on $(field "d[\"configs\"][0][\"build\"][\"checked\"]") objects in $(field "round(d[\"configs\"][0][\"build\"][\"check_seconds\"])") s, $(field "len(d[\"configs\"][0][\"build\"][\"warnings\"])") warnings" >&3 &&
	grep -q "W=1 .*lib/cpumask.o\|W=1 .*drivers/gpio/" "$WS/days/2026-01-01/build.up.log"
'

test_expect_success 'both x86_64 kernels boot and pass their tests; the uniprocessor one on one CPU' '
	echo "# boots: smoke $(field "d[\"boot\"][\"status\"]") in $(field "d[\"boot\"][\"seconds\"]") s $(field "d[\"boot\"][\"counts\"]"), up $(field "d[\"configs\"][0][\"boot\"][\"status\"]") in $(field "d[\"configs\"][0][\"boot\"][\"seconds\"]") s $(field "d[\"configs\"][0][\"boot\"][\"counts\"]")" >&3 &&
	test "$(field "d[\"boot\"][\"status\"]")" = passed &&
	test "$(field "d[\"configs\"][0][\"boot\"][\"status\"]")" = passed &&
	test "$(field "d[\"configs\"][0][\"boot\"][\"smp\"]")" = 1 &&
	test "$(field "d[\"configs\"][0][\"boot\"][\"counts\"][\"fail\"]")" = 0 &&
	test "$(field "\"boot\" in d[\"configs\"][1]")" = False
'

test_done
