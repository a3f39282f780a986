#!/usr/bin/env python3
"""The content merges of real branch-head pairs, as one synthetic merge.

usage: content-pairs.py REPO SEED NPAIRS > index-info lines on fd 3, 4, 5

Picks NPAIRS seeded pairs of branch heads of REPO (a bare clone of the
libgit2 bundle) that have a merge base, and for each pair every path both
heads modified from the (first) merge base, with a regular file on all
three sides: the content merges of that pair's merge, without rename
detection in the way.  Writes `git update-index --index-info` lines for
the base, ours and theirs versions (fd 3, 4, 5), each path under
"pN/", and prints "pairs N paths M" on stdout.
"""
import os
import random
import subprocess
import sys


def git(repo, *args):
    r = subprocess.run(["git", "-C", repo] + list(args), capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None


def modified(repo, base, tip):
    """path -> (mode, oid) for regular files tip modified from base."""
    out = {}
    for line in git(repo, "diff-tree", "-r", "--no-renames", "--diff-filter=M", base, tip).splitlines():
        meta, path = line.split("\t", 1)
        m1, m2, o1, o2, _ = meta[1:].split()
        if m1.startswith("100") and m2.startswith("100"):
            out[path] = (m1, o1, m2, o2)
    return out


def main():
    repo, seed, npairs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    heads = sorted(git(repo, "for-each-ref", "--format=%(refname)", "refs/heads").split())
    rng = random.Random(seed)
    outs = [os.fdopen(fd, "w") for fd in (3, 4, 5)]
    pairs = paths = tries = 0
    while pairs < npairs and tries < npairs * 20:
        tries += 1
        a, b = rng.sample(heads, 2)
        base = git(repo, "merge-base", a, b)
        if not base:
            continue
        base = base.split()[0]
        ma, mb = modified(repo, base, a), modified(repo, base, b)
        both = sorted(set(ma) & set(mb))
        if not both:
            continue
        for p in both:
            bm, bo, om, oo = ma[p]
            tm, to = mb[p][2], mb[p][3]
            name = "p%d/%s" % (pairs, p)
            outs[0].write("%s %s\t%s\n" % (bm, bo, name))
            outs[1].write("%s %s\t%s\n" % (om, oo, name))
            outs[2].write("%s %s\t%s\n" % (tm, to, name))
            paths += 1
        pairs += 1
    for f in outs:
        f.close()
    print("pairs %d paths %d" % (pairs, paths))


if __name__ == "__main__":
    main()
