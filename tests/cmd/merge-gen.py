#!/usr/bin/env python3
"""Generate merge cases for t1000-merge-tree.sh as one git fast-import stream.

usage: merge-gen.py SEED COUNT_PER_KIND RANDOM_COUNT > stream  (case list on fd 3)

Each case N gets branches cN-ours and cN-theirs (and cN-base); the case
list written to fd 3 has one line "N KIND" per case.  The test compares
`tide merge-tree` with `git merge-tree --write-tree` on every case, so the
generator only has to make realistic histories, not predict results.
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
    """files: path -> (mode, bytes); returns the commit's mark."""
    marks = {p: (m, blob(d)) for p, (m, d) in sorted(files.items())}
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
    for p, (m, bm) in marks.items():
        emit("M %s :%d %s\n" % (m, bm, p))
    emit("\n")
    return mark[0]


def text(tag, n):
    return "".join("line %d of %s\n" % (i, tag) for i in range(n)).encode()


def edit_line(data, i, tag):
    lines = data.split(b"\n")
    lines[i % (len(lines) - 1)] = ("changed by %s" % tag).encode()
    return b"\n".join(lines)


def base_tree(rng, cid, nfiles=12):
    dirs = ["", "a/", "a/b/", "c/", "c/d/e/", "f/"]
    files = {}
    for i in range(nfiles):
        d = rng.choice(dirs)
        files["%sfile%d.txt" % (d, i)] = ("100644", text("c%d-f%d" % (cid, i), 20))
    # keep every directory non-empty and with more than one file, so a
    # single moved file never looks like a directory rename
    for d in dirs:
        for k in range(2):
            files["%skeep%d" % (d, k)] = ("100644", text("c%d-%s-keep%d" % (cid, d, k), 5))
    return files


class Case:
    def __init__(self, rng, cid):
        self.rng = rng
        self.cid = cid
        self.base = base_tree(rng, cid)
        self.ours = dict(self.base)
        self.theirs = dict(self.base)

    def pick(self, files=None, pred=lambda p: True):
        files = files if files is not None else self.base
        return self.rng.choice(sorted(p for p in files if pred(p)))

    def write(self, kind):
        b = commit("c%d-base" % self.cid, self.base, None, "base")
        commit("c%d-ours" % self.cid, self.ours, [b], "ours")
        commit("c%d-theirs" % self.cid, self.theirs, [b], "theirs")
        os.write(3, ("%d %s\n" % (self.cid, kind)).encode())


def is_txt(p):
    return p.endswith(".txt")


def k_disjoint(c):
    a = c.pick(pred=is_txt)
    b = c.pick(pred=lambda p: is_txt(p) and p != a)
    c.ours[a] = ("100644", edit_line(c.base[a][1], 3, "ours"))
    c.theirs[b] = ("100644", edit_line(c.base[b][1], 7, "theirs"))
    c.ours["new/ours%d.txt" % c.cid] = ("100644", text("o", 3))
    del c.theirs[c.pick(pred=lambda p: is_txt(p) and p not in (a, b))]


def k_same_file(c):
    a = c.pick(pred=is_txt)
    i = c.rng.randrange(0, 8)
    c.ours[a] = ("100644", edit_line(c.base[a][1], i, "ours"))
    c.theirs[a] = ("100644", edit_line(c.base[a][1], i + c.rng.randrange(4, 10), "theirs"))


def k_overlap(c):
    a = c.pick(pred=is_txt)
    i = c.rng.randrange(0, 19)
    c.ours[a] = ("100644", edit_line(c.base[a][1], i, "ours"))
    c.theirs[a] = ("100644", edit_line(c.base[a][1], i + c.rng.randrange(0, 2), "theirs"))


def k_add_add_same(c):
    p = "a/added%d.txt" % c.cid
    c.ours[p] = c.theirs[p] = ("100644", text("same", 4))


def k_add_add_diff(c):
    p = c.rng.choice(["a/", "c/d/", ""]) + "added%d.txt" % c.cid
    c.ours[p] = ("100644", text("ours", 4))
    c.theirs[p] = ("100644", text("theirs", 4 + c.rng.randrange(3)))


def k_modify_delete(c):
    a = c.pick(pred=is_txt)
    side, other = (c.ours, c.theirs) if c.rng.random() < 0.5 else (c.theirs, c.ours)
    del side[a]
    other[a] = ("100644", edit_line(c.base[a][1], 5, "mod"))


def k_delete_delete(c):
    a = c.pick(pred=is_txt)
    del c.ours[a]
    del c.theirs[a]
    b = c.pick(pred=lambda p: is_txt(p) and p != a)
    c.theirs[b] = ("100644", edit_line(c.base[b][1], 2, "theirs"))


def k_file_dir(c):
    side, other = (c.ours, c.theirs) if c.rng.random() < 0.5 else (c.theirs, c.ours)
    if c.rng.random() < 0.5:
        p = "a/fd%d" % c.cid
        side[p] = ("100644", text("file", 3))
        other[p + "/inner.txt"] = ("100644", text("dir", 3))
    else:
        a = c.pick(pred=is_txt)
        del other[a]
        other[a + "/inner.txt"] = ("100644", text("dir", 3))
        if c.rng.random() < 0.5:
            side[a] = ("100644", edit_line(c.base[a][1], 1, "mod"))
        else:
            b = c.pick(pred=lambda p: is_txt(p) and p != a and not p.startswith(a))
            side[b] = ("100644", edit_line(c.base[b][1], 1, "mod"))


def k_mode(c):
    a = c.pick(pred=is_txt)
    r = c.rng.randrange(4)
    c.ours[a] = ("100755", c.base[a][1])
    if r == 0:
        c.theirs[a] = ("100644", edit_line(c.base[a][1], 9, "theirs"))
    elif r == 1:
        c.theirs[a] = ("100755", c.base[a][1])
    elif r == 2:
        c.theirs[a] = ("120000", b"target/of/link")
    else:
        c.theirs[a] = ("100755", edit_line(c.base[a][1], 4, "theirs"))


def k_binary(c):
    p = "bin/blob%d.bin" % c.cid
    data = bytes(c.rng.randrange(256) for _ in range(64)) + b"\0" * 4
    c.base[p] = c.ours[p] = c.theirs[p] = ("100644", data)
    c.ours[p] = ("100644", data + b"ours\0")
    if c.rng.random() < 0.7:
        c.theirs[p] = ("100644", data + b"theirs\0")
    else:
        a = c.pick(pred=is_txt)
        c.theirs[a] = ("100644", edit_line(c.base[a][1], 1, "theirs"))


def k_symlink(c):
    p = "links/l%d" % c.cid
    c.base[p] = c.ours[p] = c.theirs[p] = ("120000", b"../a/keep0")
    r = c.rng.randrange(3)
    c.ours[p] = ("120000", b"../c/keep0")
    if r == 0:
        c.theirs[p] = ("120000", b"../f/keep1")
    elif r == 1:
        del c.theirs[p]
    else:
        c.theirs[p] = ("100644", b"now a file\n")


def k_rename(c):
    a = c.pick(pred=lambda p: is_txt(p) and "/" in p)
    side, other = (c.ours, c.theirs) if c.rng.random() < 0.5 else (c.theirs, c.ours)
    dst = c.rng.choice(["f/", "c/d/e/", "a/b/"]) + "renamed%d.txt" % c.cid
    data = c.base[a][1]
    if c.rng.random() < 0.5:
        data = edit_line(data, 17, "renamer")
    del side[a]
    side[dst] = ("100644", data)
    other[a] = ("100644", edit_line(c.base[a][1], c.rng.choice([2, 17]), "other"))


def k_rename_other(c):
    """Rename on one side; the other deletes it, renames it elsewhere,
    or adds its own file at the new path."""
    a = c.pick(pred=lambda p: is_txt(p) and "/" in p)
    side, other = (c.ours, c.theirs) if c.rng.random() < 0.5 else (c.theirs, c.ours)
    dst = c.rng.choice(["f/", "c/d/e/"]) + "moved%d.txt" % c.cid
    r = c.rng.randrange(4)
    del side[a]
    side[dst] = c.base[a]
    if r == 0:
        del other[a]
    elif r == 1:
        del other[a]
        other["a/b/other%d.txt" % c.cid] = c.base[a]
    elif r == 2:
        del other[a]
        other[dst] = c.base[a]
    else:
        other[dst] = ("100644", text("unrelated", 6))
        other[a] = ("100644", edit_line(c.base[a][1], 3, "other"))


def k_criss_cross(rng, cid):
    """Two merge bases: X merges (o1, t1), Y merges (t1, o1) differently."""
    base = base_tree(rng, cid)
    a, b, d = rng.sample(sorted(p for p in base if is_txt(p)), 3)
    bm = commit("c%d-base" % cid, base, None, "base")
    o1 = dict(base)
    o1[a] = ("100644", edit_line(base[a][1], 2, "o1"))
    t1 = dict(base)
    t1[b] = ("100644", edit_line(base[b][1], 2, "t1"))
    mo1 = commit("c%d-o1" % cid, o1, [bm], "o1")
    mt1 = commit("c%d-t1" % cid, t1, [bm], "t1")
    x = dict(o1)
    x[b] = t1[b]
    y = dict(x)
    if rng.random() < 0.5:
        # the two merges resolved a file differently: a conflicting base
        y[d] = ("100644", edit_line(base[d][1], 10, "y"))
        x[d] = ("100644", edit_line(base[d][1], 10, "x"))
    mx = commit("c%d-x" % cid, x, [mo1, mt1], "x")
    my = commit("c%d-y" % cid, y, [mt1, mo1], "y")
    ours = dict(x)
    theirs = dict(y)
    e = rng.choice(sorted(p for p in base if is_txt(p) and p not in (a, b, d)))
    ours[e] = ("100644", edit_line(base[e][1], 15, "ours"))
    if rng.random() < 0.5:
        theirs[a] = ("100644", edit_line(o1[a][1], 12, "theirs"))
    if rng.random() < 0.5:
        theirs[b] = ("100644", edit_line(t1[b][1], 14, "theirs"))
    commit("c%d-ours" % cid, ours, [mx], "ours")
    commit("c%d-theirs" % cid, theirs, [my], "theirs")
    os.write(3, ("%d criss-cross\n" % cid).encode())


def k_random(c):
    """A few random operations per side, on the same small tree."""
    for side, tag in ((c.ours, "ours"), (c.theirs, "theirs")):
        for _ in range(c.rng.randrange(1, 5)):
            op = c.rng.randrange(5)
            txt = sorted(p for p in side if is_txt(p))
            if op <= 1 and txt:
                p = c.rng.choice(txt)
                side[p] = (side[p][0], edit_line(side[p][1], c.rng.randrange(19), tag))
            elif op == 2:
                p = c.rng.choice(["", "a/", "c/d/e/", "g/"]) + "n%d.txt" % c.rng.randrange(3)
                side[p] = ("100644", text("%s-%d" % (tag, c.rng.randrange(2)), 3))
            elif op == 3 and txt:
                del side[c.rng.choice(txt)]
            elif txt:
                p = c.rng.choice(txt)
                side[p] = ("100755" if side[p][0] == "100644" else "100644", side[p][1])


KINDS = [
    ("disjoint", k_disjoint), ("same-file", k_same_file), ("overlap", k_overlap),
    ("add-add-same", k_add_add_same), ("add-add", k_add_add_diff),
    ("modify-delete", k_modify_delete), ("delete-delete", k_delete_delete),
    ("file-directory", k_file_dir), ("mode", k_mode), ("binary", k_binary),
    ("symlink", k_symlink), ("rename-modify", k_rename),
    ("rename-other", k_rename_other),
]


def main():
    seed, per_kind, nrandom = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    cid = 0
    for name, fn in KINDS:
        for _ in range(per_kind):
            c = Case(rng, cid)
            fn(c)
            c.write(name)
            cid += 1
    for _ in range(per_kind):
        k_criss_cross(rng, cid)
        cid += 1
    for _ in range(nrandom):
        c = Case(rng, cid)
        k_random(c)
        c.write("random")
        cid += 1
    emit("done\n")


main()
