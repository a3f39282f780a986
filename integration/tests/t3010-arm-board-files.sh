#!/bin/sh
# The board files that call the legacy GPIO number interface build with
# the gpio series.  On v6.1.192 + the series, 29 defconfigs are made
# with Debian 12's cross compilers: 12 arm (arm-linux-gnueabi-gcc), 6
# mips (mips-linux-gnu-gcc), 9 sh (sh4-linux-gnu-gcc), 1 m68k
# (m68k-linux-gnu-gcc) and 1 powerpc (powerpc-linux-gnu-gcc), each with
# the boards that legacy-callers lists in its arch directories turned on
# (and, for arm, UNUSED_BOARD_FILES, which 6.1 puts most board files
# behind): the option must be on, the directories of the board callers
# the configuration sets must build, and so must the callers under
# drivers/ and sound/ that it builds (kbuild's dry run of their
# directories names them), compiled one by one.  Together the
# configurations must compile every caller under arch/arm (104),
# arch/mips (7), arch/sh (11), arch/m68k (3, two of them headers, which
# count when an object was compiled with them) and arch/powerpc (1).
# The callers compiled, per configuration and in all, go to
# $TIDE_MEASURE/arm-board-files.txt.  The check is shown to fail: with
# an architecture's select patch left out, nothing turns the option on
# and a board directory does not build ("implicit declaration of
# function 'gpio_request'"): arm's iop32x_defconfig (mach-iop32x), sh's
# migor_defconfig (mach-migor), mips' bcm47xx_defconfig (bcm47xx).  The
# two 32-bit x86 callers (OLPC XO-1 SCI, CS5535 audio's OLPC part) are
# built the same way for i386, and fail without the series' x86 and
# ALSA select patches.  make check-kernel-full only: about 8.5 minutes
# on 2 cores with a warm ccache, about 12 with the mips, sh, m68k and
# powerpc configurations' objects not in it (the arm ones cold add 2).
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-series.sh"
# Built as integration/build-kernel builds (ASCII messages, ccache);
# use() picks the architecture of each configuration.
series_kbuild "$TOP/work/arm-boards" arm

# ARCH:CROSS-PREFIX:DEFCONFIG:DIRS:EXTRA-SYMBOLS.  The boards of DIRS
# (comma-separated, under arch/<ARCH's directory>/) are turned on; the
# extra symbols are what some of them need besides (a family menu, a
# chip, a symbol the board symbol only selects).
# arm: mach-mmp's boards are ARMv5, which pxa168/pxa910_defconfig are
# not in 6.1; the Gumstix AM200EPD and AM300EPD boards are a choice:
# pxa_defconfig gets the last one, am200epdkit_defconfig (the same
# boards) AM200EPD.
# mips: the machine (AR7, BCM47XX, BCM63XX, Alchemy, TX49xx) is a
# choice, and so is the Alchemy board (MTX-1 or DB1xxx): one defconfig
# each (mtx1's alchemy turns both boards on; MIPS_MTX1 last settles
# it).  sh: a board depends on its CPU subtype, a choice: one defconfig
# per subtype (the three SH7724 boards in ecovec24_defconfig), and the
# SH-X3 setup is under kernel/cpu/sh4a.  powerpc: SGY_CTS1000 depends on
# CORENET_GENERIC.
A=arm:arm-linux-gnueabi- M=mips:mips-linux-gnu- S=sh:sh4-linux-gnu-
configs="
$A:pxa_defconfig:mach-pxa:ARCH_PXA_PALM,MACH_CENTRO,MACH_CORGI
$A:am200epdkit_defconfig:mach-pxa:GUMSTIX_AM200EPD
$A:omap1_defconfig:mach-omap1:
$A:davinci_all_defconfig:mach-davinci:ARCH_DAVINCI_DM355
$A:ep93xx_defconfig:mach-ep93xx:
$A:multi_v5_defconfig:mach-orion5x,mach-mmp:ARCH_MMP
$A:s3c2410_defconfig:mach-s3c:RFKILL
$A:s3c6400_defconfig:mach-s3c:MACH_SMARTQ5,MACH_SMARTQ7
$A:iop32x_defconfig:mach-iop32x:
$A:h3600_defconfig:mach-sa1100:
$A:omap2plus_defconfig:mach-omap2:
$A:mvebu_v7_defconfig:mach-mvebu:
$M:mtx1_defconfig:alchemy:MIPS_MTX1
$M:db1xxx_defconfig:alchemy/devboards:
$M:ar7_defconfig:ar7:
$M:bcm47xx_defconfig:bcm47xx:
$M:bcm63xx_defconfig:bcm63xx:
$M:rbtx49xx_defconfig:txx9:
$S:ecovec24_defconfig:boards:
$S:migor_defconfig:boards:
$S:ap325rxa_defconfig:boards:
$S:magicpanelr2_defconfig:boards:
$S:sh7757lcr_defconfig:boards:
$S:urquell_defconfig:boards:
$S:r7785rp_defconfig:boards:
$S:rsk7203_defconfig:boards:
$S:shx3_defconfig:kernel/cpu/sh4a:
m68k:m68k-linux-gnu-:m5208evb_defconfig:coldfire:
powerpc:powerpc-linux-gnu-:corenet32_smp_defconfig:platforms/85xx:
"
arches='arm mips sh m68k powerpc'

# use ARCH PREFIX: build for ARCH with the cross compiler PREFIXgcc
# (none: the host's); D is ARCH's directory under arch/.
use() {
	export ARCH=$1
	X=$2
	case $1 in i386|x86_64) D=x86 ;; *) D=$1 ;; esac
}

# unpack SPEC NAME...: a line of a table (ARCH:CROSS-PREFIX:...): use
# its architecture and compiler, arch names it, and the NAMEs get the
# rest of its fields.
unpack() {
	up_spec=$1
	shift
	IFS=: read -r arch up_x "$@" <<EOF
$up_spec
EOF
	use $arch $up_x
}

for x in $(echo "$configs" | cut -d: -f2 | sort -u); do
	command -v ${x}gcc >/dev/null ||
		{ echo "# ${x}gcc is not installed: run make deps"; t_failed=1; test_done; }
done
series_src "$C" || { t_failed=1; test_done; }
cd "$TRASH" || exit 1
kmake() { nice make -s -C "$C/src" CROSS_COMPILE=$X CC="ccache ${X}gcc" "$@"; }

# configure NAME DEFCONFIG DIRS EXTRAS: make $C/out/NAME/.config, the
# defconfig for $ARCH with the boards of DIRS (comma-separated, under
# arch/$D/) and EXTRAS on; the extras must have stayed on.
configure() {
	o=$C/out/$1
	{
		{
			test "$ARCH" = arm && echo UNUSED_BOARD_FILES
			for d in $(echo "$3" | tr , ' '); do
				grep "^arch/$D/$d/" callers | cut -d' ' -f2
			done | tr , '\n'
		} | sort -u
		# the extras last: one may settle a choice
		echo "$4" | tr , '\n'
	} | grep . | sed 's/.*/CONFIG_&=y/' >"boards-$1.config" &&
	rm -rf "$o" && mkdir -p "$o" &&
	kmake O="$o" "$2" >/dev/null &&
	kbuild_merge "$C/src" "$o" "$TRASH/boards-$1.config" >/dev/null &&
	kmake O="$o" olddefconfig >/dev/null &&
	for s in $(echo "$4" | tr , ' '); do
		grep -qx "CONFIG_$s=y" "$o/.config" || { echo "$1: CONFIG_$s did not stay on"; return 1; }
	done
}

# compiled OUT: the callers whose object OUT has, and the headers under
# arch/$D/ (m68k's gpio.h and mcfgpio.h) that an object of OUT's
# arch/$D/ was compiled with (kbuild's .cmd files list them).
compiled() {
	while read -r f s; do
		case $f in
		arch/$D/*.h) grep -rqsF --include='.*.cmd' "/$f" "$1/arch/$D" && echo "$f" ;;
		*) test -f "$1/${f%.c}.o" && echo "$f" ;;
		esac
	done <callers
	return 0
}
# set_callers OUT: the callers one of whose symbols OUT's configuration
# sets (y or m).
set_callers() {
	while read -r f s; do
		for y in $(echo "$s" | tr , ' '); do
			grep -Eq "^CONFIG_$y=[ym]$" "$1/.config" && { echo "$f"; break; }
		done
	done <callers
	return 0
}

# boarddirs SET DIRS: the directories of the .c callers under DIRS
# (comma-separated, under arch/$D/) that the file SET (set_callers'
# output) names.  Not DIRS themselves: kbuild enters arch/sh's boards/mach-*/ from
# arch/sh/Makefile, not from boards/, and a board directory may build
# its files unconditionally (obj-y), so one whose board is off would be
# built for a CPU it is not for.
boarddirs() {
	for d in $(echo "$2" | tr , ' '); do
		grep "^arch/$D/$d/[^ ]*\.c$" "$1"
	done | sed 's|[^/]*$||' | sort -u
}

# enabled OUT SET: the objects of the callers outside arch/ that OUT's
# configuration builds: of the .c callers it sets (the file SET,
# set_callers' output), those kbuild's dry run of their directories
# compiles (the symbols alone can name an object the configuration
# leaves out: sound/soc/soc-ac97.c is under SND_SOC but built only with
# SND_SOC_AC97_BUS).
enabled() {
	grep -v "^arch/" "$2" | sed -n "s/\.c$/.o/p" >candidates
	test -s candidates || return 0
	kmake O="$1" -n -k $(sed 's|[^/]*$||' candidates | sort -u) >dry-run 2>&1 &&
	grep -q -- "-o [^ ]*\.o" dry-run || { echo "$1: kbuild's dry run names no object" >&2; return 1; }
	grep -o -- "-o [^ ]*\.o" dry-run | cut -c4- | sort -u | grep -Fxf candidates || :
}

# build NAME TARGET...: make the targets in $C/out/NAME, -j2, niced; the
# first errors on failure.
build() {
	bo=$C/out/$1
	shift
	kmake O="$bo" -j2 -k "$@" >"build-$(basename "$bo").log" 2>&1 ||
		{ grep -E ': (error|fatal error):' "build-$(basename "$bo").log" | head -20; return 1; }
}

test_expect_success 'v6.1.192 + the gpio series; legacy-callers lists the arch callers' '
	series_apply "$C/src" gpio &&
	"$I/series/gpio/legacy-callers" "$C/src" >callers &&
	test $(grep -c "^arch/arm/" callers) -gt 100 &&
	for a in $arches; do grep -q "^arch/$a/" callers; done &&
	mkdir -p "$MEASURE" "$C/out" && : >"$MEASURE/arm-board-files.txt" &&
	rm -f "$C"/out/*.compiled
'

for spec in $configs; do
	unpack "$spec" cfg dirs extras
	test_expect_success "$arch $cfg with its boards builds the legacy callers it enables" '
		t0=$(date +%s) &&
		configure $cfg $cfg $dirs "$extras" &&
		o=$C/out/$cfg &&
		grep -qx CONFIG_GPIOLIB_LEGACY=y "$o/.config" &&
		set_callers "$o" >set-$cfg &&
		boarddirs set-$cfg $dirs >boarddirs-$cfg && test -s boarddirs-$cfg &&
		build $cfg $(cat boarddirs-$cfg) &&
		enabled "$o" set-$cfg >drivers-$cfg &&
		if [ -s drivers-$cfg ]; then build $cfg $(cat drivers-$cfg); fi &&
		compiled "$o" >compiled-$cfg &&
		grep "^arch/$D/" compiled-$cfg >arch-$cfg &&
		{ grep -v "^arch/" compiled-$cfg || :; } >others-$cfg &&
		n=$(wc -l <arch-$cfg) others=$(wc -l <others-$cfg) &&
		test $n -gt 0 && test $others = $(wc -l <drivers-$cfg) &&
		echo "$cfg: $n $ARCH callers compiled ($(sed "s|^arch/$D/||; s|/.*||" arch-$cfg | sort | uniq -c | awk "{printf \"%s%s %s\", s, \$2, \$1; s=\", \"}")), $others drivers/sound callers compiled, in $(($(date +%s) - t0)) s" |
			tee -a "$MEASURE/arm-board-files.txt" &&
		cat arch-$cfg others-$cfg >"$C/out/$cfg.compiled"
	'
done

for a in $arches; do
	test_expect_success "the configurations compile every $a caller" '
		grep "^arch/$a/" callers | cut -d" " -f1 | sort >arch &&
		cat "$C"/out/*.compiled | grep "^arch/$a/" | sort -u >done &&
		comm -23 arch done >left &&
		echo "in all: $(wc -l <done) of $(wc -l <arch) $a callers compiled; not compiled: $(if test -s left; then tr "\n" " " <left; else echo none; fi)" |
			tee -a "$MEASURE/arm-board-files.txt" &&
		test_cmp /dev/null left
	'
done
test_expect_success 'the configurations compile drivers/ and sound/ callers too' '
	cat "$C"/out/*.compiled | grep -v "^arch/" | sort -u >done &&
	echo "in all: $(wc -l <done) drivers/sound callers compiled" | tee -a "$MEASURE/arm-board-files.txt" &&
	test -s done
'

# without PATCH...: v6.1.192 + the gpio series but PATCH... in $C/src.
without() {
	series_patches gpio | grep -v -F "$(printf "/%s\n" "$@")" >without &&
	test $(grep -c . without) = $(($(series_patches gpio | grep -c .) - $#)) &&
	series_apply "$C/src" && series_am "$C/src" $(cat without)
}

# implicit FILE: the first error in errors that FILE (a regex, no .c)
# calls a legacy function undeclared, recorded; fails if there is none.
implicit() {
	grep -E "^(\.\./)*(src/)?$1\.c:[0-9]+:[0-9]+: error: implicit declaration of function .(devm_)?gpio_(request|request_one|free)." errors |
		head -1 | tee -a "$MEASURE/arm-board-files.txt" | grep .
}

# ARCH:CROSS-PREFIX:DEFCONFIG:DIR:PATCH: without PATCH, nothing turns the
# option on in DEFCONFIG with DIR's boards, and DIR does not build.
fails="
$A:iop32x_defconfig:mach-iop32x:arm-select-gpiolib_legacy-for-platforms-using-gpio-numbers.patch
$S:migor_defconfig:boards/mach-migor:sh-select-gpiolib_legacy-for-boards-using-gpio-numbers.patch
$M:bcm47xx_defconfig:bcm47xx:mips-select-gpiolib_legacy-for-platforms-using-gpio-numbers.patch
"
for spec in $fails; do
	unpack "$spec" cfg dir patch
	test_expect_success "without the $arch selects a board file does not build: implicit declaration of a legacy function" '
		without $patch &&
		configure no$arch $cfg $dir "" &&
		! grep -q "^CONFIG_GPIOLIB_LEGACY=" "$C/out/no$arch/.config" &&
		test_must_fail build no$arch arch/$D/$dir/ >errors &&
		cat errors &&
		implicit "arch/$D/$dir/[a-z0-9_/-]+"
	'
done

# The 32-bit x86 callers: the OLPC XO-1's SCI driver and the CS5535
# audio driver's OLPC part, built for i386 with the host's gcc (no
# cross compiler: the kernel needs no 32-bit libc).
olpc=OLPC,OLPC_XO1_PM,OLPC_XO1_SCI,MFD_CS5535,GPIO_CS5535,SOUND,SND,SND_PCI,SND_CS5535AUDIO
x86_callers='arch/x86/platform/olpc/olpc-xo1-sci sound/pci/cs5535audio/cs5535audio_olpc'
test_expect_success 'the 32-bit x86 OLPC callers build for i386 with the series, and not without its x86 and ALSA selects' '
	use i386 "" &&
	series_apply "$C/src" gpio &&
	configure olpc i386_defconfig "" $olpc &&
	grep -qx CONFIG_GPIOLIB_LEGACY=y "$C/out/olpc/.config" &&
	build olpc arch/x86/platform/olpc/ sound/pci/cs5535audio/ &&
	for f in $x86_callers; do test -f "$C/out/olpc/$f.o" || exit 1; done &&
	echo "i386 OLPC: $x86_callers compiled" | tee -a "$MEASURE/arm-board-files.txt" &&
	without x86-platform-olpc-select-gpiolib_legacy-for-olpc_xo1_sci.patch \
		alsa-select-gpiolib_legacy-for-drivers-using-gpio-numbers.patch &&
	configure noolpc i386_defconfig "" $olpc &&
	! grep -q "^CONFIG_GPIOLIB_LEGACY=" "$C/out/noolpc/.config" &&
	for f in $x86_callers; do
		test_must_fail build noolpc "${f%/*}/" >errors &&
		implicit "$f" || exit 1
	done
'

test_done
