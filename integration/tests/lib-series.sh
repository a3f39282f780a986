# integration/tests/lib-series.sh: sourced by the kernel tests that build
# the series of integration/series/ with plain make on v6.1.192 (t3006
# to t3009), each in a source tree of its own.

I=$TOP/integration
K=$TOP/kernel-tests
# Where the tests leave their figures (build times, warning counts).
MEASURE=${TIDE_MEASURE:-$TOP/build/measurements}

export GIT_AUTHOR_NAME=tide GIT_AUTHOR_EMAIL=tide@tide.invalid
export GIT_COMMITTER_NAME=tide GIT_COMMITTER_EMAIL=tide@tide.invalid
export GIT_CONFIG_NOSYSTEM=1

# series_src DIR: import mainline (once), and make DIR/src a clone of it
# that borrows its objects, unless there is one; MEASURE exists.
series_src() {
	mkdir -p "$MEASURE" &&
	"$TOP/integration/import-mainline" >/dev/null || return 1
	[ -d "$1/src/.git" ] && return 0
	rm -rf "$1" && mkdir -p "$1" &&
	git clone -q --shared -n "$TOP/work/world/mainline.git" "$1/src"
}

# series_kbuild DIR ARCH: C=DIR; DIR/src is built into DIR/out as
# integration/build-kernel builds (kbuild-env.sh: ASCII messages, fixed
# stamps, ccache objects shared with the other plain-make builds), for
# ARCH, with kbuild_merge() at hand.
series_kbuild() {
	C=$1
	. "$I/kbuild-env.sh"
	kbuild_env "$C/src" "$C/out"
	export ARCH=$2
}

# series_patches TREE: the paths of TREE's patches, in the series' order.
series_patches() {
	sed "s|^|$TOP/integration/series/$1/|" "$TOP/integration/series/$1/series"
}

# series_am SRC PATCH...: `git am` the patches onto what SRC has checked
# out, in order.
series_am() {
	sm_src=$1
	shift
	git -C "$sm_src" am -q -3 "$@"
}

# series_apply SRC TREE...: reset SRC to v6.1.192, then `git am` the
# series of each TREE in order.
series_apply() {
	sa_src=$1
	shift
	git -C "$sa_src" am --abort >/dev/null 2>&1
	git -C "$sa_src" checkout -q -f --detach v6.1.192 &&
	git -C "$sa_src" clean -q -fdx || return 1
	for sa_tree; do
		series_am "$sa_src" $(series_patches "$sa_tree") ||
			{ echo "$sa_tree: the series does not apply"; return 1; }
	done
}
