# Test doubles for days that are built and booted without a kernel
# (sourced after lib.sh and lib-world.sh): a fake QEMU whose "guest"
# reports KTAP results from what the kernel image holds, and the fake
# kernel Makefile of lib-world.sh made to relink when a file goes.
#
# The guest of every boot: gpio.edge_events fails when the image holds
# EDGE_BUG; timer.jitter, when the image holds JITTER_FLAKY, fails on
# every third boot of the workspace (the count in $FAKE_STATE/boots).
# KVM is refused, so the boots are TCG and the probe counts no boot.

export TIDE_GUEST_INIT=$TOP/kernel-tests/init
export FAKE_STATE=$TRASH/state
export PATH="$TRASH/qemu:$PATH"

fake_qemu() {
	mkdir -p "$TRASH/qemu" "$FAKE_STATE" &&
	cat >"$TRASH/qemu/qemu-system-x86_64" <<-\EOF &&
	#!/bin/sh
	test "$1" = --version && { echo "QEMU emulator version 0 (fake)"; exit 0; }
	kernel= prev=
	for a in "$@"; do
		case "$a" in *kvm*) exit 1 ;; esac
		[ "$prev" = -kernel ] && kernel=$a
		prev=$a
	done
	n=$(cat "$FAKE_STATE/boots" 2>/dev/null || echo 0)
	echo $((n + 1)) >"$FAKE_STATE/boots"
	edge=ok jitter=ok
	grep -q EDGE_BUG "$kernel" && edge="not ok"
	grep -q JITTER_FLAKY "$kernel" && [ $((n % 3)) = 0 ] && jitter="not ok"
	printf "Linux version 6.1.0 (fake)\nKTAP version 1\n# tide smoke tests on fake x86_64\n1..2\n"
	printf "    KTAP version 1\n    # Subtest: gpio\n    1..2\n    %s 1 edge_events\n" "$edge"
	printf "    ok 2 lines\n%s 1 gpio\n" "$edge"
	printf "    KTAP version 1\n    # Subtest: timer\n    1..1\n    %s 1 jitter\n%s 2 timer\n" \
		"$jitter" "$jitter"
	echo "reboot: Power down"
	EOF
	chmod 755 "$TRASH/qemu/qemu-system-x86_64"
}

# fake_kernel_relinks DIR: the fake kernel's image is linked again on each
# build (Kbuild relinks when a source file goes; the double would keep the
# old image and its objects).
fake_kernel_relinks() {
	sed -i "s|^\$(O)/\$(IMAGE): \$(SRCS:%.c=\$(O)/%.o)\$|& FORCE|; s|cat \$^ > \$@|cat \$(filter %.o,\$^) > \$@|" \
		"$1/Makefile" &&
	grep -q "FORCE$" "$1/Makefile"
}
