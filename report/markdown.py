"""Rendering for REPORT.md: number formats, Markdown tables, comparison rows."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import stats  # noqa: E402


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


def span(values, fmt):
    lo, hi = min(values), max(values)
    return fmt % lo if fmt % lo == fmt % hi else (fmt % lo) + "-" + (fmt % hi)
