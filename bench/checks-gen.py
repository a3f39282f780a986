#!/usr/bin/env python3
"""The world of bench/bench-checks, as two git fast-import streams.

  checks-gen.py main MAINLINE SEED > stream   (git fast-import --export-marks=M)
  checks-gen.py trees MAINLINE TREES PER SEED M > stream
                                              (git fast-import --import-marks=M)

The trees' stream names mainline commits in Fixes: tags by id, so it is
made once mainline is imported (its marks file M gives the ids).

  - mainline (refs/heads/master, tagged refs/tags/base at its tip): a
    chain of MAINLINE commits, each changing one line of one of 64*40
    files, with a merge of a 10-commit side branch every 25 commits;
  - TREES branches refs/heads/tNNN, each forked from a different point
    of the last 2,000 mainline commits, with PER commits of its own (new
    files tNNN/fK), so TREES * PER commits are new in the day.  Their
    messages are kernel-like: a subject, a body, trailers.  Most sign
    off author and committer; 1 in 40 lacks a sign-off; 1 in 3 has a
    Fixes: tag naming a mainline commit (1 in 20 of those with a wrong
    subject, 1 in 20 with a short id); 1 in 100 carries the same patch
    as a commit of the tree before it.
"""
import random
import sys

out = sys.stdout.buffer


def W(b):
    if not QUIET:
        out.write(b)


QUIET = False
SUBSYS, FILES_PER = 64, 40
T0 = 1795000000      # 2026-11-18: the trees are not stale on the day benched


def data(b):
    if isinstance(b, str):
        b = b.encode()
    W(b"data %d\n" % len(b))
    W(b)
    W(b"\n")


class Gen:
    def __init__(self, nmain, ntrees, per, seed):
        self.rng = random.Random(seed)
        self.nmain, self.ntrees, self.per = nmain, ntrees, per
        self.mark = 0
        self.t = T0
        self.main = []          # (mark, subject) of mainline's non-merge commits, in order
        self.points = []        # marks of mainline's first-parent chain

    def commit(self, ref, parents, subject, body, files, author="Dev <dev@ex.org>",
               committer="Dev <dev@ex.org>"):
        self.mark += 1
        self.t += 1
        W(b"commit %s\nmark :%d\n" % (ref.encode(), self.mark))
        W(b"author %s %d +0000\ncommitter %s %d +0000\n" % (author.encode(), self.t,
                                                            committer.encode(), self.t))
        data(subject + "\n\n" + body)
        for i, p in enumerate(parents):
            W(b"%s :%d\n" % (b"from" if i == 0 else b"merge", p))
        for path, content in files:
            W(b"M 100644 inline %s\n" % path.encode())
            data(content)
        W(b"\n")
        return self.mark

    def mainline(self):
        prev = None
        n = 0
        while n < self.nmain:
            d, f = self.rng.randrange(SUBSYS), self.rng.randrange(FILES_PER)
            subj = "s%02d: change file %d, step %d" % (d, f, n)
            files = [("s%02d/f%02d" % (d, f), "line %d\n" % n)]
            m = self.commit("refs/heads/master", [prev] if prev else [], subj,
                            "Why it changes.\n\nSigned-off-by: Dev <dev@ex.org>\n", files)
            self.main.append((m, subj))
            prev = m
            self.points.append(m)
            n += 1
            if n % 25 == 0 and n < self.nmain:
                side = prev
                for k in range(10):
                    side = self.commit("refs/heads/side", [side], "side: %d.%d" % (n, k),
                                       "Signed-off-by: Dev <dev@ex.org>\n",
                                       [("side/f%d" % k, "%d %d\n" % (n, k))])
                    n += 1
                prev = self.commit("refs/heads/master", [prev, side], "Merge side %d" % n,
                                   "", [])
                self.points.append(prev)
        W(b"reset refs/tags/base\nfrom :%d\n\n" % prev)

    def trees(self):
        last = self.points[-2000:]
        forks = self.rng.sample(range(len(last)), min(self.ntrees, len(last)))
        prev_files = None
        for t in range(self.ntrees):
            tip = last[forks[t % len(forks)]]
            mine = []
            for k in range(self.per):
                r = self.rng.random
                subj = "t%03d: change %d" % (t, k)
                trailers = []
                if r() < 1 / 3:
                    mark, tsubj = self.main[self.rng.randrange(max(1, len(self.main) - 3000))]
                    trailers.append(("Fixes", mark, tsubj))
                body = "What and why, %d.\n\n" % k
                for _, mark, tsubj in trailers:
                    if r() < 0.05:
                        tsubj = tsubj.upper()
                    sha = self.ids[mark][:8 if r() < 0.05 else 12]
                    body += "Fixes: %s (\"%s\")\n" % (sha, tsubj)
                if r() >= 1 / 40:
                    body += "Signed-off-by: Dev <dev@ex.org>\n"
                files = [("t%03d/f%02d" % (t, k), "tree %d change %d\n" % (t, k))]
                if prev_files and r() < 0.01:
                    files = [self.rng.choice(prev_files)]
                    subj = "t%03d: carry a patch of the tree before" % t
                tip = self.commit("refs/heads/t%03d" % t, [tip], subj, body, files)
                mine.append(files[0])
            prev_files = mine


def main():
    global QUIET
    if sys.argv[1] == "main":
        g = Gen(int(sys.argv[2]), 0, 0, int(sys.argv[3]))
        g.mainline()
        W(b"done\n")
        return
    nmain, ntrees, per, seed = (int(a) for a in sys.argv[2:6])
    g = Gen(nmain, ntrees, per, seed)
    QUIET = True            # the same mainline again, for its marks and subjects
    g.mainline()
    QUIET = False
    g.ids = {}
    for line in open(sys.argv[6]):
        mark, sha = line.split()
        g.ids[int(mark[1:])] = sha
    g.trees()
    W(b"done\n")


main()
