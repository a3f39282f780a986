#!/usr/bin/env python3
"""Generate rename-detection cases for t1070 as one git fast-import stream.

usage: merge-gen-renames.py scores SEED COUNT > stream   (case list on fd 3)
       merge-gen-renames.py adds SOURCES ADDS > stream
       merge-gen-renames.py same COPIES > stream
       merge-gen-renames.py big MIB > stream

scores: COUNT cases of each kind, branches cN-ours and cN-theirs; ours
  renames files with edits that put their similarity near git's
  thresholds (50% for any pair, 75% for a unique file name), theirs
  changes the old files, so whether a pair is a rename decides where the
  merge puts them.  Kinds: near50 (long lines, CRLF, no final newline,
  NUL bytes, sizes near the 2:1 pre-filter), near75, tie (destinations
  of equal score), dups (identical sources and destinations), guess
  (a shared file name in a directory whose siblings moved), empty.
adds: branch adds-ours moves SOURCES files (edited, renamed) and adds
  ADDS new files; adds-theirs edits the SOURCES files: the rename matrix
  is past merge.renameLimit.
same: same-ours moves COPIES files of one (non-empty) content to a new
  directory, same-theirs edits one of them.
big: big-ours moves a file of MIB MiB out of its directory with a
  one-line edit, big-theirs adds a file to that directory.
"""
import os
import random
import sys

out = sys.stdout.buffer
mark = [0]
when = [1700000000]
blobs = {}


def emit(s):
    out.write(s if isinstance(s, bytes) else s.encode())


def blob(data):
    if data in blobs:
        return blobs[data]
    mark[0] += 1
    emit("blob\nmark :%d\ndata %d\n" % (mark[0], len(data)))
    emit(data)
    emit("\n")
    blobs[data] = mark[0]
    return mark[0]


def commit(ref, files, parent, msg):
    """files: path -> bytes (or a blob mark); returns the commit's mark."""
    marks = {p: (d if isinstance(d, int) else blob(d)) for p, d in sorted(files.items())}
    mark[0] += 1
    when[0] += 60
    emit("commit refs/heads/%s\nmark :%d\n" % (ref, mark[0]))
    emit("committer T <t@tide.invalid> %d +0000\n" % when[0])
    emit("data %d\n%s\n" % (len(msg), msg))
    if parent:
        emit("from :%d\n" % parent)
    emit("deleteall\n")
    for p, m in marks.items():
        emit("M 100644 :%d %s\n" % (m, p))
    emit("\n")
    return mark[0]


WORDS = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi "
         "omicron pi rho sigma tau upsilon phi chi psi omega").split()


def line(rng, long=False):
    n = rng.randint(12, 30) if long else rng.randint(1, 8)
    return " ".join(rng.choice(WORDS) + str(rng.randint(0, 999)) for _ in range(n))


def content(rng, nlines, long=False):
    return [line(rng, long and rng.random() < 0.5) for _ in range(nlines)]


def join(lines, crlf=False, final=True):
    eol = "\r\n" if crlf else "\n"
    s = eol.join(lines) + (eol if final else "")
    return s.encode()


def mutate(rng, lines, keep):
    """Replace about (1 - keep) of the lines, insert and delete a few."""
    out = []
    for l in lines:
        r = rng.random()
        if r < keep:
            out.append(l)
        elif r < keep + (1 - keep) / 2:
            out.append(line(rng))
        elif rng.random() < 0.5:
            out.extend([line(rng), line(rng)])
    return out or [line(rng)]


class Cases:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.n = 0
        self.cases = os.fdopen(3, "w")

    def add(self, kind, base, ours, theirs):
        b = commit("c%d-base" % self.n, base, None, "base %d" % self.n)
        commit("c%d-ours" % self.n, ours, b, "ours %d" % self.n)
        commit("c%d-theirs" % self.n, theirs, b, "theirs %d" % self.n)
        self.cases.write("%d %s\n" % (self.n, kind))
        self.n += 1

    def theirs_edit(self, base, paths):
        t = dict(base)
        for p in paths:
            t[p] = base[p] + b"edited by theirs\n"
        return t

    def noise(self, files, tag):
        """Unrelated files, so every case has a few candidates."""
        for i in range(3):
            files["noise/%s%d.txt" % (tag, i)] = join(content(self.rng, 8))

    def near50(self):
        rng = self.rng
        base, ours = {}, {}
        self.noise(base, "b")
        ours.update(base)
        srcs = []
        for i in range(rng.randint(1, 3)):
            lines = content(rng, rng.randint(4, 40), long=rng.random() < 0.4)
            src, dst = "old/s%d.c" % i, "new/d%d.c" % i
            new = mutate(rng, lines, rng.uniform(0.35, 0.65))
            if rng.random() < 0.2:
                new = new + new[: len(new) * 3 // 4]    # sizes near 2:1
            data = join(lines, crlf=rng.random() < 0.15, final=rng.random() < 0.8)
            if rng.random() < 0.1:
                data = data + b"\0binary tail\n"
            base[src] = data
            ours[dst] = join(new, crlf=rng.random() < 0.15, final=rng.random() < 0.8)
            srcs.append(src)
        self.noise(ours, "o")
        self.add("near50", base, ours, self.theirs_edit(base, srcs))

    def near75(self):
        rng = self.rng
        base = {}
        self.noise(base, "b")
        ours = dict(base)
        name = "%s.c" % rng.choice(WORDS)
        lines = content(rng, rng.randint(6, 40))
        base["one/" + name] = join(lines)
        ours["two/" + name] = join(mutate(rng, lines, rng.uniform(0.6, 0.9)))
        self.add("near75", base, ours, self.theirs_edit(base, ["one/" + name]))

    def tie(self):
        rng = self.rng
        base = {}
        lines = content(rng, 20)
        base["src/orig.c"] = join(lines)
        self.noise(base, "b")
        ours = dict(base)
        del ours["src/orig.c"]
        new = join(mutate(rng, lines, 0.8))
        names = rng.sample(["a/x.c", "b/y.c", "c/orig.c", "d/orig.c", "e/z.c"], rng.randint(2, 3))
        for n in names:
            ours[n] = new
        self.add("tie", base, ours, self.theirs_edit(base, ["src/orig.c"]))

    def dups(self):
        rng = self.rng
        same = join(content(rng, 6))
        base = {}
        srcs = ["s%d/%s" % (i, rng.choice(["f.c", "g.c", "h.c"])) for i in range(rng.randint(2, 4))]
        for s in srcs:
            base[s] = same
        self.noise(base, "b")
        ours = {p: d for p, d in base.items() if p not in srcs}
        for i in range(rng.randint(1, 4)):
            ours["t%d/%s" % (i, rng.choice(["f.c", "g.c", "k.c"]))] = same
        self.add("dups", base, ours, self.theirs_edit(base, srcs))

    def guess(self):
        rng = self.rng
        base = {}
        for i in range(4):
            base["d/f%d.c" % i] = join(content(rng, 10))
        mk = content(rng, 12)
        base["d/Makefile"] = join(mk)
        base["x/Makefile"] = join(content(rng, 12))
        ours = {p: v for p, v in base.items() if not p.startswith("d/")}
        for i in range(4):
            ours["e/f%d.c" % i] = base["d/f%d.c" % i]
        ours["e/Makefile"] = join(mutate(rng, mk, rng.uniform(0.7, 0.95)))
        if rng.random() < 0.5:
            del ours["x/Makefile"]
            ours["y/Makefile"] = base["x/Makefile"]
        self.add("guess", base, ours, self.theirs_edit(base, ["d/Makefile", "x/Makefile"]))

    def empty(self):
        base = {"a/empty": b"", "a/keep": b"keep\n"}
        ours = {"b/empty": b"", "a/keep": b"keep\n"}
        theirs = {"a/empty": b"now full\n", "a/keep": b"keep\n"}
        self.add("empty", base, ours, theirs)


def scores(seed, count):
    c = Cases(seed)
    for _ in range(count):
        for kind in ("near50", "near50", "near50", "near75", "tie", "dups", "guess"):
            getattr(c, kind)()
    c.empty()


def adds(nsrc, nadd):
    base = {"src/f%05d.c" % i: b"file %d\nsame second line\nthird %d\n" % (i, i)
            for i in range(nsrc)}
    b = commit("adds-base", base, None, "base")
    ours = {"moved/g%05d.c" % i: b"file %d\nsame second line\nthird %d, moved\n" % (i, i)
            for i in range(nsrc)}
    for i in range(nadd):
        ours["added/%03d/n%06d.c" % (i // 1000, i)] = b"new file %d\n" % i
    commit("adds-ours", ours, b, "ours")
    commit("adds-theirs", {p: d + b"theirs\n" for p, d in base.items()}, b, "theirs")


def same(copies):
    one = b"the same content everywhere\n"
    # a thousand to a directory: fast-import slows down on wide ones
    base = {"a/%04d/%07d" % (i // 1000, i): one for i in range(copies)}
    base["a/edited"] = b"will be edited\n"
    b = commit("same-base", base, None, "base")
    ours = {"b/%04d/%07d" % (i // 1000, i): one for i in range(copies)}
    ours["b/edited"] = base["a/edited"]
    commit("same-ours", ours, b, "ours")
    theirs = dict(base)
    theirs["a/edited"] = b"edited by theirs\n"
    commit("same-theirs", theirs, b, "theirs")


def big(mib):
    chunk = b"".join(b"line %07d of a big file nobody reads whole\n" % i for i in range(2000))
    n = mib * 1024 * 1024 // len(chunk) + 1

    def big_blob(tail):
        mark[0] += 1
        emit("blob\nmark :%d\ndata %d\n" % (mark[0], len(chunk) * n + len(tail)))
        for _ in range(n):
            out.write(chunk)
        out.write(tail)
        emit("\n")
        return mark[0]
    # theirs adds a file to the directory ours removed: where did it go?
    old = big_blob(b"base\n")
    b = commit("big-base", {"dir/big.txt": old, "keep": b"keep\n"}, None, "base")
    commit("big-ours", {"new/big.txt": big_blob(b"ours\n"), "keep": b"keep\n"}, b, "ours")
    commit("big-theirs", {"dir/big.txt": old, "dir/added.txt": b"added\n", "keep": b"keep\n"},
           b, "theirs")


def main():
    mode = sys.argv[1]
    if mode == "scores":
        scores(int(sys.argv[2]), int(sys.argv[3]))
    elif mode == "adds":
        adds(int(sys.argv[2]), int(sys.argv[3]))
    elif mode == "same":
        same(int(sys.argv[2]))
    else:
        big(int(sys.argv[2]))


if __name__ == "__main__":
    main()
