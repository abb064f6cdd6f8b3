#!/usr/bin/python3
"""Summarise one inode-create bench run: the table make bench prints.

usage: bench/summarize.py RUN_DIR

For each phase and thread count: each arm's mean ops/s and standard
deviation over the repeats, and each arm's change against the first kernel
with its 95% interval (Welch's t-test on ln(ops/s), as in REPORT.md).  Then
what the profile boots saw: the share of perf samples in the spinlock slow
path and its callers, the top contended locks, and fs_mark's files/s.  A
METRIC=locks run adds its critical sections per lock and kernel, and their
projection to many CPUs (lib/scaling.py).
make report puts the same numbers in context, with the A/A calibration.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import stats  # noqa: E402
from runs import BenchRun, read_lines  # noqa: E402
import published  # noqa: E402
from scaling import Projection, Sections  # noqa: E402

SHOWN = 12   # lock classes per phase: the largest demands, then every shared one


def pct(x):
    return "-" if x is None else "%.2f%%" % (100 * x)


def section_tables(run):
    """Per phase, each lock class of both kernels at one thread."""
    s = Sections(run)
    out = ["", "critical sections at one thread (bench/locks.py): acquisitions per operation and "
           "instructions held per acquisition, means over boots with the CV between boots; "
           "shared: the two-thread phase took one instance on two kernel stacks"]
    for phase in s.phases:
        out.append("")
        per = {k: {c["name"]: c for c in s.classes(k, phase)} for k in s.kernels}
        works = ["%s %.0f insns/op (CV %s, %d boots, unpaired %s)" % (
            k.replace("bench-", ""), s.work(k, phase)[0] or 0, pct(s.work(k, phase)[1]), len(s.boots(k, phase)),
            "/".join("%d" % u for u in s.unpaired(k, phase))) for k in s.kernels]
        out.append("%s: %s" % (phase, "; ".join(works)))
        names = []
        for k in s.kernels:
            ranked = sorted(per[k].values(), key=lambda c: -c["acq"] * c["hold"])
            names += [c["name"] for c in ranked[:SHOWN] + [c for c in ranked if c["shared"]]]
        head = "  %-38s %-8s %-6s" % ("lock class", "kind", "shared")
        head += "".join("  %28s" % k.replace("bench-", "") for k in s.kernels)
        out.append(head)
        for name in dict.fromkeys(names):
            any_c = next(per[k][name] for k in s.kernels if name in per[k])
            line = "  %-38s %-8s %-6s" % (name[:38], any_c["kind"], "yes" if any(
                per[k][name]["shared"] for k in s.kernels if name in per[k]) else "no")
            for k in s.kernels:
                c = per[k].get(name)
                line += ("  %6.3f (%5s) x %7.1f (%5s)" % (c["acq"], pct(c["acq_cv"])[:-1], c["hold"],
                                                          pct(c["hold_cv"])[:-1]) if c else "  %28s" % "-")
            out.append(line)
    return out


def projection_table(run):
    """Throughput against CPUs for both kernels (a projection), beside
    Chinner's published fs_mark numbers."""
    pr = Projection(Sections(run), int(run.params.get("project_to", 64)))
    if not pr.ns_per_insn or not pr.new:
        return []
    a, b = pr.points(pr.base, "create"), pr.points(pr.new, "create")
    ch = published.CHINNER_2021
    out = ["", "PROJECTION (not a measurement): creates/s against CPUs, exact MVA over the counted critical "
           "sections (lib/lockmodel.py); %.3f ns per instruction fitted so that %s does %.0fk/s at %d threads "
           "(%s); %.0f ns a lock handoff (%s)" % (pr.ns_per_insn, pr.base, pr.fit_point / 1e3, 2, ch["cite"],
                                                   pr.tau, published.LINE_TRANSFER_CITE),
           "  %7s %12s %12s %8s %12s %12s %8s %10s %s" % ("CPUs", pr.base.replace("bench-", ""),
                                                          pr.new.replace("bench-", ""), "gain", "pub. global",
                                                          "pub. hashbl", "pub.gain", "spin", "busiest lock (utilisation)")]
    for n in [t for t in (1, 2, 4, 8, 16, 32, 48, 64, 128, 256) if t <= len(a)]:
        pa, pb = a[n - 1], b[n - 1]
        i = ch["threads"].index(n) if n in ch["threads"] else None
        busiest = max(pa["locks"].items(), key=lambda kv: kv[1]["utilisation"], default=(None, None))
        out.append("  %7d %12.0f %12.0f %+7.1f%% %12s %12s %8s %10s %s" % (
            n, pa["ops_per_s"], pb["ops_per_s"], 100 * (pb["ops_per_s"] / pa["ops_per_s"] - 1),
            "%.0f" % ch["global"][i] if i is not None else "-", "%.0f" % ch["hashbl"][i] if i is not None else "-",
            "%+.1f%%" % (100 * published.gain(n)) if i is not None else "-", pct(pa["spin_share"]),
            "%s (%.0f%%)" % (busiest[0], 100 * busiest[1]["utilisation"]) if busiest[0] else "-"))
    return out


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
        if run.locks:
            out += section_tables(run) + projection_table(run)
    print("\n".join(out).lstrip("\n"))


if __name__ == "__main__":
    main()
