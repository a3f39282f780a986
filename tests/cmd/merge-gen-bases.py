#!/usr/bin/env python3
"""Generate merges with 3 to 10 merge bases, as one git fast-import stream.

usage: merge-gen-bases.py SEED COUNT > stream   (case list on fd 3)

Each case N starts from a root commit and K side branches (3 <= K <= 10)
forked from it, as trees forked from mainline points; side i changes a
file of its own and its own line of a shared file.  Both cN-ours and
cN-theirs merge every side branch back in (in different orders, so each
side is a merge base and none is below another), then change lines of
their own, of each other's, or lines a side branch changed; the list on
fd 3 says "N bases-K" (and "forked", below).  The test compares tide merge-tree with git merge-tree
--write-tree on each case (same tree on clean merges, same conflicted paths).

In about half the cases ("forked") the side branches fork from different
points of a mainline that changes a file of its own (and a line of the
shared file) after the root, as trees are based on different mainline
points: the merge bases then have different merge bases of their own,
so each step of the recursive virtual base is a different merge.
"""
import os
import random
import sys

out = sys.stdout.buffer
mark = [0]
when = [1700000000]
LINES = 12


def emit(s):
    out.write(s if isinstance(s, bytes) else s.encode())


def commit(ref, files, parents, msg):
    """files: path -> list of lines; returns the commit's mark."""
    blobs = {}
    for p, lines in sorted(files.items()):
        data = "".join(lines).encode()
        mark[0] += 1
        emit("blob\nmark :%d\ndata %d\n" % (mark[0], len(data)))
        emit(data)
        emit("\n")
        blobs[p] = mark[0]
    mark[0] += 1
    when[0] += 60
    emit("commit refs/heads/%s\nmark :%d\n" % (ref, mark[0]))
    emit("committer T <t@tide.invalid> %d +0000\n" % when[0])
    emit("data %d\n%s\n" % (len(msg), msg))
    if parents:
        emit("from :%d\n" % parents[0])
        for p in parents[1:]:
            emit("merge :%d\n" % p)
    emit("deleteall\n")
    for p, m in blobs.items():
        emit("M 100644 :%d %s\n" % (m, p))
    emit("\n")
    return mark[0]


def copy(files):
    return {p: list(v) for p, v in files.items()}


def merge_all(n, side, root, order, sides, changes):
    """Merge the side branches in order onto side i0; returns (mark, files)."""
    files = copy(root)
    for p, who, line in changes[order[0]]:
        files[p][line] = line_text(p, who, line)
    tip = sides[order[0]]
    for k in order[1:]:
        for p, who, line in changes[k]:
            files[p][line] = line_text(p, who, line)
        tip = commit("c%d-%s" % (n, side), files, [tip, sides[k]], "merge side %d" % k)
    return tip, files


def line_text(path, who, line):
    return "%s line %d by side %d\n" % (path, line, who)


def mainline(rng, n, root, r, k):
    """A mainline of k commits after the root, each changing its own line
    of main.c (and the last one a line of shared.c); returns the fork
    point of each side: (mark, changes made up to it)."""
    points = [(r, [])]
    files, made = copy(root), []
    for j in range(k):
        ch = [("main.c", 100 + j, j)]
        if j == k - 1:
            ch.append(("shared.c", 100 + j, 10))
        for p, who, line in ch:
            files[p][line] = line_text(p, who, line)
        made = made + ch
        points.append((commit("c%d-main" % n, files, [points[-1][0]], "main %d" % j), made))
    return [rng.choice(points) for _ in range(k)]


def gen_case(rng, n, cases):
    k = rng.randint(3, 10)
    root = {"common.c": ["common %d\n" % i for i in range(3 * 10 + 3)]}
    for i in range(k):
        root["side%d/f.c" % i] = ["side %d line %d\n" % (i, j) for j in range(LINES)]
    root["shared.c"] = ["shared %d\n" % i for i in range(LINES)]
    root["main.c"] = ["main %d\n" % i for i in range(LINES)]
    r = commit("c%d-base" % n, root, [], "root")
    forked = rng.random() < 0.5
    forks = mainline(rng, n, root, r, k) if forked else [(r, [])] * k
    sides, changes = [], []
    for i in range(k):
        files = copy(root)
        ch = list(forks[i][1]) + [("common.c", i, 3 * i + 1)]
        for line in rng.sample(range(LINES), rng.randint(1, 3)):
            ch.append(("side%d/f.c" % i, i, line))
        for p, who, line in ch:
            files[p][line] = line_text(p, who, line)
        sides.append(commit("c%d-side%d" % (n, i), files, [forks[i][0]], "side %d" % i))
        changes.append(ch)
    order1 = list(range(k))
    rng.shuffle(order1)
    order2 = list(order1)
    while order2 == order1:
        rng.shuffle(order2)
    ours, ofiles = merge_all(n, "ours", root, order1, sides, changes)
    theirs, tfiles = merge_all(n, "theirs", root, order2, sides, changes)
    kind = rng.choice(["clean", "conflict", "over-side", "both-over-side"])
    if kind == "clean":
        ofiles["shared.c"][1] = "ours\n"
        tfiles["shared.c"][8] = "theirs\n"
    elif kind == "conflict":
        ofiles["shared.c"][4] = "ours\n"
        tfiles["shared.c"][4] = "theirs\n"
    else:
        # a line a side branch changed: right only if the virtual base has it
        i = rng.randrange(k)
        p, _, line = changes[i][-1]
        ofiles[p][line] = "ours over side %d\n" % i
        if kind == "both-over-side":
            tfiles[p][line] = "theirs over side %d\n" % i
        else:
            tfiles["shared.c"][2] = "theirs\n"
    commit("c%d-ours" % n, ofiles, [ours], "ours")
    commit("c%d-theirs" % n, tfiles, [theirs], "theirs")
    cases.write("%d bases-%d%s\n" % (n, k, " forked" if forked else ""))


def main():
    rng = random.Random(int(sys.argv[1]))
    count = int(sys.argv[2])
    with os.fdopen(3, "w") as cases:
        for n in range(count):
            gen_case(rng, n, cases)
    emit("done\n")


if __name__ == "__main__":
    main()
