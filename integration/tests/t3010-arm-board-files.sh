#!/bin/sh
# The 32-bit ARM board files that call the legacy GPIO number interface
# build with the gpio series.  On v6.1.192 + the series, 12 arm
# defconfigs are made with Debian's arm-linux-gnueabi-gcc, each with
# UNUSED_BOARD_FILES (which 6.1 puts most board files behind) and the
# boards that legacy-callers lists in its mach- directories turned on:
# the option must be on, the mach- directories must build, and so must
# the callers under drivers/ and sound/ that the configuration builds
# (kbuild's dry run of their directories names them), compiled one by
# one.  Together the configurations must compile every caller under
# arch/arm (104).  The callers compiled, per configuration and in all,
# go to $TIDE_MEASURE/arm-board-files.txt.  The check is shown to fail:
# with the ARM select patch left out, nothing turns the option on in
# iop32x_defconfig and mach-iop32x does not build ("implicit declaration
# of function 'gpio_request'").  The two 32-bit x86 callers (OLPC XO-1
# SCI, CS5535 audio's OLPC part) are built the same way for i386, and
# fail without the series' x86 and ALSA select patches.  make
# check-kernel-full only: about 5 minutes on 2 cores with an empty
# ccache, 3 with a warm one.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-series.sh"
C=$TOP/work/arm-boards
# Built as integration/build-kernel builds (ASCII messages, ccache).
. "$I/kbuild-env.sh"
kbuild_env "$C/src" "$C/out"
export ARCH=arm
X=arm-linux-gnueabi-

command -v ${X}gcc >/dev/null ||
	{ echo "# ${X}gcc is not installed: run make deps"; t_failed=1; test_done; }
series_src "$C" || { t_failed=1; test_done; }
cd "$TRASH" || exit 1
kmake() { nice make -s -C "$C/src" CROSS_COMPILE=$X CC="ccache ${X}gcc" "$@"; }

# DEFCONFIG:MACH-DIRS:EXTRA-SYMBOLS.  The boards of the mach- directories
# are turned on; the extra symbols are what some of them need besides
# (a family menu, a chip, a symbol the board symbol only selects).
# mach-mmp's boards are ARMv5, which pxa168/pxa910_defconfig are not in
# 6.1; the Gumstix AM200EPD and AM300EPD boards are a choice: pxa_defconfig
# gets the last one, am200epdkit_defconfig (the same boards) AM200EPD.
configs='
pxa_defconfig:mach-pxa:ARCH_PXA_PALM,MACH_CENTRO,MACH_CORGI
am200epdkit_defconfig:mach-pxa:GUMSTIX_AM200EPD
omap1_defconfig:mach-omap1:
davinci_all_defconfig:mach-davinci:ARCH_DAVINCI_DM355
ep93xx_defconfig:mach-ep93xx:
multi_v5_defconfig:mach-orion5x,mach-mmp:ARCH_MMP
s3c2410_defconfig:mach-s3c:RFKILL
s3c6400_defconfig:mach-s3c:MACH_SMARTQ5,MACH_SMARTQ7
iop32x_defconfig:mach-iop32x:
h3600_defconfig:mach-sa1100:
omap2plus_defconfig:mach-omap2:
mvebu_v7_defconfig:mach-mvebu:
'

# configure NAME DEFCONFIG DIRS EXTRAS: make $C/out/NAME/.config, the
# defconfig with the boards of DIRS (comma-separated) and EXTRAS on; the
# extras must have stayed on.
configure() {
	o=$C/out/$1
	{
		{
			test "$ARCH" = arm && echo UNUSED_BOARD_FILES
			for d in $(echo "$3" | tr , ' '); do
				grep "^arch/arm/$d/" callers | cut -d' ' -f2
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

# compiled OUT: the callers whose object OUT has.
compiled() {
	while read -r f s; do
		test -f "$1/${f%.c}.o" && echo "$f"
	done <callers
	return 0
}

# enabled OUT: the objects of the callers outside arch/ that OUT's
# configuration builds: of the .c callers one of whose symbols it sets
# (y or m), those kbuild's dry run of their directories compiles (the
# symbols alone can name an object the configuration leaves out:
# sound/soc/soc-ac97.c is under SND_SOC but built only with
# SND_SOC_AC97_BUS).
enabled() {
	while read -r f s; do
		case "$f" in arch/*|*.h) continue ;; esac
		for y in $(echo "$s" | tr , ' '); do
			grep -Eq "^CONFIG_$y=[ym]$" "$1/.config" && { echo "${f%.c}.o"; break; }
		done
	done <callers >candidates
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

test_expect_success 'v6.1.192 + the gpio series; legacy-callers lists the ARM callers' '
	series_apply "$C/src" gpio &&
	"$I/series/gpio/legacy-callers" "$C/src" >callers &&
	grep "^arch/arm/" callers >arm-callers &&
	test $(grep -c . arm-callers) -gt 100 &&
	mkdir -p "$MEASURE" "$C/out" && : >"$MEASURE/arm-board-files.txt" &&
	rm -f "$C"/out/*.compiled
'

for spec in $configs; do
	cfg=${spec%%:*} rest=${spec#*:}
	dirs=${rest%%:*} extras=${rest#*:}
	test_expect_success "$cfg with its boards builds the legacy callers it enables" '
		t0=$(date +%s) &&
		configure $cfg $cfg $dirs "$extras" &&
		o=$C/out/$cfg &&
		grep -qx CONFIG_GPIOLIB_LEGACY=y "$o/.config" &&
		build $cfg $(echo $dirs | sed "s|[^,]*|arch/arm/&/|g; s|,| |g") &&
		compiled "$o" | grep "^arch/arm/" >arm-$cfg &&
		enabled "$o" >drivers-$cfg &&
		if [ -s drivers-$cfg ]; then build $cfg $(cat drivers-$cfg); fi &&
		{ compiled "$o" | grep -v "^arch/" || :; } >others-$cfg &&
		arm=$(wc -l <arm-$cfg) others=$(wc -l <others-$cfg) &&
		test $arm -gt 0 && test $others = $(wc -l <drivers-$cfg) &&
		echo "$cfg: $arm arm callers compiled ($(sed "s|^arch/arm/||; s|/.*||" arm-$cfg | sort | uniq -c | awk "{printf \"%s%s %s\", s, \$2, \$1; s=\", \"}")), $others drivers/sound callers compiled, in $(($(date +%s) - t0)) s" |
			tee -a "$MEASURE/arm-board-files.txt" &&
		cat arm-$cfg others-$cfg >"$C/out/$cfg.compiled"
	'
done

test_expect_success 'the configurations compile every ARM caller' '
	grep "^arch/arm/" callers | cut -d" " -f1 | sort >arm &&
	cat "$C"/out/*.compiled | grep "^arch/arm/" | sort -u >done &&
	comm -23 arm done >left &&
	echo "in all: $(wc -l <done) of $(wc -l <arm) arm callers compiled, $(cat "$C"/out/*.compiled | grep -v "^arch/" | sort -u | wc -l) drivers/sound callers; not compiled: $(if test -s left; then tr "\n" " " <left; else echo none; fi)" |
		tee -a "$MEASURE/arm-board-files.txt" &&
	test_cmp /dev/null left
'

# without PATCH...: v6.1.192 + the gpio series but PATCH... in $C/src.
without() {
	series_patches gpio | grep -v -F "$(printf "/%s\n" "$@")" >without &&
	test $(grep -c . without) = $(($(series_patches gpio | grep -c .) - $#)) &&
	series_apply "$C/src" && series_am "$C/src" $(cat without)
}

test_expect_success 'without the ARM selects a board file does not build: implicit declaration of a legacy function' '
	without arm-select-gpiolib_legacy-for-platforms-using-gpio-numbers.patch &&
	configure noarm iop32x_defconfig mach-iop32x "" &&
	! grep -q "^CONFIG_GPIOLIB_LEGACY=" "$C/out/noarm/.config" &&
	test_must_fail build noarm arch/arm/mach-iop32x/ >errors &&
	cat errors &&
	grep -E "^(\.\./)*(src/)?arch/arm/mach-iop32x/[a-z0-9_-]+\.c:[0-9]+:[0-9]+: error: implicit declaration of function .gpio_(request|request_one|free)." errors |
		head -1 | tee -a "$MEASURE/arm-board-files.txt"
'

# The 32-bit x86 callers: the OLPC XO-1's SCI driver and the CS5535
# audio driver's OLPC part, built for i386 with the host's gcc (no
# cross compiler: the kernel needs no 32-bit libc).
olpc=OLPC,OLPC_XO1_PM,OLPC_XO1_SCI,MFD_CS5535,GPIO_CS5535,SOUND,SND,SND_PCI,SND_CS5535AUDIO
x86_callers='arch/x86/platform/olpc/olpc-xo1-sci sound/pci/cs5535audio/cs5535audio_olpc'
test_expect_success 'the 32-bit x86 OLPC callers build for i386 with the series, and not without its x86 and ALSA selects' '
	(
		export ARCH=i386 && X= &&
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
			grep -E "^(\.\./)*(src/)?$f\.c:[0-9]+:[0-9]+: error: implicit declaration of function .gpio_" errors |
				head -1 | tee -a "$MEASURE/arm-board-files.txt" | grep . || exit 1
		done
	)
'

test_done
