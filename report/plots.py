"""The report's figures (matplotlib, Agg): one PNG per question, named after
the run, with units on the axes and the environment in a footnote.  PNGs
carry no date or version metadata, so the same runs give the same files."""
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import stats  # noqa: E402

COLOURS = {"bench-global": "tab:red", "bench-hashbl": "tab:blue", "vanilla": "tab:green",
           "bench-global-aa": "tab:orange"}
PAIR_COLOURS = ("tab:blue", "tab:green", "tab:purple")


def save(fig, plot_dir, name, caption):
    fig.text(0.01, 0.005, caption, fontsize=6, color="dimgray", wrap=True)
    fig.savefig(os.path.join(plot_dir, name), dpi=100, metadata={"Software": None})
    plt.close(fig)
    return name


def finish(fig, ax, plot_dir, name, title, caption, grid_axis):
    """Title, legend, grid and layout of a one-panel figure, then save."""
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.grid(axis=grid_axis, alpha=0.3)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return save(fig, plot_dir, name, caption)


def bench_plots(run, plot_dir, caption, pairs):
    """[(file, what it shows)] for one bench run; pairs: the (title, base,
    new) comparisons of its tables."""
    files = [(rates_vs_threads(run, plot_dir, caption), "operations per second vs threads, each arm, "
              "mean ± sd over boots")]
    # A ratio needs an interval, so two boots a side (REPEATS=1 has none).
    if any(len(v) > 1 for v in run.data.values()):
        files.append((ratio_vs_threads(run, plot_dir, caption, pairs), "ratio to the base kernel vs "
                      "threads with 95% interval (Welch on ln), A/A in grey"))
    profs = run.profiles()
    if profs:
        files.append((profile_shares(run.name, profs, plot_dir, caption),
                      "busy perf samples in the spinlock slow path by caller, and the part under the "
                      "inode-hash functions (takers of inode_hash_lock), at the top thread count"))
        if any(p.contention for p in profs):
            files.append((contention(run.name, profs, plot_dir, caption),
                          "total lock wait by lock (type and caller), perf lock contention, top "
                          "thread count"))
    return files


def per_phase(run, plot_dir, caption, name, title, draw):
    """One panel per phase, threads on a log2 axis; draw(ax, phase) plots
    a panel and labels its y axis."""
    n = len(run.phases)
    fig, axes = plt.subplots(1, n, figsize=(4 * n, 4.2), squeeze=False)
    axes = axes[0]
    for ax, phase in zip(axes, run.phases):
        draw(ax, phase)
        ax.set_xscale("log", base=2)
        ax.set_xticks(run.threads, [str(t) for t in run.threads])
        ax.set_xlabel("threads")
        ax.set_title(phase)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.suptitle("%s, %s vCPUs: %s" % (title, run.params.get("vcpus"), run.name))
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return save(fig, plot_dir, "%s-%s.png" % (run.name, name), caption)


def rates_vs_threads(run, plot_dir, caption):
    def draw(ax, phase):
        for arm in run.arms:
            pts = [(t, run.samples(arm, phase, t)) for t in run.threads if run.samples(arm, phase, t)]
            if not pts:
                continue
            mean = [np.mean(v) for _t, v in pts]
            sd = [np.std(v, ddof=1) if len(v) > 1 else 0 for _t, v in pts]
            ax.errorbar([t for t, _v in pts], mean, yerr=sd, marker="o", capsize=3, label=arm,
                        color=COLOURS.get(arm), linestyle="--" if arm.endswith("-aa") else "-")
        ax.set_ylabel(("instructions per %s" if run.insns else "%ss per second") % phase)
    return per_phase(run, plot_dir, caption, "rates", "inode-create", draw)


def ratio_vs_threads(run, plot_dir, caption, pairs):
    def draw(ax, phase):
        for i, (_title, base, new) in enumerate(pairs):
            t, r, lo, hi = [], [], [], []
            for th in run.threads:
                a, b = run.samples(base, phase, th), run.samples(new, phase, th)
                c = stats.Comparison(a, b) if a and b else None
                if c and c.testable:
                    t.append(th * (1 + 0.06 * (i - len(pairs) / 2)))  # side by side
                    r.append(c.ratio)
                    lo.append(c.ratio - c.lo)
                    hi.append(c.hi - c.ratio)
            aa = new.endswith("-aa")
            ax.errorbar(t, r, yerr=[lo, hi], marker="o", capsize=3, label="%s / %s" % (new, base),
                        color="gray" if aa else PAIR_COLOURS[i % len(PAIR_COLOURS)], alpha=0.6 if aa else 1)
        ax.axhline(1, color="black", linewidth=0.8)
        ax.set_ylabel(("ratio of instructions per %s" if run.insns else "ratio of %ss per second") % phase)
    return per_phase(run, plot_dir, caption, "ratio", "ratio to base with 95% interval", draw)


def profile_shares(name, profs, plot_dir, caption):
    """Per kernel, the slow path's share of busy samples split by its
    first-level callers, beside the part under the inode-hash functions."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    x = np.arange(len(profs))
    names = []
    for p in profs:
        names += [n for _s, n in p.callers[:3] if n not in names]
    colours = plt.get_cmap("tab10")
    labelled = set()
    for i, p in enumerate(profs):
        bottom = 0.0
        for share, n in p.callers[:3]:
            v = 100 * share / p.busy
            ax.bar(i - 0.2, v, 0.4, bottom=bottom, color=colours(names.index(n) % 10),
                   label=None if n in labelled else "called from %s" % n)
            labelled.add(n)
            bottom += v
        ax.bar(i - 0.2, 100 * p.slowpath / p.busy - bottom, 0.4, bottom=bottom, color="lightgray",
               label="callers below perf's 0.5%" if i == 0 else None)
        ax.bar(i + 0.2, 100 * (p.hash_path_pct or 0) / p.busy, 0.4, color="tab:red", hatch="//",
               label="under inode-hash functions" if i == 0 else None)
        if not p.hash_path_pct:
            ax.annotate("none\nlisted", (i + 0.2, 0.5), ha="center", fontsize=7)
    ax.set_xticks(x, [p.kernel for p in profs])
    ax.set_ylabel("% of busy samples in the spinlock slow path")
    return finish(fig, ax, plot_dir, "%s-profile.png" % name,
                  "where the spinlock slow path is reached from: %s" % name, caption, "y")


def contention(name, profs, plot_dir, caption):
    locks = []
    for p in profs:
        for c in sorted(p.contention, key=lambda c: -c["wait_s"])[:5]:
            key = "%s %s" % (c["type"], c["caller"])
            if key not in locks:
                locks.append(key)
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(locks) + 1.8))
    y = np.arange(len(locks))
    h = 0.8 / len(profs)
    for i, p in enumerate(profs):
        wait = {"%s %s" % (c["type"], c["caller"]): c["wait_s"] for c in p.contention}
        ax.barh(y + i * h, [wait.get(k, 0) for k in locks], h, label=p.kernel,
                color=COLOURS.get(p.kernel))
    ax.set_yticks(y + h * (len(profs) - 1) / 2, locks, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("total wait in seconds, summed over all waiters (whole profile boot)")
    return finish(fig, ax, plot_dir, "%s-contention.png" % name, "lock contention by lock: %s" % name,
                  caption, "x")


def hold_label(long_hold, sep=""):
    """How a torture scenario held its locks: nothing for each type's own
    delays (locktorture's default), else its long_hold."""
    return "" if long_hold < 0 else "%slong_hold=%d" % (sep, long_hold)


def torture_plot(name, rates, plot_dir, caption):
    """Acquisitions per second by lock type and side; None without rates."""
    keys = sorted(rates, key=lambda k: (k[1], k[2], k[0]))
    if not keys:
        return None
    sides = ("writes", "reads", "intent")
    colours = {"writes": "tab:red", "reads": "tab:blue", "intent": "tab:green"}
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(keys) + 2), 4.5))
    x = np.arange(len(keys))
    for i, side in enumerate(sides):
        vals = [rates[k].get(side, []) for k in keys]
        mean = [np.mean(v) if v else 0 for v in vals]
        sd = [np.std(v, ddof=1) if len(v) > 1 else 0 for v in vals]
        ax.bar(x + (i - 1) * 0.27, mean, 0.27, yerr=sd, capsize=2, label=side, color=colours[side])
    ax.set_yscale("log")
    ax.set_xticks(x, ["%s\n%d vCPUs%s" % (t, v, hold_label(h, ", ")) for t, v, h in keys],
                  fontsize=7, rotation=30, ha="right")
    ax.set_ylabel("acquisitions per second (log scale)")
    return finish(fig, ax, plot_dir, "%s-torture.png" % name,
                  "locktorture acquisitions by lock and side: %s" % name, caption, "y")
