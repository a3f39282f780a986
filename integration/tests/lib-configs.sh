# integration/tests/lib-configs.sh: sourced by the kernel tests of the
# build matrix (t4600, t4610).
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
