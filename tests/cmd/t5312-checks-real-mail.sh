#!/bin/sh
# The commit checks against real mail: the situations of ten mails of
# linux-next's archive (linux-next.vger.kernel.org), rebuilt in small
# repositories (the ids are new; the subjects, the tags as written and
# the problem are the mails'), and tide finds the same problems and
# nothing else.
#
#   crypto       <20220419071722.6e47c542@canb.auug.org.au> Fixes: 993161d (...):
#                "SHA1 should be at least 12 digits long"
#   fuse         <20250821075041.576dfc6a@canb.auug.org.au> a subject without its
#                closing quote: "Subject has leading but no trailing quotes"
#   mmc-fixes    <20191021073714.4267fa4a@canb.auug.org.au> a tag split over two
#                lines: "leading but no trailing parentheses", "... quotes"
#   kvm          <20210907074800.115cca4a@canb.auug.org.au> ("...", 2019-06-18):
#                "no trailing quotes", "Subject does not match target commit subject"
#   pinctrl      <20240308082039.600be106@canb.auug.org.au> the tree was rebased
#                under the tag: "Target SHA1 does not exist"
#   i2c          <20200325082837.62555003@canb.auug.org.au> "is missing a
#                Signed-off-by from its committer"
#   mm           ("mm: add lazyfree folio to lru tail", 2024) author gaoxu
#                <gaoxu2@honor.com>, sign-off gao xu <gaoxu2@hihonor.com>:
#                "is missing a Signed-off-by from its author"
#   folio        ("mm/rmap: Convert try_to_unmap() to take a folio", 2022)
#                "is missing a Signed-off-by from its author and committer"
#   pm           <20230327074547.5c418918@canb.auug.org.au> "also in Linus
#                Torvalds' tree as a different commit (but the same patch)"
#   fastrpc      <20240904153713.4dc28982@canb.auug.org.au> "also in the
#                char-misc.current tree as a different commit"
. "$(dirname "$0")/lib.sh"

export GIT_AUTHOR_DATE="2026-11-20T10:00:00Z" GIT_COMMITTER_DATE="2026-11-20T10:00:00Z"

sob="Signed-off-by: Tide Test <test@tide.invalid>"

# commit_in REPO FILE CONTENT SUBJECT [BODY]
commit_in() {
	printf '%s\n' "$3" >"$1/$2" && git -C "$1" add "$2" &&
	git -C "$1" commit -q -m "$4" ${5:+-m "$5"}
}

id12() { git -C "$1" rev-parse HEAD | cut -c1-12; }

# The findings of a day as "kind tree: subject: what", in the record's order.
findings() {
	python3 - "ws/days/$1/day.json" <<-\PY
	import json, sys
	for f in json.load(open(sys.argv[1]))["checks"]["findings"]:
	    what = []
	    for t in f.get("tags") or []:
	        what.append(t["tag"] + " -> " + ", ".join(t["problems"]))
	    if f.get("missing"):
	        what.append("no sign-off of the " + f["missing"])
	    if f.get("other_tree"):
	        what.append("also in " + f["other_tree"] + " as \"" + f["other_subject"] + "\"")
	    print(f["kind"], f["tree"] + ":", f["subject"] + ":", "; ".join(what))
	PY
}

run_day() {
	tide -C ws -f trees.conf run --date "$1" --no-build --no-boot >/dev/null 2>&1 || test $? = 1
}

test_expect_success 'setup: mainline with the targets, ten trees with the mails'"'"' commits' '
	git init -q -b master main &&
	commit_in main f1 1 "fuse: keep inode->i_blkbits constant" "$sob" &&
	commit_in main f2 2 "mmc: sdhci-omap: Workaround errata regarding SDR104/HS200 tuning failures (i929)" "$sob" &&
	commit_in main f3 3 "KVM: VMX: Handle NMIs, #MCs and async #PFs in common irqs-disabled fn" "$sob" &&
	git -C main tag fork &&
	trees="crypto fuse mmc-fixes kvm pinctrl i2c mm folio char-misc.current fastrpc pm" &&
	for t in $trees; do git clone -q main $t || exit 1; done &&
	fuse=$(git -C main rev-parse HEAD~2 | cut -c1-12) &&
	mmc=$(git -C main rev-parse HEAD~1 | cut -c1-12) &&
	kvm=$(git -C main rev-parse HEAD | cut -c1-12) &&
	commit_in crypto q1 1 "crypto: qat - fix handling of VF to PF interrupts" "$sob" &&
	qat=$(git -C crypto rev-parse HEAD | cut -c1-7) &&
	commit_in crypto q2 2 "crypto: qat - rework the VF2PF interrupt handling logic" \
		"Fixes: $qat (\"crypto: qat - fix handling of VF to PF interrupts\")
$sob" &&
	commit_in fuse b 1 "fuse: reflect cached blocksize if blocksize was changed" \
		"Fixes: $fuse (\"fuse: keep inode->i_blkbits constant)
$sob" &&
	commit_in mmc-fixes t 1 "mmc: sdhci-omap: Fix Tuning procedure for temperatures < -20C" \
		"Fixes: $mmc (\"mmc: sdhci-omap: Workaround errata regarding
SDR104/HS200 tuning failures (i929)\")
$sob" &&
	commit_in kvm x 1 "KVM: VMX: avoid running vmx_handle_exit_irqoff in case of emulation" \
		"Fixes: $kvm (\"KVM: VMX: Handle NMIs, #MCs and async #PFs in common irqs-disabled fn\", 2019-06-18)
$sob" &&
	commit_in pinctrl aw 1 "pinctrl: Add driver for Awinic AW9523/B I2C GPIO Expander" "$sob" &&
	GIT_COMMITTER_NAME="Wolfram Sang" GIT_COMMITTER_EMAIL=wsa@kernel.example \
		commit_in i2c i 1 "i2c: drivers: Use generic definitions for bus frequencies" \
		"Signed-off-by: Tide Test <test@tide.invalid>" &&
	GIT_AUTHOR_NAME=gaoxu GIT_AUTHOR_EMAIL=gaoxu2@honor.com \
		commit_in mm l 1 "mm: add lazyfree folio to lru tail" \
		"Signed-off-by: gao xu <gaoxu2@hihonor.com>
$sob" &&
	commit_in folio r 1 "mm/rmap: Convert try_to_unmap() to take a folio" &&
	commit_in char-misc.current fr 1 "misc: fastrpc: Fix double free of '"'"'buf'"'"' in error path" "$sob" &&
	git -C fastrpc fetch -q ../char-misc.current master &&
	git -C fastrpc cherry-pick FETCH_HEAD >/dev/null &&
	git -C fastrpc commit -q --amend --no-edit --date="2026-11-20T11:00:00Z" &&
	commit_in pm acpi 1 "ACPI: resource: Add Medion S17413 to IRQ override quirk" "$sob" &&
	git -C main fetch -q ../pm master &&
	git -C main cherry-pick FETCH_HEAD >/dev/null &&
	git -C main commit -q --amend --no-edit --date="2026-11-20T12:00:00Z" &&
	git -C main tag v1 &&
	{
		printf "#tide\tbase\tmain#v1\n#tide\tproject=linux-next\n"
		for t in $trees; do printf "%s\tgit\t%s#master\n#tide\t%s\tcontact=%s@ex.org\n" $t $t $t $t; done
	} >trees.conf &&
	run_day 2026-12-01
'

test_expect_success 'the first day: the mails'"'"' problems, nothing else' '
	findings 2026-12-01 >actual &&
	cat >expect <<-\EOF &&
	fixes crypto: crypto: qat - rework the VF2PF interrupt handling logic: Fixes: QAT ("crypto: qat - fix handling of VF to PF interrupts") -> short-sha
	fixes fuse: fuse: reflect cached blocksize if blocksize was changed: Fixes: FUSE ("fuse: keep inode->i_blkbits constant) -> no-closing-quote
	fixes mmc-fixes: mmc: sdhci-omap: Fix Tuning procedure for temperatures < -20C: Fixes: MMC ("mmc: sdhci-omap: Workaround errata regarding -> no-closing-parenthesis, no-closing-quote
	fixes kvm: KVM: VMX: avoid running vmx_handle_exit_irqoff in case of emulation: Fixes: KVM ("KVM: VMX: Handle NMIs, #MCs and async #PFs in common irqs-disabled fn", 2019-06-18) -> no-closing-quote, subject-mismatch
	signoff i2c: i2c: drivers: Use generic definitions for bus frequencies: no sign-off of the committer
	signoff mm: mm: add lazyfree folio to lru tail: no sign-off of the author
	signoff folio: mm/rmap: Convert try_to_unmap() to take a folio: no sign-off of the author and committer
	duplicate fastrpc: misc: fastrpc: Fix double free of '"'"'buf'"'"' in error path: also in char-misc.current as "misc: fastrpc: Fix double free of '"'"'buf'"'"' in error path"
	duplicate pm: ACPI: resource: Add Medion S17413 to IRQ override quirk: also in mainline as "ACPI: resource: Add Medion S17413 to IRQ override quirk"
	EOF
	sed -e "s/$(git -C crypto rev-parse HEAD~1 | cut -c1-7)/QAT/" \
	    -e "s/$(git -C main rev-parse fork~2 | cut -c1-12)/FUSE/" \
	    -e "s/$(git -C main rev-parse fork~1 | cut -c1-12)/MMC/" \
	    -e "s/$(git -C main rev-parse fork | cut -c1-12)/KVM/" actual >normalized &&
	test_cmp expect normalized
'

test_expect_success 'the next day: pinctrl rebased under its Fixes: tag' '
	old=$(id12 pinctrl) &&
	git -C pinctrl commit -q --amend --no-edit --date="2026-11-21T10:00:00Z" &&
	commit_in pinctrl fix 1 "pinctrl: aw9523: fix the IRQ domain" "Fixes: $old (\"pinctrl: Add driver for Awinic AW9523/B I2C GPIO Expander\")
$sob" &&
	run_day 2026-12-02 &&
	findings 2026-12-02 | grep " pinctrl: " | sed "s/$old/OLD/" >actual &&
	echo "fixes pinctrl: pinctrl: aw9523: fix the IRQ domain: Fixes: OLD (\"pinctrl: Add driver for Awinic AW9523/B I2C GPIO Expander\") -> not-in-day" >expect &&
	test_cmp expect actual &&
	test $(findings 2026-12-02 | wc -l) = 10
'

test_expect_success 'the mails'"'"' subjects are linux-next'"'"'s' '
	tide -C ws -f trees.conf report 2026-12-01 --mail --dry-run | grep "^Subject:" >actual &&
	cat >expect <<-\EOF &&
	Subject: linux-next: Fixes tag needs some work in the crypto tree
	Subject: linux-next: Fixes tag needs some work in the fuse tree
	Subject: linux-next: Fixes tag needs some work in the mmc-fixes tree
	Subject: linux-next: Fixes tag needs some work in the kvm tree
	Subject: linux-next: Signed-off-by missing for commit in the i2c tree
	Subject: linux-next: Signed-off-by missing for commit in the mm tree
	Subject: linux-next: Signed-off-by missing for commit in the folio tree
	Subject: linux-next: duplicate patch in the fastrpc tree
	Subject: linux-next: duplicate patch in the pm tree
	EOF
	test_cmp expect actual
'

test_done
