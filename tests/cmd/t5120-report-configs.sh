#!/bin/sh
# Reports and mail per configuration, on a fake kernel (lib-world.sh):
# a tree whose file breaks one configuration's build and warns in
# another's gets one report with a section per configuration (name and
# arch) listing what is its own; a tree no configuration complains about
# gets nothing; warnings are new per configuration, a failed build is
# reported each day it fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

export TIDE_KERNEL_TESTS=$TRASH/kt

# gpio.c warns on x86_64 and does not compile for arm64 (-DARM64).
GPIO_C='#ifdef ARM64
#error gpio is broken on arm64
#else
#warning gpio warns on x86_64
#endif
int g(void) { return 0; }'

run_day() {
	PATH="$TRASH/bin:$PATH" "$TIDE_BIN" -C ws -f world/trees.conf run --no-boot --date "$1" >out 2>err
}

test_expect_success 'setup: a fake kernel built for x86_64 and arm64, gpio breaks one and warns in the other' '
	mkdir -p kt bin &&
	printf "CONFIG_GPIO=y\n" >kt/smoke.config &&
	fake_kernel_source world/mainline \
		"\$(CC) -Wall \$(if \$(filter arm64,\$(ARCH)),-DARM64) -c \$(CURDIR)/\$< -o \$@" &&
	echo "int m(void) { return 0; }" >world/mainline/m.c &&
	commit_fake_mainline &&
	make_tree gpio gpio.c "$GPIO_C" &&
	make_tree spi spi.c "int s(void) { return 0; }" &&
	printf "#!/bin/sh\nexec gcc \"\$@\"\n" >bin/aarch64-linux-gnu-gcc &&
	chmod 755 bin/aarch64-linux-gnu-gcc &&
	conf "gpio git gpio#for-next" "spi git spi#for-next" &&
	printf "%s\n" \
		"#tide	project=linux-next" \
		"#tide	gpio	contact=gpio@ex.org" \
		"#tide	spi	contact=spi@ex.org" \
		"#tide	config	smoke	base=tinyconfig	fragment=../kt/smoke.config" \
		"#tide	config	arm64	arch=arm64	base=defconfig	fragment=../kt/smoke.config" \
		>>world/trees.conf &&
	{ run_day 2026-02-01 || test $? = 1; } &&
	test "$(day_field 2026-02-01 "d[\"configs\"][0][\"build\"][\"status\"]")" = failed
'

test_expect_success 'the report has a section per configuration, only what is the tree'"'"'s' '
	tide -C ws report 2026-02-01 >actual &&
	cat >expect <<-\END &&
	Hi all,

	After merging the gpio tree, today'"'"'s linux-next build (x86_64 smoke)
	produced this warning:

	gpio.c:4:2: warning: #warning gpio warns on x86_64 [-Wcpp]

	After merging the gpio tree, today'"'"'s linux-next build (arm64 arm64)
	failed like this:

	gpio.c:2:2: error: #error gpio is broken on arm64

	The commit of the gpio tree behind this is not known yet
	(tide bisect 2026-02-01 --build finds it).

	The gpio tree is in today'"'"'s tree as it is.

	-- 
	Cheers,
	tide (next-20260201)
	END
	test_cmp expect actual &&
	test_cmp expect ws/days/2026-02-01/reports/gpio.txt &&
	! test -e ws/days/2026-02-01/reports/spi.txt &&
	test "$(tide -C ws report 2026-02-01 --tree spi)" = "no conflicts on 2026-02-01 for spi" &&
	tide -C ws report 2026-02-01 --json >json &&
	python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print([(c[\"name\"], c[\"arch\"], c[\"status\"], len(c[\"errors\"]), len(c[\"new_warnings\"])) for c in r[0][\"configs\"]], r[0][\"new\"], r[0][\"files\"], \"handled\" in r[0])" json >actual &&
	echo "[('"'"'smoke'"'"', '"'"'x86_64'"'"', '"'"'ok'"'"', 0, 1), ('"'"'arm64'"'"', '"'"'arm64'"'"', '"'"'failed'"'"', 1, 0)] True [] False" >expect &&
	test_cmp expect actual
'

# The first mail --dry-run prints (the reports come before the commit checks').
first_mail() {
	awk '/^Date: / { n++ } n == 1' "$1"
}

test_expect_success 'one mail to the tree'"'"'s contact covers every configuration' '
	tide -C ws -f world/trees.conf report 2026-02-01 --mail --dry-run >all &&
	first_mail all >out &&
	sed -n "/^To:/p; /^Cc:/p; /^Subject:/p" out >actual &&
	cat >expect <<-\END &&
	To: gpio@ex.org
	Subject: linux-next: build failure after merge of the gpio tree
	END
	test_cmp expect actual &&
	sed "1,/^$/d" out >body &&
	{ cat ws/days/2026-02-01/reports/gpio.txt && echo; } >expect &&
	test_cmp expect body &&
	! grep -q spi out
'

test_expect_success 'the next day: the warning is not new for its configuration, the failure is still reported' '
	run_day 2026-02-02 || test $? = 1 &&
	tide -C ws report 2026-02-02 >actual &&
	cat >expect <<-\END &&
	Hi all,

	After merging the gpio tree, today'"'"'s linux-next build (arm64 arm64)
	failed like this:

	gpio.c:2:2: error: #error gpio is broken on arm64

	The commit of the gpio tree behind this is not known yet
	(tide bisect 2026-02-02 --build finds it).

	The gpio tree is in today'"'"'s tree as it is.

	-- 
	Cheers,
	tide (next-20260202)
	END
	test_cmp expect actual &&
	tide -C ws -f world/trees.conf report 2026-02-02 --mail --dry-run >all &&
	first_mail all | grep "^Subject:" >actual &&
	echo "Subject: linux-next: build failure after merge of the gpio tree" >expect &&
	test_cmp expect actual
'

test_expect_success 'a long configuration name stays out of the subject, whole in the body' '
	long=arm64-with-a-rather-long-name-for-a-configuration &&
	sed -i "s/^#tide	config	arm64	/#tide	config	$long	/" world/trees.conf &&
	{ run_day 2026-02-03 || test $? = 1; } &&
	tide -C ws -f world/trees.conf report 2026-02-03 --mail --dry-run >all &&
	first_mail all >out &&
	grep "^Subject:" out >actual &&
	echo "Subject: linux-next: build failure after merge of the gpio tree" >expect &&
	test_cmp expect actual &&
	grep -q "^After merging the gpio tree, today.s linux-next build (arm64 $long)$" out
'

test_expect_success 'a tree fixed everywhere has no report' '
	printf "int g(void) { return 0; }\n" >world/gpio/gpio.c &&
	git -C world/gpio commit -qam "gpio: fix the build" &&
	run_day 2026-02-04 &&
	test "$(tide -C ws report 2026-02-04)" = "no conflicts on 2026-02-04" &&
	! test -e ws/days/2026-02-04/reports
'

test_done
