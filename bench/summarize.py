#!/usr/bin/python3
"""Summarise one inode-create bench run: the table make bench prints.

usage: bench/summarize.py RUN_DIR

For each phase and thread count: each arm's median ops/s and interquartile
range over the repeats, and each kernel's ratio to the first kernel (medians)
with a 95% bootstrap interval (resampling repeats within each arm, fixed seed,
so the same results give the same table).  Then what the profile boots saw:
the share of perf samples in the spinlock slow path and the callers it was
reached from (callchains), the top contended locks, and fs_mark's files/s.
"""
import csv
import os
import re
import sys

import numpy as np

from stats import SEED, bootstrap_ratio_ci


def load(run):
    rows = list(csv.DictReader(open(os.path.join(run, "results.csv"))))
    data = {}
    for r in rows:
        key = (r["phase"], int(r["threads"]), r["arm"])
        data.setdefault(key, []).append(float(r["ops_per_s"]))
    return data


def params(run):
    p = {}
    for line in open(os.path.join(run, "parameters")):
        k, _, v = line.rstrip("\n").partition("=")
        p[k] = v
    return p


def table(run):
    p = params(run)
    data = load(run)
    arms = p["arms"].split()
    base = arms[0]
    rng = np.random.default_rng(SEED)
    out = []
    out.append("inode-create, %s vCPUs, %s s per phase, %s repeats, interleaved; "
               "median ops/s [IQR]; ratio to %s with 95%% bootstrap interval"
               % (p["vcpus"], p["duration_s"], p["repeats"], base))
    for phase in ("create", "lookup", "unlink"):
        out.append("")
        head = "%-7s %7s" % (phase, "threads")
        for arm in arms:
            head += "  %26s" % arm
        for arm in arms[1:]:
            head += "  %24s" % ("%s/%s" % (arm.replace("bench-", ""), base.replace("bench-", "")))
        out.append(head)
        threads = sorted({t for (ph, t, _a) in data if ph == phase})
        for t in threads:
            line = "%-7s %7d" % ("", t)
            for arm in arms:
                v = np.asarray(data.get((phase, t, arm), [np.nan]))
                q1, med, q3 = np.percentile(v, [25, 50, 75])
                line += "  %10.0f [%6.0f-%6.0f]" % (med, q1, q3)
            for arm in arms[1:]:
                a, b = data.get((phase, t, base)), data.get((phase, t, arm))
                if not a or not b:
                    line += "  %24s" % "-"
                    continue
                lo, hi = bootstrap_ratio_ci(a, b, rng)
                line += "  %6.3f [%6.3f, %6.3f]" % (np.median(b) / np.median(a), lo, hi)
            out.append(line)
    return out


def slowpath_callers(g):
    """Callers of the spinlock slow path in perf's callchain report."""
    found, inside = [], False
    try:
        for line in open(os.path.join(g, "perf-report-callchains.txt")):
            if re.match(r"\s+[0-9.]+%\s+\[", line):
                inside = "queued_spin_lock_slowpath" in line
                continue
            m = re.search(r"--([0-9.]+)%--(\S+)", line)
            if inside and m:
                found.append("%s%% %s" % (m.group(1), m.group(2)))
    except OSError:
        pass
    return ", ".join(found[:3])


def profiles(run):
    out = []
    pdir = os.path.join(run, "profiles")
    if not os.path.isdir(pdir):
        return out
    out.append("")
    out.append("profiles at the top thread count (perf cpu-clock samples, perf lock, fs_mark)")
    for k in sorted(os.listdir(pdir)):
        if not os.path.isdir(os.path.join(pdir, k)):
            continue
        g = os.path.join(pdir, k, "guest")
        slowpath = 0.0
        try:
            for line in open(os.path.join(g, "perf-report.txt")):
                m = re.match(r"\s+([0-9.]+)%\s+\[[kK.]\]\s+(\S+)", line)
                if not m:
                    continue
                pct, sym = float(m.group(1)), m.group(2)
                if "queued_spin_lock_slowpath" in sym:
                    slowpath += pct
        except OSError:
            pass
        fsmark = "-"
        try:
            for line in open(os.path.join(g, "fs_mark.txt")):
                f = line.split()
                if len(f) >= 5 and f[0].isdigit():
                    fsmark = f[3]
        except OSError:
            pass
        has_lock = open(os.path.join(g, "kallsyms-inode_hash_lock.txt")).read().strip() \
            if os.path.exists(os.path.join(g, "kallsyms-inode_hash_lock.txt")) else "?"
        out.append("  %-14s inode_hash_lock symbol: %s  spinlock slow path: %5.1f%%  "
                   "reached from: %s  fs_mark files/s: %s"
                   % (k, "yes" if has_lock not in ("0", "?") else "no", slowpath,
                      slowpath_callers(g) or "-", fsmark))
        try:
            lines = [l.rstrip() for l in open(os.path.join(g, "perf-lock-contention.txt"))
                     if l.strip() and not l.startswith("#")]
            for l in lines[:6]:
                out.append("      " + l)
        except OSError:
            pass
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    print("\n".join(table(sys.argv[1]) + profiles(sys.argv[1])))


if __name__ == "__main__":
    main()
