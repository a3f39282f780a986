#!/bin/sh
# tide build on a tiny fake "kernel": a Makefile that honours O=, has
# tinyconfig/olddefconfig and a merge_config.sh, so a build takes a second.
. "$(dirname "$0")/lib.sh"

K=$TRASH/k WS=$TRASH/ws
export TIDE_KERNEL_TESTS=$TRASH/kt

# day.json for DATE naming COMMIT, with BASE as the mainline commit.
write_day() {
	mkdir -p "$WS/days/$1" &&
	cat > "$WS/days/$1/day.json" <<EOF
{ "version": 1, "date": "$1", "tag": "next-$(echo $1 | tr -d -)",
  "status": "complete", "base": { "tag": "base", "commit": "$3" },
  "commit": "$2", "trees": [] }
EOF
}

# The value of a key path in a day's build record, via python's json.
build_key() {
	d=$1; shift
	python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))["build"]
for k in sys.argv[2:]:
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v)' "$WS/days/$d/day.json" "$@"
}

test_expect_success 'setup: a fake kernel and two days' '
	mkdir -p kt "$K/scripts/kconfig" "$K/drv" &&
	printf "CONFIG_GPIO=y\n# CONFIG_X is not set\n" > kt/smoke.config &&
	cat > "$K/Makefile" <<-\EOF &&
	.RECIPEPREFIX = >
	O ?= .
	OBJS = $(O)/a.o $(O)/drv/b.o
	all: $(O)/arch/x86/boot/bzImage
	drv/b.o: $(O)/drv/b.o
	$(O)/%.o: %.c
	> @mkdir -p $(dir $@)
	> $(CC) -Wall -c $(CURDIR)/$< -o $@
	$(O)/arch/x86/boot/bzImage: $(OBJS)
	> mkdir -p $(dir $@) && cat $(OBJS) > $@
	tinyconfig:
	> mkdir -p $(O) && echo CONFIG_TINY=y > $(O)/.config
	olddefconfig:
	> @true
	EOF
	printf "#!/bin/sh\ncat \"\$5\" >> \"\$4\"\n" > "$K/scripts/kconfig/merge_config.sh" &&
	chmod +x "$K/scripts/kconfig/merge_config.sh" &&
	echo "int a(void) { return 0; }" > "$K/a.c" &&
	echo "int b(void) { return 0; }" > "$K/drv/b.c" &&
	echo "old" > "$K/gone.txt" && echo "file" > "$K/x" &&
	git -C "$K" init -q && git -C "$K" add . && git -C "$K" commit -qm base &&
	git -C "$K" tag base &&
	git -C "$K" checkout -qb gpio &&
	echo "int b(void) { int unused; return 0; }" > "$K/drv/b.c" &&
	git -C "$K" rm -q gone.txt x &&
	mkdir "$K/x" && echo "y" > "$K/x/y" && git -C "$K" add x &&
	git -C "$K" commit -qam "gpio: change" &&
	git -C "$K" checkout -q master &&
	git -C "$K" merge -q --no-ff gpio -m "Merge gpio" -m "Tide-Tree: gpio" &&
	git init -q --bare "$WS/repo.git" &&
	git -C "$K" push -q "$WS/repo.git" master gpio base &&
	write_day 2026-01-01 "$(git -C "$K" rev-parse base)" "$(git -C "$K" rev-parse base)" &&
	write_day 2026-01-02 "$(git -C "$K" rev-parse master)" "$(git -C "$K" rev-parse base)"
'

test_expect_success '-h prints the usage of the man page' '
	tide build -h >help &&
	tr "\n" " " <help | tr -s " " >out &&
	grep -q "^usage: tide build \[DAY|REV\] \[--config NAME\] \[--fragment FILE\] \[--jobs N\] \[--no-ccache\]" out &&
	grep -q "tide build" "$TOP/man/tide-build.1"
'

test_expect_success 'building a day records it' '
	tide -C "$WS" build --no-ccache 2026-01-01 >out &&
	grep -q "^build: ok" out &&
	test "$(build_key 2026-01-01 status)" = ok &&
	test "$(build_key 2026-01-01 log)" = build.log &&
	test "$(build_key 2026-01-01 checkout full)" = True &&
	test -s "$(build_key 2026-01-01 kernel)" &&
	grep -q "a.c -o" "$WS/days/2026-01-01/build.log" &&
	test ! -e "$WS/days/2026-01-01/build.log.tmp" &&
	test "$(cat "$WS/build/src.tree")" = "$(git -C "$K" rev-parse base^{tree})"
'

test_expect_success 'the next day rewrites only changed files and make stays incremental' '
	find "$WS/build/src" -exec touch -h -d 2001-01-01 {} + &&
	tide -C "$WS" build --no-ccache 2026-01-02 >out &&
	test "$(build_key 2026-01-02 status)" = ok &&
	test "$(build_key 2026-01-02 checkout full)" = False &&
	test "$(stat -c %Y "$WS/build/src/a.c")" -lt 1000000000 &&
	test "$(stat -c %Y "$WS/build/src/drv/b.c")" -gt 1000000000 &&
	test ! -e "$WS/build/src/gone.txt" &&
	test "$(cat "$WS/build/src/x/y")" = y &&
	grep -q "drv/b.c -o" "$WS/days/2026-01-02/build.log" &&
	! grep -q "a.c -o" "$WS/days/2026-01-02/build.log" &&
	test "$(build_key 2026-01-02 config_regenerated)" = False
'

test_expect_success 'a new warning is listed and attributed to the merging tree' '
	test "$(build_key 2026-01-02 new_warnings 0 file)" = drv/b.c &&
	test "$(build_key 2026-01-02 new_warnings 0 tree)" = gpio &&
	grep -q "^new warning: drv/b.c:1:.*unused.*(gpio)" out &&
	tide -C "$WS" build --no-ccache 2026-01-02 >out2 &&
	grep -q "1 warnings, 1 new" out2
'

test_expect_success 'the newest day is the default and a revision is built unrecorded' '
	cp "$WS/days/2026-01-02/day.json" before.json &&
	tide -C "$WS" build --no-ccache >out &&
	grep -q "log: $WS/days/2026-01-02/build.log" out &&
	cp "$WS/days/2026-01-02/day.json" before.json &&
	tide -C "$WS" build --no-ccache base >out &&
	grep -q "log: $WS/build/build.log" out &&
	cmp before.json "$WS/days/2026-01-02/day.json"
'

test_expect_success 'a broken config fragment is a recorded failure (exit 1)' '
	printf "CONFIG_A=y\nnot a config line\n" > bad.config &&
	test_must_fail --status=1 tide -C "$WS" build --config bad.config 2026-01-02 >out &&
	grep -q "^build: failed: config fragment .*line 2" out &&
	test "$(build_key 2026-01-02 status)" = failed &&
	test "$(build_key 2026-01-02 errors 0 kind)" = kconfig &&
	test "$(build_key 2026-01-02 errors 0 line)" = 2
'

test_expect_success 'a missing compiler is a recorded, named failure (exit 1)' '
	mkdir -p bin && ln -sf "$(command -v make)" bin/make &&
	test_must_fail --status=1 env PATH="$TRASH/bin" "$TIDE_BIN" -C "$WS" build 2026-01-01 >out &&
	grep -q "compiler .gcc. not found in PATH" out &&
	test "$(build_key 2026-01-01 status)" = failed &&
	test "$(build_key 2026-01-01 errors 0 kind)" = tool
'

test_expect_success 'a compile error is recorded with its file and line' '
	git -C "$K" checkout -q -b broken base &&
	echo "int a(void) { return nope; }" > "$K/a.c" &&
	git -C "$K" commit -qam broken && git -C "$K" push -q "$WS/repo.git" broken &&
	write_day 2026-01-03 "$(git -C "$K" rev-parse broken)" "$(git -C "$K" rev-parse base)" &&
	test_must_fail --status=1 tide -C "$WS" build --no-ccache 2026-01-03 >out &&
	test "$(build_key 2026-01-03 errors 0 file)" = a.c &&
	test "$(build_key 2026-01-03 errors 0 line)" = 1 &&
	grep -q "^error: a.c:1:.*nope" out
'

test_expect_success 'bisect --build --target makes one object per step and finds the break' '
	: "mainline" here is the broken day: a whole build fails on every state &&
	git -C "$K" checkout -q -b drv broken &&
	echo "int b(void) { return 1; }" > "$K/drv/b.c" &&
	git -C "$K" commit -qam "drv: return 1" &&
	echo "int b(void) { return nope; }" > "$K/drv/b.c" &&
	git -C "$K" commit -qam "drv: break b" &&
	echo "/* more */" >> "$K/drv/b.c" &&
	git -C "$K" commit -qam "drv: more" &&
	git -C "$K" checkout -q -b day4 broken &&
	git -C "$K" merge -q --no-ff drv -m "Merge drv" -m "Tide-Tree: drv" &&
	git -C "$K" push -q "$WS/repo.git" day4 drv &&
	write_day 2026-01-04 "$(git -C "$K" rev-parse day4)" "$(git -C "$K" rev-parse broken)" &&
	test_must_fail --status=7 tide -C "$WS" bisect 2026-01-04 --build >out 2>err &&
	grep -q "^mainline is broken" out &&
	tide -C "$WS" bisect 2026-01-04 --build --target drv/b.o >out 2>err &&
	grep -q "^tree: drv$" out &&
	grep -q "^first bad commit: [0-9a-f]* drv: break b$" out &&
	grep -q "b.c -o" "$WS/bisect/check.log" &&
	tide -C "$WS" show 2026-01-04 >show &&
	grep -q "^bisect  --build --target drv/b.o: found drv" show
'

test_expect_success 'bisect --target: only with --build, one target' '
	test_must_fail --status=2 tide -C "$WS" bisect 2026-01-04 --boot --target drv/b.o 2>err &&
	test_cmp_str "tide: --target goes with --build (a boot needs the whole kernel)" err &&
	test_must_fail --status=2 tide -C "$WS" bisect 2026-01-04 --target "a.o b.o" 2>err &&
	test_cmp_str "tide: --target wants one make target such as kernel/smp.o, not '\''a.o b.o'\''" err
'

test_expect_success 'bad input: unknown day, unknown revision, missing fragment, bad options' '
	test_must_fail --status=3 tide -C "$WS" build 2030-01-01 2>err &&
	test_cmp_str "tide: no day record '\''$WS/days/2030-01-01/day.json'\''" err &&
	test_must_fail --status=3 tide -C "$WS" build no-such-rev 2>err &&
	test_cmp_str "tide: unknown revision '\''no-such-rev'\'': revspec '\''no-such-rev'\'' not found" err &&
	test_must_fail --status=3 tide -C "$WS" build --config nowhere.config 2>err &&
	test_cmp_str "tide: --config '\''nowhere.config'\'': no fragment file of that name, and no configurations to look it up in (cannot read trees.conf '\''$WS/trees.conf'\'': no such file)" err &&
	test_must_fail --status=2 tide -C "$WS" build --jobs 0 &&
	test_must_fail --status=2 tide -C "$WS" build a b
'

test_done
