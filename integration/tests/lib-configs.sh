# integration/tests/lib-configs.sh: sourced by the kernel tests that run
# tide on the kernel world (t4600, t4610, t4620, t4630, t4720, t5320, t7100).
#
# config_field FILE EXPR: a value from the day record FILE (day.json), by
# a python expression on d; b(NAME) and o(NAME) are configuration NAME's
# build and boot records, whether NAME is the day's own build (d's
# "build" and "boot") or one of its "configs".
config_field() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
def cfg(n):
    if (d.get('build') or {}).get('config', 'smoke') == n:
        return d
    return [c for c in d.get('configs', []) if c['name'] == n][0]
def b(n): return cfg(n)['build']
def o(n): return cfg(n).get('boot') or {}
print($2)" "$1"
}

# expect DAY EXPR: a value from $EXPECT's (integration/days/expect.json)
# day DAY, by a python expression on d; lists one per line.
expect() {
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['days'][sys.argv[2]]
r = $2
print('\n'.join(r) if isinstance(r, list) else r)" "$EXPECT" "$1"
}

# need_kernel_world TOOL...: the tools are installed (else the script ends
# failed, pointing at make deps), mainline is imported and the guest's
# tests (kernel-tests/) are built.
need_kernel_world() {
	for nk_tool; do
		command -v "$nk_tool" >/dev/null ||
			{ echo "# $nk_tool is not installed: run make deps"; t_failed=1; test_done; }
	done
	if [ ! -d "$TOP/work/world/mainline.git" ]; then
		"$TOP/integration/import-mainline" >/dev/null || { t_failed=1; test_done; }
	fi
	make -s -C "$TOP/kernel-tests" || exit 1
}

# world_day DAY DIR: lay out that day of the kernel world in DIR, whose
# mainline.git is a bare clone borrowing work/world's objects.
world_day() {
	mkdir -p "$2" &&
	if [ ! -d "$2/mainline.git" ]; then
		git clone -q --bare --shared "$TOP/work/world/mainline.git" "$2/mainline.git"
	fi &&
	"$TOP/integration/world" "$1" "$2" >/dev/null
}
