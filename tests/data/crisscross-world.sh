#!/bin/sh
# A day of criss-cross trees, for tests/unit/test_bisect.c (the day
# rebuilt through bisect's merges): crisscross-world.sh DIR PAIRS writes
#   DIR/work       one repository: tag v1, branches A1 B1 ... (PAIRS pairs),
#                  "same" (v1 itself) and "clash" (conflicts with A1's fixup)
#   DIR/trees.conf the base work#v1 and the trees A1 B1 A2 B2 ... same clash
#   DIR/ws/fixups/A1/0001-*.patch  a fixup the day applies after A1
# Ai and Bi merge each other's first commit (a criss-cross: merging Bi
# onto a day that has Ai finds two merge bases), then each removes the
# other's file, so only a virtual base of both bases merges them as git
# does: with either base alone a removed file comes back.
set -e
dir=$1 pairs=$2
export GIT_AUTHOR_NAME=tide GIT_AUTHOR_EMAIL=tide@example.org
export GIT_COMMITTER_NAME=tide GIT_COMMITTER_EMAIL=tide@example.org
export GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000"
git init -q -b master "$dir/work"
cd "$dir/work"
printf 'int base;\n' >base.c
git add base.c && git commit -qm "mainline: base" && git tag v1
i=1
while [ $i -le "$pairs" ]; do
	git checkout -q -b A$i v1
	mkdir -p p$i && printf 'a%s\n' $i >p$i/a && git add p$i && git commit -qm "A$i: add a"
	git checkout -q -b B$i v1
	mkdir -p p$i && printf 'b%s\n' $i >p$i/b && git add p$i && git commit -qm "B$i: add b"
	git checkout -q A$i && git merge -q --no-edit -m "A$i: merge B$i" B$i
	git checkout -q B$i && git merge -q --no-edit -m "B$i: merge A$i" A$i~1
	git checkout -q A$i && git rm -q p$i/b && git commit -qm "A$i: drop b"
	git checkout -q B$i && git rm -q p$i/a && git commit -qm "B$i: drop a"
	i=$((i + 1))
done
git branch same v1
git checkout -q -b clash v1 && printf 'int base = 2;\n' >base.c && git commit -qam "clash: base.c"
# The fixup: base.c changed, as a patch made on v1.
git checkout -q -b fix v1 && printf 'int base = 1;\n' >base.c && git commit -qam "fixup: base.c"
mkdir -p "$dir/ws/fixups/A1"
git format-patch -q -1 -o "$dir/ws/fixups/A1" fix
git checkout -q master
{
	printf '#tide\tbase\twork#v1\n'
	i=1
	while [ $i -le "$pairs" ]; do
		printf 'A%s\tgit\twork#A%s\nB%s\tgit\twork#B%s\n' $i $i $i $i
		i=$((i + 1))
	done
	printf 'same\tgit\twork#same\nclash\tgit\twork#clash\n'
} >"$dir/trees.conf"
