#!/usr/bin/env python3
"""The deep-history world of bench/bench-merge-deep, as one fast-import stream.

  deep-gen.py COMMITS TREES SEED > stream     (git fast-import < stream)

A kernel-like history of about COMMITS commits:
  - mainline (refs/heads/master, tagged refs/tags/base at its tip) is a
    chain of merge commits, each merging a side branch of 5 to 40 commits
    forked one to four merges earlier and owning one "subsystem" directory
    while it is in flight (so mainline merges are clean, as the kernel's
    mostly are); a tag vN every 1,000 merges;
  - TREES branches refs/heads/tNNN, each based on a different mainline
    merge among the last 3*TREES; each changes files of its own plus its
    own lines of a shared MAINTAINERS-like file (every merge is then a
    content merge); one in four merges a later mainline point back in;
    one in twenty also changes the line an earlier tree changed, so it
    conflicts with that tree.
The list of conflicting trees and the earlier tree each conflicts with is
written to the file named by the environment variable DEEP_CONFLICTS.
"""
import os
import random
import sys

out = sys.stdout.buffer
W = out.write
SUBSYS = 64            # subsystem directories, 40 files each
FILES_PER = 40
LINES = 12
T0 = 1500000000


def blob(lines):
    b = "".join(lines).encode()
    W(b"data %d\n" % len(b))
    W(b)
    W(b"\n")


def data(text):
    b = text.encode()
    W(b"data %d\n%s\n" % (len(b), b))


class Gen:
    def __init__(self, ncommits, ntrees, seed):
        self.rng = random.Random(seed)
        self.ncommits = ncommits
        self.ntrees = ntrees
        self.mark = 0
        self.time = T0
        # file id (sub, k) -> list of lines, mainline's version
        self.main = {}
        self.shared = ["shared line %d\n" % i for i in range(3 * ntrees + 3)]
        self.mainline = []      # marks of the mainline merges, in order

    def next_mark(self):
        self.mark += 1
        return self.mark

    def tick(self):
        self.time += 1
        return self.time

    def commit_head(self, ref, msg, frm=None, merge=None, who="Dev"):
        m = self.next_mark()
        W(b"commit %s\nmark :%d\n" % (ref.encode(), m))
        W(b"author %s <dev@tide.invalid> %d +0000\n" % (who.encode(), self.tick()))
        W(b"committer %s <dev@tide.invalid> %d +0000\n" % (who.encode(), self.time))
        data(msg)
        if frm:
            W(b"from :%d\n" % frm)
        if merge:
            W(b"merge :%d\n" % merge)
        return m

    @staticmethod
    def path(sub, k):
        return "sub%02d/dir%d/file%d.c" % (sub, k % 4, k)

    def initial(self):
        m = self.commit_head("refs/heads/master", "initial import")
        for sub in range(SUBSYS):
            for k in range(FILES_PER):
                lines = ["/* %d %d line %d */\n" % (sub, k, i) for i in range(LINES)]
                self.main[(sub, k)] = lines
                W(b"M 100644 inline %s\n" % self.path(sub, k).encode())
                blob(lines)
        W(b"M 100644 inline MAINTAINERS\n")
        blob(self.shared)
        for t in range(self.ntrees):
            for k in range(3):
                W(b"M 100644 inline drivers/t%03d/f%d.c\n" % (t, k))
                blob(["/* tree %d file %d line %d */\n" % (t, k, i) for i in range(LINES)])
        W(b"\n")
        self.mainline.append(m)
        return m

    def side_branch(self, fork, sub, n, ref):
        """n commits on sub from fork; returns (tip mark, {file: lines})."""
        mine = {}
        tip = fork
        for c in range(n):
            k = self.rng.randrange(FILES_PER)
            lines = list(mine.get(k) or self.main[(sub, k)])
            i = self.rng.randrange(LINES)
            lines[i] = "/* %d %d line %d rev %d */\n" % (sub, k, i, self.mark)
            mine[k] = lines
            tip = self.commit_head(ref, "sub%02d: change %d" % (sub, c), frm=tip)
            W(b"M 100644 inline %s\n" % self.path(sub, k).encode())
            blob(lines)
            W(b"\n")
        return tip, mine

    def gen_mainline(self):
        self.initial()
        inflight = []           # (merge at index, sub, fork mark)
        busy = set()
        ncommit = 1
        nmerge = 0
        while ncommit < self.ncommits:
            # start side branches so that a few are in flight
            while len(inflight) < 4:
                sub = self.rng.choice([s for s in range(SUBSYS) if s not in busy])
                busy.add(sub)
                inflight.append((nmerge + self.rng.randrange(1, 5), sub, self.mainline[-1]))
            inflight.sort()
            due, sub, fork = inflight.pop(0)
            n = self.rng.randrange(5, 41)
            tip, mine = self.side_branch(fork, sub, n, "refs/heads/side")
            ncommit += n
            m = self.commit_head("refs/heads/master", "Merge branch 'sub%02d'" % sub,
                                 frm=self.mainline[-1], merge=tip, who="Linus")
            for k, lines in sorted(mine.items()):
                self.main[(sub, k)] = lines
                W(b"M 100644 inline %s\n" % self.path(sub, k).encode())
                blob(lines)
            W(b"\n")
            ncommit += 1
            nmerge += 1
            busy.discard(sub)
            self.mainline.append(m)
            if nmerge % 1000 == 0:
                W(b"reset refs/tags/v%d\nfrom :%d\n\n" % (nmerge // 1000, m))
        W(b"reset refs/tags/base\nfrom :%d\n\n" % self.mainline[-1])
        W(b"reset refs/heads/side\n\n")

    def gen_trees(self):
        ntrees = self.ntrees
        span = self.mainline[-3 * ntrees - 1:-1]
        points = sorted(self.rng.sample(range(len(span)), ntrees))
        self.time += 1000
        conflicts = []
        done = []
        for t in range(ntrees):
            ref = "refs/heads/t%03d" % t
            base_i = points[t]
            tip = span[base_i]
            files = {}
            shared = list(self.shared)
            n = self.rng.randrange(5, 60)
            back = t % 4 == 3 and base_i + 5 < len(span)
            target = None
            if t % 20 == 19 and done:
                target = self.rng.choice(done)
                conflicts.append((t, target))
            for c in range(n):
                if back and c == n // 2:
                    # mainline merged back in: mainline first, as `git pull`
                    # onto a later tag would make it
                    q = span[self.rng.randrange(base_i + 1, len(span))]
                    tip = self.commit_head(ref, "Merge mainline into t%03d" % t,
                                           frm=q, merge=tip)
                    for path, lines in sorted(files.items()):
                        W(b"M 100644 inline %s\n" % path.encode())
                        blob(lines)
                    W(b"M 100644 inline MAINTAINERS\n")
                    blob(shared)
                    W(b"\n")
                    continue
                tip = self.commit_head(ref, "t%03d: change %d" % (t, c), frm=tip,
                                       who="Maint%d" % t)
                if c % 7 == 3:
                    line = 3 * t + 1
                    shared[line] = "tree %d owns this line, change %d\n" % (t, c)
                    if target is not None:
                        shared[3 * target + 1] = "tree %d wants line of %d\n" % (t, target)
                    W(b"M 100644 inline MAINTAINERS\n")
                    blob(shared)
                else:
                    k = self.rng.randrange(3)
                    path = "drivers/t%03d/f%d.c" % (t, k)
                    lines = files.get(path) or ["/* tree %d file %d line %d */\n" % (t, k, i)
                                                for i in range(LINES)]
                    lines = list(lines)
                    lines[self.rng.randrange(LINES)] = "/* t%d change %d */\n" % (t, c)
                    files[path] = lines
                    W(b"M 100644 inline %s\n" % path.encode())
                    blob(lines)
                W(b"\n")
            if target is None:
                done.append(t)
        if os.environ.get("DEEP_CONFLICTS"):
            with open(os.environ["DEEP_CONFLICTS"], "w") as f:
                for t, target in conflicts:
                    f.write("t%03d t%03d\n" % (t, target))


def main():
    g = Gen(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
    g.gen_mainline()
    g.gen_trees()
    W(b"done\n")


if __name__ == "__main__":
    main()
