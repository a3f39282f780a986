#!/bin/sh
# The commit checks on the kernel world (integration/days/README, day 4):
# one tree per check.  cpumask carries "genirq/migration: Drop a stray
# word in a comment", whose Fixes: tag names the v6.1.192 import with a
# subject that is not its own; gpio carries "gpio: mmio: spell "cannot"
# as one word in a comment", committed without its committer's
# Signed-off-by; bitmap and cpumask both carry "genirq: Use "its" in a
# comment of irq_shutdown_and_deactivate()" (same patch, two commits).
# tide run (no build: the checks need none) finds exactly those three,
# and `tide report --mail --dry-run` shows exactly their three mails.
. "$(dirname "$0")/../../tests/cmd/lib.sh"
. "$TOP/integration/tests/lib-configs.sh"

I=$TOP/integration
W=$TRASH/world
WS=$TRASH/ws

need_kernel_world

# id TREE SUBJECT: the 12-digit id of the day's commit of TREE with SUBJECT.
id() {
	git --git-dir="$W/trees/$1.git" log --format="%h %s" --abbrev=12 for-next |
		awk -v s="$2" '{ h = $1; sub(/^[^ ]* /, "") } $0 == s { print h; exit }'
}

test_expect_success 'day 4: tide run finds one Fixes tag, one sign-off and one duplicate' '
	world_day 4 "$W" &&
	tide -C "$WS" -f "$W/trees.conf" run --date 2026-12-04 --no-build --no-boot >out 2>err &&
	grep -q "^tide: checks: [0-9]* new commits in 4 trees, 3 findings" err
'

test_expect_success 'report --mail --dry-run shows exactly the three check mails' '
	cat >expect <<-\EOF &&
	From: tide <tide@localhost>
	To: Casey Maskell <casey@cpumask.example.org>
	Cc: "Rhea Ortho" <rhea@ortho.example.org>
	Subject: linux-next: Fixes tag needs some work in the cpumask tree
	Message-ID: <next-20261204.checks.fixes.cpumask.tide@localhost>
	MIME-Version: 1.0
	Content-Type: text/plain; charset=UTF-8
	Content-Transfer-Encoding: 8bit

	Hi all,

	In commit

	  FIXES_ID ("genirq/migration: Drop a stray word in a comment")

	Fixes tag

	  Fixes: abb73947f2d3 ("Linux 6.1.192")

	has these problem(s):

	  - the subject is not the target commit'"'"'s subject
	    The target is TARGET; git writes the tag with
	      git log -1 --format='"'"'Fixes: %h ("%s")'"'"' abb73947f2d3

	-- 
	Cheers,
	tide (next-20261204)

	From: tide <tide@localhost>
	To: Gale Pinner <gale@gpio.example.org>
	Cc: "Tomas Lint" <tomas@lint.example.org>
	Subject: linux-next: Signed-off-by missing for commit in the gpio tree
	Message-ID: <next-20261204.checks.signoff.gpio.tide@localhost>
	MIME-Version: 1.0
	Content-Type: text/plain; charset=UTF-8
	Content-Transfer-Encoding: 8bit

	Hi all,

	Commit

	  SOB_ID ("gpio: mmio: spell "cannot" as one word in a comment")

	is missing a Signed-off-by from its committer.

	-- 
	Cheers,
	tide (next-20261204)

	From: tide <tide@localhost>
	To: Bea Torvik <bea@bitmap.example.org>
	Cc: Casey Maskell <casey@cpumask.example.org>,
	TAB"Rhea Ortho" <rhea@ortho.example.org>
	Subject: linux-next: duplicate patch in the bitmap tree
	Message-ID: <next-20261204.checks.duplicate.bitmap.tide@localhost>
	MIME-Version: 1.0
	Content-Type: text/plain; charset=UTF-8
	Content-Transfer-Encoding: 8bit

	Hi all,

	This commit carries the same patch as a commit with another id
	in the cpumask tree:

	  DUP_ID ("genirq: Use "its" in a comment of irq_shutdown_and_deactivate()")

	There it is commit

	  OTHER_ID ("genirq: Use "its" in a comment of irq_shutdown_and_deactivate()")

	-- 
	Cheers,
	tide (next-20261204)

	EOF
	fixes=$(id cpumask "genirq/migration: Drop a stray word in a comment") &&
	sob=$(id gpio "gpio: mmio: spell \"cannot\" as one word in a comment") &&
	dup=$(id bitmap "genirq: Use \"its\" in a comment of irq_shutdown_and_deactivate()") &&
	other=$(id cpumask "genirq: Use \"its\" in a comment of irq_shutdown_and_deactivate()") &&
	target=$(git --git-dir="$W/mainline.git" log -1 --abbrev=12 --format="%h (\"%s\")" abb73947f2d3) &&
	test -n "$fixes" && test -n "$sob" && test -n "$dup" && test -n "$other" &&
	sed -i -e "s/FIXES_ID/$fixes/" -e "s/SOB_ID/$sob/" -e "s/DUP_ID/$dup/" \
		-e "s/OTHER_ID/$other/" -e "s/TARGET/$target/" -e "s/^TAB/\t/" expect &&
	tide -C "$WS" -f "$W/trees.conf" report 2026-12-04 --mail --dry-run >mails &&
	sed "/^Date: /d" mails >actual &&
	test_cmp expect actual
'

test_done
