#!/usr/bin/env python3
"""Generate patches of every form tide's applier reads and compare results.

usage: apply-gen.py REPO NCASES SEED

For each case: a base tree and a changed tree of random files in REPO, a
patch between them written in one form (git diff, plain a/ b/, quilt,
akpm, -p0, -p2, CRLF, binary, ...), sometimes a target with lines
inserted (so hunks land at an offset).  The patch is applied to the target
with `tide apply-patch`, GNU `patch --fuzz=0` and `git apply --cached`
(where the form is theirs) and the result tree ids are compared.  Prints
one line per case and "cases N matched M".
"""
import os, random, shutil, subprocess, sys

REPO, NCASES, SEED = os.path.abspath(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
TIDE = os.environ["TIDE_BIN"]
rng = random.Random(SEED)
WORDS = "alpha beta gamma delta kmalloc mutex spin_lock return if else for struct".split()
KINDS = ["git", "git-new-delete", "git-rename", "git-mode", "binary-literal",
         "binary-delta", "no-eol", "crlf-file", "crlf-patch", "plain", "quilt",
         "akpm", "p0", "p2", "reverse", "offset", "conflict", "fuzz", "git-copy",
         "dep3-run-in", "dep3-quilt", "dep3-separator", "dep3-gbp"]
# Forms a reference tool does not read (patch(1) has no binary patches,
# git apply takes a CRLF patch's CRs as content).
NO_PATCH = {"binary-literal", "binary-delta"}
NO_GIT = {"crlf-patch", "fuzz"}  # git apply has no --fuzz


def run(args, cwd=None, env=None, data=None):
    e = dict(os.environ, **(env or {}))
    return subprocess.run(args, cwd=cwd, env=e, input=data, capture_output=True)


def git(*args, env=None, data=None):
    r = run(["git", "-C", REPO] + list(args), env=env, data=data)
    if r.returncode:
        sys.exit("git %s: %s" % (" ".join(args), r.stderr.decode()))
    return r.stdout


def rand_line(i):
    return "%s %d %s;" % (rng.choice(WORDS), i, " ".join(rng.choice(WORDS) for _ in range(3)))


def rand_file(n=None):
    n = n or rng.randint(20, 70)
    return [rand_line(i) + "\n" for i in range(n)]


def edit(lines, nedits=None, low=0):
    """Change, insert and delete lines at a few spread-out places."""
    out = list(lines)
    nedits = nedits or rng.randint(1, 3)
    spots = sorted(rng.sample(range(low, max(low + 1, len(out) - 1)), min(nedits, max(1, len(out) - 1 - low))),
                   reverse=True)
    for s in spots:
        op = rng.choice("cid")
        if op == "c":
            out[s] = rand_line(1000 + s) + "\n"
        elif op == "i":
            out[s:s] = [rand_line(2000 + s + k) + "\n" for k in range(rng.randint(1, 3))]
        elif len(out) > 2:
            del out[s:s + rng.randint(1, 2)]
    return out


def write_tree(files, modes=None):
    """files: path -> bytes; returns a tree id of REPO's object store."""
    work = os.path.join(REPO, "..", "w")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for p, data in files.items():
        full = os.path.join(work, p)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
        os.chmod(full, 0o755 if (modes or {}).get(p) else 0o644)
    env = {"GIT_INDEX_FILE": os.path.join(REPO, "..", "idx"), "GIT_WORK_TREE": work}
    if os.path.exists(env["GIT_INDEX_FILE"]):
        os.unlink(env["GIT_INDEX_FILE"])
    git("add", "-A", env=env)
    return git("write-tree", env=env).decode().strip()


def text(lines, crlf=False):
    s = "".join(lines)
    return (s.replace("\n", "\r\n") if crlf else s).encode()


def retarget(patch, form, name):
    """Rewrite a git diff of text changes into a plain form."""
    out, lines, i = [], patch.decode().split("\n"), 0
    for l in lines:
        if l.startswith("diff --git ") or l.startswith("index ") or \
           l.startswith("new file mode") or l.startswith("deleted file mode"):
            if l.startswith("diff --git ") and form in ("quilt", "akpm"):
                path = l.split(" b/", 1)[1]
                if form == "quilt":
                    out += ["Index: linux/" + path, "=" * 67]
                else:
                    out += ["diff -puN %s~%s %s" % (path, name, path)]
            continue
        if (l.startswith("--- ") or l.startswith("+++ ")) and l[4:] != "/dev/null":
            side, path = l[:4], l[6:]
            new = {"plain": {"--- ": "a/", "+++ ": "b/"}[side] + path,
                   "quilt": {"--- ": "linux.orig/", "+++ ": "linux/"}[side] + path,
                   "akpm": "a/" + path + ("~" + name if side == "--- " else ""),
                   "p0": path,
                   "p2": {"--- ": "x/old/", "+++ ": "x/new/"}[side] + path}[form]
            l = side + new
        out.append(l)
    return "\n".join(out).encode()


def dep3_header(n, kind):
    """Debian's DEP-3 patch headers (debian/patches/, DEP-3's examples)."""
    desc = "Description: fix case %d in %s" % (n, rng.choice(WORDS))
    for k in range(rng.randint(0, 4)):
        # continuation lines; " ." is an empty line of the long description
        desc += "\n ." if k and rng.random() < 0.3 else "\n " + rand_line(k)
    fields = [desc, rng.choice(["Author: Ben Hutchings <benh@debian.org>",
                                "Author: Salvatore Bonaccorso <carnil@debian.org>",
                                "From: Luca Boccassi <bluca@debian.org>"])]
    fields += rng.sample(["Origin: upstream, https://git.kernel.org/linus/%040x" % n,
                          "Bug-Debian: https://bugs.debian.org/%d" % (1000000 + n),
                          "Forwarded: not-needed", "Applied-Upstream: 6.2",
                          "Last-Update: 2023-01-%02d" % (n % 28 + 1),
                          "Reviewed-by: Someone <someone@debian.org>"], rng.randint(0, 3))
    rng.shuffle(fields)  # any order; a field's continuation lines stay with it
    head = "\n".join(fields) + "\n"
    if kind == "dep3-separator":
        head += "\nFree text about the patch.\n---\n"
    elif kind == "dep3-gbp":
        head = ("From: Ben Hutchings <benh@debian.org>\nDate: Mon, 2 Jan 2023 10:00:00 +0100\n"
                "Subject: fix case %d\nBug-Debian: https://bugs.debian.org/%d\n"
                "Forwarded: not-needed\n\nLong text.\n---\n f | 1 +\n\n" % (n, n))
    # dep3-run-in and dep3-quilt: the headers run straight into the diff,
    # as in features/all/db-mok-keyring/trust-machine-keyring-by-default.patch
    return head.encode()


def make_case(n, kind):
    """Returns (target tree, patch bytes, tool options, expected-by-construction)."""
    nfiles = rng.randint(1, 3)
    base = {"dir%d/f%d.c" % (k % 2, k): rand_file() for k in range(nfiles)}
    new = {p: edit(v, low=6 if kind == "offset" else 0) for p, v in base.items()}
    modes_b, modes_n = {}, {}
    bfiles = {p: text(v, kind == "crlf-file") for p, v in base.items()}
    nfiles_ = {p: text(v, kind == "crlf-file") for p, v in new.items()}
    diffopts, opts = ["--full-index"], []
    if kind == "git-new-delete":
        victim = sorted(bfiles)[0]
        del nfiles_[victim]
        nfiles_["new/file%d.txt" % n] = text(rand_file())
        bfiles["gone/empty"] = b""
    elif kind == "git-rename":
        p = sorted(bfiles)[0]
        nfiles_["renamed/" + os.path.basename(p)] = text(edit(base[p], 1))
        del nfiles_[p]
        diffopts.append("-M")
    elif kind == "git-copy":
        p = sorted(bfiles)[0]
        nfiles_["copies/" + os.path.basename(p)] = text(edit(base[p], 1))
        diffopts += ["-C", "-C"]
    elif kind == "git-mode":
        p = sorted(bfiles)[0]
        modes_n[p] = True
        if rng.random() < 0.5:
            nfiles_[p] = bfiles[p]
    elif kind.startswith("binary"):
        blob = bytes(rng.randrange(256) for _ in range(rng.randint(3000, 6000)))
        if kind == "binary-literal":
            nfiles_["fw/blob%d.bin" % n] = blob
        else:
            bfiles["fw/blob.bin"] = blob
            pos = rng.randrange(len(blob) - 10)
            nfiles_["fw/blob.bin"] = blob[:pos] + b"\0patched\0" + blob[pos + 9:]
        diffopts.append("--binary")
    elif kind == "no-eol":
        p = sorted(bfiles)[0]
        nfiles_[p] = nfiles_[p].rstrip(b"\n")
        if len(bfiles) > 1:
            q = sorted(bfiles)[1]
            bfiles[q] = bfiles[q].rstrip(b"\n")
    b_tree = write_tree(bfiles, modes_b)
    n_tree = write_tree(nfiles_, dict(modes_b, **modes_n))
    patch = git("diff-tree", "-p", *diffopts, b_tree, n_tree)
    target = b_tree
    if kind in ("plain", "quilt", "akpm", "p0", "p2"):
        patch = retarget(patch, kind, "patch-%d" % n)
        opts = {"p0": ["-p0"], "p2": ["-p2"]}.get(kind, ["-p1"])
    elif kind.startswith("dep3"):
        form = {"dep3-quilt": "quilt", "dep3-gbp": None}.get(kind, "plain")
        if form:
            patch = retarget(patch, form, "patch-%d" % n)
        patch = dep3_header(n, kind) + patch
    elif kind == "crlf-patch":
        patch = patch.replace(b"\n", b"\r\n")
    elif kind == "reverse":
        target, opts = n_tree, ["-p1", "-R"]
    elif kind == "offset":
        shifted = {p: (text(rand_file(rng.randint(1, 9))) + v if p in base else v)
                   for p, v in bfiles.items()}
        target = write_tree(shifted, modes_b)
    elif kind == "fuzz":
        # The first context line of each hunk differs in the target.
        lines = {p: v.split(b"\n") for p, v in bfiles.items()}
        cur, prev = None, b""
        for l in patch.split(b"\n"):
            if l.startswith(b"--- a/"):
                cur = l[6:].decode()
            elif l.startswith(b" ") and prev.startswith(b"@@ -") and cur in lines:
                start = int(prev[4:].split(b",")[0].split(b" ")[0])
                # A hunk at line 1 must match there (patch(1) and tide agree
                # it then fails): fuzz only hunks that may move.
                if start > 1:
                    lines[cur][start - 1] += b" /* local */"
            prev = l
        target = write_tree({p: b"\n".join(v) for p, v in lines.items()}, modes_b)
        opts = ["-p1", "--fuzz=1"]
    elif kind == "conflict":
        # Every line of the target differs: no tool may apply the patch.
        target = write_tree({p: v.replace(b";", b"!") for p, v in bfiles.items()}, modes_b)
    if not opts:
        opts = ["-p1"]
    # A plain a/ b/ patch carries a message before it, as a mail does.
    if kind in ("plain", "akpm"):
        patch = b"Subject: [PATCH] case %d\n\nmessage\n---\n f | 1 +\n\n" % n + patch
    return target, patch, opts


def tide_apply(target, pfile, opts):
    r = run([TIDE, "apply-patch"] + opts + [target, pfile], cwd=REPO)
    return r.stdout.decode().strip() if r.returncode == 0 else "FAIL " + r.stderr.decode().strip()


def patch_apply(target, pfile, opts):
    work = os.path.join(REPO, "..", "pw")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    arch = git("archive", target)
    run(["tar", "-x", "-C", work], data=arch)
    r = run(["patch", "-s", "-f", "--no-backup-if-mismatch", "--fuzz=0", "-i", pfile] + opts,
            cwd=work)
    if r.returncode:
        return "FAIL " + (r.stdout + r.stderr).decode().strip()
    env = {"GIT_INDEX_FILE": os.path.join(REPO, "..", "pidx"), "GIT_WORK_TREE": work}
    if os.path.exists(env["GIT_INDEX_FILE"]):
        os.unlink(env["GIT_INDEX_FILE"])
    git("add", "-A", env=env)
    return git("write-tree", env=env).decode().strip()


def git_apply(target, pfile, opts):
    env = {"GIT_INDEX_FILE": os.path.join(REPO, "..", "gidx")}
    git("read-tree", target, env=env)
    r = run(["git", "-C", REPO, "apply", "--cached"] + opts + [pfile], env=env)
    if r.returncode:
        return "FAIL " + r.stderr.decode().strip()
    return git("write-tree", env=env).decode().strip()


def main():
    matched = 0
    pfile = os.path.join(REPO, "..", "case.patch")
    for n in range(NCASES):
        kind = KINDS[n % len(KINDS)]
        target, patch, opts = make_case(n, kind)
        with open(pfile, "wb") as f:
            f.write(patch)
        got = tide_apply(target, pfile, opts)
        refs = {}
        if kind not in NO_PATCH:
            refs["patch"] = patch_apply(target, pfile, opts)
        if kind not in NO_GIT:
            refs["git"] = git_apply(target, pfile, opts)
        if kind == "conflict":
            ok = got.startswith("FAIL") and all(v.startswith("FAIL") for v in refs.values())
        else:
            ok = not got.startswith("FAIL") and all(v == got for v in refs.values())
        matched += ok
        short = lambda v: v if not v.startswith("FAIL") else "FAIL"
        print("%s case %d %s %s: tide %s %s" % ("ok" if ok else "MISMATCH", n, kind,
              " ".join(opts), short(got) if ok else got,
              " ".join("%s %s" % (k, short(v) if ok else v) for k, v in sorted(refs.items()))))
        if not ok:
            shutil.copy(pfile, os.path.join(REPO, "..", "case-%d.patch" % n))
    print("cases %d matched %d" % (NCASES, matched))


main()
