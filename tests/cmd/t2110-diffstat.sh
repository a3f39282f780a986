#!/bin/sh
# merge.log's diffstat is git's, byte for byte: `git diff -M --stat` of
# each merge against its first parent (80 columns), on merges with wide
# and narrow changes, long names, renames and a binary file.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib-world.sh"

long=drivers/gpu/drm/amd/display/dc/dcn32/dcn32_resource_helpers_long_name.c

# branch NAME: a tree cloned from mainline, on for-next
branch() {
	git clone -q world/mainline "world/$1" && git -C "world/$1" checkout -q -b for-next
}

# commit_all NAME: commit everything in the tree
commit_all() {
	git -C "world/$1" add -A && git -C "world/$1" commit -q -m "$1: changes"
}

test_expect_success 'setup: trees with wide, narrow, renamed and binary changes' '
	make_mainline &&
	seq 1 40 >world/mainline/bitmap.h && seq 1 10 >world/mainline/narrow.c &&
	mkdir -p world/mainline/$(dirname $long) && seq 1 30 >world/mainline/$long &&
	seq 1 500 >world/mainline/huge.c &&
	git -C world/mainline add -A && git -C world/mainline commit -q -m more &&
	git -C world/mainline tag -f v1.0 >/dev/null &&
	branch wide && seq 1 300 >world/wide/big.c && sed -i 1,5d world/wide/narrow.c &&
	echo x >>world/wide/$long && commit_all wide &&
	branch narrow && seq 41 52 >>world/narrow/bitmap.h && echo y >world/narrow/b &&
	commit_all narrow &&
	branch mixed && sed -i "1,120d" world/mixed/huge.c && seq 1 80 >>world/mixed/huge.c &&
	echo one >world/mixed/one.c && sed -i 3d world/mixed/bitmap.h && commit_all mixed &&
	branch ren && git -C world/ren mv d/x d/z &&
	git -C world/ren mv $long $(dirname $long)/dcn32_resource_helpers_longer_name.c &&
	mkdir -p world/ren/lib && printf "\000\001bin\000%300s" "" >world/ren/lib/blob.bin &&
	commit_all ren &&
	branch quote && printf "q\n" >"world/quote/caf$(printf "\\303\\251").c" &&
	printf "t\n" >"world/quote/tab	name" && commit_all quote &&
	conf "wide git wide#for-next" "narrow git narrow#for-next" "mixed git mixed#for-next" \
		"ren git ren#for-next" "quote git quote#for-next" &&
	tide -C ws -f world/trees.conf run --no-build --date 2026-12-01 >out 2>err
'

test_expect_success 'every diffstat in merge.log is git diff --stat of the merge' '
	for c in $(git -C ws/repo.git rev-list --first-parent --reverse v1.0..next-20261201^); do
		git -C ws/repo.git diff -M --stat $c^ $c || exit 1
	done >expect &&
	grep "^ " ws/days/2026-12-01/merge.log >actual &&
	test_cmp expect actual
'

test_expect_success 'a file without deletions gets no "-" beside one that has them' '
	grep "^ bitmap.h | 12 ++++++++++++$" ws/days/2026-12-01/merge.log
'

test_expect_success 'the wide graph is scaled, not cut' '
	grep "^ big.c  *| 300 +\{21\}$" ws/days/2026-12-01/merge.log
'

test_done
