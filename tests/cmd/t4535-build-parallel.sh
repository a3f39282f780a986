#!/bin/sh
# The build matrix's order and job budget (trees.conf's build-order=,
# build-parallel=, build-jobs=; tide run --build-parallel, --build-jobs)
# on a fake kernel (lib-world.sh) whose every object takes a second and
# writes "start O FILE" and "end O FILE" to one log: side by side, two
# configurations' objects overlap and a third starts only when one of
# them is done; one after another (the default), they never overlap.
# Records stay in trees.conf's order whatever the build order, and a
# build process that dies is a record of its own.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt
SQ="'"

# Each object: its O= (out, out-up, out-arm64) and file, a second apart.
# An O= named in $TRASH/die kills its tide build process (make's parent).
RECIPE='@echo "start $(notdir $(O)) $<" >>'"$TRASH"'/objects; sleep 1; $(CC) -c $(CURDIR)/$< -o $@; echo "end $(notdir $(O)) $<" >>'"$TRASH"'/objects; if grep -qx "$(notdir $(O))" '"$TRASH"'/die 2>/dev/null; then kill -9 $$(cut -d" " -f4 /proc/$$PPID/stat); fi'

matrix_conf() {
	conf "gpio git gpio#for-next" &&
	printf "%s\n" \
		"#tide	config	smoke	base=tinyconfig	fragment=../kt/smoke.config" \
		"#tide	config	up	base=tinyconfig	fragment=../kt/smoke.config	fragment=up.config" \
		"#tide	config	arm64	arch=arm64	base=tinyconfig	fragment=../kt/smoke.config" \
		"$@" >>world/trees.conf
}

# first LINE-PATTERN: the line number of its first match in objects; last: of its last.
first() { grep -n "$1" objects | head -n 1 | cut -d: -f1; }
last() { grep -n "$1" objects | tail -n 1 | cut -d: -f1; }

run_day() {
	rm -f objects &&
	PATH="$TRASH/bin:$PATH" tide -C ws -f world/trees.conf run --no-boot --date "$@" >out 2>err
}

test_expect_success 'setup: a fake kernel of slow objects, a tree, a fake cross compiler' '
	mkdir -p kt bin &&
	printf "CONFIG_GPIO=y\n" >kt/smoke.config &&
	fake_kernel_source world/mainline "$RECIPE" &&
	echo "int m(void) { return 0; }" >world/mainline/m.c &&
	echo "int x(void) { return 0; }" >world/mainline/x.c &&
	commit_fake_mainline &&
	make_tree gpio gpio.c "int g(void) { return 0; }" &&
	printf "# CONFIG_SMP is not set\n" >world/up.config &&
	printf "#!/bin/sh\nexec gcc \"\$@\"\n" >bin/aarch64-linux-gnu-gcc &&
	chmod 755 bin/aarch64-linux-gnu-gcc
'

test_expect_success 'trees.conf: bad build-order, build-parallel and build-jobs are errors of the file' '
	for bad in "build-parallel=0" "build-parallel=65" "build-parallel=2x" "build-jobs=-1" \
		   "build-jobs=" "build-order=arm64,nosuch" "build-order=up,up" "build-order=up,"; do
		matrix_conf "#tide	$bad" &&
		test_must_fail --status=3 tide -C ws -f world/trees.conf trees >/dev/null 2>>errs || exit 1
	done &&
	matrix_conf "#tide	build-jobs=2" "#tide	build-jobs=3" &&
	test_must_fail --status=3 tide -C ws -f world/trees.conf trees >/dev/null 2>>errs &&
	cat >expect <<-\END &&
	tide: world/trees.conf:10: bad build-parallel '"'"'0'"'"' (a whole number, 1 to 64)
	tide: world/trees.conf:10: bad build-parallel '"'"'65'"'"' (a whole number, 1 to 64)
	tide: world/trees.conf:10: bad build-parallel '"'"'2x'"'"' (a whole number, 1 to 64)
	tide: world/trees.conf:10: bad build-jobs '"'"'-1'"'"' (a whole number, 1 to 1024)
	tide: world/trees.conf:10: bad build-jobs '"'"''"'"' (a whole number, 1 to 1024)
	tide: world/trees.conf:10: build-order: '"'"'nosuch'"'"' is not a declared configuration
	tide: world/trees.conf:10: build-order: '"'"'up'"'"' named twice
	tide: world/trees.conf:10: build-order: an empty name in '"'"'up,'"'"'
	tide: world/trees.conf:11: build-jobs given twice
	END
	test_cmp expect errs
'

test_expect_success 'tide trees shows the build order, how many at a time and the job budget' '
	matrix_conf &&
	tide -C ws -f world/trees.conf trees >out &&
	! grep -q "^builds" out &&
	matrix_conf "#tide	build-order=arm64" "#tide	build-parallel=2" "#tide	build-jobs=4" &&
	tide -C ws -f world/trees.conf trees >out &&
	grep "^builds" out >actual &&
	echo "builds  arm64, smoke, up; 2 at a time; 4 make jobs in all" >expect &&
	test_cmp expect actual &&
	tide -C ws -f world/trees.conf trees --json >json &&
	python3 -c "import json; b=json.load(open(\"json\"))[\"build\"]; print(b[\"order\"], b[\"parallel\"], b[\"jobs\"])" >actual &&
	echo "[${SQ}arm64${SQ}, ${SQ}smoke${SQ}, ${SQ}up${SQ}] 2 4" >expect &&
	test_cmp expect actual
'

test_expect_success 'by default the configurations build one after another, in trees.conf order' '
	matrix_conf &&
	run_day 2026-01-01 &&
	test "$(wc -l <objects)" = 18 &&
	test "$(last "end out ")" -lt "$(first "start out-up ")" &&
	test "$(last "end out-up ")" -lt "$(first "start out-arm64 ")" &&
	! grep -q "configurations, [0-9]* at a time" err
'

test_expect_success 'build-parallel=2: two side by side, the third when one is done, build-order first' '
	matrix_conf "#tide	build-order=arm64,up" "#tide	build-parallel=2" "#tide	build-jobs=4" &&
	git -C world/gpio commit -q --allow-empty -m "gpio: nothing" &&
	printf "int y(void) { return 0; }\n" >world/gpio/y.c &&
	git -C world/gpio add y.c && git -C world/gpio commit -qm "gpio: y" &&
	run_day 2026-01-02 &&
	grep "^tide: building next-20260102 (" err >actual &&
	printf "%s\n" "tide: building next-20260102 (arm64)" "tide: building next-20260102 (up)" \
		"tide: building next-20260102 (smoke)" >expect &&
	test_cmp expect actual &&
	grep -q "^tide: building 3 configurations, 2 at a time, 2 make jobs each$" err &&
	grep -q "^tide: matrix: checkout in [0-9.]* s ([0-9]* files written, 0 removed)$" err &&
	smoke_start=$(first "start out ") &&
	up_start=$(first "start out-up ") &&
	up_end=$(last "end out-up ") &&
	arm_end=$(last "end out-arm64 ") &&
	: the first two overlap: up starts before arm64 is done &&
	test "$up_start" -lt "$arm_end" &&
	: smoke waits for one of them &&
	{ test "$up_end" -lt "$smoke_start" || test "$arm_end" -lt "$smoke_start"; }
'

test_expect_success 'side by side: records in trees.conf order, each with its share of the jobs and its own lines' '
	day_field 2026-01-02 "d[\"build\"][\"config\"], d[\"build\"][\"status\"], d[\"build\"][\"jobs\"], [(c[\"name\"], c[\"build\"][\"status\"], c[\"build\"][\"jobs\"]) for c in d[\"configs\"]]" >actual &&
	echo "smoke ok 2 [(${SQ}up${SQ}, ${SQ}ok${SQ}, 2), (${SQ}arm64${SQ}, ${SQ}ok${SQ}, 2)]" >expect &&
	test_cmp expect actual &&
	day_field 2026-01-02 "d[\"build\"][\"make_command\"]" | grep -q "${SQ}-j2${SQ}" &&
	for c in "build up" "build arm64" "build smoke"; do
		grep -q "^tide: $c: compiled 1 object in" err &&
		grep -q "] $c: linked in" ws/tide.log || exit 1
	done &&
	grep -q "^tide: build arm64 ok in [0-9]* s$" err &&
	test -f ws/build/out-arm64/arch/arm64/boot/Image &&
	test -s ws/days/2026-01-02/build.arm64.log &&
	! grep -q "compiling, " ws/tide.log
'

test_expect_success 'tide run --build-parallel 1 overrides trees.conf: one after another again' '
	printf "int z(void) { return 0; }\n" >world/gpio/z.c &&
	git -C world/gpio add z.c && git -C world/gpio commit -qm "gpio: z" &&
	run_day 2026-01-03 --build-parallel 1 &&
	test "$(last "end out-arm64 ")" -lt "$(first "start out-up ")" &&
	test "$(last "end out-up ")" -lt "$(first "start out ")" &&
	! grep -q "configurations, [0-9]* at a time" err &&
	test "$(day_field 2026-01-03 "d[\"configs\"][1][\"build\"][\"jobs\"]")" = 4
'

test_expect_success 'tide run: bad --build-parallel and --build-jobs are usage errors' '
	test_must_fail --status=2 tide -C ws -f world/trees.conf run --build-parallel 0 2>err &&
	head -n 1 err >actual &&
	test_cmp_str "tide: bad --build-parallel ${SQ}0${SQ} (1 to 64)" actual &&
	test_must_fail --status=2 tide -C ws -f world/trees.conf run --build-jobs x 2>err &&
	head -n 1 err >actual &&
	test_cmp_str "tide: bad --build-jobs ${SQ}x${SQ} (1 to 1024)" actual
'

test_expect_success 'on a terminal, one status line counts the objects of every build running' '
	for f in p q r; do
		printf "int $f(void) { return 0; }\n" >world/gpio/$f.c || exit 1
	done &&
	git -C world/gpio add p.c q.c r.c && git -C world/gpio commit -qm "gpio: p, q, r" &&
	PATH="$TRASH/bin:$PATH" script -qec "$TIDE_BIN -C ws -f world/trees.conf run --no-boot --build-jobs 2 --date 2026-01-05" typescript >/dev/null &&
	tr "\r" "\n" <typescript | sed "s/^.\[K//" >lines &&
	grep -q "^\[1/1\] arm64: compiling, [0-9]* of ~3 in [0-9]* s | up: compiling, [0-9]* of ~3 in [0-9]* s$" lines &&
	grep -q "building 3 configurations, 2 at a time, 1 make job each" lines
'

test_expect_success 'a build process that dies side by side is a record saying so; the others finish' '
	echo out-up >die &&
	printf "int w(void) { return 0; }\n" >world/gpio/w.c &&
	git -C world/gpio add w.c && git -C world/gpio commit -qm "gpio: w" &&
	test_must_fail --status=1 run_day 2026-01-04 --build-parallel 3 &&
	rm die &&
	day_field 2026-01-04 "d[\"build\"][\"status\"], d[\"configs\"][1][\"build\"][\"status\"], d[\"configs\"][0][\"build\"][\"status\"], d[\"configs\"][0][\"build\"][\"failure\"]" >actual &&
	echo "ok ok failed the build of up ended without a record (killed by signal 9)" >expect &&
	test_cmp expect actual &&
	grep -q "^tide: build up: the build of up ended without a record (killed by signal 9)$" err &&
	test -f ws/build/out/arch/x86/boot/bzImage
'

test_done
