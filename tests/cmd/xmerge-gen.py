#!/usr/bin/env python3
"""Random three-way content merges for comparing tide's line merge with git's.

usage: xmerge-gen.py SEED NFILES [GROUPS]  > fast-import stream

Writes GROUPS groups (default 4) of commits, each with NFILES files, as a
git fast-import stream.  Group g has branches g<g>-ours and g<g>-theirs:

  even groups: one base commit, ours and theirs on top of it (every file
    changed on both sides, some added on both with no base: add/add);
  odd groups: a criss-cross (two merge bases whose merge conflicts, so the
    virtual base holds nested conflict markers), then ours and theirs.

The texts are what makes line merges differ: few distinct lines (so
histogram's choices and its fall back to Myers' diff matter), runs of the
same line, identical and adjacent changes on both sides, missing final
newlines, CRLF and mixed line ends, empty files and marker-like lines.
Every path exists on every side of a group, so no rename is detected.
"""
import random
import sys

ALPHABETS = [
    ["a\n", "b\n", "c\n"],
    ["x\n", "y\n", "\n", "}\n", "{\n"],
    ["int i;\n", "\treturn 0;\n", "}\n", "\n", "static int f(void)\n", "{\n"],
    ["=======\n", "<<<<<<< ours\n", ">>>>>>> theirs\n", "line\n", "|||||||\n"],
]


def line_pool(rng):
    kind = rng.random()
    if kind < 0.25:
        return rng.choice(ALPHABETS)
    if kind < 0.5:
        return ["l%d\n" % i for i in range(rng.randint(2, 12))]
    if kind < 0.75:
        return ["u%d\n" % i for i in range(rng.randint(20, 400))]
    return ["r\n"] * 3 + ["s%d\n" % i for i in range(rng.randint(3, 30))]


def text(rng, pool, n):
    return [rng.choice(pool) for _ in range(n)]


def edit(rng, lines, pool, nedits):
    out = list(lines)
    for _ in range(nedits):
        op = rng.random()
        pos = rng.randint(0, len(out))
        span = rng.randint(1, 6)
        if op < 0.3 and out:
            del out[pos:pos + span]
        elif op < 0.6:
            out[pos:pos] = text(rng, pool, span)
        else:
            out[pos:pos + span] = text(rng, pool, rng.randint(0, span + 1))
    return out


def shared_edit(rng, base, ours, theirs, pool):
    """The same change made on both sides at the same base place."""
    if not base:
        return ours, theirs
    pos = rng.randint(0, len(base) - 1)
    new = text(rng, pool, rng.randint(1, 3))
    return ours[:pos] + new + ours[pos + 1:], theirs[:pos] + new + theirs[pos + 1:]


def render(rng, lines, eol, final_nl):
    s = "".join(lines)
    if eol == "crlf":
        s = s.replace("\n", "\r\n")
    elif eol == "mixed":
        s = "".join(l.replace("\n", "\r\n") if rng.random() < 0.5 else l for l in lines)
    if not final_nl and s.endswith("\n"):
        s = s[:-2] if s.endswith("\r\n") else s[:-1]
    return s.encode()


class Stream:
    def __init__(self):
        self.mark = 0
        self.time = 1700000000
        self.out = sys.stdout.buffer

    def blob(self, data):
        self.mark += 1
        self.out.write(b"blob\nmark :%d\ndata %d\n" % (self.mark, len(data)))
        self.out.write(data + b"\n")
        return self.mark

    def commit(self, ref, files, parents, msg):
        marks = {p: self.blob(d) for p, d in files.items()}
        self.mark += 1
        self.time += 60
        me = self.mark
        msg = msg.encode()
        self.out.write(b"commit refs/heads/%s\nmark :%d\n" % (ref.encode(), me))
        self.out.write(b"committer T <t@example.com> %d +0000\n" % self.time)
        self.out.write(b"data %d\n%s\n" % (len(msg), msg))
        if parents:
            self.out.write(b"from :%d\n" % parents[0])
            for p in parents[1:]:
                self.out.write(b"merge :%d\n" % p)
        self.out.write(b"deleteall\n")
        for p, m in sorted(marks.items()):
            self.out.write(b"M 100644 :%d %s\n" % (m, p.encode()))
        return me


def big_versions(rng, huge=False):
    """Long texts of a few lines repeated in a pattern, changed in hundreds
    of places: Myers' fall back with its cost cut-offs and heuristics."""
    pool = ["p%d\n" % i for i in range(rng.randint(2, 6))]
    pattern = text(rng, pool, rng.randint(15, 40))
    n = rng.randint(34000, 40000) if huge else rng.randint(1500, 5000)
    base = (pattern * (n // len(pattern) + 1))[:n]

    def scatter(lines):
        out = list(lines)
        for _ in range(rng.randint(600, 1200) if huge else rng.randint(50, 400)):
            pos = rng.randrange(len(out))
            out[pos:pos + rng.randint(0, 2)] = text(rng, pool, rng.randint(0, 2))
        return out
    return base, scatter(base), scatter(base), pool


def file_versions(rng):
    """base, ours, theirs line lists (base None: add/add)."""
    r = rng.random()
    if r < 0.03:
        return big_versions(rng, r < 0.004)
    pool = line_pool(rng)
    n = rng.choice([0, 1, 2, 5, 10, 30, 80, 300]) if rng.random() < 0.9 else rng.randint(300, 900)
    base = text(rng, pool, n)
    ours = edit(rng, base, pool, rng.choice([1, 1, 1, 2, 4]))
    theirs = edit(rng, base, pool, rng.choice([1, 1, 1, 2, 4]))
    if rng.random() < 0.3:
        ours, theirs = shared_edit(rng, base, ours, theirs, pool)
    if rng.random() < 0.15:
        theirs = list(ours) if rng.random() < 0.5 else edit(rng, ours, pool, 1)
    return (None if rng.random() < 0.1 else base), ours, theirs, pool


def simple_group(rng, st, g, nfiles):
    files = [file_versions(rng) for _ in range(nfiles)]
    fmt = [(rng.choice(["lf"] * 6 + ["crlf", "mixed"]), rng.random() < 0.8) for _ in files]
    binary = [rng.random() < 0.03 for _ in files]
    base = {}
    for i, (b, _, _, _) in enumerate(files):
        if b is not None:
            base["f%03d" % i] = render(rng, b, fmt[i][0], fmt[i][1]) + (b"\0" if binary[i] else b"")
    side = lambda k: {"f%03d" % i: render(rng, f[k], fmt[i][0], fmt[i][1] or rng.random() < 0.5)
                      + (b"\0" if binary[i] else b"") for i, f in enumerate(files)}
    root = st.commit("g%d-base" % g, base, [], "base")
    st.commit("g%d-ours" % g, side(1), [root], "ours")
    st.commit("g%d-theirs" % g, side(2), [root], "theirs")


def crisscross_group(rng, st, g, nfiles):
    names = ["f%03d" % i for i in range(nfiles)]
    vers = {}
    for n in names:
        pool = line_pool(rng)
        b = text(rng, pool, rng.choice([3, 10, 30, 100]))
        a1 = edit(rng, b, pool, rng.randint(1, 3))
        b1 = edit(rng, b, pool, rng.randint(1, 3))
        m1 = rng.choice([a1, b1, edit(rng, a1, pool, 1)])
        m2 = rng.choice([a1, b1, edit(rng, b1, pool, 1)])
        o = edit(rng, m1, pool, rng.randint(0, 2))
        t = edit(rng, m2, pool, rng.randint(0, 2))
        eol = rng.choice(["lf"] * 5 + ["crlf"])
        vers[n] = [render(rng, v, eol, True) for v in (b, a1, b1, m1, m2, o, t)]
        if rng.random() < 0.1:
            vers[n] = [v + b"\0bin" for v in vers[n]]
        if rng.random() < 0.15:
            vers[n][0] = None       # added on both merge bases: add/add inside the virtual base
    pick = lambda k: {n: vers[n][k] for n in names if vers[n][k] is not None}
    root = st.commit("g%d-base" % g, pick(0), [], "base")
    a1 = st.commit("g%d-a1" % g, pick(1), [root], "a1")
    b1 = st.commit("g%d-b1" % g, pick(2), [root], "b1")
    m1 = st.commit("g%d-m1" % g, pick(3), [a1, b1], "m1")
    m2 = st.commit("g%d-m2" % g, pick(4), [b1, a1], "m2")
    st.commit("g%d-ours" % g, pick(5), [m1], "ours")
    st.commit("g%d-theirs" % g, pick(6), [m2], "theirs")


def main():
    seed, nfiles = int(sys.argv[1]), int(sys.argv[2])
    groups = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    rng = random.Random(seed)
    st = Stream()
    for g in range(groups):
        (crisscross_group if g % 2 else simple_group)(rng, st, g, nfiles)


if __name__ == "__main__":
    main()
