"""The scaling answer in REPORT.md: from the newest METRIC=locks bench run,
the critical sections counted per lock and kernel, their projection to many
CPUs (a projection, labelled as one, with its model and assumptions), and
both held against published hardware numbers and this machine's lock_stat.
Every sentence with a number is computed from the runs; fixed text is the
method and the citations."""
import matplotlib.pyplot as plt
import numpy as np

import lockmodel
import plots
import published
from markdown import table
from scaling import FIT_PHASE, Projection, Sections, queue

CPUS_SHOWN = (1, 2, 4, 8, 16, 32, 64)
HASH_LOCK = "inode_hash_lock"
CV_GOAL = 0.005
# A queue whose demand is below this share of an operation's instructions
# is rare (a few acquisitions a phase: timers, the scheduler): its count
# varies between boots the way rare events do.
MATERIAL = 0.001
SHOWN = 12


def pct(x, fmt="%.1f%%"):
    return "-" if x is None else fmt % (100 * x)


def locks_run(bench_runs):
    """The newest METRIC=locks run with two kernels (a global and a hash-bl one)."""
    runs = [r for r in bench_runs if r.locks and len([a for a in r.arms if not a.endswith("-aa")]) >= 2]
    return max(runs, key=lambda r: r.env.get("date", "")) if runs else None


def side_runs(bench_runs, run):
    return [r for r in bench_runs if r.params.get("side_run_of") == run.name.split("@")[0]]


def within(proj, pub, points=10):
    """How a projected share compares with a published one."""
    d = 100 * (proj - pub)
    return "%+.1f points: %s the goal of %d" % (d, "within" if abs(d) <= points else "outside", points)


def material(s, kernel, phase):
    """The queues of a phase whose demand is at least MATERIAL of it."""
    w, _ = s.work(kernel, phase)
    return [c for c in s.classes(kernel, phase) if queue(c) and w and c["acq"] * c["hold"] >= MATERIAL * w]


def cv_lines(s):
    """The largest CVs between boots of what the projection uses."""
    cvs = []
    rare = set()
    for k in s.kernels:
        for phase in s.phases:
            _w, wcv = s.work(k, phase)
            if wcv is not None:
                cvs.append((wcv, "instructions per %s, `%s`" % (phase, k)))
            mat = {c["name"] for c in material(s, k, phase)}
            rare |= {c["name"] for c in s.classes(k, phase) if queue(c) and c["name"] not in mat}
            for c in s.classes(k, phase):
                if c["name"] in mat:
                    cvs += [(x, "%s of `%s` in %s, `%s`" % (what, c["name"], phase, k))
                            for x, what in ((c["acq_cv"], "acquisitions"), (c["hold_cv"], "held instructions"))
                            if x is not None]
    if not cvs:
        return ["Only one boot per kernel: no CV between boots.", ""]
    worst = max(cvs)
    over = [c for c in cvs if c[0] > CV_GOAL]
    return ["Between boots, the largest CV of what the projection uses (instructions per operation, and the "
            "acquisitions and held instructions of every queue holding at least %.1f%% of an operation) is %s "
            "(%s); %d of %d such numbers are above the %.1f%% goal%s. The %d rarer queues, each under "
            "%.1f%% of an operation, are left out of this count." % (100 * MATERIAL, pct(worst[0], "%.2f%%"), worst[1], len(over), len(cvs), 100 * CV_GOAL,
                             "" if not over else ": " + "; ".join(
                                 "%s %s" % (w, pct(x, "%.2f%%")) for x, w in sorted(over)[-5:]), len(rare), 100 * MATERIAL), ""]


def headline(pr):
    """The answer in sentences, each computed."""
    a, b = pr.points(pr.base, FIT_PHASE), pr.points(pr.new, FIT_PHASE)
    out = []
    g16, g32 = pr.gain(FIT_PHASE, 16), pr.gain(FIT_PHASE, 32)
    p16, p32 = published.gain(16), published.gain(32)
    spin32 = a[31]["spin_share"]
    hash32 = a[31]["locks"].get(HASH_LOCK)
    out.append("**Projection, not a measurement**: with the critical sections counted in the guest, the "
               "global-lock kernel (`%s`) would create %.0f files/s at 16 CPUs and %.0f at 32, hash-bl (`%s`) "
               "%.0f and %.0f: a hash-bl gain of %+.1f%% at 16 and %+.1f%% at 32. Chinner measured %+.1f%% and "
               "%+.1f%% (%s): %s and %s." % (
                   pr.base, a[15]["ops_per_s"], a[31]["ops_per_s"], pr.new, b[15]["ops_per_s"], b[31]["ops_per_s"],
                   100 * g16, 100 * g32, 100 * p16, 100 * p32, published.CHINNER_2021["cite"],
                   within(g16, p16), within(g32, p32)))
    out.append("At 32 CPUs the projected global kernel spends %s of its time spinning, %s of it on `%s`; "
               "the published 32-way profile spends %s spinning under `insert_inode_locked` (%s)." % (
                   pct(spin32), pct(hash32["wait_share"]) if hash32 else "none (not a shared lock here)", HASH_LOCK,
                   pct(published.CHINNER_2021_SPIN_32), within(spin32, published.CHINNER_2021_SPIN_32)))
    i32 = published.CHINNER_2021["threads"].index(32)
    out.append("In absolute terms the projected global kernel at 32 CPUs creates %.1fx what Chinner measured "
               "(%.0f against %.0f files/s)." % (a[31]["ops_per_s"] / published.CHINNER_2021["global"][i32],
                                                 a[31]["ops_per_s"], published.CHINNER_2021["global"][i32]))
    busiest = max(a[31]["locks"].items(), key=lambda kv: kv[1]["utilisation"], default=None)
    if busiest:
        limit = next((p["threads"] for p in a if p["locks"][busiest[0]]["utilisation"] >= 0.5), None)
        out.append("The busiest lock of the global kernel's projection at 32 CPUs is `%s`, busy %s of the time%s%s." % (
            busiest[0], pct(busiest[1]["utilisation"]), " (half busy from %d CPUs)" % limit if limit else "",
            "" if busiest[0] == HASH_LOCK else "; `%s` is busy %s" % (
                HASH_LOCK, pct(hash32["utilisation"]) if hash32 else "-")))
    if hash32 and (not busiest or busiest[0] != HASH_LOCK):
        half = next((p["threads"] for p in a if p["locks"][HASH_LOCK]["utilisation"] >= 0.5), None)
        out.append("`%s` is %s (%s)." % (
            HASH_LOCK, "half busy from %d CPUs" % half if half else "less than half busy up to %d CPUs" % len(a),
            published.CHINNER_2023_CITE))
    walk = guzik_line(pr)
    if walk:
        out.append(walk)
    counted = next((c for c in pr.s.classes(pr.base, FIT_PHASE) if c["name"] == HASH_LOCK), None)
    if hash32 and hash32["wait_share"] >= published.CHINNER_2021_SPIN_32:
        out.append("The counted holds alone make `%s` take %s of a thread's time at 32 CPUs, at least the "
                   "published %s." % (HASH_LOCK, pct(hash32["wait_share"]), pct(published.CHINNER_2021_SPIN_32)))
    elif counted:
        need = pr.hold_for_spin(FIT_PHASE, HASH_LOCK, 32, published.CHINNER_2021_SPIN_32)
        out.append("For `%s` alone to take %s of a thread's time at 32 CPUs in this model, each acquisition "
                   "would have to cost %.0f instructions' worth (%.0f ns), %.0fx the %.1f counted here: the model's "
                   "assumption that a hold costs its instructions would have to be wrong by that factor. A "
                   "candidate, not measured here: Chinner's run created 51.2 million inodes, so his hash "
                   "chains were long and each step of `find_inode_fast()` under the lock could miss the cache."
                   % (HASH_LOCK, pct(published.CHINNER_2021_SPIN_32), need, need * pr.ns_per_insn,
                      need / counted["hold"], counted["hold"]))
    return [" ".join(out), ""]


def guzik_line(pr):
    """The walk phase projected to Guzik's 20 processes, beside his times."""
    g = published.GUZIK_2023
    if "walk" not in pr.s.phases:
        return None
    a, b = pr.points(pr.base, "walk"), pr.points(pr.new, "walk")
    if not a or not b or len(a) < g["threads"]:
        return None
    n = g["threads"]
    return ("For the cold stat walk (the `walk` phase, same model and c) at %d CPUs the projection gives hash-bl "
            "%.2fx the global kernel's rate; %s measured %.2fx (%.2f s against %.2f s)." % (
                n, b[n - 1]["ops_per_s"] / a[n - 1]["ops_per_s"], g["cite"], g["global_s"] / g["hashbl_s"],
                g["hashbl_s"], g["global_s"]))


def projection_table(pr):
    a, b = pr.points(pr.base, FIT_PHASE), pr.points(pr.new, FIT_PHASE)
    ch = published.CHINNER_2021
    rows = []
    for n in CPUS_SHOWN:
        if n > len(a):
            continue
        i = ch["threads"].index(n) if n in ch["threads"] else None
        rows.append([str(n), "%.0f" % a[n - 1]["ops_per_s"], "%.0f" % b[n - 1]["ops_per_s"],
                     "%+.1f%%" % (100 * (b[n - 1]["ops_per_s"] / a[n - 1]["ops_per_s"] - 1)),
                     pct(a[n - 1]["spin_share"]), pct(b[n - 1]["spin_share"]),
                     "%.0f" % ch["global"][i] if i is not None else "-",
                     "%.0f" % ch["hashbl"][i] if i is not None else "-",
                     "%+.1f%%" % (100 * published.gain(n)) if i is not None else "-"])
    return table(["CPUs", "projected global, creates/s", "projected hash-bl", "projected gain",
                  "projected spin, global", "projected spin, hash-bl", "Chinner 2021 global, files/s",
                  "Chinner 2021 hash-bl", "published gain"], rows)


def lock_table(s, phase):
    """The queues of the phase that hold the most of an operation, both kernels."""
    per = {k: {c["name"]: c for c in s.classes(k, phase)} for k in s.kernels}
    names = []
    for k in s.kernels:
        names += [c["name"] for c in s.classes(k, phase) if queue(c)][:SHOWN]
    rows = []
    for name in dict.fromkeys(names):
        row = ["`%s`" % name, next(per[k][name]["kind"] for k in s.kernels if name in per[k])]
        for k in s.kernels:
            c = per[k].get(name)
            row += ["%.3f" % c["acq"], "%.1f" % c["hold"], str(c["instances_2"])] if c else ["-", "-", "-"]
        rows.append(row)
    head = ["lock (a queue of the model)", "kind"]
    for k in s.kernels:
        head += ["`%s` acq/op" % k, "held insns", "instances"]
    return table(head, rows)


def machine_lines(pr, lockstat_runs):
    """The model's contention at 2 CPUs beside lock_stat's, measured with
    2 vCPUs on 2 host CPUs (no cache-line cost under TCG: tau = 0)."""
    out = []
    for run in lockstat_runs:
        for st in run.lock_stats():
            if st["threads"] != 2 or not st["acquisitions"] or st["workload"] not in ("create", "shared"):
                continue
            phases = [p for p in pr.s.phases if (p.startswith("shared-") == (st["workload"] == "shared"))
                      and p.split("-")[-1] in ("create", "lookup", "unlink")]
            num = den = 0.0
            for phase in phases:
                c = next((c for c in pr.s.classes(pr.base, phase) if c["name"] == HASH_LOCK and c["shared"]), None)
                w, _ = pr.s.work(pr.base, phase)
                if not c or not w:
                    continue
                pts = lockmodel.mva(w, pr.s.queues(pr.base, phase), 1.0, 0.0, 2)
                num += c["acq"] * pts[1]["locks"][HASH_LOCK]["contended"]
                den += c["acq"]
            if den:
                out.append("- `%s`, %s workload at 2 threads: lock_stat counted %.4f contentions per `%s` "
                           "acquisition (%d of %d); the model, from this run's counts, gives %.4f (%.1fx)." % (
                               run.name, st["workload"], st["contentions"] / st["acquisitions"], HASH_LOCK,
                               st["contentions"], st["acquisitions"], num / den,
                               (num / den) / (st["contentions"] / st["acquisitions"]) if st["contentions"] else float("nan")))
    if not out:
        return []
    return ["Checked against this machine (2 vCPUs on 2 host CPUs, where the guest's threads run in parallel; "
            "no cache-line cost under TCG, so tau = 0 and only the counted instructions; the lock_stat kernel runs "
            "lockdep, whose bookkeeping lengthens every section it counts):", ""] + out + [""]


def plot(pr, plot_dir, caption):
    a, b = pr.points(pr.base, FIT_PHASE), pr.points(pr.new, FIT_PHASE)
    n = np.arange(1, len(a) + 1)
    fig, ax = plt.subplots(figsize=(8, 4.8))
    ax.plot(n, [p["ops_per_s"] for p in a], color=plots.COLOURS.get(pr.base), label="%s, projected" % pr.base)
    ax.plot(n, [p["ops_per_s"] for p in b], color=plots.COLOURS.get(pr.new), label="%s, projected" % pr.new)
    ch = published.CHINNER_2021
    ax.plot(ch["threads"], ch["global"], "o", color=plots.COLOURS.get(pr.base), label="Chinner 2021, global (published)")
    ax.plot(ch["threads"], ch["hashbl"], "s", color=plots.COLOURS.get(pr.new), label="Chinner 2021, hash-bl (published)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(list(CPUS_SHOWN), [str(c) for c in CPUS_SHOWN])
    ax.set_yscale("log")   # log-log: linear scaling is a straight line
    ax.set_xlabel("CPUs (threads)")
    ax.set_ylabel("creates per second")
    return plots.finish(fig, ax, plot_dir, "%s-projection.png" % pr.s.run.name,
                        "Projected (lines) and published (points) creates/s", caption, "both")


def scaling_lines(bench_runs, plot_dir=None, line=None):
    """The scaling answer from the newest METRIC=locks run of bench_runs;
    line: the kernel line they all booted, named in the heading when the
    report holds several."""
    run = locks_run(bench_runs)
    if run is None:
        return []
    s = Sections(run)
    pr = Projection(s, int(run.params.get("project_to", 64)))
    out = ["## Does the global inode_hash_lock stop scaling%s? (from `%s`)" % (
        " on linux-source-%s" % line if line else "", run.name), ""]
    if not pr.ns_per_insn or not pr.new or FIT_PHASE not in s.phases:
        return out + ["`%s` has no %s phase of both a global and a hash-bl kernel: nothing to project." % (
            run.name, FIT_PHASE), ""]
    out += headline(pr)
    out += projection_table(pr) + [""]
    if plot_dir:
        caption = "%s: %s boots; model lib/lockmodel.py; %.3f ns/instruction fitted at %d threads" % (
            run.name, run.n_repeats, pr.ns_per_insn, 2)
        out += ["![projection](plots/%s)" % plot(pr, plot_dir, caption), ""]
    out += ["Model (method, fixed text): exact mean-value analysis of a closed queueing network (Reiser and "
            "Lavenberg, J. ACM 27(2), 1980): each thread loops over operations of W counted instructions; "
            "every lock that two threads were seen to share (taken on both their kernel stacks) is a FIFO queue whose service per acquisition "
            "is its counted held instructions times c plus one cache-line handoff tau (a queued lock's fixed "
            "cost: qspinlock hands over in a constant number of transfers, where a ticket lock's handoff grows "
            "with the waiters, Boyd-Wickizer et al., \"Non-scalable locks are dangerous\", 2012); the rest runs "
            "in parallel (Eyerman and Eeckhout's critical sections in Amdahl's law, ISCA 2010, solved as a "
            "network). A lock of K instances (hash-bl's chains) is K queues. Read sides are not queues. "
            "One free parameter, c = %.3f ns per instruction, fitted so that `%s` creates %.0f files/s at "
            "2 CPUs (Chinner's 2-thread global point); tau = %.0f ns (%s). Assumptions that can break: "
            "a hold costs its instructions (no cache misses inside it); the guest's inode-create stands for "
            "fs_mark (so the file table's lock, which inode-create's threads share and fs_mark's processes do not, is "
            "no queue); "
            "the locks two threads share are the ones many share; nested sections are separate queues."
            % (pr.ns_per_insn, pr.base, pr.fit_point, pr.tau, published.LINE_TRANSFER_CITE), ""]
    out += ["Critical sections per create at one thread (means over %d boots per kernel): the %d queues of "
            "each kernel holding the most of an operation (all of them: `bench/summarize.py`):"
            % (len(s.boots(pr.base, FIT_PHASE)), SHOWN), ""]
    out += lock_table(s, FIT_PHASE) + [""]
    out += cv_lines(s)
    out += machine_lines(pr, [r for r in bench_runs if r.lock_stats()])
    for side in side_runs(bench_runs, run):
        out += ["Side run `%s`: rates at %s vCPUs on %s host CPUs (overcommitted %sx), %d boot per arm: what "
                "time-slicing does to a guest, not a comparison of the kernels (its section below)." % (
                    side.name, side.params.get("vcpus"), side.env.get("host_cpus", "?"),
                    side.env.get("overcommit", "?"), side.n_repeats), ""]
    out += ["Per lock, phase and kernel, with CVs: `bench/summarize.py results/bench/%s`." % run.name, ""]
    return out


def lines_lines(by_line):
    """The kernel lines' scaling answers side by side (by_line: [(line,
    bench runs)]): per line, what was counted on the global kernel's
    inode_hash_lock at one thread, the projected hash-bl gain, and the lock
    each kernel's projection is busiest on at 64 CPUs, where the contention
    goes.  Each line's numbers are its own run's; nothing here is a ratio
    between lines."""
    rows = []
    for line, runs in by_line:
        run = locks_run(runs)
        if run is None:
            rows.append([line, "no METRIC=locks run"] + ["-"] * 6)
            continue
        s = Sections(run)
        pr = Projection(s, int(run.params.get("project_to", 64)))
        a, b = pr.points(pr.base, FIT_PHASE), pr.points(pr.new, FIT_PHASE)
        if not a or not b:
            rows.append([line, "`%s`: no %s phase of both kernels" % (run.name, FIT_PHASE)] + ["-"] * 6)
            continue
        hl = next((c for c in s.classes(pr.base, FIT_PHASE) if c["name"] == HASH_LOCK), None)
        top = lambda p: max(p[-1]["locks"].items(), key=lambda kv: kv[1]["utilisation"], default=(None, None))
        (ga, ua), (gb, ub) = top(a), top(b)
        rows.append([line, "`%s`" % run.name,
                     "%.2f × %.1f" % (hl["acq"], hl["hold"]) if hl else "not taken",
                     fmt_gain(pr.gain(FIT_PHASE, 32)), fmt_gain(pr.gain(FIT_PHASE, len(a))),
                     "`%s` %s" % (ga, pct(ua["utilisation"])) if ga else "-",
                     "`%s` %s" % (gb, pct(ub["utilisation"])) if gb else "-",
                     "%.3f" % pr.ns_per_insn])
    return (["### The kernel lines side by side (projections)", "",
             "Each line's newest METRIC=locks run, projected with the same model and its own fit (the "
             "sections below): the lines differ in the whole kernel, so a difference between rows is the "
             "kernel's, not the series' alone.", ""] +
            table(["line", "run", "`%s` at 1 thread, global kernel: acquisitions/create × instructions held" % HASH_LOCK,
                   "projected hash-bl gain, 32 CPUs", "at %s CPUs" % CPUS_SHOWN[-1],
                   "busiest lock at %s CPUs, global kernel" % CPUS_SHOWN[-1],
                   "busiest lock at %s CPUs, hash-bl" % CPUS_SHOWN[-1], "fitted ns/instruction"], rows) + [""])


def fmt_gain(g):
    return "-" if g is None else "%+.1f%%" % (100 * g)
