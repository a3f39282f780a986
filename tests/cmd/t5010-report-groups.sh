#!/bin/sh
# Conflict reports: all files of a conflict with the same tree in one
# block; the project name from trees.conf, "linux-next" for kernel bases,
# else the workspace's name.
. "$(dirname "$0")/lib.sh"

export GIT_AUTHOR_DATE="2026-12-01T00:00:00Z" GIT_COMMITTER_DATE="2026-12-01T00:00:00Z"

run_day() {
	tide -C "$1" -f "$2" run --date "$3" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

test_expect_success 'setup: gpio conflicts with fixes in three files and with net in one' '
	git init -q -b master main &&
	for f in f g h k; do printf "1\n2\n3\n" >main/$f; done &&
	git -C main add . && git -C main commit -qm base && git -C main tag v1 &&
	git clone -q main fixes && git clone -q main net && git clone -q main gpio &&
	for f in f g h; do sed -i "s/^2$/two-fixes/" fixes/$f; done &&
	git -C fixes commit -qam "fixes: two in f, g and h" &&
	sed -i "s/^2$/two-net/" net/k && git -C net commit -qam "net: two in k" &&
	for f in f g h k; do sed -i "s/^2$/two-gpio/" gpio/$f; done &&
	git -C gpio commit -qam "gpio: two everywhere" &&
	printf "#tide\tbase\tmain#v1\nfixes\tgit\tfixes#master\nnet\tgit\tnet#master\ngpio\tgit\tgpio#master\n" >trees.conf &&
	run_day ws trees.conf 2026-12-01 &&
	test -f ws/days/2026-12-01/reports/gpio.txt
'

test_expect_success 'one block per tree the conflict is with, commits listed once' '
	fix=$(git -C fixes rev-parse --short=12 HEAD) &&
	net=$(git -C net rev-parse --short=12 HEAD) &&
	gpio=$(git -C gpio rev-parse --short=12 HEAD) &&
	id() { python3 -c "import json,sys; r=json.load(open(\"ws/days/2026-12-01/reports/gpio.json\")); print([f[\"conflict_id\"] for f in r[\"files\"] if f[\"path\"]==sys.argv[1]][0][:12])" $1; } &&
	hunk() { printf "  <<<<<<< next-20261201\n  two-%s\n  =======\n  two-gpio\n  >>>>>>> gpio/master\n\n" $1; } &&
	{
	printf "Hi all,\n\n" &&
	printf "Today'"'"'s ws merge of the gpio tree got conflicts in:\n\n  f\n  g\n  h\n\n" &&
	printf "between commit:\n\n  %s (\"fixes: two in f, g and h\")\n\n" $fix &&
	printf "from the fixes tree and commit:\n\n  %s (\"gpio: two everywhere\")\n\n" $gpio &&
	printf "from the gpio tree.\n\n" &&
	for f in f g h; do
		printf "The conflict in %s (content, rerere id %s):\n\n" $f $(id $f) &&
		hunk fixes || exit 1
	done &&
	printf "Today'"'"'s ws merge of the gpio tree got a conflict in:\n\n  k\n\n" &&
	printf "between commit:\n\n  %s (\"net: two in k\")\n\n" $net &&
	printf "from the net tree and commit:\n\n  %s (\"gpio: two everywhere\")\n\n" $gpio &&
	printf "from the gpio tree.\n\n" &&
	printf "The conflict (content, rerere id %s):\n\n" $(id k) &&
	hunk net &&
	printf "No recorded resolution applies and no earlier version of the gpio\n" &&
	printf "tree merges, so I have dropped the gpio tree for today.\n" &&
	printf "\n-- \nCheers,\ntide (next-20261201)\n"
	} >expect &&
	test_cmp expect ws/days/2026-12-01/reports/gpio.txt &&
	tide -C ws report --tree gpio >actual &&
	test_cmp expect actual
'

test_expect_success '#tide project=NAME names the project in text and subject' '
	cp trees.conf named.conf && printf "#tide\tproject=widget-next\n" >>named.conf &&
	printf "#tide\tgpio\tcontact=gpio@ex.org\n" >>named.conf &&
	run_day ws2 named.conf 2026-12-01 &&
	grep -q "^Today.s widget-next merge of the gpio tree got conflicts in:$" ws2/days/2026-12-01/reports/gpio.txt &&
	tide -C ws2 report --mail --dry-run >out &&
	grep -q "^Subject: widget-next: manual merge of the gpio tree with the fixes tree and the net tree$" out
'

test_expect_success 'a bad project name is refused with its line' '
	cp trees.conf bad.conf && printf "#tide\tproject=a b/c\n" >>bad.conf &&
	test_must_fail --status=3 tide -C ws3 -f bad.conf trees 2>err &&
	grep -q "bad.conf:5: bad project name" err
'

test_expect_success 'a kernel base (Kbuild, Kconfig) is linux-next' '
	touch main/Kbuild main/Kconfig && git -C main add . && git -C main commit -qm kbuild &&
	git -C main tag v2 &&
	for t in fixes net gpio; do git -C $t pull -q --no-rebase origin master || exit 1; done &&
	sed "s/main#v1/main#v2/" trees.conf >kernel.conf &&
	run_day ws4 kernel.conf 2026-12-01 &&
	grep -q "^Today.s linux-next merge of the gpio tree got conflicts in:$" ws4/days/2026-12-01/reports/gpio.txt
'

test_done
