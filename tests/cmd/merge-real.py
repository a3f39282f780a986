#!/usr/bin/env python3
"""tide merge-tree against git merge-tree --write-tree on a real history.

usage: merge-real.py REPO TIDE pairs SEED COUNT MIN REPORT
       merge-real.py REPO TIDE merges REPORT

pairs:  COUNT pairs of branch heads and tags, drawn with SEED, far apart:
        related, but each has at least MIN commits the other has not.
merges: every two-parent merge commit, re-merged from its parents.

Each merge is made by both tools (each reading all its merges from one
--stdin); a clean merge must give the same tree, a conflicted one the
same stages (mode, object, stage, path) and, for each conflicted path,
a kind of conflict git names for it (content, add/add, modify/delete,
rename, file location, ...).  A difference where the only thing that
differs is the line merge of files both sides changed (the same three
versions in both tools, and `git merge-file`, which uses the Myers diff
where git merge-tree uses the histogram diff, agrees with tide) is named
as such, to tell a content-merge difference from a rename one.  The
report goes to REPORT; the exit status is 1 when anything differs.
"""
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

STAGE = re.compile(r'^[0-7]{6} [0-9a-f]{40} [123]\t')


def git(repo, *args, text=True, inp=None):
    p = subprocess.run(['git'] + list(args), cwd=repo, capture_output=True, text=text,
                       input=inp)
    return p.returncode, p.stdout


def far_pairs(repo, seed, count, minc):
    rc, out = git(repo, 'for-each-ref', '--format=%(objectname) %(*objectname) %(refname)',
                  'refs/heads', 'refs/tags')
    tips = {}
    for line in out.split('\n'):
        f = line.split()
        if len(f) == 3:
            tips.setdefault(f[1], f[2])
        elif len(f) == 2:
            tips.setdefault(f[0], f[1])
    commits = sorted(c for c in tips
                     if git(repo, 'cat-file', '-t', c)[1].strip() == 'commit')
    cand = [(a, b) for i, a in enumerate(commits) for b in commits[i + 1:]]
    random.Random(seed).shuffle(cand)
    pairs = []
    for a, b in cand:
        rc, out = git(repo, 'rev-list', '--count', '--left-right', a + '...' + b)
        left, right = (int(x) for x in out.split())
        if left >= minc and right >= minc and git(repo, 'merge-base', a, b)[0] == 0:
            pairs.append((a, b))
            if len(pairs) == count:
                break
    return pairs


def all_merges(repo):
    rc, out = git(repo, 'rev-list', '--merges', '--parents', '--all')
    return sorted((f[1], f[2]) for f in (l.split() for l in out.split('\n')) if len(f) == 3)


GIT_KINDS = {
    'CONFLICT (binary)': 'binary',
    'CONFLICT (file/directory)': 'file/directory',
    'CONFLICT (distinct modes)': 'mode',
    'CONFLICT (modify/delete)': 'modify/delete',
    'CONFLICT (rename/rename)': 'rename',
    'CONFLICT (rename involved in collision)': 'rename',
    'CONFLICT (rename/delete)': 'rename',
    'CONFLICT (directory rename suggested)': 'file location',
    'CONFLICT (file in way of directory rename)': 'directory rename',
    'CONFLICT(directory rename collision)': 'directory rename',
    'CONFLICT(directory rename unclear split)': 'directory rename',
}


def git_kind(typ, text):
    if typ == 'CONFLICT (contents)':
        return re.match(r'CONFLICT \(([^)]*)\)', text).group(1)
    if 'submodule' in typ:
        return 'submodule'
    return GIT_KINDS.get(typ)


def parse_git(out):
    """git merge-tree --stdin (NUL separated) -> [(clean, tree, stages, kinds)]
    where kinds maps each path a conflict message names to its kinds"""
    tok = out.split('\0')
    res, i = [], 0
    while i < len(tok) and tok[i] != '':
        clean = tok[i] == '1'
        tree = tok[i + 1]
        i += 2
        stages, kinds = [], {}
        while i < len(tok) and STAGE.match(tok[i]):
            stages.append(tok[i])
            i += 1
        if not clean:
            i += 1                          # the empty line before messages
            while tok[i] != '':
                n = int(tok[i])
                kind = git_kind(tok[i + n + 1], tok[i + n + 2])
                for path in tok[i + 1:i + 1 + n]:
                    if kind:
                        kinds.setdefault(path, set()).add(kind)
                i += n + 3                  # count, paths, type, text
        i += 1                              # the NUL ending this merge
        res.append((clean, tree, sorted(stages), kinds))
    return res


TIDE_MSG = [re.compile(r) for r in (
    r'^CONFLICT \((modify/delete)\): (.*) deleted in ',
    r'^CONFLICT \((file/directory)\): file moved to (.*)$',
    r'^CONFLICT \((file location)\): .* suggesting it should perhaps be moved to (.*)\.$',
    r'^CONFLICT \((directory rename)\): cannot apply a directory rename at (.*)$',
    r'^CONFLICT \(([^)]*)\): Merge conflict in (.*)$')]


def parse_tide(out):
    """tide merge-tree --stdin -> [(clean, tree, stages, kinds)]"""
    res = []
    for rec in out.split('\0')[:-1]:
        lines = rec.split('\n')
        stages, kinds, i = [], {}, 2
        while i < len(lines) and lines[i]:
            stages.append(lines[i])
            i += 1
        for l in lines[i:]:
            for r in TIDE_MSG:
                m = r.match(l)
                if m:
                    kinds.setdefault(m.group(2), set()).add(m.group(1))
                    break
        res.append((lines[0] == '1', lines[1], sorted(stages), kinds))
    return res


# git calls a conflict of modes alone a content conflict
SAME_KIND = {('mode', 'content'), ('mode', 'add/add')}


def kinds_differ(g, t):
    """Paths whose tide kind is none of the kinds git gives them."""
    bad = []
    for path, tk in sorted(t[3].items()):
        gk = g[3].get(path, set())
        for k in tk:
            if k not in gk and not any((k, x) in SAME_KIND for x in gk):
                bad.append('%s (git: %s, tide: %s)' % (path, '/'.join(sorted(gk)) or 'none', k))
    return bad


def run_tool(repo, argv, cases, parse):
    """The results, the warnings and the CPU seconds of one --stdin run."""
    inp = ''.join('%s %s\n' % c for c in cases)
    timed = ['/usr/bin/time', '-f', 'cpu %U %S'] if os.path.exists('/usr/bin/time') else []
    p = subprocess.run(timed + argv, cwd=repo, input=inp, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit('%s failed (%d): %s' % (' '.join(argv), p.returncode, p.stderr[-2000:]))
    res = parse(p.stdout)
    if len(res) != len(cases):
        raise SystemExit('%s: %d results for %d merges' % (argv[0], len(res), len(cases)))
    cpu = 0.0
    err = p.stderr.split('\n')
    if timed and len(err) >= 2 and err[-2].startswith('cpu '):
        cpu = sum(float(x) for x in err[-2].split()[1:])
    return res, p.stderr, cpu


def chunks(seq, n):
    k = (len(seq) + n - 1) // n
    return [seq[i:i + k] for i in range(0, len(seq), k)] or [[]]


def by_path(stages):
    d = {}
    for s in stages:
        meta, path = s.split('\t', 1)
        mode, oid, st = meta.split()
        d.setdefault(path, {})[int(st)] = (mode, oid)
    return d


def myers(repo, st):
    """git merge-file (Myers) on stages -> (clean, blob id) or None"""
    if 2 not in st or 3 not in st or st[2][0] != st[3][0] or not st[2][0].startswith('100'):
        return None
    with tempfile.TemporaryDirectory() as d:
        files = []
        for k in (2, 1, 3):
            f = os.path.join(d, str(k))
            with open(f, 'wb') as fh:
                if k in st:
                    fh.write(git(repo, 'cat-file', 'blob', st[k][1], text=False)[1])
            files.append(f)
        p = subprocess.run(['git', 'merge-file', '-p'] + files, capture_output=True)
        h = subprocess.run(['git', 'hash-object', '--stdin'], input=p.stdout,
                           capture_output=True).stdout.decode().strip()
        return p.returncode == 0, h


def line_only(repo, g, t):
    """The paths where only the line merge differs, or None."""
    (gc, gtree, gst), (tc, ttree, tst) = g[:3], t[:3]
    gp, tp = by_path(gst), by_path(tst)
    if not set(gp) ^ set(tp):
        return None
    for path in set(gp) & set(tp):
        if gp[path] != tp[path]:
            return None
    out = []
    for path in sorted(set(gp) ^ set(tp)):
        if path in gp:
            m = myers(repo, gp[path])
            blob = git(repo, 'rev-parse', '-q', '--verify', ttree + ':' + path)[1].strip()
            if not m or not m[0] or m[1] != blob:
                return None
            out.append(path + ' (git conflicts, tide merges)')
        else:
            m = myers(repo, tp[path])
            if not m or m[0]:
                return None
            out.append(path + ' (tide conflicts, git merges)')
    return out


def compare(repo, tide, cases, labels, report):
    jobs = [('git', ['git', 'merge-tree', '--stdin'], c, parse_git) for c in chunks(cases, 2)]
    jobs += [('tide', [tide, 'merge-tree', '--stdin'], c, parse_tide) for c in chunks(cases, 2)]
    with ThreadPoolExecutor(max_workers=2) as ex:
        futs = [ex.submit(run_tool, repo, argv, c, parse) for _, argv, c, parse in jobs]
        outs = [f.result() for f in futs]
    half = len(outs) // 2
    gres = sum((o[0] for o in outs[:half]), [])
    tres = sum((o[0] for o in outs[half:]), [])
    warnings = [l for o in outs[half:] for l in o[1].split('\n') if l.startswith('tide: warning')]
    gcpu, tcpu = sum(o[2] for o in outs[:half]), sum(o[2] for o in outs[half:])
    same = line = 0
    clean = conflicted = 0
    other, lines = [], []
    for (a, b), label, g, t in zip(cases, labels, gres, tres):
        clean += g[0]
        conflicted += not g[0]
        if g[:3] == t[:3] or (not g[0] and not t[0] and g[2] == t[2]):
            bad = kinds_differ(g, t)
            if not bad:
                same += 1
                continue
            other.append('%s %s %s: kinds of conflict differ: %s' % (label, a[:10], b[:10],
                                                                      '; '.join(bad[:5])))
            continue
        lo = None if g[0] and t[0] else line_only(repo, g, t)
        if lo:
            line += 1
            lines.append('%s %s %s: %s' % (label, a[:10], b[:10], '; '.join(lo)))
            continue
        gp, tp = by_path(g[2]), by_path(t[2])
        what = ('clean in both, trees %s (git) %s (tide)' % (g[1][:10], t[1][:10])
                if g[0] and t[0] else
                'git %s, tide %s; only git: %s; only tide: %s; stages differ: %s' % (
                    'clean' if g[0] else 'conflicts', 'clean' if t[0] else 'conflicts',
                    ' '.join(sorted(set(gp) - set(tp))[:5]),
                    ' '.join(sorted(set(tp) - set(gp))[:5]),
                    ' '.join(sorted(p for p in set(gp) & set(tp) if gp[p] != tp[p])[:5])))
        other.append('%s %s %s: %s' % (label, a[:10], b[:10], what))
    with open(report, 'w') as f:
        f.write('%d merges (%d clean, %d conflicted in git): %d identical, '
                '%d differ only in the line merge (as if tide merged lines with Myers), '
                '%d otherwise; CPU %.1f s git, %.1f s tide\n' % (
                    len(cases), clean, conflicted, same, line, len(other), gcpu, tcpu))
        for l in lines:
            f.write('  DIFFERS in the line merge: %s\n' % l)
        for l in other:
            f.write('  DIFFERS: %s\n' % l)
        for w in sorted(set(warnings)):
            f.write('  %s\n' % w)
    return 0 if not other and not lines else 1


def main():
    repo, tide, mode = sys.argv[1:4]
    if mode == 'pairs':
        seed, count, minc, report = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
        cases = far_pairs(repo, seed, count, minc)
        if len(cases) < count:
            raise SystemExit('only %d far-apart pairs' % len(cases))
        labels = ['p%03d' % i for i in range(len(cases))]
    else:
        report = sys.argv[4]
        cases = all_merges(repo)
        labels = ['m%04d' % i for i in range(len(cases))]
    sys.exit(compare(repo, tide, cases, labels, report))


if __name__ == '__main__':
    main()
