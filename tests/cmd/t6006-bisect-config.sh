#!/bin/sh
# tide bisect --config NAME on a fake kernel (lib-world.sh): the kernel
# checks build (and boot) a configuration trees.conf declares, in its
# own O= directory, and the state keeps its name so that continue builds
# the same one.  The fake kernel compiles with -DUP when the .config says
# "# CONFIG_SMP is not set"; one gpio commit breaks only that build.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt

# Each compile runs $TIDE_TEST_HOOK FILE.c first when it is set.
RECIPE='$(if $(TIDE_TEST_HOOK),sh $(TIDE_TEST_HOOK) $< &&) $(CC) -Wall $(if $(shell grep -s "CONFIG_SMP is not set" $(O)/.config),-DUP) -c $(CURDIR)/$< -o $@'

# The result without its time.
result() {
	sed "s/time: [0-9.]*s$/time: T/" "$1"
}

test_expect_success 'setup: a fake kernel, trees net and gpio, configurations smoke and up, a day' '
	mkdir -p kt &&
	printf "CONFIG_GPIO=y\n" >kt/smoke.config &&
	fake_kernel_source world/mainline "$RECIPE" &&
	echo "int m(void) { return 0; }" >world/mainline/m.c &&
	commit_fake_mainline &&
	make_tree net net1.c "int net1(void) { return 0; }" &&
	commit_file world/net net2.c "int net2(void) { return 0; }" &&
	make_tree gpio g1.c "int g1(void) { return 0; }" &&
	commit_file world/gpio g2.c "int g2(void) { return 0; }" &&
	commit_file world/gpio g3.c "#ifdef UP
#error gpio needs SMP
#endif
int g3(void) { return 0; }" "gpio: g3, SMP only" &&
	commit_file world/gpio g4.c "int g4(void) { return 0; }" &&
	printf "# CONFIG_SMP is not set\n" >world/up.config &&
	conf "net git net#for-next" "gpio git gpio#for-next" &&
	printf "%s\n" \
		"#tide	config	smoke	base=tinyconfig	fragment=../kt/smoke.config" \
		"#tide	config	up	base=tinyconfig	fragment=../kt/smoke.config	fragment=up.config	smp=1" \
		"#tide	config	one	base=tinyconfig	fragment=../kt/smoke.config	smp=1	boot=no" \
		"#tide	config	arm64	arch=arm64	base=defconfig" \
		>>world/trees.conf &&
	tide -C ws -f world/trees.conf run --no-build --no-boot --date 2026-02-01 >out 2>err
'

test_expect_success 'bisect --config up builds the up configuration in its O= and finds the commit' '
	culprit=$(git -C world/gpio rev-parse HEAD~1) &&
	tide -C ws bisect 2026-02-01 --config up >out 2>err &&
	result out >actual &&
	cat >expect <<-END &&
	tree: gpio
	first bad commit: $culprit gpio: g3, SMP only
	confirmed: the day passes with it reverted
	steps: 8 (bound 9), builds: 8, runs: 8, time: T
	END
	test_cmp expect actual &&
	test -f ws/build/out-up/arch/x86/boot/bzImage &&
	grep -q "^# CONFIG_SMP is not set$" ws/build/out-up/.config &&
	test ! -e ws/build/out &&
	python3 -c "import json; print(json.load(open(\"ws/bisect/state.json\"))[\"check\"])" >actual &&
	echo "{'"'"'kind'"'"': '"'"'build'"'"', '"'"'arg'"'"': None, '"'"'config'"'"': '"'"'up'"'"'}" >expect &&
	test_cmp expect actual &&
	test "$(day_field 2026-02-01 "d[\"bisect\"][\"check\"][\"config\"]")" = up &&
	tide -C ws bisect status >st &&
	grep -qx "check: --build --config up" st &&
	tide -C ws show 2026-02-01 >show &&
	grep -q "^bisect  --build --config up: found gpio " show
'

test_expect_success 'the same day without --config builds the smoke fragment: nothing to bisect' '
	test_must_fail --status=6 tide -C ws bisect 2026-02-01 >out 2>err &&
	result out >actual &&
	cat >expect <<-\END &&
	nothing to bisect: 2026-02-01 passes the check
	steps: 1 (bound 2), builds: 1, runs: 1, time: T
	END
	test_cmp expect actual &&
	test -f ws/build/out/arch/x86/boot/bzImage &&
	tide -C ws bisect status >st &&
	grep -qx "check: --build" st
'

test_expect_success 'bisect --config: an unknown name exits 3 listing the declared ones; with --cmd a usage error' '
	test_must_fail --status=3 tide -C ws bisect 2026-02-01 --config nosuch >out 2>err &&
	echo "tide: no configuration '"'"'nosuch'"'"' in $TRASH/world/trees.conf (it declares: smoke, up, one, arm64)" >expect &&
	test_cmp expect err &&
	test_must_fail --status=2 tide -C ws bisect 2026-02-01 --cmd true --config up 2>err &&
	test_cmp_str "tide: --config goes with --build, --boot or --test (--cmd builds nothing)" err &&
	test_must_fail --status=2 tide -C ws bisect continue --config up 2>err
'

# A QEMU whose guest panics when the state built has g4.c (the fake
# kernel's image is not relinked when a source goes away, so the checkout
# tells); each call's -kernel and -smp are appended to qemu.calls.
fake_qemu() {
	mkdir -p qemu &&
	cat >qemu/qemu-system-x86_64 <<-END &&
	#!/bin/sh
	test "\$1" = --version && { echo "QEMU emulator version 0 (fake)"; exit 0; }
	k=\$(printf "%s\n" "\$@" | sed -n "/^-kernel\$/{n;p}")
	n=\$(printf "%s\n" "\$@" | sed -n "/^-smp\$/{n;p}")
	echo "-kernel \${k#$TRASH/} -smp \$n" >>"$TRASH/qemu.calls"
	echo "Linux version 0 (fake)"
	test -f "$TRASH/ws/build/src/g4.c" && echo "Kernel panic - not syncing: g4"
	printf "KTAP version 1\n1..1\nok 1 fake\n"
	END
	chmod 755 qemu/qemu-system-x86_64
}

test_expect_success 'bisect --boot --config boots that configuration'"'"'s kernel with its smp=' '
	fake_qemu &&
	culprit=$(git -C world/gpio rev-parse HEAD) &&
	PATH="$TRASH/qemu:$PATH" TIDE_GUEST_INIT="$TOP/kernel-tests/init" \
		tide -C ws bisect 2026-02-01 --boot --config one >out 2>err &&
	result out >actual &&
	cat >expect <<-END &&
	tree: gpio
	first bad commit: $culprit change g4.c
	confirmed: the day passes with it reverted
	steps: 8 (bound 9), builds: 8, runs: 8, time: T
	END
	test_cmp expect actual &&
	sort -u qemu.calls >actual &&
	echo "-kernel ws/build/out-one/arch/x86/boot/bzImage -smp 1" >expect &&
	test_cmp expect actual &&
	test "$(wc -l <qemu.calls)" = 8 &&
	tide -C ws bisect status >st &&
	grep -qx "check: --boot --config one" st
'

# Kills tide (SIGKILL, no cleanup) when g3.c is compiled the second time.
cat >"$TRASH/kill.sh" <<EOF
test "\$1" = g3.c || exit 0
n=\$(cat "$TRASH/count" 2>/dev/null || echo 0)
echo \$((n + 1)) >"$TRASH/count"
test \$n = 1 && kill -9 \$(cat "$TRASH/tide.pid")
exit 0
EOF

test_expect_success 'a bisect --config killed half-way continues with the same configuration' '
	culprit=$(git -C world/gpio rev-parse HEAD~1) &&
	rm -f count &&
	{ TIDE_TEST_HOOK=$TRASH/kill.sh sh -c "echo \$\$ >tide.pid; exec \"$TIDE_BIN\" -C ws bisect 2026-02-01 --config up" >out 2>err
	  echo $? >rc; } &&
	test "$(cat rc)" = 137 &&
	tide -C ws bisect status >st &&
	grep -qx "check: --build --config up" st &&
	grep -q "^status: interrupted" st &&
	steps=$(grep -c "^step" st) &&
	test "$steps" -gt 0 &&
	tide -C ws bisect continue >out 2>err &&
	result out >actual &&
	cat >expect <<-END &&
	tree: gpio
	first bad commit: $culprit gpio: g3, SMP only
	confirmed: the day passes with it reverted
	steps: 8 (bound 9), builds: $((8 - steps)), runs: $((8 - steps)), time: T
	END
	test_cmp expect actual &&
	test "$(grep -c "(recorded)" err)" = "$steps"
'

test_expect_success 'continue with the configuration no longer declared: exit 3, the state kept' '
	rm -f count &&
	{ TIDE_TEST_HOOK=$TRASH/kill.sh sh -c "echo \$\$ >tide.pid; exec \"$TIDE_BIN\" -C ws bisect 2026-02-01 --config up" >out 2>err
	  echo $? >rc; } &&
	test "$(cat rc)" = 137 &&
	sed -i "/config	up	/d" world/trees.conf &&
	test_must_fail --status=3 tide -C ws bisect continue >out 2>err &&
	echo "tide: no configuration '"'"'up'"'"' in $TRASH/world/trees.conf (it declares: smoke, one, arm64)" >expect &&
	test_cmp expect err &&
	tide -C ws bisect status >st &&
	grep -q "^status: interrupted" st
'

test_done
