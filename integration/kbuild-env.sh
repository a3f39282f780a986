# integration/kbuild-env.sh: sourced by the plain-make kernel builds of
# integration/ (build-kernel, bisect-walk, t3008, t3010), so that they
# build alike and hit each other's objects in ccache.
#
# kbuild_env SRC OUT: export ASCII compiler messages (Kbuild unexports
# LC_ALL, so LANG and LC_CTYPE too), fixed KBUILD_BUILD_* stamps, and a
# ccache base directory: the directory SRC and OUT share, so ccache sees
# paths relative to it and two trees laid out alike (P/src with P/out,
# Q/src with Q/out) hit each other's objects for every file they have in
# common.  SRC and OUT are absolute paths.
kbuild_env() {
	export LC_ALL=C LANG=C LC_CTYPE=C KBUILD_BUILD_TIMESTAMP="Thu Jan  1 00:00:00 UTC 2026"
	export KBUILD_BUILD_USER=tide KBUILD_BUILD_HOST=tide
	ke_base=$1
	while [ "${2#"$ke_base"/}" = "$2" ] && [ "$ke_base" != / ]; do
		ke_base=$(dirname "$ke_base")
	done
	export CCACHE_BASEDIR=$ke_base CCACHE_NOHASHDIR=1
}

# kbuild_merge SRC OUT FRAGMENT...: merge the fragments onto OUT/.config
# in order with SRC's merge_config.sh -m, which runs in OUT (absolute
# fragment paths) and makes its configuration for $ARCH; olddefconfig
# is the caller's.
kbuild_merge() {
	km_src=$1 km_out=$2
	shift 2
	(cd "$km_out" && "$km_src/scripts/kconfig/merge_config.sh" -m -O "$km_out" "$km_out/.config" "$@")
}
