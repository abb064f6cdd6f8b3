#!/usr/bin/python3
"""Summarise one inode-create bench run: the table make bench prints.

usage: bench/summarize.py RUN_DIR

For each phase and thread count: each arm's mean ops/s and standard
deviation over the repeats, and each arm's change against the first kernel
with its 95% interval (Welch's t-test on ln(ops/s), as in REPORT.md).  Then
what the profile boots saw: the share of perf samples in the spinlock slow
path and its callers, the top contended locks, and fs_mark's files/s.
make report puts the same numbers in context, with the A/A calibration.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import stats  # noqa: E402
from runs import BenchRun, read_lines  # noqa: E402


def table(run):
    base = run.arms[0]
    p = run.params
    out = ["inode-create, %s vCPUs, %s, %s repeats, interleaved; mean ops/s ± sd; "
           "change against %s with its 95%% interval (Welch on ln)"
           % (p["vcpus"], run.work(), run.n_repeats, base)]
    for phase in run.phases:
        out.append("")
        head = "%-7s %7s" % (phase, "threads")
        head += "".join("  %19s" % arm for arm in run.arms)
        head += "".join("  %24s" % ("%s/%s" % (arm.replace("bench-", ""), base.replace("bench-", "")))
                        for arm in run.arms[1:])
        out.append(head)
        for t in run.threads:
            line = "%-7s %7d" % ("", t)
            for arm in run.arms:
                d = stats.describe(run.samples(arm, phase, t) or [float("nan")])
                line += "  %9.0f ± %7.0f" % (d["mean"], d["sd"])
            for arm in run.arms[1:]:
                a, b = run.samples(base, phase, t), run.samples(arm, phase, t)
                c = stats.Comparison(a, b) if a and b else None
                line += ("  %+6.1f%% [%+6.1f%%, %+6.1f%%]" % (100 * (c.ratio - 1), 100 * (c.lo - 1), 100 * (c.hi - 1))
                         if c and c.testable else "  %24s" % "-")
            out.append(line)
    return out


def profiles(run):
    profs = run.profiles()
    if not profs:
        return []
    out = ["", "profiles at the top thread count (perf cpu-clock samples, perf lock, fs_mark)"]
    for pr in profs:
        callers = ", ".join("%.2f%% %s" % (share, name) for share, name in pr.callers[:3]) or "-"
        out.append("  %-14s inode_hash_lock symbol: %s  spinlock slow path: %5.1f%%  reached from: %s  "
                   "fs_mark files/s: %s" % (pr.kernel, "yes" if pr.has_hash_lock else "no", pr.slowpath,
                                            callers, "%.1f" % pr.fs_mark if pr.fs_mark else "-"))
        lines = [line.rstrip() for line in read_lines(os.path.join(pr.guest, "perf-lock-contention.txt"))
                 if line.strip() and not line.startswith("#")]
        out += ["      " + line for line in lines[:6]]
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    out = []
    # A run over several hosts (make bench HOSTS=): a table per host, never pooled.
    for run in BenchRun(sys.argv[1]).per_host():
        if run.host is not None:
            out += ["", "host %s (%s CPUs, %s)" % (run.host, run.env.get("host_cpus", "?"), run.env.get("host_cpu", "?"))]
        out += table(run) + profiles(run)
    print("\n".join(out).lstrip("\n"))


if __name__ == "__main__":
    main()
