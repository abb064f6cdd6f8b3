"""The sections of REPORT.md about one bench run: comparisons, the A/A
calibration, plots, profiles, lock statistics, precision, instruction
counts and the guest's fidelity."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import plots  # noqa: E402
import stats  # noqa: E402
from runs import INODE_HASH_FUNCS, bench_pairs, guest_facts, vcpu_arms  # noqa: E402
from markdown import COMPARISON_HEAD, comparison_row, env_line, share_of, span, table  # noqa: E402


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
            b = stats.false_positive_rate(a, a2, lambda x, y: stats.bootstrap_significant(x, y, rng),
                                          stats.BOOT_SPLITS)
            welch.append(w)
            boot.append(b)
            points.append((phase, t, stats.describe(a)["cv"], stats.describe(a2)["cv"],
                           stats.min_detectable_change(a, a2), w))
    n = len(run.samples(arm, run.phases[0], run.threads[0])) if run.threads else 0
    return {"observed": observed, "m": len(points), "welch": welch, "boot": boot, "points": points,
            "n": n, "exact": math.comb(2 * n, n) <= stats.MAX_SPLITS,
            "boot_exact": math.comb(2 * n, n) <= stats.BOOT_SPLITS}


def bench_section(run, plot_dir):
    out = ["## Bench run `%s`" % run.name, ""]
    p = run.params
    out += ["inode-create in %s-vCPU guests: threads %s, %s, %s repeats, arms %s; %s." %
            (p.get("vcpus"), p.get("threads", "").strip(), run.work(), run.n_repeats,
             ", ".join(run.arms), p.get("order", "")), "",
            "Environment: %s; run started %s." % (env_line(run), run.env.get("date", "?")), ""]
    if run.host is not None:
        out += ["Booted over ssh hosts (`make bench HOSTS=`): %s; this section is host `%s`'s repeats "
                "(each repeat booted every kernel on one host), and its comparisons are within this "
                "host only, never pooled across hosts." % (", ".join("`%s`" % h for h in run.hosts), run.host), ""]
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

    def over(exact, n):
        return "every split" if exact else "%d random splits (fixed seed)" % n
    tail = stats.binomial_tail(cal["observed"], cal["m"])
    out = ["### Calibration: how often a verdict is a false alarm", "",
           "The A/A arm is `%s` booted twice in every repeat, so every difference between `%s` and "
           "`%s-aa` is noise." % (arm, arm, arm), "",
           "- Observed: the test called **%d of %d** A/A points significant (chance of that many or "
           "more at a true 5%% rate: %.2f)." % (cal["observed"], cal["m"], tail),
           "- False-positive rate of Welch's test on ln(%s), over %s of the pooled A and A' "
           "boots into two groups of %d (%d points): **%.1f%%** on average, %.1f%% at the worst "
           "point." % (run.unit, over(cal["exact"], stats.MAX_SPLITS),
                       cal["n"], cal["m"], 100 * rate, 100 * max(w)),
           "- The same for a percentile bootstrap of the ratio of medians, over %s: %.1f%% on "
           "average. It is not the report's test: with few boots a side it depends only on how the "
           "two groups' ranks overlap." % (over(cal["boot_exact"], stats.BOOT_SPLITS),
                                           100 * float(np.mean(b))), "",
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
    """What an instruction count is, and what it transfers (method text
    for the counter the run's guests used), and the spin-wait turns."""
    cvs = [stats.describe(v)["cv"] for v in run.data.values() if len(v) > 1]
    more = sorted({int(a.split("@")[1]) for a in vcpu_arms(run)})
    if run.params.get("vcpus") == "1":
        how = ("counted by QEMU: under single-threaded TCG with `-icount shift=0,sleep=off` guest time "
               "advances 1 ns per instruction executed and skips idle time, so a phase's guest "
               "nanoseconds per operation are the instructions all vCPUs executed per operation")
        threads = ("The guest has one vCPU (`-icount` hangs SMP guests at bring-up), so 2 or more "
                   "threads take turns on it: contention is artificial, and a thread preempted while "
                   "holding a lock makes the others wait, not spin.")
        if more:
            threads += " Its arms with more vCPUs (`KERNEL@N`) count through the lab's TCG plugin instead."
    else:
        how = ("counted by the lab's TCG plugin (`vm/insn-count.c`) under multi-threaded TCG: the "
               "instructions all the guest's vCPUs (%s) executed between the markers `inode-create` "
               "runs around each phase" % " or ".join(str(n) for n in sorted({int(run.params.get("vcpus", 0))} | set(more))))
        threads = ("With 2 or more threads the count includes spin-wait loops, which turn for as long "
                   "as the host leaves a lock holder's vCPU descheduled: there the count follows the "
                   "host's timing as well as the kernel's work (the spin-wait turns are below).")
    out = ["Metric: guest **instructions per operation**, %s. Fewer is better. It transfers to "
           "hardware as the work the kernel does on the path (a patch that adds instructions per "
           "create adds them on any machine); it does not transfer as time: cache misses, sleeping "
           "waits and the cost of each instruction are not in it. %s" % (how, threads)]
    if cvs:
        out[0] += (" Across this run's points the CV of repeated boots is %.2f%% at the median and "
                   "%.2f%% at the worst." % (100 * float(np.median(cvs)), 100 * max(cvs)))
    out.append("")
    turns = run.spin_turns()
    if turns:
        arms = [a for a in run.arms if any(k[0] == a for k in turns)]
        rows = [[ph, t] + [span(turns[(a, ph, t)], "%.1f") if (a, ph, t) in turns else "-" for a in arms]
                for ph in run.phases for t in run.threads]
        out += ["Spin-wait turns per operation: the `pause` instructions (`cpu_relax()`, one per turn of "
                "a kernel spin-wait loop) the plugin counted in each phase over its operations, the "
                "range over boots.", ""] + table(["phase", "threads"] + ["`%s`" % a for a in arms], rows)
    return out


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
