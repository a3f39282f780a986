#!/bin/sh
# tide boot: arguments, errors, and the day record, with real QEMU but no
# real kernel (a file QEMU refuses is the "no-output" outcome).  Booting
# real kernels is integration/tests/t4001-boot.sh.
. "$(dirname "$0")/lib.sh"

have_qemu() { command -v qemu-system-x86_64 >/dev/null 2>&1; }

# A workspace with one day whose "kernel" is not a kernel.
make_ws() {
	git init -q --bare ws/repo.git &&
	mkdir -p ws/days/2026-12-01 ws/build/out/arch/x86/boot &&
	printf '%s\n' '{"version": 1, "date": "2026-12-01", "tag": "next-20261201",' \
		'"status": "complete", "trees": [], "build": {"status": "ok"}}' \
		> ws/days/2026-12-01/day.json &&
	cp /bin/true ws/build/out/arch/x86/boot/bzImage &&
	echo 'CONFIG_GPIO_SIM=y' > ws/build/out/.config
}

test_expect_success 'usage matches the man page synopsis' '
	tide boot -h > out &&
	grep -q "^usage: tide boot \[DAY\] \[--config NAME\] \[--smp N\] \[--timeout S\]" out &&
	grep -q "tide boot --kernel FILE \[--config FILE\]" out &&
	grep -q "^\.B tide boot" "$TOP/man/tide-boot.1" &&
	for opt in smp timeout accel append init json kernel config console; do
		grep -q -- "--$opt" out &&
		grep -q -- "-$opt" "$TOP/man/tide-boot.1" || { echo "missing $opt"; exit 1; }
	done
'

test_expect_success 'bad options are usage errors' '
	test_must_fail --status=2 tide boot --smp 0 --kernel x 2>err &&
	head -n 1 err >actual &&
	test_cmp_str "tide: --smp wants a positive number up to 64, not '\''0'\''" actual &&
	test_must_fail --status=2 tide boot --accel xen --kernel x 2>err &&
	head -n 1 err >actual &&
	test_cmp_str "tide: --accel wants auto, tcg or kvm, not '\''xen'\''" actual &&
	test_must_fail --status=2 tide boot 2026-12-01 --kernel x 2>err &&
	test_must_fail --status=2 tide boot --console c.log 2>err &&
	test_must_fail --status=2 tide boot 2>err &&
	test_cmp_str "tide: no workspace: give -C DIR or set TIDE_DIR (or use --kernel FILE)" err
'

test_expect_success 'a missing kernel is bad input naming the file' '
	test_must_fail --status=3 tide boot --kernel /nonexistent/bzImage 2>err &&
	test_cmp_str "tide: boot: no kernel image '\''/nonexistent/bzImage'\''" err
'

test_expect_success 'missing QEMU names the Debian package' '
	mkdir -p emptybin &&
	ln -sf "$(command -v git)" emptybin/git &&
	PATH=$TRASH/emptybin test_must_fail --status=4 "$TIDE_BIN" boot --kernel /bin/true 2>err &&
	test_cmp_str "tide: boot: '\''qemu-system-x86_64'\'' not found: install the Debian package qemu-system-x86" err
'

test_expect_success 'no guest program is a tool failure' '
	TIDE_GUEST_INIT=/nonexistent/init test_must_fail --status=4 tide boot --kernel /bin/true 2>err &&
	test_cmp_str "tide: boot: no guest program: build kernel-tests (make) or set TIDE_GUEST_INIT" err
'

if have_qemu; then
test_expect_success 'a file QEMU refuses is the no-output outcome, with QEMU saying why' '
	test_must_fail --status=1 tide boot --accel tcg --kernel /bin/true --console c.log > out &&
	grep -q "^boot: no-output: the kernel printed nothing (QEMU exited 1: " out &&
	test -f c.log
'

test_expect_success 'a day: the record gets "boot", the day its console.log' '
	make_ws &&
	cp ws/days/2026-12-01/day.json before.json &&
	test_must_fail --status=1 tide -C ws boot --accel tcg > out &&
	grep -q "^boot: no-output" out &&
	test -f ws/days/2026-12-01/console.log &&
	python3 - ws/days/2026-12-01/day.json <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	b = d["boot"]
	assert b["status"] == "no-output", b
	assert b["console"] == "console.log"
	assert b["accel"] == "tcg" and b["smp"] == 4
	assert b["tests"] == [] and b["counts"]["fail"] == 0
	assert d["build"] == {"status": "ok"}, "other keys are kept"
	EOF
	ls ws/build/initramfs/*.cpio > images1 &&
	test_must_fail --status=1 tide -C ws boot 2026-12-01 --accel tcg --json > out.json &&
	python3 -c "import json,sys; assert json.load(open(\"out.json\"))[\"status\"] == \"no-output\"" &&
	ls ws/build/initramfs/*.cpio > images2 &&
	cmp images1 images2
'

test_expect_success '--smp above the kernel config NR_CPUS is capped, and says so' '
	printf "CONFIG_SMP=y\nCONFIG_NR_CPUS=2\n" >nr2.config &&
	test_must_fail --status=1 tide boot --accel tcg --kernel /bin/true --config nr2.config \
		--smp 16 >out &&
	grep -q "^boot: no-output: .* (.* s, tcg, 2 CPUs): 0 passed" out &&
	grep -qx "smp: 16 CPUs asked, 2 used: the kernel has CONFIG_NR_CPUS=2" out &&
	test_must_fail --status=1 tide boot --accel tcg --kernel /bin/true --config nr2.config \
		--smp 16 --json >out.json &&
	python3 -c "import json,sys; b = json.load(open(\"out.json\")); assert b[\"smp\"] == 2 and \"tide.smp=2\" in b[\"cmdline\"], b" &&
	printf "# CONFIG_SMP is not set\n" >up.config &&
	test_must_fail --status=1 tide boot --accel tcg --kernel /bin/true --config up.config >out &&
	grep -qx "smp: 4 CPUs asked, 1 used: the kernel has CONFIG_SMP unset" out &&
	test_must_fail --status=1 tide boot --accel tcg --kernel /bin/true --config nr2.config \
		--smp 2 >out &&
	! grep -q "^smp:" out
'

test_expect_success 'the initramfs follows the kernel config' '
	echo "# CONFIG_GPIO_SIM is not set" > ws/build/out/.config &&
	test_must_fail --status=1 tide -C ws boot --accel tcg > out &&
	test $(ls ws/build/initramfs/*.cpio | wc -l) = 2 &&
	img=$(ls -t ws/build/initramfs/*.cpio | head -n 1) &&
	if command -v cpio >/dev/null; then
		cpio -i --quiet --to-stdout config < "$img" > cfg &&
		grep -q "CONFIG_GPIO_SIM is not set" cfg
	fi
'
else
	test_skip 'the boots under QEMU (4 tests)' 'qemu-system-x86_64 is not installed: make deps'
fi

test_expect_success 'an unknown day, or one without a kernel, is bad input' '
	make_ws 2>/dev/null || true &&
	test_must_fail --status=3 tide -C ws boot 2026-11-30 2>err &&
	test_cmp_str "tide: no day record '\''$TRASH/ws/days/2026-11-30/day.json'\''" err &&
	test_must_fail --status=3 tide -C ws boot 2026-13-45 2>err &&
	rm ws/build/out/arch/x86/boot/bzImage &&
	test_must_fail --status=3 tide -C ws boot 2>err &&
	test_cmp_str "tide: no kernel built for 2026-12-01: run '\''tide build 2026-12-01'\'' first" err
'

test_expect_success 'the kernel the day built, no other: a failed build, or an image a later build replaced' '
	rm -rf ws && make_ws &&
	k=$TRASH/ws/build/out/arch/x86/boot/bzImage &&
	day=ws/days/2026-12-01/day.json &&
	python3 - "$day" "$k" "0000000000000000000000000000000000000000000000000000000000000000" <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["build"] = {"status": "ok", "kernel": sys.argv[2], "kernel_sha256": sys.argv[3]}
	json.dump(d, open(sys.argv[1], "w"))
	EOF
	test_must_fail --status=3 tide -C ws boot 2>err &&
	echo "tide: no kernel built for 2026-12-01: $k is another build'"'"'s now: run '"'"'tide build 2026-12-01'"'"' first" >want &&
	test_cmp want err &&
	python3 - "$day" <<-\EOF &&
	import json, sys
	d = json.load(open(sys.argv[1]))
	d["build"] = {"status": "failed", "failure": "make failed (exit status 2)", "kernel": None}
	json.dump(d, open(sys.argv[1], "w"))
	EOF
	test_must_fail --status=3 tide -C ws boot 2>err &&
	echo "tide: no kernel built for 2026-12-01: its build failed: run '"'"'tide build 2026-12-01'"'"' first" >want &&
	test_cmp want err
'

test_done
