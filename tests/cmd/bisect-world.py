#!/usr/bin/env python3
"""Generate a bisect world for tide: one bare repository holding a
mainline and NTREES topic trees over up to three days, written with
git fast-import (so a long history costs seconds), and the trees.conf
rows.

    bisect-world.py OUT [--trees N] [--files F] [--history H] [--rewind]

OUT/src.git            refs/tags/v1, v2, v3 (mainline, one tag a day)
                       refs/dayD/tNN (tree NN as it is on day D)
OUT/trees.conf.rows    one "tNN git URL#tNN" row per tree

Every tree carries two commits of its own files, rebased onto each
day's mainline tag (new SHAs, same patch ids).  Some trees play parts:

  t02  renames mainline's old_name to new_name (api.h and core.c)
  t03  changes line 2 of shared.txt
  t05  changes line 2 of shared.txt too: it conflicts with t03 on every
       day (the same hunks); day 2 adds three commits, the second of
       which plants "BUG" (the culprit of day 2; --plant N moves these
       three commits to tree N)
  t07  adds a file that calls old_name: a semantic conflict with t02,
       which the fixup patch OUT/fixup-t07.patch repairs
  --plain leaves out the conflict of t03/t05 and the semantic one of t07.
  t04  (--rewind) day 2 adds "t04: define extra_name" and t06 starts to
       call it; day 3 drops that commit again (the tree is rewound),
       so day 3 fails: the dropped commit is the culprit

The check (OUT/check.sh): no file says BUG, and every "calls NAME" has a
"defines NAME" somewhere.
"""
import argparse
import os
import subprocess
import sys


class Stream:
    def __init__(self):
        self.out = []
        self.mark = 0
        self.t = 1700000000

    def next_mark(self):
        self.mark += 1
        return self.mark

    def blob(self, data):
        m = self.next_mark()
        b = data.encode()
        self.out.append(b"blob\nmark :%d\ndata %d\n" % (m, len(b)) + b + b"\n")
        return m

    def commit(self, ref, parent, files, msg, deleteall=False):
        """files: {path: text or None (delete)}; parent: mark or None."""
        marks = {p: (self.blob(t) if t is not None else None) for p, t in files.items()}
        m = self.next_mark()
        self.t += 60
        who = b"Tide World <world@tide.invalid> %d +0000" % self.t
        mb = msg.encode()
        s = b"commit %s\nmark :%d\nauthor %s\ncommitter %s\ndata %d\n%s\n" % (
            ref.encode(), m, who, who, len(mb), mb)
        if parent:
            s += b"from :%d\n" % parent
        if deleteall:
            s += b"deleteall\n"
        for p, bm in sorted(marks.items()):
            if bm is None:
                s += b"D %s\n" % p.encode()
            else:
                s += b"M 100644 :%d %s\n" % (bm, p.encode())
        self.out.append(s + b"\n")
        return m

    def reset(self, ref, mark):
        self.out.append(b"reset %s\nfrom :%d\n\n" % (ref.encode(), mark))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--trees", type=int, default=8)
    ap.add_argument("--files", type=int, default=50)
    ap.add_argument("--history", type=int, default=20)
    ap.add_argument("--rewind", action="store_true")
    ap.add_argument("--plant", type=int, default=5, help="the tree day 2 breaks")
    ap.add_argument("--plain", action="store_true",
                    help="no conflict and no semantic conflict (nothing to resolve)")
    a = ap.parse_args()
    if a.trees < 7:
        sys.exit("bisect-world.py: --trees must be at least 7")
    os.makedirs(a.out, exist_ok=True)
    repo = os.path.join(a.out, "src.git")
    subprocess.run(["git", "init", "-q", "--bare", repo], check=True)
    s = Stream()

    # Mainline: F files, then H commits of history, tag v1; v2 and v3 move on.
    files = {"m/d%02d/f%04d.c" % (i % 10, i): "file %d\nline\n" % i for i in range(a.files)}
    files["api.h"] = "defines old_name\ndefines other_fn\n"
    files["core.c"] = "calls old_name\n"
    files["shared.txt"] = "one\ntwo\nthree\nfour\nfive\n"
    content = dict(files)
    tip = s.commit("refs/heads/master", None, files, "mainline: import")
    for h in range(a.history):
        p = "m/d%02d/f%04d.c" % (h % 10, h % a.files)
        content[p] += "history %d\n" % h
        tip = s.commit("refs/heads/master", tip, {p: content[p]}, "mainline: history %d" % h)
    tags = {}
    for day in (1, 2, 3):
        if day > 1:
            p = "m/d%02d/f%04d.c" % (day, day)
            content[p] += "rc%d\n" % day
            tip = s.commit("refs/heads/master", tip, {p: content[p]}, "mainline: rc%d" % day)
        tags[day] = (tip, dict(content))
        s.reset("refs/tags/v%d" % day, tip)

    def patches(n, day):
        """The tree's patches on day: (subject, {path: text or None})."""
        t = "t%02d" % n
        ps = [("%s: change %d" % (t, i), {"%s/f%d" % (t, i): "fine %d\n" % i}) for i in (1, 2)]
        if n == 2:
            ps.insert(0, ("t02: rename old_name to new_name",
                          {"api.h": "defines new_name\ndefines other_fn\n",
                           "core.c": "calls new_name\n"}))
        if n == 3 and not a.plain:
            ps.insert(0, ("t03: shared line two", {"shared.txt": "one\ntwo-t03\nthree\nfour\nfive\n"}))
        if n == 5 and not a.plain:
            ps.insert(0, ("t05: shared line two", {"shared.txt": "one\ntwo-t05\nthree\nfour\nfive\n"}))
        if n == a.plant and day >= 2:
            ps += [("t%02d: new 1" % n, {"t%02d/n1" % n: "new 1\n"}),
                   ("t%02d: new 2" % n, {"t%02d/n2" % n: "BUG planted\n"}),
                   ("t%02d: new 3" % n, {"t%02d/n3" % n: "new 3\n"})]
        if n == 7 and not a.plain:
            ps.append(("t07: use old_name", {"t07/user": "calls old_name\n"}))
        if n == 4 and a.rewind and day == 2:
            ps.append(("t04: define extra_name", {"t04/defs": "defines extra_name\n"}))
        if n == 6 and a.rewind and day >= 2:
            ps.append(("t06: call extra_name", {"t06/user": "calls extra_name\n"}))
        return ps

    for day in (1, 2, 3):
        base, _ = tags[day]
        for n in range(1, a.trees + 1):
            ref = "refs/day%d/t%02d" % (day, n)
            cur = base
            for subject, fs in patches(n, day):
                cur = s.commit(ref, cur, fs, subject)
            if cur == base:
                s.reset(ref, base)

    subprocess.run(["git", "-C", repo, "fast-import", "--quiet"], input=b"".join(s.out), check=True)
    with open(os.path.join(a.out, "trees.conf.rows"), "w") as f:
        for n in range(1, a.trees + 1):
            f.write("t%02d\tgit\t%s#t%02d\n" % (n, repo, n))
    with open(os.path.join(a.out, "fixup-t07.patch"), "w") as f:
        f.write("From: Tide World <world@tide.invalid>\n"
                "Subject: [PATCH] t07: call new_name after t02's rename\n\n"
                "---\n"
                "diff --git a/t07/user b/t07/user\n"
                "--- a/t07/user\n+++ b/t07/user\n"
                "@@ -1 +1 @@\n-calls old_name\n+calls new_name\n")
    with open(os.path.join(a.out, "check.sh"), "w") as f:
        f.write("! grep -rqs BUG . || exit 1\n"
                "for n in $(grep -rhos 'calls [a-z_]*' . | sed 's/calls //' | sort -u); do\n"
                "\tgrep -rqs \"defines $n\" . || exit 1\n"
                "done\n")


if __name__ == "__main__":
    main()
