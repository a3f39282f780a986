#!/bin/sh
# The build matrix on a fake kernel (lib-world.sh): every configuration
# trees.conf declares is built one after another, each in its own O=
# directory with its own log and record (the first is the day's "build",
# the others are under "configs"), warnings are new per configuration,
# and a configuration that cannot build (a missing cross compiler, a
# missing fragment) is a record of its own that leaves the others alone.
# The cross compiler and sparse are fakes in bin/; nocross/ is a PATH
# without them, whatever this machine has installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt
SQ="'"

# The build lines of tide show, durations as N.
show_builds() {
	tide -C ws show "$1" >show &&
	sed -n "s/ in [0-9]* s,/ in N s,/; /^build/p" show
}

matrix_conf() {
	conf "gpio git gpio#for-next" &&
	printf "%s\n" \
		"#tide	config	smoke	base=tinyconfig	fragment=../kt/smoke.config	boot=yes" \
		"#tide	config	up	base=tinyconfig	fragment=../kt/smoke.config	fragment=up.config" \
		"#tide	config	defmod	base=defconfig	fragment=mod.config	w1=yes" \
		"#tide	config	arm64	arch=arm64	base=defconfig	fragment=../kt/smoke.config	sparse=yes" \
		>>world/trees.conf
}

test_expect_success 'setup: a fake kernel, a tree with a warning, fragments, a fake cross compiler' '
	mkdir -p kt bin &&
	printf "CONFIG_GPIO=y\n" >kt/smoke.config &&
	fake_kernel_source world/mainline &&
	echo "int m(void) { return 0; }" >world/mainline/m.c &&
	commit_fake_mainline &&
	make_tree gpio gpio.c "int g(void) { int unused; return 0; }" &&
	printf "# CONFIG_SMP is not set\nCONFIG_DROPPED=y\nCONFIG_GPIO=m\n" >world/up.config &&
	printf "CONFIG_MODULES=y\n" >world/mod.config &&
	printf "#!/bin/sh\nexec gcc \"\$@\"\n" >bin/aarch64-linux-gnu-gcc &&
	printf "#!/bin/sh\nexit 0\n" >bin/sparse &&
	chmod 755 bin/aarch64-linux-gnu-gcc bin/sparse &&
	mkdir nocross &&
	for f in /usr/bin/* /bin/*; do
		n=${f##*/} &&
		case $n in aarch64-linux-gnu-*|sparse) continue ;; esac &&
		{ test -e "nocross/$n" || ln -s "$f" "nocross/$n"; } || exit 1
	done &&
	matrix_conf
'

test_expect_success 'run builds every configuration, each in its own O= and log' '
	PATH="$TRASH/bin:$PATH" tide -C ws -f world/trees.conf run --no-boot --date 2026-01-01 >out 2>err &&
	test "$(day_field 2026-01-01 "d[\"build\"][\"config\"]+\"/\"+d[\"build\"][\"arch\"]+\"/\"+d[\"build\"][\"status\"]")" = smoke/x86_64/ok &&
	day_field 2026-01-01 "\" \".join(c[\"name\"]+\"/\"+c[\"build\"][\"arch\"]+\"/\"+c[\"build\"][\"status\"]+\"/\"+c[\"build\"][\"log\"] for c in d[\"configs\"])" >actual &&
	echo "up/x86_64/ok/build.up.log defmod/x86_64/ok/build.defmod.log arm64/arm64/ok/build.arm64.log" >expect &&
	test_cmp expect actual &&
	for f in build.log build.up.log build.defmod.log build.arm64.log; do
		test -s ws/days/2026-01-01/$f || exit 1
	done &&
	test -f ws/build/out/arch/x86/boot/bzImage &&
	test -f ws/build/out-up/arch/x86/boot/bzImage &&
	test -f ws/build/out-defmod/arch/x86/boot/bzImage &&
	test -f ws/build/out-arm64/arch/arm64/boot/Image &&
	test "$(day_field 2026-01-01 "d[\"configs\"][2][\"build\"][\"kernel\"]")" = \
		"$TRASH/ws/build/out-arm64/arch/arm64/boot/Image"
'

test_expect_success 'without a terminal, each step is one line with its time' '
	sed -n "s/[0-9][0-9]*\.[0-9] s/T s/; s/of [0-9a-f]\{12\}$/of C/; /^tide: build up: /p" err >actual &&
	cat >expect <<-\END &&
	tide: build up: checkout of C
	tide: build up: checkout in T s (0 files written, 0 removed)
	tide: build up: config in T s (made)
	tide: build up: compiling
	tide: build up: compiled 2 objects in T s
	tide: build up: linked in T s
	END
	test_cmp expect actual &&
	! grep "compiling, " err &&
	test "$(day_field 2026-01-01 "d[\"configs\"][0][\"build\"][\"objects\"]")" = 2 &&
	grep -q "build up: linked in" ws/tide.log &&
	! grep -q "compiling, " ws/tide.log
'

test_expect_success 'each configuration gets its base, its fragments in order, its make variables' '
	printf "CONFIG_TINY=y\nCONFIG_GPIO=m\n# CONFIG_SMP is not set\n" >expect &&
	test_cmp expect ws/build/out-up/.config &&
	printf "CONFIG_DEFCONFIG=y\nCONFIG_MODULES=y\n" >expect &&
	test_cmp expect ws/build/out-defmod/.config &&
	echo "ARCH= CROSS_COMPILE= W= C= CC=ccache gcc" >expect &&
	sed "s/CC=gcc$/CC=ccache gcc/" ws/build/out/make-vars >actual &&
	test_cmp expect actual &&
	echo "ARCH= CROSS_COMPILE= W= C= CC=ccache gcc" >expect &&
	sed "s/CC=gcc$/CC=ccache gcc/" ws/build/out-defmod/make-vars >actual &&
	test_cmp expect actual &&
	echo "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- W= C= CC=ccache aarch64-linux-gnu-gcc" >expect &&
	sed "s/CC=aarch64/CC=ccache aarch64/" ws/build/out-arm64/make-vars >actual &&
	test_cmp expect actual &&
	day_field 2026-01-01 "d[\"configs\"][2][\"build\"][\"make_command\"][5:]" >actual &&
	grep -q "ARCH=arm64.*CROSS_COMPILE=aarch64-linux-gnu-" actual &&
	! grep -q "W=1\|C=1" actual
'

# smoke.config's CONFIG_GPIO=y is not in up's .config either, but up.config
# sets CONFIG_GPIO=m after it: only the last fragment to set an option is judged.
test_expect_success 'an option olddefconfig drops is a warning naming the fragment and line' '
	day_field 2026-01-01 "[(w[\"file\"], w[\"line\"], w[\"message\"]) for w in d[\"configs\"][0][\"build\"][\"warnings\"] if w[\"kind\"] == \"kconfig\"]" >actual &&
	echo "[('"'"'up.config'"'"', 2, '"'"'CONFIG_DROPPED=y requested by the fragment is not in the final .config'"'"')]" >expect &&
	test_cmp expect actual &&
	test "$(day_field 2026-01-01 "[w for w in d[\"build\"][\"warnings\"] if w[\"kind\"] == \"kconfig\"]")" = "[]"
'

test_expect_success 'tide show has a line per configuration' '
	show_builds 2026-01-01 >actual &&
	cat >expect <<-\END &&
	build   [smoke x86_64] ok in N s, 1 warnings, 1 new
	build   [up x86_64] ok in N s, 2 warnings, 2 new
	build   [defmod x86_64] ok in N s, 2 warnings, 2 new
	build   [arm64 arm64] ok in N s, 2 warnings, 2 new
	END
	test_cmp expect actual &&
	test "$(grep -c "new warning: gpio.c:1: unused variable .* (gpio)" show)" = 4
'

test_expect_success 'W=1 and sparse run on the objects the day changed, their warnings attributed' '
	grep "W=1 looked\|sparse looked" show >actual &&
	cat >expect <<-\END &&
	        new warning: gpio.c:1: W=1 looked at gpio (gpio)
	        new warning: gpio.c:1: sparse looked at gpio (gpio)
	END
	test_cmp expect actual &&
	day_field 2026-01-01 "[(c[\"name\"], c[\"build\"].get(\"checked\")) for c in d[\"configs\"]]" >actual &&
	echo "[('"'"'up'"'"', None), ('"'"'defmod'"'"', 1), ('"'"'arm64'"'"', 1)]" >expect &&
	test_cmp expect actual &&
	grep -q "^# tide: make .* W=1 .*gpio.o$" ws/days/2026-01-01/build.defmod.log &&
	grep -q "^tide: build defmod: checking 1 changed object with W=1$" err &&
	grep -q "^tide: build arm64: checking 1 changed object with C=1$" err
'

test_expect_success 'warnings are new per configuration: the next day has none new in any' '
	PATH="$TRASH/bin:$PATH" tide -C ws -f world/trees.conf run --no-boot --date 2026-01-02 >out 2>err &&
	grep -q "^tide: build arm64: compiling (a full build here compiles about 2 objects)$" err &&
	grep -q "^tide: build arm64: config in [0-9.]* s (unchanged, kept)$" err &&
	day_field 2026-01-02 "[len(d[\"build\"][\"new_warnings\"])] + [len(c[\"build\"][\"new_warnings\"]) for c in d[\"configs\"]]" >actual &&
	echo "[0, 0, 0, 0]" >expect &&
	test_cmp expect actual
'

test_expect_success 'a configuration that cannot build is its own failed record; the others still build' '
	rm world/mod.config &&
	test_must_fail --status=1 env PATH="$TRASH/nocross" "$TIDE_BIN" -C ws -f world/trees.conf run --no-boot --date 2026-01-03 >out 2>err &&
	day_field 2026-01-03 "[(c[\"name\"], c[\"build\"][\"status\"], c[\"build\"].get(\"failure\")) for c in d[\"configs\"]]" >actual &&
	cat >expect <<-END &&
	[('"'"'up'"'"', '"'"'ok'"'"', None), ('"'"'defmod'"'"', '"'"'failed'"'"', "config '"'"'defmod'"'"': fragment '"'"'mod.config'"'"': no such file"), ('"'"'arm64'"'"', '"'"'failed'"'"', "compiler '"'"'aarch64-linux-gnu-gcc'"'"' not found in PATH (Debian package gcc-aarch64-linux-gnu)")]
	END
	test_cmp expect actual &&
	test "$(day_field 2026-01-03 "d[\"build\"][\"status\"]")" = ok &&
	grep -q "build defmod: config .defmod.: fragment .mod.config.: no such file" err &&
	grep -q "build arm64 failed in [0-9]* s: compiler .aarch64-linux-gnu-gcc. not found" err
'

test_expect_success 'a missing sparse is named with its package' '
	mkdir -p bin2 && cp bin/aarch64-linux-gnu-gcc bin2/ &&
	printf "CONFIG_MODULES=y\n" >world/mod.config &&
	test_must_fail --status=1 env PATH="$TRASH/bin2:$TRASH/nocross" "$TIDE_BIN" -C ws -f world/trees.conf run --no-boot --date 2026-01-04 >out 2>err &&
	test "$(day_field 2026-01-04 "d[\"configs\"][2][\"build\"][\"failure\"]")" = \
		"'"'"'sparse'"'"' not found in PATH (Debian package sparse)"
'

test_expect_success 'tide build --config NAME rebuilds one configuration of a day' '
	PATH="$TRASH/bin:$PATH" tide -C ws -f world/trees.conf build --config arm64 2026-01-04 >out 2>err &&
	head -2 out | sed "s/(.*s:.*), /(T), /" >actual &&
	cat >expect <<-\END &&
	config: arm64 (arm64)
	build: ok (T), 2 warnings, 0 new
	END
	test_cmp expect actual &&
	test "$(day_field 2026-01-04 "d[\"configs\"][2][\"build\"][\"status\"]")" = ok &&
	test "$(day_field 2026-01-04 "d[\"configs\"][1][\"build\"][\"status\"]")" = ok &&
	grep -q "^log: .*/days/2026-01-04/build.arm64.log$" out
'

test_expect_success 'tide build without --config rebuilds the first declared configuration' '
	PATH="$TRASH/bin:$PATH" tide -C ws -f world/trees.conf build 2026-01-04 >out 2>err &&
	head -1 out >actual &&
	echo "config: smoke (x86_64)" >expect &&
	test_cmp expect actual &&
	test "$(day_field 2026-01-04 "d[\"build\"][\"config\"]")" = smoke &&
	grep -q "^log: .*/days/2026-01-04/build.log$" out
'

test_expect_success 'on a terminal, the status line counts objects against the last build' '
	printf "%s\n" "int more(void) { return 0; }" >world/gpio/more.c &&
	git -C world/gpio add more.c && git -C world/gpio commit -qm "gpio: one more file" &&
	PATH="$TRASH/bin:$PATH" script -qec "$TIDE_BIN -C ws -f world/trees.conf run --no-boot --date 2026-01-05" typescript >/dev/null &&
	tr "\r" "\n" <typescript >lines &&
	grep -q "build defmod: compiling, [0-9]* of ~2 objects (estimate) in [0-9]* s" lines &&
	! grep -q "^tide: " lines
'

test_expect_success 'boot=yes boots each configuration with its own kernel, arch, smp and console' '
	sed -i "s/^\(#tide	config	up	.*\)$/\1	boot=yes	smp=1/; s/^\(#tide	config	arm64	.*\)$/\1	boot=yes/" world/trees.conf &&
	grep -q "config	up	.*boot=yes	smp=1$" world/trees.conf &&
	mkdir -p fakeqemu &&
	printf "#!/bin/sh\necho \"\$0\" >>\"$TRASH/fakeqemu/calls\"\necho \"fake QEMU: no such guest\" >&2\nexit 1\n" \
		>fakeqemu/qemu-system-aarch64 &&
	chmod 755 fakeqemu/qemu-system-aarch64 &&
	printf "#!/bin/sh\n" >kt/init.arm64 && chmod 755 kt/init.arm64 &&
	PATH="$TRASH/fakeqemu:$TRASH/bin:$PATH" TIDE_GUEST_INIT="$TOP/kernel-tests/init" test_expect_code 1 tide -C ws -f world/trees.conf run --date 2026-01-06 >out 2>err &&
	day_field 2026-01-06 "d[\"configs\"][0][\"boot\"][\"console\"], d[\"configs\"][0][\"boot\"][\"smp\"]" >actual &&
	echo "console.up.log 1" >expect &&
	test_cmp expect actual &&
	test -f ws/days/2026-01-06/console.up.log &&
	day_field 2026-01-06 "d[\"configs\"][0][\"boot\"][\"qemu_command\"]" >cmd &&
	grep -q "out-up/arch/x86/boot/bzImage" cmd &&
	! grep -q "${SQ}-M${SQ}" cmd &&
	day_field 2026-01-06 "\" \".join(d[\"configs\"][2][\"boot\"][\"qemu_command\"])" >actual &&
	echo "$TRASH/fakeqemu/qemu-system-aarch64 -nographic -no-reboot -M virt -accel tcg -cpu cortex-a57 -m 256 -smp 4 -kernel $TRASH/ws/build/out-arm64/arch/arm64/boot/Image -initrd $TRASH/ws/build/initramfs/INITRD -append console=ttyAMA0 panic=-1 tide.smp=4 tide.boot=1" >expect &&
	sed -i "s|initramfs/[^ ]*|initramfs/INITRD|" actual &&
	test_cmp expect actual &&
	day_field 2026-01-06 "\" \".join(str(d[\"configs\"][2][\"boot\"][k]) for k in (\"status\", \"accel\", \"accel_note\", \"console\"))" >actual &&
	echo "no-output tcg an arm64 guest on an x86_64 host console.arm64.log" >expect &&
	test_cmp expect actual &&
	day_field 2026-01-06 "d[\"configs\"][2][\"boot\"][\"reason\"]" | grep -q "QEMU exited 1: fake QEMU: no such guest" &&
	test "$(day_field 2026-01-06 "\"boot\" in d[\"configs\"][1]")" = False &&
	tide -C ws show 2026-01-06 >show &&
	grep -q "^boot    \[arm64\] no-output: .*QEMU exited 1" show &&
	grep -q "^boot    \[up\] " show &&
	grep -q "^boot    \[smoke\] " show &&
	tide -C ws log >log &&
	grep "^2026-01-06" log | sed "s/  boot: [a-z-]*//; s/  up: ok\/[a-z-]*/  up: ok\/B/" >actual &&
	echo "2026-01-06  next-20260106  1/1 merged  build: ok  up: ok/B  defmod: ok  arm64: ok/no-output" >expect &&
	test_cmp expect actual &&
	grep "^2026-01-03" log >actual &&
	echo "2026-01-03  next-20260103  1/1 merged  build: ok  up: ok  defmod: failed  arm64: failed" >expect &&
	test_cmp expect actual
'

test_expect_success 'an arm64 configuration without its guest program is a boot error saying what to build' '
	rm kt/init.arm64 &&
	PATH="$TRASH/fakeqemu:$TRASH/bin:$PATH" TIDE_GUEST_INIT="$TOP/kernel-tests/init" test_expect_code 1 tide -C ws -f world/trees.conf run --date 2026-01-07 >out 2>err &&
	day_field 2026-01-07 "d[\"configs\"][2][\"boot\"]" >actual &&
	echo "{${SQ}status${SQ}: ${SQ}error${SQ}, ${SQ}failure${SQ}: ${SQ}no arm64 guest program (kernel-tests/init.arm64): build kernel-tests (make deps, make)${SQ}}" >expect &&
	test_cmp expect actual &&
	test "$(day_field 2026-01-07 "d[\"configs\"][0][\"boot\"][\"console\"]")" = console.up.log &&
	grep -q "boot arm64: no arm64 guest program" err
'

test_expect_success 'tide run --configs builds only the configurations named; an unknown name is exit 3' '
	PATH="$TRASH/bin:$PATH" tide -C ws -f world/trees.conf run --no-boot --configs arm64,up --date 2026-01-08 >out 2>err &&
	day_field 2026-01-08 "d[\"build\"][\"config\"], [c[\"name\"] for c in d[\"configs\"]]" >actual &&
	echo "up [${SQ}arm64${SQ}]" >expect &&
	test_cmp expect actual &&
	test -f ws/days/2026-01-08/build.log &&
	test -f ws/days/2026-01-08/build.arm64.log &&
	test_must_fail --status=3 tide -C ws -f world/trees.conf run --configs up,nosuch --date 2026-01-09 >out 2>err &&
	echo "tide: --configs: no configuration ${SQ}nosuch${SQ} in world/trees.conf (it declares: smoke, up, defmod, arm64)" >expect &&
	test_cmp expect err &&
	test_must_fail --status=3 tide -C ws -f world/trees.conf run --configs up, --date 2026-01-09 >out 2>err &&
	test_cmp_str "tide: --configs: an empty configuration name in ${SQ}up,${SQ}" err &&
	test ! -d ws/days/2026-01-09
'

test_expect_success 'tide build --config: an unknown name, and --fragment with it, are errors' '
	test_must_fail --status=3 tide -C ws -f world/trees.conf build --config nosuch 2026-01-04 >out 2>err &&
	test_cmp_str "tide: no configuration ${SQ}nosuch${SQ} in world/trees.conf (it declares: smoke, up, defmod, arm64), and no fragment file of that name" err &&
	test_must_fail --status=2 tide -C ws -f world/trees.conf build --config up --fragment kt/smoke.config >out 2>err &&
	head -n 1 err >actual &&
	test_cmp_str "tide: --config and --fragment exclude each other" actual
'

# A QEMU that passes every boot, saying which kernel and -smp it got in
# qemu.args, so tide boot --config can be checked without booting.
fake_qemu() {
	mkdir -p qemu &&
	cat >qemu/qemu-system-x86_64 <<-END &&
	#!/bin/sh
	test "\$1" = --version && { echo "QEMU emulator version 0 (fake)"; exit 0; }
	printf "%s\n" "\$@" >"$TRASH/qemu.args"
	printf "Linux version 0 (fake)\nKTAP version 1\n1..1\nok 1 fake\n"
	END
	chmod 755 qemu/qemu-system-x86_64
}

# The -kernel and -smp tide gave the fake QEMU, the initramfs's /config.
qemu_got() {
	k=$(sed -n "/^-kernel$/{n;p}" qemu.args) &&
	n=$(sed -n "/^-smp$/{n;p}" qemu.args) &&
	echo "-kernel ${k#$TRASH/} -smp $n"
}

boot_fake() {
	PATH="$TRASH/qemu:$PATH" TIDE_GUEST_INIT="$TOP/kernel-tests/init" "$TIDE_BIN" "$@"
}

test_expect_success 'tide boot --config NAME boots that configuration: its kernel, smp=, console and record' '
	fake_qemu &&
	test "$(day_field 2026-01-08 "d[\"build\"][\"config\"]")" = up &&
	boot_fake -C ws -f world/trees.conf boot --config up --accel tcg 2026-01-08 >out &&
	sed "s/([0-9.]* s,/(T s,/" out >actual &&
	cat >expect <<-END &&
	config: up (x86_64)
	boot: passed (T s, tcg, 1 CPUs): 1 passed, 0 failed, 0 skipped
	console: $TRASH/ws/days/2026-01-08/console.log
	END
	test_cmp expect actual &&
	qemu_got >actual &&
	echo "-kernel ws/build/out-up/arch/x86/boot/bzImage -smp 1" >expect &&
	test_cmp expect actual &&
	day_field 2026-01-08 "d[\"boot\"][\"status\"], d[\"boot\"][\"console\"]" >actual &&
	echo "passed console.log" >expect &&
	test_cmp expect actual &&
	grep -qx "ok 1 fake" ws/days/2026-01-08/console.log &&
	grep -q "boot 2026-01-08 (up): passed" ws/tide.log &&
	if command -v cpio >/dev/null; then
		img=$(sed -n "/^-initrd$/{n;p}" qemu.args) &&
		cpio -i --quiet --to-stdout config <"$img" >cfg &&
		test_cmp ws/build/out-up/.config cfg
	fi
'

test_expect_success 'boot --config: another configuration'"'"'s record and console.NAME.log; boot=no boots when asked; --smp wins' '
	day_field 2026-01-07 "d[\"boot\"]" >boot.before &&
	test "$(day_field 2026-01-07 "\"boot\" in d[\"configs\"][1]")" = False &&
	boot_fake -C ws -f world/trees.conf boot --config defmod --accel tcg --smp 2 2026-01-07 >out &&
	qemu_got >actual &&
	echo "-kernel ws/build/out-defmod/arch/x86/boot/bzImage -smp 2" >expect &&
	test_cmp expect actual &&
	day_field 2026-01-07 "d[\"configs\"][1][\"name\"], d[\"configs\"][1][\"boot\"][\"status\"], d[\"configs\"][1][\"boot\"][\"console\"]" >actual &&
	echo "defmod passed console.defmod.log" >expect &&
	test_cmp expect actual &&
	grep -qx "ok 1 fake" ws/days/2026-01-07/console.defmod.log &&
	day_field 2026-01-07 "d[\"boot\"]" >boot.after &&
	test_cmp boot.before boot.after &&
	boot_fake -C ws -f world/trees.conf boot --config smoke --accel tcg 2026-01-07 >out &&
	qemu_got >actual &&
	echo "-kernel ws/build/out/arch/x86/boot/bzImage -smp 4" >expect &&
	test_cmp expect actual &&
	day_field 2026-01-07 "d[\"boot\"][\"status\"], d[\"boot\"][\"console\"]" >actual &&
	echo "passed console.log" >expect &&
	test_cmp expect actual
'

test_expect_success 'boot --config arm64: its arch'"'"'s QEMU, machine, CPU, image and guest program' '
	cp qemu/qemu-system-x86_64 qemu/qemu-system-aarch64 &&
	printf "#!/bin/sh\n" >kt/init.arm64 && chmod 755 kt/init.arm64 &&
	boot_fake -C ws -f world/trees.conf boot --config arm64 2026-01-08 >out &&
	sed "s/([0-9.]* s,/(T s,/" out >actual &&
	cat >expect <<-END &&
	config: arm64 (arm64)
	boot: passed (T s, tcg, 4 CPUs): 1 passed, 0 failed, 0 skipped
	accel: tcg, an arm64 guest on an x86_64 host
	console: $TRASH/ws/days/2026-01-08/console.arm64.log
	END
	test_cmp expect actual &&
	qemu_got >actual &&
	echo "-kernel ws/build/out-arm64/arch/arm64/boot/Image -smp 4" >expect &&
	test_cmp expect actual &&
	sed -n "/^-M$/{n;p}; /^-cpu$/{n;p}" qemu.args >actual &&
	printf "virt\ncortex-a57\n" >expect &&
	test_cmp expect actual &&
	day_field 2026-01-08 "d[\"configs\"][0][\"name\"], d[\"configs\"][0][\"boot\"][\"status\"], d[\"configs\"][0][\"boot\"][\"console\"]" >actual &&
	echo "arm64 passed console.arm64.log" >expect &&
	test_cmp expect actual
'

test_expect_success 'boot --config: an unknown name, a build that failed, one never built: exit 3' '
	test_must_fail --status=3 boot_fake -C ws -f world/trees.conf boot --config nosuch 2026-01-07 >out 2>err &&
	echo "tide: no configuration '"'"'nosuch'"'"' in world/trees.conf (it declares: smoke, up, defmod, arm64)" >expect &&
	test_cmp expect err &&
	test_must_fail --status=3 boot_fake -C ws -f world/trees.conf boot --config defmod 2026-01-03 >out 2>err &&
	echo "tide: no kernel built for 2026-01-03: its build failed: run '"'"'tide build --config defmod 2026-01-03'"'"' first" >expect &&
	test_cmp expect err &&
	test "$(day_field 2026-01-03 "\"boot\" in d[\"configs\"][1]")" = False &&
	cp world/trees.conf trees.conf.saved &&
	echo "#tide	config	late	base=tinyconfig	fragment=../kt/smoke.config" >>world/trees.conf &&
	test_must_fail --status=3 boot_fake -C ws -f world/trees.conf boot --config late 2026-01-06 >out 2>err &&
	cp trees.conf.saved world/trees.conf &&
	echo "tide: no build of configuration '"'"'late'"'"' for 2026-01-06: run '"'"'tide build --config late 2026-01-06'"'"' first" >expect &&
	test_cmp expect err &&
	test_must_fail --status=2 boot_fake -C ws boot --config up --console c.log 2>err &&
	grep -qx "tide: --console goes with --kernel" err
'

test_expect_success 'boot --kernel FILE --config FILE: the .config of that kernel, as before' '
	boot_fake boot --kernel ws/build/out-up/arch/x86/boot/bzImage --config world/up.config \
		--accel tcg --console c.log >out &&
	sed "s/([0-9.]* s,/(T s,/" out >actual &&
	cat >expect <<-END &&
	boot: passed (T s, tcg, 1 CPUs): 1 passed, 0 failed, 0 skipped
	smp: 4 CPUs asked, 1 used: the kernel has CONFIG_SMP unset
	console: c.log
	END
	test_cmp expect actual &&
	qemu_got >actual &&
	echo "-kernel ws/build/out-up/arch/x86/boot/bzImage -smp 1" >expect &&
	test_cmp expect actual
'

test_done
