#!/bin/sh
# Build configurations in trees.conf ("#tide<TAB>config<TAB>NAME<TAB>key=value"):
# what tide trees shows of them, what this machine lacks for each, and
# every error the parser gives, each whole.
. "$(dirname "$0")/lib.sh"

# tide with only the fake tools of bin/ (or of $1) in PATH.
tide_path() {
	dir=$1 && shift &&
	env PATH="$TRASH/$dir" TIDE_KERNEL_TESTS="$TRASH/kt" "$TIDE_BIN" "$@"
}

test_expect_success 'setup: fragments, and tools in bin/ and none in empty/' '
	mkdir -p frag kt bin empty &&
	echo "CONFIG_PRINTK=y" >frag/smoke.config &&
	echo "CONFIG_SMP=n" >frag/up.config &&
	echo "CONFIG_MODULES=y" >frag/mod.config &&
	echo "CONFIG_PRINTK=y" >kt/smoke.config &&
	for t in qemu-system-x86_64 qemu-system-aarch64 aarch64-linux-gnu-gcc; do
		printf "#!/bin/sh\n" >bin/$t && chmod 755 bin/$t || exit 1
	done
'

test_expect_success 'without configurations: the default smoke, as tide build and boot run it today' '
	printf "a\tgit\tx#b\n" >trees.conf &&
	tide_path bin trees >actual &&
	cat >expect <<-END &&
	a     git    x    b
	config smoke  x86_64  tinyconfig  $TRASH/kt/smoke.config  boot pc
	END
	test_cmp expect actual
'

test_expect_success 'declared configurations, one line each after the trees' '
	printf "%s\n" "a	git	x#b" \
		"#tide	config	smoke	base=tinyconfig	fragment=frag/smoke.config	boot=yes" \
		"#tide	config	up	base=tinyconfig	fragment=frag/smoke.config	fragment=frag/up.config	boot=yes	smp=1" \
		"#tide	config	defmod	base=defconfig	fragment=frag/mod.config" \
		"#tide	config	arm64	arch=arm64	base=defconfig	fragment=frag/smoke.config	boot=yes	smp=2	w1=yes	sparse=yes" \
		"#tide	config	q35	arch=x86_64	base=frag/mod.config	boot=yes	machine=q35	cpu=max	w1=no	sparse=no" \
		>trees.conf &&
	tide_path bin trees >actual &&
	cat >expect <<-\END &&
	a     git    x    b
	config smoke   x86_64  tinyconfig       frag/smoke.config                 boot pc
	config up      x86_64  tinyconfig       frag/smoke.config,frag/up.config  boot pc smp 1
	config defmod  x86_64  defconfig        frag/mod.config                   no boot
	config arm64   arm64   defconfig        frag/smoke.config                 boot virt cpu cortex-a57 smp 2 W=1 C=1
	config q35     x86_64  frag/mod.config  -                                 boot q35 cpu max
	END
	test_cmp expect actual
'

test_expect_success 'a configuration this machine cannot run is marked, the others are not' '
	tide_path empty trees >actual &&
	cat >expect <<-\END &&
	a     git    x    b
	config smoke   x86_64  tinyconfig       frag/smoke.config                 boot pc  ! '"'"'qemu-system-x86_64'"'"' not found in PATH (Debian package qemu-system-x86)
	config up      x86_64  tinyconfig       frag/smoke.config,frag/up.config  boot pc smp 1  ! '"'"'qemu-system-x86_64'"'"' not found in PATH (Debian package qemu-system-x86)
	config defmod  x86_64  defconfig        frag/mod.config                   no boot
	config arm64   arm64   defconfig        frag/smoke.config                 boot virt cpu cortex-a57 smp 2 W=1 C=1  ! '"'"'aarch64-linux-gnu-gcc'"'"' not found in PATH (Debian package gcc-aarch64-linux-gnu)
	config q35     x86_64  frag/mod.config  -                                 boot q35 cpu max  ! '"'"'qemu-system-x86_64'"'"' not found in PATH (Debian package qemu-system-x86)
	END
	test_cmp expect actual &&
	rm bin/qemu-system-aarch64 &&
	tide_path bin trees >actual &&
	grep "^config arm64 " actual >line &&
	echo "config arm64   arm64   defconfig        frag/smoke.config                 boot virt cpu cortex-a57 smp 2 W=1 C=1  ! '"'"'qemu-system-aarch64'"'"' not found in PATH (Debian package qemu-system-arm)" >expect &&
	test_cmp expect line &&
	printf "#!/bin/sh\n" >bin/qemu-system-aarch64 && chmod 755 bin/qemu-system-aarch64
'

test_expect_success 'a missing fragment or base file marks its configuration only' '
	printf "%s\n" "a	git	x#b" \
		"#tide	config	ok	base=tinyconfig	fragment=frag/smoke.config" \
		"#tide	config	nofrag	base=tinyconfig	fragment=frag/smoke.config	fragment=frag/gone.config" \
		"#tide	config	nobase	base=defconfg" \
		"#tide	config	dir	base=tinyconfig	fragment=frag" \
		>trees.conf &&
	tide_path bin trees >actual &&
	cat >expect <<-\END &&
	a     git    x    b
	config ok      x86_64  tinyconfig  frag/smoke.config                   no boot
	config nofrag  x86_64  tinyconfig  frag/smoke.config,frag/gone.config  no boot  ! fragment '"'"'frag/gone.config'"'"': no such file
	config nobase  x86_64  defconfg    -                                   no boot  ! base '"'"'defconfg'"'"': no such file
	config dir     x86_64  tinyconfig  frag                                no boot  ! fragment '"'"'frag'"'"' is a directory
	END
	test_cmp expect actual
'

test_expect_success 'trees --json: every field of a configuration, and its problem' '
	tide_path empty trees --json >json &&
	python3 -c "
import json, os
d = json.load(open(\"json\"))
c = {x[\"name\"]: x for x in d[\"configs\"]}
assert list(c) == [\"ok\", \"nofrag\", \"nobase\", \"dir\"], c
assert c[\"ok\"] == {\"name\": \"ok\", \"arch\": \"x86_64\", \"base\": \"tinyconfig\",
	\"base_path\": None,
	\"fragments\": [{\"file\": \"frag/smoke.config\",
		\"path\": os.getcwd() + \"/frag/smoke.config\"}],
	\"boot\": False, \"machine\": \"pc\", \"cpu\": None, \"smp\": 0, \"w1\": False,
	\"sparse\": False, \"line\": 2, \"problem\": None}, c[\"ok\"]
assert c[\"nobase\"][\"base_path\"] == os.getcwd() + \"/defconfg\", c
assert c[\"nofrag\"][\"problem\"] == \"fragment '"'"'frag/gone.config'"'"': no such file\", c
"
'

# bad TEXT MESSAGE: tide trees refuses TEXT with exactly "tide: bad.conf:MESSAGE", exit 3.
bad() {
	printf "$1" >bad.conf &&
	test_must_fail --status=3 tide -f bad.conf trees 2>err &&
	printf "%s\n" "tide: bad.conf:$2" >expect &&
	test_cmp expect err
}

test_expect_success 'each bad configuration line: one line naming file and line, exit 3' '
	C="#tide\tconfig\t" &&
	bad "a\tgit\tx\n${C}x\tbase=tinyconfig\tcolour=red\n" \
		"2: config '"'x'"': unknown key '"'colour'"' (arch, base, fragment, boot, machine, cpu, smp, w1 or sparse)" &&
	bad "${C}x\tbase=tinyconfig\tboot\n" "1: config '"'x'"': '"'boot'"' is not KEY=VALUE" &&
	bad "${C}a~b\tbase=tinyconfig\n" \
		"1: '"'a~b'"' is not a valid configuration name (printable ASCII, one git reference component)" &&
	bad "${C}x\tbase=tinyconfig\n\n${C}x\tbase=defconfig\n" "3: duplicate configuration name '"'x'"'" &&
	bad "#tide\tconfig\n" "1: '"'#tide<TAB>config'"' line needs a configuration name" &&
	bad "${C}x\tarch=riscv\tbase=tinyconfig\n" "1: config '"'x'"': unknown arch '"'riscv'"' (x86_64 or arm64)" &&
	bad "${C}x\tarch=arm64\n" "1: config '"'x'"': no base= (tinyconfig, defconfig or allnoconfig, or a file)" &&
	bad "${C}x\tbase=tinyconfig\tbase=defconfig\n" "1: config '"'x'"': base given twice" &&
	bad "${C}x\tbase=tinyconfig\tfragment=\n" "1: config '"'x'"': empty fragment" &&
	bad "${C}x\tbase=tinyconfig\tboot=true\n" "1: config '"'x'"': bad boot '"'true'"' (yes or no)" &&
	bad "${C}x\tbase=tinyconfig\tw1=1\n" "1: config '"'x'"': bad w1 '"'1'"' (yes or no)" &&
	bad "${C}x\tbase=tinyconfig\tsparse=on\n" "1: config '"'x'"': bad sparse '"'on'"' (yes or no)" &&
	bad "${C}x\tbase=tinyconfig\tsmp=0\n" "1: config '"'x'"': bad smp '"'0'"' (a whole number of CPUs, 1 to 512)" &&
	bad "${C}x\tbase=tinyconfig\tsmp=513\n" "1: config '"'x'"': bad smp '"'513'"' (a whole number of CPUs, 1 to 512)" &&
	bad "${C}x\tbase=tinyconfig\tsmp=four\n" "1: config '"'x'"': bad smp '"'four'"' (a whole number of CPUs, 1 to 512)" &&
	bad "a\tgit\tx\nconfig\tgit\ty\n" "2: '"'config'"' is reserved, not a tree name"
'

test_done
