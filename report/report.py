#!/usr/bin/python3
"""Make REPORT.md and plots/ from stored runs (make report).

usage: report/report.py [-r RESULTS] [-o OUTDIR] [--base RUN --new RUN] [RUN ...]

RUN names a complete run in RESULTS/bench/ or RESULTS/torture/ (default:
every complete run there); a RUN.partial is never reported.  --base and
--new add a run-to-run comparison of two runs of the same kind (same
kernels, same vCPUs), both reported.  Writes OUTDIR/REPORT.md and
OUTDIR/plots/ (default OUTDIR: the lab's root), replacing both only once
everything is made.  The same runs always give the same files: every number
comes from the runs, the statistics use fixed seeds, nothing is dated.
"""
import argparse
import math
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import plots  # noqa: E402
import stats  # noqa: E402
from runs import (INODE_HASH_FUNCS, SIDES, RunError, all_runs, bench_pairs, find_runs,  # noqa: E402
                  guest_facts)

LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASELINE_LOCKS = ("rwsem_lock", "mutex_lock", "percpu_rwsem_lock", "spin_lock")
SIX_LOCKS = ("six_lock", "six_lock_pcpu")


class ReportError(RunError):
    """A report that cannot be made from the runs asked for."""


# ---------------------------------------------------------------- formatting

def share_of(pct, busy):
    return "%.2f%% (%.1f%% of busy)" % (pct, 100 * pct / busy)


def fmt_rate(x):
    return "%.0f" % x if x >= 100 else "%.3g" % x


def fmt_side(v):
    d = stats.describe(v)
    if d["n"] < 2:
        return "%s (n=1)" % fmt_rate(d["mean"])
    return "%s ± %s" % (fmt_rate(d["mean"]), fmt_rate(d["sd"]))


def fmt_change(r):
    if math.isnan(r):
        return "-"
    if r >= 10 or r <= 0.1:
        return "x%.3g" % r
    return "%+.1f%%" % (round(100 * (r - 1), 1) + 0.0)  # + 0.0: no "-0.0%"


def fmt_p(p):
    if math.isnan(p):
        return "-"
    return "<0.001" if p < 0.001 else "%.3f" % p


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out + [""]


def comparison_row(label, a, b, higher_is_better=True, first_n=None):
    c = stats.Comparison(a, b, first_n=first_n)
    ci = "[%s, %s]" % (fmt_change(c.lo), fmt_change(c.hi)) if c.testable else "-"
    v = c.verdict(higher_is_better)
    if v in ("better", "worse"):
        v = "**%s**" % v
    eq = ("yes" if stats.equivalent(a, b, first_n=first_n) else "no") if c.testable else "-"
    return label + [fmt_side(a), fmt_side(b), fmt_change(c.ratio), ci, fmt_p(c.p), v, eq], c


COMPARISON_HEAD = ["mean ± sd (base)", "mean ± sd (new)", "change", "95% CI of change", "p", "verdict",
                   "within ±%g%%" % (100 * stats.MARGIN)]


def env_line(run):
    e = run.env
    return ("host: %s CPUs (%s), accelerator %s, %s vCPUs (overcommit %s), %s, "
            "kernel source Debian %s, lab revision %s" %
            (e.get("host_cpus", "?"), e.get("host_cpu", "?"), e.get("accel", "?"),
             e.get("vcpus", "?"), e.get("overcommit", "?"),
             e.get("qemu", "QEMU ?").replace("QEMU emulator version ", "QEMU "),
             e.get("kernel_debian_source_version", "?"), e.get("lab_git_rev", "?")[:12]))


# ---------------------------------------------------------------- bench sections

def comparison_table(run, base, new, base_run=None):
    """Rows per phase and thread count; base_run: the base side comes from
    another run (run-to-run)."""
    rows, results = [], []
    src = base_run or run
    for phase in run.phases:
        for t in run.threads:
            a, b = src.samples(base, phase, t), run.samples(new, phase, t)
            if not a or not b:
                continue
            row, c = comparison_row([phase, t], a, b, run.higher_is_better,
                                    None if base_run else run.first_n)
            rows.append(row)
            results.append((phase, t, c))
    return table(["phase", "threads"] + COMPARISON_HEAD, rows), results


def calibration(run, arm):
    """The A/A arm: observed verdicts, each test's false-positive rate over
    the splits of the pooled boots, and the noise floor."""
    rng = np.random.default_rng(stats.SEED)
    welch, boot, observed = [], [], 0
    points = []
    for phase in run.phases:
        for t in run.threads:
            a, a2 = run.samples(arm, phase, t), run.samples(arm + "-aa", phase, t)
            if len(a) < 2 or len(a2) < 2:
                continue
            c = stats.Comparison(a, a2)
            observed += c.significant
            w = stats.false_positive_rate(a, a2, stats.welch_significant)
            b = stats.false_positive_rate(a, a2, lambda x, y: stats.bootstrap_significant(x, y, rng))
            welch.append(w)
            boot.append(b)
            points.append((phase, t, stats.describe(a)["cv"], stats.describe(a2)["cv"],
                           stats.min_detectable_change(a, a2), w))
    n = len(run.samples(arm, run.phases[0], run.threads[0])) if run.threads else 0
    return {"observed": observed, "m": len(points), "welch": welch, "boot": boot, "points": points,
            "n": n, "exact": math.comb(2 * n, n) <= stats.MAX_SPLITS}


def bench_section(run, plot_dir):
    out = ["## Bench run `%s`" % run.name, ""]
    p = run.params
    out += ["inode-create in %s-vCPU guests: threads %s, %s, %s repeats, arms %s; %s." %
            (p.get("vcpus"), p.get("threads", "").strip(), run.work(), p.get("repeats"),
             ", ".join(run.arms), p.get("order", "")), "",
            "Environment: %s; run started %s." % (env_line(run), run.env.get("date", "?")), ""]
    out += insns_lines(run) if run.insns else overcommit_lines(run)
    out += precision_lines(run)
    if run.lockdep_kernels():
        out += ["Lockdep kernels (%s): their rates are slowed by lockdep and are not the kernels' speed; "
                "read this run for its lock statistics." % ", ".join("`%s`" % k for k in run.lockdep_kernels()), ""]
    out += guest_lines(run)
    verdicts = []
    for title, base, new in bench_pairs(run):
        out += ["### %s" % title, "",
                "Base `%s`, new `%s`; one value per boot, Welch's t-test on ln(%s)." % (base, new, run.unit), ""]
        tab, results = comparison_table(run, base, new)
        out += tab
        verdicts.append((title, base, new, results))
    aa = [a[:-3] for a in run.arms if a.endswith("-aa")]
    cal = calibration(run, aa[0]) if aa else None
    if cal and cal["m"]:
        out += calibration_section(run, aa[0], cal)
    out += plots_section(run, plot_dir, cal)
    out += profile_section(run)
    out += lock_stat_section(run)
    return out, verdicts, cal


def trust(cal):
    """The calibration's verdict on a run's verdicts: the A/A arm must not
    differ from its base more than chance allows, and the test's measured
    false-positive rate must be at most its 5%."""
    if stats.binomial_tail(cal["observed"], cal["m"]) < stats.ALPHA:
        return ("NOT TRUSTWORTHY: the A/A arm differs from its base more often than chance allows; "
                "something besides the kernel changed between boots (drift, a noisy neighbour).")
    if float(np.mean(cal["welch"])) > stats.ALPHA:
        return ("NOT TRUSTWORTHY: the test's false-positive rate on this run's noise is above 5%; "
                "its verdicts call noise a change more often than they claim.")
    return "Calibrated: this run's verdicts can be taken at their stated 5% level."


def calibration_section(run, arm, cal):
    w, b = cal["welch"], cal["boot"]
    rate = float(np.mean(w))
    tail = stats.binomial_tail(cal["observed"], cal["m"])
    out = ["### Calibration: how often a verdict is a false alarm", "",
           "The A/A arm is `%s` booted twice in every repeat, so every difference between `%s` and "
           "`%s-aa` is noise." % (arm, arm, arm), "",
           "- Observed: the test called **%d of %d** A/A points significant (chance of that many or "
           "more at a true 5%% rate: %.2f)." % (cal["observed"], cal["m"], tail),
           "- False-positive rate of Welch's test on ln(%s), over %s of the pooled A and A' "
           "boots into two groups of %d (%d points): **%.1f%%** on average, %.1f%% at the worst "
           "point." % (run.unit, "every split" if cal["exact"] else "%d random splits (fixed seed)" % stats.MAX_SPLITS,
                       cal["n"], cal["m"], 100 * rate, 100 * max(w)),
           "- The same for a percentile bootstrap of the ratio of medians: %.1f%% on average. It is "
           "not the report's test: with few boots a side it depends only on how the two groups' "
           "ranks overlap." % (100 * float(np.mean(b))), "",
           "**%s**" % trust(cal), ""]
    out += ["Noise floor: coefficient of variation (sd/mean) of each A arm, and the smallest change "
            "the A/A comparison could have called significant (half-width of its 95% interval).", ""]
    rows = [[ph, t, "%.1f%%" % (100 * ca), "%.1f%%" % (100 * cb), "±%.0f%%" % (100 * mdc), "%.1f%%" % (100 * w)]
            for ph, t, ca, cb, mdc, w in cal["points"]]
    out += table(["phase", "threads", "CV %s" % arm, "CV %s-aa" % arm, "smallest significant change",
                  "Welch false-positive rate"], rows)
    cvs = [x for p in cal["points"] for x in p[2:4]]
    out += ["Median CV over all points: %.1f%%. A change smaller than the smallest significant change "
            "of its row is invisible to this run, whatever the verdict column says." %
            (100 * float(np.median(cvs))), ""]
    return out


def plots_section(run, plot_dir, cal):
    cap = "%s; %s." % (run.name, env_line(run))
    files = plots.bench_plots(run, plot_dir, cap, bench_pairs(run))
    out = ["### Plots", ""]
    for f, what in files:
        out += ["![%s](plots/%s)" % (what, f), "", "*%s. %s*" % (what, cap), ""]
    return out


def profile_section(run):
    profs = run.profiles()
    if not profs:
        return []
    top = run.threads[-1] if run.threads else "?"
    out = ["### Profiles at %s threads (one profile boot per kernel, not repeated)" % top, "",
           "perf record -g -e cpu-clock in the guest (TCG has no PMU). Shares are of all samples, "
           "and of busy samples (all but the idle loop, whose share grows with overcommit as "
           "threads wait for vCPUs that wait for host CPUs).", ""]
    rows = []
    for pr in profs:
        hp = (share_of(pr.hash_path_pct, pr.busy) if pr.hash_path_pct
              else "none of its listed callers" if pr.hash_path_pct == 0
              else "no caller above perf's 0.5% threshold")
        callers = ", ".join("`%s` %.2f%%" % (n, p) for p, n in pr.callers[:3]) or "-"
        rows.append(["`%s`" % pr.kernel, "yes" if pr.has_hash_lock else "no (hash-bl)",
                     "%.1f%%" % pr.idle, share_of(pr.slowpath, pr.busy), hp, callers,
                     "%.0f" % pr.fs_mark if pr.fs_mark else "-"])
    out += table(["kernel", "inode_hash_lock", "idle", "queued_spin_lock_slowpath",
                  "of it under inode-hash functions", "its callers (perf's 0.5% threshold)",
                  "fs_mark files/s"], rows)
    out += ["Inode-hash functions: the takers of `inode_hash_lock` in 6.1's fs/inode.c (%s). "
            "A caller such as `__ext4_new_inode` spins on locks ext4 takes itself (the hash-bl "
            "kernel, which has no `inode_hash_lock`, can show it too)." %
            ", ".join("`%s`" % f for f in INODE_HASH_FUNCS), ""]
    out += ["Lock contention (perf lock contention over lock:contention_begin/end, whole profile "
            "boot), top callers by total wait:", ""]
    rows = []
    for pr in profs:
        for c in sorted(pr.contention, key=lambda c: -c["wait_s"])[:4]:
            rows.append(["`%s`" % pr.kernel, c["type"], "`%s`" % c["caller"], c["contended"], "%.3g" % c["wait_s"]])
    out += table(["kernel", "lock type", "caller", "contended", "total wait (s)"], rows)
    if any(pr.traced for pr in profs):
        out += ["The same tracepoints recorded with trace-cmd (ftrace, `-T` for the caller; "
                "`guest/trace.dat` in each profile boot), waits by lock and caller, most total wait "
                "first (a static lock is named from kallsyms, others are addresses):", ""]
        rows = [["`%s`" % pr.kernel, "`%s`" % c["lock"], "`%s`" % c["caller"], c["waits"],
                 "%.3g" % c["wait_s"], "%.3g" % (1e3 * c["max_s"])]
                for pr in profs for c in pr.traced[:5]]
        out += table(["kernel", "lock", "caller", "waits", "total wait (s)", "longest (ms)"], rows)
    out += ["What this table cannot see: on 6.1 `lock:contention_begin` fires for a spinlock only "
            "on the queued path of `queued_spin_lock_slowpath`, not for the first waiter, which "
            "spins on the pending bit; bit spinlocks (`bit_spin_lock()`, hash-bl's hash chains) have "
            "no tracepoint at all. So the hash-bl kernel's chain locks never appear here, and the "
            "global `inode_hash_lock` only when three or more CPUs want it at once.", ""]
    return out


def lock_stat_section(run):
    """inode_hash_lock per operation, from LOCK_STAT kernels' boots."""
    ls = run.lock_stats()
    if not ls:
        return []
    out = ["### Lock statistics: `inode_hash_lock` per operation", "",
           "From `/proc/lock_stat` of each LOCK_STAT kernel's first boot, cleared before each "
           "measurement (lockdep inflates every time, so only counts and ratios are read). "
           "Acquisitions and contentions per operation are over all phases of the workload; the "
           "wait share is the lock's total wait time over the threads' total run time, an upper "
           "bound of what removing the lock could gain at that point. hash-bl's bit spinlocks are "
           "not lockdep classes and never appear in lock_stat.", ""]
    rows = []
    for x in ls:
        rows.append(["`%s`" % x["kernel"], x["workload"], x["threads"], x["acquisitions"],
                     "%.2f" % (x["acquisitions"] / x["ops"]) if x["ops"] else "-",
                     "%.4f" % (x["contentions"] / x["acquisitions"]) if x["acquisitions"] else "-",
                     "%.2f%%" % (100 * x["wait_s"] / x["busy_s"]) if x["busy_s"] else "-"])
    return out + table(["kernel", "workload", "threads", "acquisitions", "acquisitions/op",
                        "contentions/acquisition", "wait share"], rows)


# ---------------------------------------------------------------- torture sections

def torture_pairs(rates):
    """(vcpus, long_hold, base type, new type): six sides against the
    incumbent locks, and six's percpu reader mode against the plain six
    lock, each only under one hold policy."""
    pairs = []
    for vcpus, hold in sorted({(v, h) for (_t, v, h) in rates}):
        have = {t for (t, v, h) in rates if (v, h) == (vcpus, hold)}
        for six in SIX_LOCKS:
            for base in BASELINE_LOCKS:
                if six in have and base in have:
                    pairs.append((vcpus, hold, base, six))
        if "six_lock" in have and "six_lock_pcpu" in have:
            pairs.append((vcpus, hold, "six_lock", "six_lock_pcpu"))
    return pairs


def hold_caveat(pairs):
    """What the rate comparisons compare, from the hold policies of the
    pairs the run has (method text, chosen by the data)."""
    sleeping = ("rwsem_lock", "mutex_lock", "percpu_rwsem_lock")  # 6.1 holds them for ms
    own = [p for p in pairs if p[1] < 0 and p[2] in sleeping]
    same = [p for p in pairs if p[1] >= 0 and p[2] in BASELINE_LOCKS]
    out = []
    if own:
        out.append("%d of these pairs compare a six lock with an incumbent lock under each type's "
                   "own 6.1 delays (long_hold=-1): a mutex is held for mdelay(20) on almost every "
                   "acquisition, an rwsem for 10 ms (write) and 50 ms (read), a percpu_rwsem "
                   "likewise, the six and spin locks for microseconds, so those ratios measure hold "
                   "policies more than locks." % len(own))
    if same:
        out.append("%d pairs compare a six lock with an incumbent lock under one hold policy "
                   "(long_hold=N for both: 2 us holds now and then, a long hold of N ms rarely), "
                   "so their ratios compare the locks." % len(same))
    if any(p[3] in SIX_LOCKS and p[2] in BASELINE_LOCKS for p in pairs):
        out.append("A six writer takes intent and then write, two lock operations per counted write, "
                   "where the incumbents' writers take one.")
    if any(p[2] == "six_lock" for p in pairs):
        out.append("six_lock_pcpu vs six_lock always share a policy, so that ratio compares the "
                   "reader modes.")
    return " ".join(out)


def negatives(run):
    n = sum(s.get("expect", "SUCCESS") != "SUCCESS" for s in run.scenarios)
    return " (%d of them negative controls, which must fail)" % n if n else ""


def torture_section(run, plot_dir):
    n_ok = sum(s.get("judgement", "").startswith("PASS") for s in run.scenarios)
    out = ["## Torture run `%s`" % run.name, "",
           "Environment: %s." % env_line(run), "",
           "%d of %d scenarios ended as expected%s." %
           (n_ok, len(run.scenarios), negatives(run)), ""]
    rows = []
    for s in run.scenarios:
        rows.append(["`%s`" % s["scenario"], s.get("torture_type"), s.get("vcpus"), s.get("expect"),
                     s.get("judgement", "?").replace("|", "/")])
    out += table(["scenario", "torture type", "vCPUs", "expected", "judgement"], rows)
    rates = run.rates()
    pairs = torture_pairs(rates)
    out += ["### Acquisitions per second by lock, side and vCPU count", "",
            "One value per boot (`N*SCENARIO` runs a scenario N times); Welch's t-test on ln(rate). "
            + hold_caveat(pairs), ""]
    rows, verdicts = [], []
    for vcpus, hold, base, new in pairs:
        for side in SIDES:
            a, b = rates[(base, vcpus, hold)].get(side), rates[(new, vcpus, hold)].get(side)
            if not a or not b:
                continue
            row, c = comparison_row([vcpus, plots.hold_label(hold) or "own", side,
                                     "`%s`" % base, "`%s`" % new], a, b)
            rows.append(row)
            verdicts.append((vcpus, hold, side, base, new, c))
    if rows:
        out += table(["vCPUs", "hold", "side", "base", "new"] + COMPARISON_HEAD, rows)
    else:
        out += ["No pair of lock types at the same vCPU count in this run.", ""]
    cap = "%s; %s" % (run.name, env_line(run))
    f = plots.torture_plot(run.name, rates, plot_dir, cap)
    if f:
        out += ["![torture acquisitions per second](plots/%s)" % f, "",
                "*Acquisitions per second by lock type, side and vCPU count (mean ± sd over boots, "
                "log scale). %s.*" % cap, ""]
    return out, verdicts


# ---------------------------------------------------------------- run to run

def run_to_run(base, new):
    if base.kind != new.kind:
        raise ReportError("BASE %s is a %s run and NEW %s a %s run: compare runs of one kind" %
                          (base.name, base.kind, new.name, new.kind))
    out = ["## Run to run: `%s` (base) vs `%s` (new)" % (base.name, new.name), "",
           "The same kernels measured in two runs: a change here is a regression (or a drift of "
           "the host) between the runs, not between kernels.", "",
           "- base: %s" % env_line(base), "- new: %s" % env_line(new), ""]
    for k in ("accel", "host_cpus", "qemu"):
        if base.env.get(k) != new.env.get(k):
            out += ["**Warning**: the runs differ in %s (%s vs %s): the comparison mixes that change "
                    "into the kernels'." % (k, base.env.get(k), new.env.get(k)), ""]
    if base.kind == "bench":
        if base.params.get("vcpus") != new.params.get("vcpus"):
            raise ReportError("BASE %s has %s vCPUs and NEW %s has %s: not the same experiment" %
                              (base.name, base.params.get("vcpus"), new.name, new.params.get("vcpus")))
        if base.unit != new.unit:
            raise ReportError("BASE %s measures %s and NEW %s %s: not the same experiment" %
                              (base.name, base.unit, new.name, new.unit))
        verdicts = []
        for arm in [a for a in base.arms if a in new.arms and not a.endswith("-aa")]:
            out += ["### `%s`" % arm, ""]
            tab, results = comparison_table(new, arm, arm, base_run=base)
            out += tab
            verdicts += [c for _ph, _t, c in results]
        if not verdicts:
            raise ReportError("BASE %s and NEW %s share no kernel and thread count" % (base.name, new.name))
        return out, verdicts
    ra, rb = base.rates(), new.rates()
    rows, verdicts = [], []
    for key in sorted(set(ra) & set(rb)):
        for side in SIDES:
            if ra[key].get(side) and rb[key].get(side):
                row, c = comparison_row(["`%s`%s" % (key[0], plots.hold_label(key[2], " ")), key[1], side],
                                        ra[key][side], rb[key][side])
                rows.append(row)
                verdicts.append(c)
    if not rows:
        raise ReportError("BASE %s and NEW %s share no lock type at the same vCPU count" % (base.name, new.name))
    return out + table(["lock", "vCPUs", "side"] + COMPARISON_HEAD, rows), verdicts


# ---------------------------------------------------------------- the report

def summary_lines(bench_verdicts, torture_verdicts, r2r, mutant_runs=()):
    out = ["## Verdicts at a glance", ""]
    for run in mutant_runs:
        sc = run.score
        missed = sc.get("missed") or "none"
        out.append("- `%s` mutant gate: %s of %s mutants caught (%s%%), missed: %s; gate %s." %
                   (run.name, sc.get("caught"), sc.get("mutants"), sc.get("score_pct"), missed, sc.get("gate")))
    if r2r:
        (base, new), cs = r2r
        count = {}
        for c in cs:
            count[c.verdict()] = count.get(c.verdict(), 0) + 1
        out.append("- Run to run, `%s` -> `%s`: %s of %d rates (a regression is a \"worse\")." %
                   (base.name, new.name, ", ".join("%s %d" % (v, n) for v, n in sorted(count.items())), len(cs)))
    for run, verdicts, cal in bench_verdicts:
        for title, base, new, results in verdicts:
            if base + "-aa" == new:
                continue
            for phase in run.phases:
                got = {}
                for ph, t, c in results:
                    if ph == phase:
                        got.setdefault(c.verdict(), []).append(str(t))
                desc = "; ".join("%s at %s thread%s" % (v, ", ".join(ts), "" if ts == ["1"] else "s")
                                for v, ts in sorted(got.items()))
                what = ("instructions/%s" if run.insns else "%s/s") % phase
                out.append("- `%s`, %s, `%s` vs `%s` %s: %s." % (run.name, run.params.get("vcpus") + " vCPUs",
                                                                 new, base, what, desc))
        if cal and cal["m"]:
            out.append("- `%s` A/A calibration: %d of %d points flagged; Welch false-positive rate %.1f%% "
                       "(must be at most 5%%); median CV %.1f%%. %s" %
                       (run.name, cal["observed"], cal["m"], 100 * float(np.mean(cal["welch"])),
                        100 * float(np.median([x for p in cal["points"] for x in p[2:4]])), trust(cal)))
    m = sum(len(results) for _r, verdicts, _c in bench_verdicts for _t, _b, _n, results in verdicts)
    if m:
        out.append("- Among %d bench comparisons at the 5%% level about %.1f \"better\" or \"worse\" "
                   "verdicts are expected by chance alone even when nothing changed: a lone verdict "
                   "among many is weak evidence." % (m, m * stats.ALPHA))
    for run, verdicts in torture_verdicts:
        n = sum(s.get("judgement", "").startswith("PASS") for s in run.scenarios)
        sig = sum(c.significant for *_x, c in verdicts)
        out.append("- `%s` torture: %d of %d scenarios as expected; %d of %d rate comparisons significant."
                   % (run.name, n, len(run.scenarios), sig, len(verdicts)))
        for vcpus, hold, side, base, new, c in verdicts:
            if base == "six_lock" or hold >= 0:  # the comparisons under one hold policy
                out.append("  - %d vCPUs%s, `%s` vs `%s` %s/s: %s, %s." %
                           (vcpus, plots.hold_label(hold, ", "), new, base, side,
                            fmt_change(c.ratio), c.verdict()))
    return out + [""]


def overcommit_lines(run):
    """What a point can show when the guest has more vCPUs, or the point
    more threads, than the host has CPUs."""
    host = int(run.env.get("host_cpus", "0") or 0)
    vcpus = int(run.params.get("vcpus", "0") or 0)
    over = [t for t in run.threads if t > host]
    if not host or (vcpus <= host and not over):
        return ["Within the host's %d CPUs: these points are the lab's timing reference." % host, ""]
    what = []
    if vcpus > host:
        what.append("the guest's %d vCPUs exceed the host's %d CPUs (%.0fx overcommit), so every point "
                    "runs on time-sliced vCPUs" % (vcpus, host, vcpus / host))
    if over:
        what.append("the points at %s threads have more threads than host CPUs" %
                    ", ".join(str(t) for t in over))
    return ["Overcommitted: %s. Such points show that the code paths run and count operations; "
            "they cannot show a speed-up, and lock hold times and contention are distorted "
            "(a vCPU holding a lock can be descheduled by the host)." % "; ".join(what), ""]


def precision_lines(run):
    """What PRECISION= asked for and whether the run got it."""
    pr = run.precision
    if not pr:
        return []
    got = ("reached" if pr["stop"] == "precision" else "NOT reached: the budget of %s minutes allowed %s "
           "repeats" % (run.params.get("budget_min", "?"), pr["repeats"]))
    widths = [stats.half_width(run.samples(b, ph, t), run.samples(n, ph, t), first_n=run.first_n)
              for _title, b, n in bench_pairs(run) for ph in run.phases for t in run.threads
              if run.samples(b, ph, t) and run.samples(n, ph, t)]
    if widths:
        got += "; the widest 95%% interval below is ±%.2f%%" % (100 * max(widths))
    return ["Precision: PRECISION=%s asked for every ratio's 95%% interval within ±%s%%. After a first "
            "stage of %s repeats, Stein's two-stage rule (`lib/stats.py`, `stein_boots`) asked for "
            "%s repeats; the run booted %s: %s. The intervals and verdicts use the first stage's "
            "variance, which keeps the level exact (simulated A/A false-positive rate: `make test`)."
            % (pr["target_pct"], pr["target_pct"], pr["first_stage"], pr["needed"], pr["repeats"], got), ""]


def insns_lines(run):
    """What an instruction count is, and what it transfers (method text)."""
    cvs = [stats.describe(v)["cv"] for v in run.data.values() if len(v) > 1]
    out = ["Metric: guest **instructions per operation**, counted by QEMU: under single-threaded TCG "
           "with `-icount shift=0,sleep=off` guest time advances 1 ns per instruction executed and "
           "skips idle time, so a phase's guest nanoseconds per operation are the instructions all "
           "vCPUs executed per operation. Fewer is better. It transfers to hardware as the work the "
           "kernel does on the path (a patch that adds instructions per create adds them on any "
           "machine); it does not transfer as time: cache misses, sleeping waits and the cost of "
           "each instruction are not in it. The guest has one vCPU (`-icount` hangs SMP guests at "
           "bring-up), so 2 or more threads take turns on it: contention is artificial, and a "
           "thread preempted while holding a lock makes the others wait, not spin."]
    if cvs:
        out[0] += (" Across this run's points the CV of repeated boots is %.2f%% at the median and "
                   "%.2f%% at the worst." % (100 * float(np.median(cvs)), 100 * max(cvs)))
    return out + [""]


def guest_lines(run):
    """The guest's fidelity per kernel, as read from the run's own boots."""
    def show(v, fmt="%s"):
        return "not recorded" if v is None else (fmt % v if not isinstance(v, str) else v)
    rows = []
    for k in run.params.get("kernels", "").split():
        f = guest_facts(run, k)
        rows.append(["`%s`" % k, show(f["clocksource"]), show(f["crng_s"], "%.2f s"),
                     show(f["hypervisor"]), show(f["idle_ticks"]), show(f["get_random"], "%.2f%%"),
                     show(f["read_hpet"], "%.2f%%"), show(f["spin_events"], "%d")])
    return (["### The guest", "",
             "Read in the guest: clocksource and CRNG seeding from the first boot's console, the "
             "hypervisor CPUID bit and idle timer interrupts per vCPU and second from what `/init` "
             "and the payload recorded, sample shares and contended spinlock acquisitions "
             "(`lock:contention_begin`, queued path only) from the profile boot.", ""] +
            table(["kernel", "clocksource", "crng init done", "hypervisor bit", "idle ticks/s/vCPU",
                   "_get_random_bytes", "read_hpet", "spinlock contentions"], rows) + [""])


def mutants_section(run):
    """The torture's sensitivity: the mutation score, the kill matrix, and
    every missed mutant with what it breaks and why it can be missed."""
    sc = run.score
    out = ["## Torture sensitivity: mutant run `%s`" % run.name, "",
           "Each mutant is a deliberately broken `six.c` (`torture/mutants/`), built incrementally "
           "from the torture kernel and run in the scenarios its header names "
           "(`make torture-mutants`). A mutant is caught when one of them fails; the cell names "
           "the detectors that fired, most specific first.", "",
           "%s of %s mutants caught: mutation score %s%%; %s of %s controls passed; gate %s." %
           (sc.get("caught"), sc.get("mutants"), sc.get("score_pct"), sc.get("controls_passed"),
            sc.get("controls"), sc.get("gate")), ""]
    rows = []
    for m in run.mutants:
        for k in sorted(k for k in m if k.startswith("scenario_")):
            rows.append(["`%s`" % m["mutant"], m.get("expect", "?"), k[len("scenario_"):],
                         m[k].replace("|", "/"), m["header"].get("Fixed-by", "")])
        if not any(k.startswith("scenario_") for k in m):
            rows.append(["`%s`" % m["mutant"], m.get("expect", "?"), "-", "error: " + m.get("why", "?"), ""])
    out += table(["mutant", "expect", "scenario", "result", "fixed upstream by"], rows)
    missed = [m for m in run.mutants if m.get("outcome") == "missed"]
    if missed:
        out += ["", "Missed:", ""]
        out += ["- `%s` (%s): %s %s" % (m["mutant"], m.get("expect"), m["header"].get("Mutant", ""), m["text"])
                for m in missed]
    return out + [""]


def method_lines():
    return ["## How to read the tables", "",
            "Each row compares one rate, one value per boot, between a base and a new side "
            "(mmtests' compare-kernels layout). *change* is the ratio of geometric means minus one "
            "(x*N* when the ratio is beyond 10 or below 0.1); *95% CI* its interval from **Welch's "
            "t-test on ln(rate)**; *verdict* is better or worse only when p < 0.05, i.e. the "
            "interval excludes no change; higher rates are better, and fewer instructions per "
            "operation (METRIC=insns runs). *within ±2%* is an equivalence test (TOST: two "
            "one-sided tests at 5%, i.e. the 90% interval lies within ±2%): \"yes\" rules out a "
            "change larger than 2% either way, which \"no significant change\" alone does not. "
            "Welch's, because the sides need "
            "not be equally noisy; on logarithms, because a change between kernels is a ratio and "
            "rates are skewed. Bench kernels are booted interleaved (A B A' per repeat) so slow drift "
            "of the host touches every arm alike; the A/A arm measures how often this procedure "
            "calls noise a change (Calibration, per bench run). Statistics code: `lib/stats.py`, "
            "tested against hand-computed answers by `make test`.", ""]


ORPHAN_CALLERS = ("__ext4_unlink", "ext4_evict_inode", "ext4_orphan_add", "ext4_orphan_del")


def published_lines():
    """Published measurements of the same change (citations: fixed text)."""
    return ["Published figures for the same change, for scale; all are from real hardware or KVM "
            "with real cores, none are comparable to a TCG guest's rates:", "",
            "- Dave Chinner, \"[RFC PATCH 0/3] vfs: convert inode cache to hlist-bl\", 6 April 2021: "
            "fs_mark, 32-way create, 5.10, KVM guest, ext4 files/s vanilla -> hash-bl: 2 threads "
            "117k -> 112k, 4: 185k -> 190k, 8: 303k -> 346k, 16: 389k -> 465k, 32: 360k -> 437k; "
            "bcachefs at 32 threads 142k -> 481k.",
            "- Mateusz Guzik, 20 October 2023: 20 processes, each running stat over its own tree of "
            "1,000 directories x 1,000 files: 70.55 s -> 35.05 s with hash-bl.",
            "- Dave Chinner, \"[PATCH 0/11] vfs: inode cache scalability improvements\", 6 December "
            "2023: ext4 walk at 32 threads 49.5 s -> 19.3 s; \"the inode_hash_lock becomes a limiting "
            "factor at 8 threads\".",
            "- Mateusz Guzik's RCU `iget` lookup, merged in 6.11: 20-thread stat walk 46.1 s -> 21.6 s.",
            "",
            "Caveats for setting ours beside them: their gains appear at 8 or more threads on as many "
            "real cores; a guest with more vCPUs than host CPUs cannot show a scaling gain (below), "
            "and our `walk` workload has Guzik's shape at a size that fits a guest.", ""]


def top_waiter_lines(profs):
    """The most-waited-for lock of each profile boot, as perf lock saw it,
    and whether ext4's orphan list (a known unlink limit) is the one."""
    tops = [(run, pr, max(pr.contention, key=lambda c: c["wait_s"])) for run, pr in profs if pr.contention]
    if not tops:
        return []
    orphan = [t for t in tops if t[2]["caller"].split("+")[0] in ORPHAN_CALLERS]
    out = ["Beyond the hash lock, the most-waited-for lock of each profile boot (perf lock, "
           "lock:contention_* tracepoints): " +
           "; ".join("`%s` on `%s`: %s from `%s`, %.3g s" % (pr.kernel, run.name, c["type"], c["caller"], c["wait_s"])
                     for run, pr, c in tops) + "."]
    if orphan:
        had = [pr.orphan_file for _run, pr, _c in orphan]
        if not any(had):
            fs = ("none of these boots' file systems had it (their fs-features.txt)"
                  if all(h is False for h in had) else
                  "whether these boots' file systems had it is not recorded (no fs-features.txt)")
        else:
            fs = "%d of these %d boots' file systems had it" % (sum(1 for h in had if h), len(had))
        out.append("In %d of %d boots it is taken from ext4's unlink or eviction path, ext4's global "
                   "orphan list lock (`s_orphan_lock`, via `ext4_orphan_add`/`ext4_orphan_del`): a known "
                   "ext4 limit for unlink-heavy workloads, addressed by ext4's orphan_file feature (Jan "
                   "Kara's series \"to speed up orphan inode handling in ext4\", "
                   "http://mail.spinics.net/lists/linux-ext4/msg79015.html); %s. Where it is missing, "
                   "the unlink phase measures that lock more than the inode cache."
                   % (len(orphan), len(tops), fs))
    else:
        out.append("In none of the %d boots is it ext4's orphan list lock." % len(tops))
    return [" ".join(out), ""]


def context_lines(bench_verdicts):
    bench_runs = [run for run, _v, _c in bench_verdicts]
    out = ["## Context: published numbers, TCG and overcommit", "",
           "Published: Dave Chinner's posting of the hash-bl conversion (\"[RFC PATCH 0/3] vfs: "
           "convert inode cache to hlist-bl\", 6 April 2021, "
           "https://lkml.iu.edu/hypermail/linux/kernel/2104.0/04888.html) reports that with it "
           "\"performance for bcachefs goes way up and CPU usage for ext4 halves at 16 and 32 "
           "threads\", with fs_mark numbers in its patch 3/3. The profile in patch 22's message "
           "(`patches/0022-vfs-inode-cache-conversion-to-hash-bl.patch`), 32-way concurrent create "
           "on bare metal: ext4 spends 29.92% in `insert_inode_locked`, 24.97% of all samples in "
           "`__pv_queued_spin_lock_slowpath` under it; bcachefs 40.43% in `inode_insert5`, 35.86% "
           "spinning.", ""]
    profs = [(run, pr) for run in bench_runs for pr in run.profiles()]
    found = ["`%s` on `%s`: %s" % (pr.kernel, run.name, share_of(pr.hash_path_pct, pr.busy))
             for run, pr in profs if pr.hash_path_pct]
    if profs:
        line = ("Ours: in %d of %d profile boots no inode-hash function (a taker of `inode_hash_lock`, "
                "see the profile tables) is among the spinlock slow path's callers above perf's 0.5%% "
                "threshold%s." % (len(profs) - len(found), len(profs),
                                  "; it is in " + "; ".join(found) if found else ""))
        if not found:
            line += (" So in these guests creates do not queue on the global hash lock the way that "
                     "bare-metal 32-way run did.")
        out += [line, ""]
    out += published_lines()
    out += top_waiter_lines(profs)
    # Mechanism (fixed text: how TCG and time-slicing work, not a finding).
    out += ["What TCG and overcommit do to the numbers:", "",
            "- TCG translates every guest instruction: everything runs far slower than on hardware "
            "and the relative costs of instructions differ from it. Absolute rates (creates/s, "
            "acquisitions/s) do not transfer to real hardware at all.",
            "- With more vCPUs than host CPUs, vCPUs are time-sliced by the host. A lock holder whose "
            "vCPU is descheduled holds the lock for a whole host time slice (lock-holder preemption), "
            "so spinners burn their slices and waits grow long; thread counts above the host's CPUs "
            "cannot add parallelism.",
            "- What transfers: which code paths contend (the callers in the profiles and in perf lock), "
            "the direction of a change in spinning on the hash lock, and every correctness result of "
            "the torture runs (a lock that fails under TCG is broken). What does not: the size of a "
            "speed-up, scaling curves, and any ratio whose interval includes no change. For the "
            "size of the hash-bl gain, run `make bench VCPUS=N` with N at most the host's CPUs on a "
            "host where KVM works (the lab uses KVM wherever its probe succeeds).", ""]
    points = []
    for run, _verdicts, cal in bench_verdicts:
        if run.insns or run.lockdep_kernels():  # counts, or rates slowed by lockdep
            continue
        one = run.samples(run.arms[0], "create", run.threads[0]) if run.arms and run.threads else []
        cvs = [x for p in cal["points"] for x in p[2:4]] if cal and cal["m"] else []
        points.append({"run": run.name, "vcpus": run.params.get("vcpus"),
                       "over": overcommit(run), "creates": float(np.mean(one)) if one else None,
                       "cv": float(np.median(cvs)) if cvs else None,
                       "fp": float(np.mean(cal["welch"])) if cvs else None})
    idles = [(overcommit(run), pr.idle) for run, pr in profs if run.kind == "bench"]
    out += overcommit_findings(points, idles)
    out += ["Overcommit and noise, measured per bench run (first arm, creates at one thread; CV and "
            "false-positive rate from the A/A calibration).", ""]
    rows = [["`%s`" % p["run"], p["vcpus"], "%.2f" % p["over"] if p["over"] is not None else "?",
             "%.0f" % p["creates"] if p["creates"] is not None else "-",
             "%.1f%%" % (100 * p["cv"]) if p["cv"] is not None else "-",
             "%.1f%%" % (100 * p["fp"]) if p["fp"] is not None else "-"] for p in points]
    return out + table(["run", "vCPUs", "overcommit", "creates/s, 1 thread", "median CV",
                        "Welch false-positive rate"], rows)


def overcommit(run):
    """vCPUs per host CPU of a run, or None if its env does not say."""
    try:
        return float(run.env.get("overcommit"))
    except (TypeError, ValueError):
        return None


def span(values, fmt):
    lo, hi = min(values), max(values)
    return fmt % lo if fmt % lo == fmt % hi else (fmt % lo) + "-" + (fmt % hi)


def compare_sides(what, within, over, fmt, more, fewer):
    """One sentence comparing a measure between runs within the host's CPUs
    and overcommitted ones, with the ordering the values show."""
    s = "%s: %s within the host's CPUs (%d runs), %s overcommitted (%d runs)" % (
        what, span(within, fmt), len(within), span(over, fmt), len(over))
    if min(over) > max(within):
        return s + "; every overcommitted run has %s than every run within the host's CPUs." % more
    if max(over) < min(within):
        return s + "; every overcommitted run has %s than every run within the host's CPUs." % fewer
    return s + "; the ranges overlap, so overcommit alone does not order them here."


def overcommit_findings(points, idles):
    """Findings on overcommit, computed from the bench runs' A/A noise,
    one-thread create rates and profile idle shares (fixed text would state
    them whatever the runs say)."""
    out = []
    for key, what, fmt, scale, more, fewer in (
            ("cv", "Median A/A CV", "%.1f%%", 100, "more noise", "less noise"),
            ("creates", "One-thread creates/s of the first arm", "%.0f", 1,
             "a higher one-thread rate", "a lower one-thread rate")):
        within = [scale * p[key] for p in points if p[key] is not None and p["over"] is not None and p["over"] <= 1]
        over = [scale * p[key] for p in points if p[key] is not None and p["over"] is not None and p["over"] > 1]
        if within and over:
            out.append("- " + compare_sides(what, within, over, fmt, more, fewer))
    over_idle = [i for o, i in idles if o is not None and o > 1]
    if over_idle:
        most = sum(1 for i in over_idle if i > 50)
        out.append("- In %d of %d profile boots of overcommitted runs the idle loop takes most of the "
                   "samples (%s)." % (most, len(over_idle), span(over_idle, "%.1f%%")))
    return out + [""] if out else []


def build(runs, base=None, new=None, plot_dir=None):
    bench_runs = [r for r in runs if r.kind == "bench"]
    torture_runs = [r for r in runs if r.kind == "torture"]
    body, bench_verdicts, torture_verdicts, r2r = [], [], [], None
    if base:
        lines, cs = run_to_run(base, new)
        body += lines
        r2r = ((base, new), cs)
    for r in bench_runs:
        lines, verdicts, cal = bench_section(r, plot_dir)
        body += lines
        bench_verdicts.append((r, verdicts, cal))
    for r in torture_runs:
        lines, verdicts = torture_section(r, plot_dir)
        body += lines
        torture_verdicts.append((r, verdicts))
    mutant_runs = [r for r in runs if r.kind == "mutants"]
    for r in mutant_runs:
        body += mutants_section(r)
    regen = 'make report RUN="%s"' % " ".join(r.name for r in runs)
    if base:
        regen += " BASE=%s NEW=%s" % (base.name, new.name)
    head = ["# Lock lab report", "",
            "<!-- generated by report/report.py; regenerate, never edit -->", "",
            "Generated by `%s` from the runs below (results/bench/ and results/torture/). Every "
            "number comes from those runs; running the command again on them gives this file again." % regen,
            "", "## Runs", ""]
    rows = [["`%s`" % r.name, r.kind, r.env.get("date", "?"), r.env.get("host_cpus", "?"),
             r.env.get("accel", "?"), r.env.get("vcpus", "?"), r.env.get("overcommit", "?"),
             r.env.get("kernel_debian_source_version", "?"), r.env.get("lab_git_rev", "?")[:12]]
            for r in runs]
    head += table(["run", "kind", "started", "host CPUs", "accel", "vCPUs", "overcommit",
                   "Debian source", "lab revision"], rows)
    return "\n".join(head + summary_lines(bench_verdicts, torture_verdicts, r2r, mutant_runs) + method_lines()
                     + body + context_lines(bench_verdicts)).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-r", "--results", default=os.path.join(LAB, "results"))
    ap.add_argument("-o", "--outdir", default=LAB)
    ap.add_argument("--base")
    ap.add_argument("--new")
    ap.add_argument("runs", nargs="*")
    args = ap.parse_args()
    # A directory of its own: two reports at once never share a temporary path.
    try:
        tmp = tempfile.mkdtemp(prefix=".report.", dir=args.outdir)
    except OSError as e:
        print("report: error: cannot write in %s: %s" % (args.outdir, e), file=sys.stderr)
        sys.exit(1)
    try:
        if bool(args.base) != bool(args.new):
            raise ReportError("BASE= and NEW= go together: make report BASE=<run> NEW=<run>")
        names = args.runs or all_runs(args.results)
        names += [n for n in (args.base, args.new) if n and n not in names]
        if not names:
            raise ReportError("no complete runs in %s: run make torture or make bench first" % args.results)
        runs = find_runs(args.results, names)
        pair = [runs[names.index(n)] for n in (args.base, args.new)] if args.base else [None, None]
        os.makedirs(os.path.join(tmp, "plots"))
        text = build(runs, *pair, plot_dir=os.path.join(tmp, "plots"))
        with open(os.path.join(tmp, "REPORT.md"), "w") as f:
            f.write(text)
    except RunError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        print("report: error: %s" % e, file=sys.stderr)
        sys.exit(2)
    except OSError as e:  # a full disk, say: the last report stays as it was
        shutil.rmtree(tmp, ignore_errors=True)
        print("report: error: %s; REPORT.md and plots/ left as they were" % e, file=sys.stderr)
        sys.exit(1)
    # Replace plots/ and REPORT.md only now that both are complete.
    old = os.path.join(tmp, "plots.old")
    if os.path.isdir(os.path.join(args.outdir, "plots")):
        os.rename(os.path.join(args.outdir, "plots"), old)
    os.rename(os.path.join(tmp, "plots"), os.path.join(args.outdir, "plots"))
    os.replace(os.path.join(tmp, "REPORT.md"), os.path.join(args.outdir, "REPORT.md"))
    shutil.rmtree(old, ignore_errors=True)
    shutil.rmtree(tmp, ignore_errors=True)
    print("report: %s/REPORT.md and plots/ from %s" % (args.outdir, " ".join(r.name for r in runs)))


if __name__ == "__main__":
    main()
