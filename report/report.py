#!/usr/bin/python3
"""Make REPORT.md and plots/ from stored runs (make report).

usage: report/report.py [-r RESULTS] [-o OUTDIR] [--base RUN --new RUN] [--line LINE] [RUN ...]

RUN names a complete run in RESULTS/bench/ or RESULTS/torture/ (default:
every complete run there); a RUN.partial is never reported.  --base and
--new add a run-to-run comparison of two runs of the same kind (same
kernels, same vCPUs), both reported.  --line keeps only the runs of one
kernel line (6.1, 6.12); without it every line is reported, side by
side.  Writes OUTDIR/REPORT.md and
OUTDIR/plots/ (default OUTDIR: the lab's root), replacing both only once
everything is made.  The same runs always give the same files: every number
comes from the runs, the statistics use fixed seeds, nothing is dated.

This file holds the report's frame (runs table, summary, method, run to
run); the sections are made by answers.py (first: one sentence a question),
scaling_sections.py (the scaling answer), bench_sections.py, torture_sections.py and context.py, rendered with markdown.py and plots.py; runs are read by
lib/runs.py and judged by lib/stats.py.
"""
import argparse
import os
import shutil
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import plots  # noqa: E402
import stats  # noqa: E402
from runs import SIDES, RunError, all_runs, find_runs  # noqa: E402
from bench_sections import bench_section, comparison_table, trust  # noqa: E402
from context import context_lines  # noqa: E402
from scaling_sections import lines_lines, scaling_lines  # noqa: E402
from answers import answers_lines, line_key, line_of, series_of  # noqa: E402
from markdown import COMPARISON_HEAD, comparison_row, env_line, fmt_change, table  # noqa: E402
from torture_sections import coverage_section, kcsan_section, mutants_section, torture_section  # noqa: E402

LAB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class ReportError(RunError):
    """A report that cannot be made from the runs asked for."""


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
        better = getattr(new, "higher_is_better", True)  # fewer instructions is better
        for c in cs:
            count[c.verdict(better)] = count.get(c.verdict(better), 0) + 1
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
                        got.setdefault(c.verdict(run.higher_is_better), []).append((t, c))
                # Every verdict with its size: the change at each thread count.
                desc = "; ".join("%s at %s" % (v, ", ".join("%d thread%s (%s)" % (t, "" if t == 1 else "s",
                                                                                  fmt_change(c.ratio))
                                                             for t, c in tcs))
                                for v, tcs in sorted(got.items()))
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
    coverage_runs = [r for r in runs if r.kind == "coverage"]
    body += coverage_section(coverage_runs)
    regen = 'make report RUN="%s"' % " ".join(r.name for r in runs)
    if base:
        regen += " BASE=%s NEW=%s" % (base.name, new.name)
    head = ["# Lock lab report", "",
            "<!-- generated by report/report.py; regenerate, never edit -->", ""]
    kcsan_runs = [r for r in runs if r.kind == "kcsan"]
    body += kcsan_section(kcsan_runs)
    head += answers_lines(bench_verdicts, torture_runs, mutant_runs, coverage_runs, kcsan_runs)
    # One scaling answer per kernel line, side by side, never pooled.
    lines = sorted({line_of(r) for r in runs}, key=line_key)
    if len(lines) > 1:
        head += lines_lines([(line, [r for r in bench_runs if line_of(r) == line]) for line in lines])
    for line in lines:
        head += scaling_lines([r for r in bench_runs if line_of(r) == line], plot_dir,
                              line if len(lines) > 1 else None)
    head += ["## Runs", "",
             "Generated by `%s` from the runs below (results/bench/ and results/torture/). Every "
             "number comes from those runs; running the command again on them gives this file again." % regen, ""]
    rows = [["`%s`" % r.name, r.kind, line_of(r), r.env.get("date", "?"), r.env.get("host_cpus", "?"),
             r.env.get("accel", "?"), r.env.get("vcpus", "?"), r.env.get("overcommit", "?"),
             r.env.get("kernel_debian_source_version", "?"), series_of(r) or "-", r.env.get("lab_git_rev", "?")[:12]]
            for r in runs]
    head += table(["run", "kind", "line", "started", "host CPUs", "accel", "vCPUs", "overcommit",
                   "Debian source", "series", "lab revision"], rows)
    return "\n".join(head + summary_lines(bench_verdicts, torture_verdicts, r2r, mutant_runs) + method_lines()
                     + body + context_lines(bench_verdicts)).rstrip() + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-r", "--results", default=os.path.join(LAB, "results"))
    ap.add_argument("-o", "--outdir", default=LAB)
    ap.add_argument("--base")
    ap.add_argument("--new")
    ap.add_argument("--line", help="only the runs of this kernel line (default: every line, side by side)")
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
        if args.line:
            runs = [r for r in runs if line_of(r) == args.line]
            if not runs:
                raise ReportError("no complete run of kernel line %s among the runs asked for" % args.line)
        byname = {r.name: r for r in runs}
        pair = [None, None]
        if args.base:
            for n in (args.base, args.new):
                if n not in byname:  # a run made on several hosts is read per host
                    raise RunError("run %s was made on several hosts; compare one host's: %s" % (
                        n, " ".join(r.name for r in runs if r.name.startswith(n + "@"))))
            pair = [byname[args.base], byname[args.new]]
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
