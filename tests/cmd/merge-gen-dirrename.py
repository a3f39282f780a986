#!/usr/bin/env python3
"""Generate directory-rename, rename and nested criss-cross merge cases.

usage: merge-gen-dirrename.py SEED PER_KIND > stream   (case list on fd 3)

One git fast-import stream; case N has branches cN-ours and cN-theirs, and
fd 3 gets "N KIND" per case.  t1030 compares tide merge-tree with git
merge-tree --write-tree (git's default merge.directoryRenames=conflict) on
each, so the generator only makes histories, it does not predict results.
Each kind is one of merge-ort's rules (t6423-merge-rename-directories.sh
has a test of each): a whole directory moved while the other side adds to
it or renames into it, a directory split with and without a majority,
nested directories, a renamed parent, both sides renaming one directory,
collisions of implicit renames, a path in the way; then file renames
(rename/rename 1-to-2 and 2-to-1, rename/add, rename/delete, chains,
inexact renames); and criss-cross histories whose merge bases have merge
bases of their own.
"""
import os
import random
import sys

out = sys.stdout.buffer
mark = [0]
when = [1700000000]


def emit(s):
    out.write(s if isinstance(s, bytes) else s.encode())


def blob(data):
    mark[0] += 1
    emit("blob\nmark :%d\ndata %d\n" % (mark[0], len(data)))
    emit(data)
    emit("\n")
    return mark[0]


def commit(ref, files, parents, msg):
    """files: path -> bytes (all mode 100644); returns the commit's mark."""
    marks = {p: blob(d) for p, d in sorted(files.items())}
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
    for p, bm in marks.items():
        emit("M 100644 :%d %s\n" % (bm, p))
    emit("\n")
    return mark[0]


def text(tag, n=20):
    return "".join("line %d of %s\n" % (i, tag) for i in range(n)).encode()


def edit(data, i, tag):
    lines = data.split(b"\n")
    lines[i % (len(lines) - 1)] = ("changed by %s" % tag).encode()
    return b"\n".join(lines)


def move(files, src, dst):
    files[dst] = files.pop(src)


def move_dir(files, src, dst, only=None):
    """Rename every file under src/ to dst/ (or those in only)."""
    for p in sorted(files):
        if p.startswith(src + "/") and (only is None or p in only):
            move(files, p, dst + p[len(src):])


class Case:
    def __init__(self, rng, cid):
        self.rng = rng
        self.cid = cid
        self.base = {}
        # kinds add their own directories; these keep the root non-empty
        for i in range(3):
            self.base["top%d.txt" % i] = text("c%d-top%d" % (cid, i))

    def files(self, d, n, tag=None):
        for i in range(n):
            self.base["%s/f%d.c" % (d, i)] = text("c%d-%s-%s-%d" % (self.cid, tag or d, d, i))

    def sides(self):
        self.ours = dict(self.base)
        self.theirs = dict(self.base)
        if self.rng.random() < 0.5:
            return self.ours, self.theirs
        return self.theirs, self.ours

    def new(self, tag):
        return text("c%d-new-%s-%d" % (self.cid, tag, self.rng.randrange(1000)))

    def write(self, kind):
        b = commit("c%d-base" % self.cid, self.base, None, "base")
        commit("c%d-ours" % self.cid, self.ours, [b], "ours")
        commit("c%d-theirs" % self.cid, self.theirs, [b], "theirs")
        os.write(3, ("%d %s\n" % (self.cid, kind)).encode())


def k_dir_move(c):
    """One side moves a whole directory; the other adds files to it,
    and maybe edits one that moved."""
    c.files("src/x", c.rng.randrange(2, 6))
    c.files("src/keep", 2)
    mover, other = c.sides()
    dst = c.rng.choice(["src/lib/x", "lib/x", "y", "src/y"])
    move_dir(mover, "src/x", dst)
    for i in range(c.rng.randrange(1, 4)):
        other["src/x/new%d.c" % i] = c.new("add%d" % i)
    if c.rng.random() < 0.5:
        other["src/x/f0.c"] = edit(c.base["src/x/f0.c"], 4, "other")
    if c.rng.random() < 0.3:
        mover["src/x/f1.c"] = edit(mover.pop(dst + "/f1.c"), 9, "mover")


def k_dir_move_rename_into(c):
    """The other side renames a file into the directory the mover moved."""
    c.files("a", c.rng.randrange(2, 5))
    c.files("elsewhere", 3)
    mover, other = c.sides()
    move_dir(mover, "a", "b")
    move(other, "elsewhere/f1.c", "a/moved-in.c")
    if c.rng.random() < 0.5:
        mover["elsewhere/f1.c"] = edit(c.base["elsewhere/f1.c"], 3, "mover")
    if c.rng.random() < 0.5:
        other["a/added.c"] = c.new("added")


def k_dir_split(c):
    """Files of one directory go to two places: a tie (no rename,
    git's "directory rename split") or a majority."""
    n = c.rng.choice([2, 3, 4, 5])
    c.files("d", n)
    mover, other = c.sides()
    names = ["d/f%d.c" % i for i in range(n)]
    half = c.rng.randrange(1, n)
    move_dir(mover, "d", "e1", names[:half])
    move_dir(mover, "d", "e2", names[half:])
    other["d/new.c"] = c.new("new")
    if c.rng.random() < 0.5:
        other["d/f0.c"] = edit(c.base["d/f0.c"], 6, "other")


def k_nested(c):
    """Nested directories: the parent moves with its subdirectory, or
    only the subdirectory moves; the other side adds at each level."""
    c.files("p", 2)
    c.files("p/sub", 3)
    c.files("p/sub/deep", 2)
    mover, other = c.sides()
    r = c.rng.randrange(3)
    if r == 0:
        move_dir(mover, "p", "q")
    elif r == 1:
        move_dir(mover, "p/sub", "p/sub2")
    else:
        move_dir(mover, "p/sub", "r/sub")
    for d in c.rng.sample(["p", "p/sub", "p/sub/deep"], c.rng.randrange(1, 4)):
        other[d + "/added.c"] = c.new(d)


def k_parent(c):
    """A renamed parent with a common tail (a/b/c -> a/x/c counts for
    a/b -> a/x too), and the other side adding under a/b."""
    c.files("a/b/c", 3)
    c.files("a/b", c.rng.randrange(0, 3))
    c.files("a/keep", 2)
    mover, other = c.sides()
    newp = c.rng.choice(["a/x", "z", "a/x/y"])
    move_dir(mover, "a/b", newp)
    tgt = c.rng.choice(["a/b/c/new.c", "a/b/new.c", "a/b/nd/new.c"])
    other[tgt] = c.new("new")


def k_both_rename(c):
    """Both sides rename the same directory (same or different place):
    git applies no directory rename for it."""
    c.files("m", 3)
    c.ours = dict(c.base)
    c.theirs = dict(c.base)
    tdir = c.rng.choice(["n", "o"])
    move_dir(c.ours, "m", "n")
    move_dir(c.theirs, "m", tdir)
    if c.rng.random() < 0.5:
        c.ours["n/added.c"] = c.new("added")
    else:
        c.theirs[tdir + "/added.c"] = c.new("added")


def k_exclusion(c):
    """t6423 9c-like: side 1 moves dumb -> smart, side 2 moves other -> dumb
    (a directory the first side renamed away): no transitive rename."""
    c.files("dumb", 2)
    c.files("other", 2)
    c.ours = dict(c.base)
    c.theirs = dict(c.base)
    s1, s2 = (c.ours, c.theirs) if c.rng.random() < 0.5 else (c.theirs, c.ours)
    move_dir(s1, "dumb", "smart")
    move_dir(s2, "other", "dumb")
    if c.rng.random() < 0.5:
        s1["other/added.c"] = c.new("added")


def k_collision(c):
    """Two directories merged into one by one side; the other side adds
    the same name to both (implicit renames would collide)."""
    c.files("u", 2, "u")
    c.files("v", 2, "v")
    c.files("w", 1, "w")
    mover, other = c.sides()
    move_dir(mover, "u", "w")
    for p in list(mover):
        if p.startswith("v/"):
            move(mover, p, "w/g" + p[2:])
    if c.rng.random() < 0.5:
        other["u/same.c"] = c.new("u")
        other["v/same.c"] = c.new("v")
    else:
        other["u/only.c"] = c.new("u")
        other["v/other.c"] = c.new("v")


def k_in_way(c):
    """The mover already has a file where the other side's addition
    would be moved."""
    c.files("s", 3)
    mover, other = c.sides()
    move_dir(mover, "s", "t")
    mover["t/new.c"] = c.new("mover")
    other["s/new.c"] = c.new("other")
    if c.rng.random() < 0.5:
        other["s/new2.c"] = c.new("other2")


def k_rename_rename_1to2(c):
    c.files("r", 3)
    c.ours = dict(c.base)
    c.theirs = dict(c.base)
    move(c.ours, "r/f1.c", c.rng.choice(["r/one.c", "o/f1.c"]))
    move(c.theirs, "r/f1.c", c.rng.choice(["r/two.c", "t/f1.c"]))
    if c.rng.random() < 0.5:
        k = [p for p in c.ours if p not in c.base][0]
        c.ours[k] = edit(c.ours[k], 2, "ours")


def k_rename_rename_2to1(c):
    c.files("r", 3)
    c.ours = dict(c.base)
    c.theirs = dict(c.base)
    dst = c.rng.choice(["r/both.c", "x/both.c"])
    move(c.ours, "r/f0.c", dst)
    move(c.theirs, "r/f1.c", dst)


def k_rename_add(c):
    c.files("r", 3)
    mover, other = c.sides()
    dst = c.rng.choice(["r/new.c", "k/new.c"])
    move(mover, "r/f0.c", dst)
    other[dst] = c.new("other")
    if c.rng.random() < 0.5:
        other["r/f0.c"] = edit(c.base["r/f0.c"], 5, "other")


def k_rename_delete(c):
    c.files("r", 3)
    mover, other = c.sides()
    move(mover, "r/f2.c", c.rng.choice(["r/renamed.c", "far/away/f2.c"]))
    del other["r/f2.c"]
    if c.rng.random() < 0.5:
        k = [p for p in mover if p not in c.base][0]
        mover[k] = edit(mover[k], 8, "mover")


def k_rename_chain(c):
    """a -> b on one side while the other moves b -> c (and maybe edits
    a); or a -> b -> c in two commits of one side."""
    c.files("r", 3)
    c.ours = dict(c.base)
    c.theirs = dict(c.base)
    s1, s2 = (c.ours, c.theirs) if c.rng.random() < 0.5 else (c.theirs, c.ours)
    if c.rng.random() < 0.5:
        move(s1, "r/f0.c", "r/g0.c")
        move(s2, "r/f1.c", "r/f0x.c")
        s2["r/f0.c"] = edit(c.base["r/f0.c"], 11, "s2")
    else:
        move(s1, "r/f0.c", "q/f0.c")
        s1["q/f0.c"] = edit(s1["q/f0.c"], 1, "s1")
        move(s1, "q/f0.c", "w/f0.c")
        s2["r/f0.c"] = edit(c.base["r/f0.c"], 15, "s2")


def k_rename_inexact(c):
    """Renamed and edited (about 50% to 95% alike), across directories;
    the other side edits another part of it."""
    c.files("r", 3)
    mover, other = c.sides()
    data = c.base["r/f0.c"]
    for i in c.rng.sample(range(20), c.rng.randrange(1, 9)):
        data = edit(data, i, "mover%d" % i)
    del mover["r/f0.c"]
    mover[c.rng.choice(["s/f0.c", "r/g.c", "deep/er/f.c"])] = data
    other["r/f0.c"] = edit(c.base["r/f0.c"], c.rng.randrange(20), "other")


def k_to_root(c):
    """A directory's files moved to the top level (rename to "")."""
    c.files("pkg/x", 3)
    mover, other = c.sides()
    for p in sorted(mover):
        if p.startswith("pkg/x/"):
            move(mover, p, p[len("pkg/x/"):])
    other["pkg/x/added.c"] = c.new("added")


def k_in_way_own(c):
    """The adding side itself has something where its addition would be
    moved: git leaves the addition in place (a conflict without stages)."""
    c.files("s", 3)
    mover, other = c.sides()
    move_dir(mover, "s", "t")
    other["s/new.c"] = c.new("other")
    other["t/new.c"] = c.new("other-t")
    if c.rng.random() < 0.5:
        other["s/fine.c"] = c.new("fine")


def k_random_dirs(c):
    """One side moves a whole directory (and maybe more); both sides make
    random additions (mostly where the move came from), edits, deletions,
    file renames and partial directory moves."""
    dirs = ["a", "a/b", "a/b/c", "d", "d/e", "f"]
    for d in dirs:
        c.files(d, c.rng.randrange(1, 4))
    mover, other = c.sides()
    moved = c.rng.choice(dirs)
    dst = c.rng.choice(["g", "a/g", "d/e/h", "f/i", "j/k", "f/" + moved.split("/")[-1]])
    if not any(p.startswith(dst + "/") for p in mover):
        move_dir(mover, moved, dst)
    for side, tag, nops in ((mover, "mover", 2), (other, "other", 4)):
        for _ in range(c.rng.randrange(nops)):
            random_op(c, side, tag, dirs, moved)


def random_op(c, side, tag, dirs, moved):
    have = sorted(side)
    op = c.rng.randrange(6)
    src = moved if c.rng.random() < 0.6 else c.rng.choice(dirs)
    if op <= 1:
        side["%s/n%d.c" % (src, c.rng.randrange(3))] = c.new(tag)
    elif op == 2:
        p = c.rng.choice(have)
        side[p] = edit(side[p], c.rng.randrange(20), tag)
    elif op == 3:
        del side[c.rng.choice(have)]
    elif op == 4:
        p = c.rng.choice(have)
        dst = "%s/r%d.c" % (src, c.rng.randrange(3))
        if dst not in side:
            move(side, p, dst)
    else:
        files = [p for p in have if p.startswith(src + "/") and "/" not in p[len(src) + 1:]]
        if files:
            dst = c.rng.choice(["g", "f", "a/g"])
            move_dir(side, src, dst, set(c.rng.sample(files, max(1, len(files) // 2))))

KINDS = [
    ("dir-move", k_dir_move), ("dir-rename-into", k_dir_move_rename_into),
    ("dir-split", k_dir_split), ("dir-nested", k_nested), ("dir-parent", k_parent),
    ("dir-both", k_both_rename), ("dir-exclusion", k_exclusion),
    ("dir-collision", k_collision), ("dir-in-way", k_in_way),
    ("dir-to-root", k_to_root), ("dir-in-way-own", k_in_way_own),
    ("dir-random", k_random_dirs),
    ("rename-1to2", k_rename_rename_1to2), ("rename-2to1", k_rename_rename_2to1),
    ("rename-add", k_rename_add), ("rename-delete", k_rename_delete),
    ("rename-chain", k_rename_chain), ("rename-inexact", k_rename_inexact),
]


def nested_criss_cross(rng, cid):
    """ours and theirs have merge bases a2 and b2, whose own merge bases
    are a1 and b1: the virtual base is built from a virtual base."""
    base = {"f%d.c" % i: text("c%d-cc%d" % (cid, i)) for i in range(8)}
    r = commit("c%d-base" % cid, base, None, "root")

    def step(files, tag, parents, who):
        f = dict(files)
        for p, line in who:
            f[p] = edit(f[p], line, tag)
        return commit("c%d-%s" % (cid, tag), f, parents, tag), f

    pick = lambda: (rng.choice(sorted(base)), rng.randrange(20))
    a1, fa1 = step(base, "a1", [r], [pick()])
    b1, fb1 = step(base, "b1", [r], [pick()])
    fx = dict(fa1)
    fx.update({p: d for p, d in fb1.items() if d != base[p]})
    fy = dict(fx)
    if rng.random() < 0.5:
        p, line = pick()
        fx[p] = edit(fx[p], line, "x1")
        fy[p] = edit(fy[p], line, "y1")
    x1 = commit("c%d-x1" % cid, fx, [a1, b1], "x1")
    y1 = commit("c%d-y1" % cid, fy, [b1, a1], "y1")
    a2, fa2 = step(fx, "a2", [x1], [pick()])
    b2, fb2 = step(fy, "b2", [y1], [pick()])
    f2x = dict(fa2)
    f2x.update({p: d for p, d in fb2.items() if d != fy[p]})
    f2y = dict(fb2)
    f2y.update({p: d for p, d in fa2.items() if d != fx[p]})
    x2 = commit("c%d-x2" % cid, f2x, [a2, b2], "x2")
    y2 = commit("c%d-y2" % cid, f2y, [b2, a2], "y2")
    ours, theirs = dict(f2x), dict(f2y)
    p, line = pick()
    ours[p] = edit(ours[p], line, "ours")
    if rng.random() < 0.5:
        p, line = pick()
    theirs[p] = edit(theirs[p], line + rng.choice([0, 5]), "theirs")
    commit("c%d-ours" % cid, ours, [x2], "ours")
    commit("c%d-theirs" % cid, theirs, [y2], "theirs")
    os.write(3, ("%d nested-criss-cross\n" % cid).encode())


def rename_criss_cross(rng, cid):
    """Merge bases a1 (renamed a file, or moved a directory) and b1
    (edited it, or added to the directory): the virtual base needs
    rename detection; then both sides edit the renamed file."""
    base = {"d/f%d.c" % i: text("c%d-rc%d" % (cid, i)) for i in range(3)}
    base["top.txt"] = text("c%d-top" % cid)
    r = commit("c%d-base" % cid, base, None, "root")
    fa, fb = dict(base), dict(base)
    whole = rng.random() < 0.5
    if whole:
        move_dir(fa, "d", "e")
        fb["d/new.c"] = text("c%d-new" % cid)
    else:
        move(fa, "d/f0.c", "d/g0.c")
    fb["d/f0.c"] = edit(fb["d/f0.c"], 2, "b1")
    a1 = commit("c%d-a1" % cid, fa, [r], "a1")
    b1 = commit("c%d-b1" % cid, fb, [r], "b1")
    dst = "e/f0.c" if whole else "d/g0.c"
    merged = dict(fa)
    merged[dst] = edit(fa[dst], 2, "b1")
    if whole:
        merged["e/new.c"] = fb["d/new.c"]
    x = commit("c%d-x" % cid, merged, [a1, b1], "x")
    y = commit("c%d-y" % cid, merged, [b1, a1], "y")
    ours, theirs = dict(merged), dict(merged)
    ours[dst] = edit(ours[dst], 6, "ours")
    theirs[dst] = edit(theirs[dst], rng.choice([6, 14]), "theirs")
    commit("c%d-ours" % cid, ours, [x], "ours")
    commit("c%d-theirs" % cid, theirs, [y], "theirs")
    os.write(3, ("%d rename-criss-cross\n" % cid).encode())


def main():
    rng = random.Random(int(sys.argv[1]))
    per_kind = int(sys.argv[2])
    cid = 0
    for name, fn in KINDS:
        for _ in range(per_kind):
            c = Case(rng, cid)
            fn(c)
            c.write(name)
            cid += 1
    for _ in range(per_kind):
        nested_criss_cross(rng, cid)
        cid += 1
    for _ in range(per_kind):
        rename_criss_cross(rng, cid)
        cid += 1
    emit("done\n")


main()
