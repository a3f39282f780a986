#!/usr/bin/env python3
"""Generators for bench/bench-merge (fast-import streams on stdout).

  merge-bench-gen.py base FILES DIRS
      a kernel-sized base commit (refs/tags/base): FILES text files spread
      over DIRS directories, three levels deep, like drivers/<x>/<y>/.
  merge-bench-gen.py trees REPO BASE_COMMIT N SEED < "git ls-tree -r" of the base
      N branches refs/heads/tNNN, each one commit on the base changing three
      files: two files only it touches and one file shared with other trees,
      at a line range of its own, so every merge is clean but some need
      a content merge (as linux-next's trees mostly merge cleanly).
      Reads the files' contents with one `git cat-file --batch`.
"""
import random
import subprocess
import sys
import threading

out = sys.stdout.buffer


def emit(s):
    out.write(s if isinstance(s, bytes) else s.encode())


def data(b):
    emit("data %d\n" % len(b))
    emit(b)
    emit("\n")


def gen_base(nfiles, ndirs):
    rng = random.Random(1)
    dirs = []
    top = ["arch", "drivers", "fs", "net", "sound", "include", "kernel", "lib", "mm", "tools"]
    while len(dirs) < ndirs:
        d = "%s/sub%d/part%d" % (rng.choice(top), rng.randrange(ndirs // 40 + 1), rng.randrange(40))
        dirs.append(d)
    dirs = sorted(set(dirs))
    emit("commit refs/heads/bench-base\ncommitter B <b@tide.invalid> 1700000000 +0000\n")
    data(b"generated base")
    for i in range(nfiles):
        d = dirs[i % len(dirs)]
        # mostly small files, a few long ones for the shared edits
        nlines = 450 if i % 50 == 0 else 10 + i % 30
        body = "".join("int f%d_%d(void);\n" % (i, k) for k in range(nlines))
        emit("M 100644 inline %s/file%d.c\n" % (d, i))
        data(body.encode())
    emit("\n")
    emit("reset refs/tags/base\nfrom refs/heads/bench-base\n\n")


def read_blobs(repo, oids):
    p = subprocess.Popen(["git", "-C", repo, "cat-file", "--batch"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def feed():
        # from another thread: cat-file's output would fill the pipe
        # while we are still writing requests
        p.stdin.write("".join(o + "\n" for o in oids).encode())
        p.stdin.close()

    writer = threading.Thread(target=feed)
    writer.start()
    res = {}
    for o in oids:
        hdr = p.stdout.readline().split()
        size = int(hdr[2])
        res[o] = p.stdout.read(size)
        p.stdout.read(1)
    writer.join()
    p.wait()
    return res


def edit(content, first, count, tag):
    lines = content.split(b"\n")
    for k in range(first, min(first + count, len(lines) - 1)):
        lines[k] = lines[k] + (" /* %s */" % tag).encode()
    return b"\n".join(lines)


def gen_trees(repo, base, n, seed):
    rng = random.Random(seed)
    files = []
    for line in sys.stdin.buffer:
        meta, path = line.rstrip(b"\n").split(b"\t", 1)
        mode, kind, oid = meta.split()
        if kind == b"blob" and mode == b"100644" and path.endswith((b".c", b".h")):
            files.append((path.decode(), oid.decode()))
    rng.shuffle(files)
    contents = read_blobs(repo, [o for _, o in files[:4 * n + 400]])
    big = [f for f in files[:4 * n + 400] if contents[f[1]].count(b"\n") >= 400][:40]
    own = [f for f in files[:4 * n + 400] if f not in big]
    for i in range(n):
        tag = "t%03d" % i
        emit("commit refs/heads/%s\ncommitter %s <%s@tide.invalid> %d +0000\n"
             % (tag, tag, tag, 1700001000 + i))
        data(("%s: change three files\n" % tag).encode())
        emit("from %s\n" % base)
        for path, oid in own[2 * i:2 * i + 2]:
            emit("M 100644 inline %s\n" % path)
            data(edit(contents[oid], 5, 3, tag))
        if big:
            path, oid = big[i % len(big)]
            emit("M 100644 inline %s\n" % path)
            data(edit(contents[oid], 10 + (i // len(big)) * 30, 2, tag))
        emit("\n")


def main():
    if sys.argv[1] == "base":
        gen_base(int(sys.argv[2]), int(sys.argv[3]))
    else:
        gen_trees(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    emit("done\n")


main()
