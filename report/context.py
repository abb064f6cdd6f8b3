"""The context section of REPORT.md: published figures (citations, fixed
text), and the findings on contention and overcommit computed from the
bench runs."""
import numpy as np

from markdown import share_of, span, table  # (puts lib/ on the path)
import stats  # noqa: E402
from runs import guest_facts, vcpu_arms  # noqa: E402


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
                       "clock": guest_facts(run, run.arms[0])["clocksource"] if run.arms else None,
                       "over": overcommit(run), "creates": float(np.mean(one)) if one else None,
                       "cv": float(np.median(cvs)) if cvs else None,
                       "fp": float(np.mean(cal["welch"])) if cvs else None})
    idles = [(overcommit(run), pr.idle) for run, pr in profs]
    out += overcommit_findings(points, idles)
    out += vcpu_cost_lines(points)
    out += interleaved_vcpu_lines(bench_runs)
    out += guest_kind_lines(bench_verdicts, points)
    out += ["Overcommit and noise, measured per bench run (first arm, creates at one thread; the "
            "guest's clocksource from its first boot; CV and false-positive rate from the A/A "
            "calibration).", ""]
    rows = [["`%s`" % p["run"], p["vcpus"], p["clock"] or "?", "%.2f" % p["over"] if p["over"] is not None else "?",
             "%.0f" % p["creates"] if p["creates"] is not None else "-",
             "%.1f%%" % (100 * p["cv"]) if p["cv"] is not None else "-",
             "%.1f%%" % (100 * p["fp"]) if p["fp"] is not None else "-"] for p in points]
    return out + table(["run", "vCPUs", "clocksource", "overcommit", "creates/s, 1 thread", "median CV",
                        "Welch false-positive rate"], rows)


def vcpu_ends(points, clock):
    """The fewest and the most vCPUs among one kind of guest's runs (its
    clocksource), each as (vCPUs, mean one-thread create rate, the runs
    that gave it); None with fewer than two vCPU counts."""
    mine = [p for p in points if p["clock"] == clock and p["creates"] and str(p["vcpus"]).isdigit()]
    counts = sorted({int(p["vcpus"]) for p in mine})
    if len(counts) < 2:
        return None
    ends = []
    for v in (counts[0], counts[-1]):
        runs = [p for p in mine if int(p["vcpus"]) == v]
        ends.append((v, float(np.mean([p["creates"] for p in runs])), [p["run"] for p in runs]))
    return ends


def vcpu_cost_lines(points):
    """What idle vCPUs cost one thread, per kind of guest (its clocksource,
    read from each run's first boot): the mean one-thread create rate of
    the runs with the fewest vCPUs over that of the runs with the most."""
    def what(runs, rate):
        names = ", ".join("`%s`" % r for r in runs)
        return "%s, %.0f/s" % (names, rate) if len(runs) == 1 else \
            "%d runs: %s, mean %.0f/s" % (len(runs), names, rate)
    out = []
    for clock in sorted({p["clock"] for p in points if p["clock"]}):
        ends = vcpu_ends(points, clock)
        if not ends:
            continue
        (few, few_rate, few_runs), (many, many_rate, many_runs) = ends
        few_what, many_what = what(few_runs, few_rate), what(many_runs, many_rate)
        out.append("- Guests on clocksource `%s`: one thread created files %.1fx slower at %d vCPUs "
                   "(%s) than at %d vCPUs (%s)." % (clock, few_rate / many_rate, many, many_what, few, few_what))
    if not out:
        return []
    return ["What idle vCPUs cost one thread, per kind of guest (means over each run's boots; runs "
            "made at different times on a host whose own speed varies, see docs/bench.md):", ""] + out + [""]


def vcpu_comparisons(run, phases=None):
    """For each arm KERNEL@N of a run and each phase: (N, phase, the
    Comparison of KERNEL's one-thread samples with the arm's)."""
    for arm in vcpu_arms(run):
        k, n = arm.split("@")
        for phase in phases or run.phases:
            a, b = run.samples(k, phase, 1), run.samples(arm, phase, 1)
            if a and b:
                yield n, phase, stats.Comparison(a, b)


def interleaved_vcpu_lines(runs):
    """What more vCPUs cost one thread, from the runs that boot a kernel at
    two vCPU counts interleaved (an arm KERNEL@N): the ratio of the
    one-thread rates (or instruction counts) with its 95% interval."""
    out = []
    for run in runs:
        for n, phase, c in vcpu_comparisons(run):
            what = "instructions per %s" % phase if run.insns else "%s/s" % phase
            f = "%.3f" if run.insns else "%.2f"  # counts resolve a tenth of a percent
            ci = "" if not c.testable else (" [%s, %s]" % (f, f)) % (c.lo, c.hi)
            out.append(("- `%s`, one thread, %s at %s vCPUs over %s vCPUs: " + f + "x%s, %s (%d and %d boots).")
                       % (run.name, what, n, run.params.get("vcpus"), c.ratio, ci,
                          c.verdict(run.higher_is_better), c.nb, c.na))
    if not out:
        return []
    return ["What more vCPUs cost one thread, measured interleaved in one run (the same kernel "
            "booted at both vCPU counts in every repeat; ratio with its 95% interval):", ""] + out + [""]


def guest_kind_lines(bench_verdicts, points):
    """The guest before and after its hardware-like settings: a column per
    kind of guest (its clocksource: HPET for the old qemu64 guest, TSC
    for the new one), each cell computed from that kind's runs."""
    kinds = {}
    for run, _v, cal in bench_verdicts:
        if run.arms and not run.lockdep_kernels():
            clock = guest_facts(run, run.arms[0])["clocksource"]
            if clock:
                kinds.setdefault(clock, []).append((run, cal))
    if len(kinds) < 2:
        return []
    order = sorted(kinds)
    cells = {clock: guest_kind_cells(kinds[clock], points, clock) for clock in order}
    rows = [[label] + [cells[c][i] for c in order] for i, label in enumerate(GUEST_KIND_ROWS)]
    return (["The guest before and after its hardware-like settings (clock, tick, spinlock path, "
             "RNG), one column per kind of guest, each cell from that kind's runs (first boots "
             "and profile boots of every kernel; \"-\": no run of that kind measures it):", ""] +
            table([""] + ["guest on `%s` (%d run%s)" % (c, len(kinds[c]), "" if len(kinds[c]) == 1 else "s")
                          for c in order], rows))


GUEST_KIND_ROWS = ("hypervisor CPUID bit", "crng init done", "idle timer interrupts/s per vCPU",
                   "`_get_random_bytes` share of samples", "`read_hpet` share of samples",
                   "spinlock contentions seen (`lock:contention_begin`)",
                   "one thread's creates/s, fewest vs most vCPUs (runs made at different times)",
                   "one thread's creates/s at more vCPUs over fewer, interleaved (95% interval)",
                   "median A/A CV of rates at 2 vCPUs (per run)",
                   "median A/A CV of instruction counts at 2 vCPUs (per run)")


def guest_kind_cells(runs, points, clock):
    """GUEST_KIND_ROWS' cells for one kind of guest: runs [(run, cal)]."""
    facts = [guest_facts(run, a) for run, _c in runs if not run.insns
             for a in run.arms if not a.endswith("-aa")]
    hyper = sorted({f["hypervisor"] for f in facts if f["hypervisor"]})
    crng = [f["crng_s"] for f in facts if isinstance(f["crng_s"], float)]
    never = sum(f["crng_s"] == "never" for f in facts)
    crng_cell = "; ".join(x for x in (span(crng, "%.2f") + " s" if crng else "",
                                      "never in %d of %d first boots" % (never, never + len(crng))
                                      if never else "") if x) or "-"
    ticks = [float(f["idle_ticks"]) for f in facts if f["idle_ticks"]]
    spins = [f["spin_events"] for f in facts if f["spin_events"] is not None]

    def shares(key):
        v = [f[key] for f in facts if f[key] is not None]
        return span(v, "%.2f%%") if v else "-"
    ends = vcpu_ends(points, clock)
    inter = ["%.2fx [%.2f, %.2f] at %s vs %s (`%s`)" % (c.ratio, c.lo, c.hi, n, run.params.get("vcpus"), run.name)
             for run, _c in runs if not run.insns
             for n, _ph, c in vcpu_comparisons(run, ("create",)) if c.testable]

    def cvs(insns):
        v = [100 * float(np.median([x for p in cal["points"] for x in p[2:4]]))
             for run, cal in runs if run.insns == insns and run.params.get("vcpus") == "2"
             and cal and cal["m"]]
        return span(v, "%.1f%%") + " (%d runs)" % len(v) if v else "-"
    return [", ".join(hyper) or "-", crng_cell, span(ticks, "%.1f") if ticks else "-",
            shares("get_random"), shares("read_hpet"),
            "in %d of %d profile boots (%d in all)" % (sum(x > 0 for x in spins), len(spins), sum(spins))
            if spins else "-",
            "%.0f/s at %d, %.0f/s at %d: %.1fx slower" % (ends[0][1], ends[0][0], ends[1][1], ends[1][0],
                                                           ends[0][1] / ends[1][1]) if ends else "-",
            "; ".join(inter) or "-", cvs(False), cvs(True)]


def overcommit(run):
    """vCPUs per host CPU of a run, or None if its env does not say."""
    try:
        return float(run.env.get("overcommit"))
    except (TypeError, ValueError):
        return None


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
