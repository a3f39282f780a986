#!/usr/bin/env python3
"""The table and projection of make bench-build, from its directory:
build-report.py DIR DATE CPUS (DIR holds NAME.ws, NAME.wall, NAME.time
for the runs cold, shared and distcc, and distccd/distccd.log)."""
import json
import os
import re
import sys

B, date, cpus = sys.argv[1], sys.argv[2], int(sys.argv[3])


def run(name):
    ws = open(os.path.join(B, name + ".ws")).read().strip()
    wall = float(open(os.path.join(B, name + ".wall")).read())
    _, user, sys_ = (float(x) for x in open(os.path.join(B, name + ".time")).read().split()[-3:])
    rec = json.load(open(os.path.join(ws, "days", date, "day.json"))).get("build") or {}
    return dict(name=name, wall=wall, cpu=user + sys_, rec=rec)


runs = [run(n) for n in ("cold", "shared", "distcc")]
print("%-7s %8s %8s %8s  %-6s %6s %7s %7s %10s %8s  %s" % (
    "run", "wall s", "make s", "cpu s", "build", "local", "remote", "misses",
    "remote-hit", "all-hit", "distcc remote/here/fallbacks"))
for r in runs:
    b = r["rec"]
    cs = b.get("ccache_stats") or {}
    dc = b.get("distcc")
    hits = cs.get("local_hits", 0) + cs.get("remote_hits", 0)
    lookups = hits + cs.get("misses", 0)
    pct = lambda n: "%.1f%%" % (100.0 * n / lookups) if lookups else "-"
    print("%-7s %8.1f %8.1f %8.1f  %-6s %6d %7d %7d %10s %8s  %s" % (
        r["name"], r["wall"], b.get("make_seconds") or 0, r["cpu"], b.get("status", "-"),
        cs.get("local_hits", 0), cs.get("remote_hits", 0), cs.get("misses", 0),
        pct(cs.get("remote_hits", 0)), pct(hits),
        "%d/%d/%d" % (dc["remote"], dc["local"], dc["fallbacks"]) if dc else "-"))

cold, shared, dist = runs
print("shared vs cold: %.1f s against %.1f s wall (%.1fx faster), make %.1f s against %.1f s" % (
    shared["wall"], cold["wall"], cold["wall"] / shared["wall"],
    shared["rec"].get("make_seconds") or 0, cold["rec"].get("make_seconds") or 0))

# Compile time on the host: distccd's job summaries of the distcc run.
compile_s = 0.0
jobs = 0
for line in open(os.path.join(B, "distccd", "distccd.log"), errors="replace"):
    m = re.search(r"COMPILE_OK .*time:(\d+)ms", line)
    if m:
        compile_s += int(m.group(1)) / 1000.0
        jobs += 1
local_cpu = dist["cpu"]
print("split: %d compiles took %.0f s on the distccd; the distcc run still used %.0f s CPU"
      " here (cpp twice, make, ccache, host tools, links); the all-hit shared run's make: %.0f s" % (
          jobs, compile_s, local_cpu, shared["rec"].get("make_seconds") or 0))
print("this machine: the distccd shares the %d CPUs with the build, so distcc cannot make it"
      " faster here (distcc %.0f s, cold %.0f s wall; the difference is the other load on the"
      " machine during each run, compare their cpu s)" % (cpus, dist["wall"], cold["wall"]))
print("projection with N hosts of %d CPUs, %d CPUs here: between max(here, hosts) and"
      " here + hosts, here = %.0f/%d s, hosts = %.0f/(N*%d) s" % (
          cpus, cpus, local_cpu, cpus, compile_s, cpus))
here = local_cpu / cpus
for n in (1, 2, 4, 8, 16):
    hosts = compile_s / (n * cpus)
    print("  N=%-3d %5.0f .. %5.0f s" % (n, max(here, hosts), here + hosts))
print("  the bound: %.0f s, this machine's own share; more hosts do not go below it" % here)
