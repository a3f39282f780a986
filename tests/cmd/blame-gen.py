#!/usr/bin/env python3
"""A history for t5040: git fast-import commands on stdout.

blame-gen.py SEED: tag v1 (file f.c of 120 unique lines, and g.c), and
three branches from it: c (a few commits changing f.c far from the
middle, and g.c), a and b (random commits replacing, inserting and
removing lines of f.c, each with a side branch merged back, both
changing lines 50-70 so that b conflicts with a).  Every line ever
written is unique, so a conflict's sections can be found in each side's
file by their text; every commit is a second newer than the one before.
"""
import os
import random
import subprocess
import sys
import tempfile

seed = int(sys.argv[1])
rnd = random.Random(seed)
out = sys.stdout
clock = [1700000000]
mark = [0]
made = [0]


def data(text):
    b = text.encode()
    out.write("data %d\n" % len(b))
    out.write(text)
    out.write("\n")


def commit(ref, subject, files, parents):
    mark[0] += 1
    clock[0] += 1
    out.write("commit %s\nmark :%d\n" % (ref, mark[0]))
    out.write("author A U Thor <a@example.com> %d +0000\n" % clock[0])
    out.write("committer A U Thor <a@example.com> %d +0000\n" % clock[0])
    data(subject)
    if parents:
        out.write("from :%d\n" % parents[0])
        for p in parents[1:]:
            out.write("merge :%d\n" % p)
    for path, lines in files.items():
        out.write("M 100644 inline %s\n" % path)
        data("".join(l + "\n" for l in lines))
    out.write("\n")
    return mark[0]


def new_line(tag):
    made[0] += 1
    return "%s line %d" % (tag, made[0])


def edit(lines, tag, lo, hi):
    """One random change of lines within [lo, hi)."""
    lines = list(lines)
    hi = min(hi, len(lines))
    at = rnd.randrange(lo, max(lo + 1, hi))
    kind = rnd.choice(["replace", "replace", "insert", "remove"])
    n = rnd.randint(1, 3)
    if kind == "replace":
        lines[at:at + n] = [new_line(tag) for _ in range(n)]
    elif kind == "insert":
        lines[at:at] = [new_line(tag) for _ in range(n)]
    else:
        del lines[at:at + n]
    return lines


def merge3(base, ours, theirs):
    """git merge-file of three versions; theirs when they conflict."""
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for n, v in (("o", ours), ("b", base), ("t", theirs)):
            paths.append(os.path.join(d, n))
            with open(paths[-1], "w") as fh:
                fh.write("".join(l + "\n" for l in v))
        p = subprocess.run(["git", "merge-file", "-p"] + paths, capture_output=True, text=True)
        if p.returncode:
            return theirs
        return p.stdout.splitlines()


def branch(name, base_mark, base_lines, g_lines, n, window):
    ref = "refs/heads/" + name
    lines, g, tip = base_lines, g_lines, base_mark
    side_at = rnd.randrange(1, n)
    for i in range(n):
        if i == side_at:
            # a side branch of two commits, merged back
            s_lines, s_tip = lines, tip
            for j in range(2):
                s_lines = edit(s_lines, "%s-side%d" % (name, j), 0, len(s_lines))
                s_tip = commit("refs/heads/%s-side" % name, "%s: side %d" % (name, j),
                               {"f.c": s_lines}, [s_tip])
            main_lines = edit(lines, name + "-mainline", 0, len(lines))
            tip = commit(ref, "%s: before the side merge" % name, {"f.c": main_lines}, [tip])
            # a real merge of f.c (the side's version when they conflict)
            merged = merge3(lines, main_lines, s_lines)
            tip = commit(ref, "%s: merge side" % name, {"f.c": merged}, [tip, s_tip])
            lines = merged
            continue
        if rnd.random() < 0.2:
            g = edit(g, name + "-g", 0, len(g))
            tip = commit(ref, "%s: g %d" % (name, i), {"g.c": g}, [tip])
            continue
        lo, hi = window if rnd.random() < 0.6 else (0, len(lines))
        lines = edit(lines, "%s%d" % (name, i), lo, hi)
        tip = commit(ref, "%s: change %d" % (name, i), {"f.c": lines}, [tip])
    return tip


def main():
    f = ["base line %d" % i for i in range(120)]
    g = ["g line %d" % i for i in range(20)]
    base = commit("refs/heads/master", "base", {"f.c": f, "g.c": g}, [])
    out.write("reset refs/tags/v1\nfrom :%d\n\n" % base)
    branch("c", base, f, g, 3, (0, 20))
    branch("a", base, f, g, 8, (50, 70))
    branch("b", base, f, g, 8, (50, 70))


main()
