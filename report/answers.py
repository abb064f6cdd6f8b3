"""REPORT.md's first lines: one computed sentence per question a maintainer
asks (is the series' locking correct under torture, does the torture catch
broken locks, what did hash-bl change and how sure, what is unresolved),
then one table of the resolved changes only."""
import hashlib
import os

import stats
from bench_sections import trust
from runs import line_of  # noqa: F401 (report.py takes it from here)
from torture_sections import kcsan_extra
from markdown import fmt_change, table

BASE, NEW = "bench-global", "bench-hashbl"
PATCHES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "patches")
SHOWN = 12


def series_of(run):
    """A run's series as "N patches, sha256 XXXXXXXX" (its provenance), or None."""
    path = os.path.join(run.path, "provenance", "patches.sha256")
    try:
        data = open(path, "rb").read()
    except OSError:
        return None
    n = sum(1 for line in data.decode().splitlines() if line.strip())
    return "%d patches, `%s`" % (n, hashlib.sha256(data).hexdigest()[:12])


def line_key(line):
    return tuple(int(x) if x.isdigit() else 0 for x in line.split("."))


def series_now(line="6.1", patches=PATCHES):
    """Today's series of a kernel line (patches/, patches/LINE/), summed as a
    run's provenance sums it (sha256sum of each patch in series order), or
    None."""
    if line != "6.1":
        patches = os.path.join(patches, line)
    try:
        names = [w for row in open(os.path.join(patches, "series")) if not row.startswith("#") for w in row.split()]
        sums = "".join("%s  %s\n" % (hashlib.sha256(open(os.path.join(patches, n), "rb").read()).hexdigest(), n)
                       for n in names)
    except OSError:
        return None
    return "%d patches, `%s`" % (len(names), hashlib.sha256(sums.encode()).hexdigest()[:12])


def newest(runs):
    return max(runs, key=lambda r: r.env.get("date", "")) if runs else None


CONFIGS = os.path.join(os.path.dirname(PATCHES), "torture", "configs")
CFLIST = os.path.join(CONFIGS, "CFLIST")


def default_set(path=None, line="6.1"):
    """The scenarios of a plain make torture (torture/configs/CFLIST, or the
    line's own torture/configs/LINE/CFLIST), or an empty set."""
    if path is None:
        own = os.path.join(CONFIGS, line, "CFLIST")
        path = own if line != "6.1" and os.path.exists(own) else CFLIST
    try:
        return {w for line in open(path) if not line.startswith("#") for w in line.split()}
    except OSError:
        return set()


def run_sentence(run):
    """A torture run, its series, and how many of its scenarios ended as expected."""
    ok = sum(s.get("judgement", "").startswith("PASS") for s in run.scenarios)
    mine, now = series_of(run), series_now(line_of(run))
    same = ("today's series" if mine and mine == now else
            "not today's series (%s)" % now if now else "today's series unknown")
    return "`%s` (%s; series %s: %s), ended as expected in %d of %d scenarios%s" % (
        run.name, run.env.get("date", "?"), mine or "not recorded", same, ok, len(run.scenarios),
        "" if ok == len(run.scenarios) else ", not in: " + ", ".join(
            "`%s`" % s.get("scenario", "?") for s in run.scenarios if not s.get("judgement", "").startswith("PASS")))


def torture_line(torture_runs, default=None):
    """The newest run of the default set, and a newer run of other scenarios
    after it where there is one; the newest run alone where no run holds the
    default set."""
    run = newest(torture_runs)
    if run is None:
        return "- Torture: no torture run in `results/torture/`."
    default = default_set(line=line_of(run)) if default is None else default
    whole = [r for r in torture_runs
             if default and default <= {s.get("scenario", "").split(".")[0] for s in r.scenarios}]
    main = newest(whole)
    if main is None:
        return "- Torture: the newest run, %s." % run_sentence(run)
    line = "- Torture: the newest run of the default set (%d scenarios), %s" % (len(default), run_sentence(main))
    if run is not main:
        line += "; newer, of other scenarios: %s" % run_sentence(run)
    return line + "."


# The two halves of the series that the gate breaks, by mutant name.
HALVES = (("six locks", lambda m: not m.startswith("inode-")),
          ("inode cache", lambda m: m.startswith("inode-")))


def mutants_line(mutant_runs):
    """Per half of the series (six locks, the inode cache), the newest gate
    run that broke it, scored on that half's mutants alone."""
    if not mutant_runs:
        return "- Mutant gate: no gate run in `results/mutants/`."
    out = []
    for half, mine in HALVES:
        runs = [r for r in mutant_runs if any(mine(m.get("mutant", "")) for m in r.mutants)]
        run = newest(runs)
        if run is None:
            out.append("%s: no gate run" % half)
            continue
        ms = [m for m in run.mutants if mine(m.get("mutant", ""))]
        muts = [m for m in ms if m.get("expect") != "survives"]
        ctls = [m for m in ms if m.get("expect") == "survives"]
        caught = sum(m.get("outcome") == "caught" for m in muts)
        missed = [m["mutant"] for m in muts if m.get("outcome") != "caught"]
        failed = [m["mutant"] for m in muts if m.get("outcome") != "caught" and m.get("expect") == "caught"]
        ctl_ok = sum(m.get("outcome") == "survived" for m in ctls)
        out.append("%s: the newest, `%s`, caught %d of %d mutants (%.1f%%), missed: %s; %d of %d controls "
                   "passed; %s" % (half, run.name, caught, len(muts), 100.0 * caught / len(muts) if muts else 0,
                                   ", ".join(missed) or "none", ctl_ok, len(ctls),
                                   "PASS" if not failed and ctl_ok == len(ctls) else "FAIL"))
    return "- Mutant gate, %s." % "; ".join(out)


# The coverage goals of the torture (issue 27): functions, lines, branches.
COVERAGE_GOALS = (("functions", 100.0), ("lines", 95.0), ("branches", 90.0))


def coverage_line(coverage_runs):
    """The newest coverage run's functions, lines and branches, and its goals,
    judged on what can run: an unrun part whose reason is given
    (torture/coverage-unreachable) is left out of the goal, never hidden."""
    run = newest(coverage_runs)
    if run is None:
        return "- six.c coverage: no coverage run in `results/coverage/` (make torture-coverage)."
    c = run.coverage
    parts, short = [], []
    for what, goal in COVERAGE_GOALS:
        pct = float(c.get(what + "_pct", "nan"))
        reach = float(c.get(what + "_reachable_pct", pct))
        gone = c.get(what + "_unreachable", "0")
        parts.append("%s %s of %s (%.1f%%%s)" % (
            what, c.get(what + "_hit"), c.get(what + "_total"), pct,
            "; %.1f%% of what can run, %s unreachable" % (reach, gone) if gone not in ("0", "") else ""))
        if not reach >= goal:
            short.append("%s below %g%%" % (what, goal))
    return ("- six.c coverage under the torture: the newest run, `%s` (%s boots), ran %s; goals %s." % (
        run.name, c.get("boots", "?"), ", ".join(parts),
        "met" if not short else "not met: " + ", ".join(short)))


def kcsan_line(kcsan_runs):
    """The newest KCSAN run without a patch, its reports by kind; then the
    runs made with a mutant (set against it in their sections), and what
    each run made with a lab fix no longer shows of it."""
    plain = [r for r in kcsan_runs if kcsan_extra(r) is None]
    run = newest(plain)
    if run is None:
        return "- KCSAN: no run without a mutant in `results/kcsan/` (torture/run.sh -f torture-kcsan -o results/kcsan)."
    races = run.races()
    top = sorted(races.items(), key=lambda kv: -kv[1][0])[:3]
    muts = [r for r in kcsan_runs if r not in plain and kcsan_extra(r)[1]]
    fixes = [r for r in kcsan_runs if r not in plain and not kcsan_extra(r)[1]]
    fixed = ["`%s` (%s): %d reports of %d kinds; of `%s`'s %d kinds, %d not shown" % (
        r.name, kcsan_extra(r)[0], sum(n for n, _ in r.races().values()), len(r.races()), run.name,
        len(races), len(set(races) - set(r.races()))) for r in fixes]
    return ("- KCSAN (strict, weak memory; six.c and locktorture.c instrumented): the newest run, `%s`, %d "
            "scenarios, %s.%s%s" % (run.name, len(run.scenarios),
                                    "no report" if not races else "%d reports of %d kinds, the most frequent %s" % (
                                        sum(n for n, _ in races.values()), len(races),
                                        "; ".join("`%s` (%d, in %d scenarios)" % (t, n, len(sc))
                                                  for t, (n, sc) in top)),
                                    " Runs with a mutant: %s, each set against it in its section." % ", ".join(
                                        "`%s`" % r.name for r in muts) if muts else "",
                                    " With a lab fix: %s." % "; ".join(fixed) if fixed else ""))


def quiet_line(torture_runs):
    """Bounded waiting on the unmutated series: per vCPU count and bound,
    how many boots ran quiet phases (and how many of them today's series),
    how many failed and on which detectors, and the longest drain of a
    quiet phase.  Torture runs are unmutated, so a failed boot here is a
    false positive of the liveness bounds, or a bug of the series."""
    groups = {}
    for run in torture_runs:
        today = series_of(run) == series_now(line_of(run))
        for s in run.scenarios:
            if not s.get("quiet_drain_max_ms", "").isdigit() or s.get("expect") != "SUCCESS":
                continue
            g = groups.setdefault((s.get("vcpus", "?"), s.get("quiet_wait_ms", "?")), [0, 0, 0, set(), 0])
            g[0] += 1
            g[4] += today
            g[2] = max(g[2], int(s["quiet_drain_max_ms"]))
            if not s.get("judgement", "").startswith("PASS"):
                g[1] += 1
                g[3].update(d for d in s.get("detectors", "").split(",") if d and d != "none")
    if not groups:
        return "- Bounded waiting: no boot ran quiet phases."
    key = lambda kv: (int(kv[0][0]) if kv[0][0].isdigit() else 0, int(kv[0][1]) if kv[0][1].isdigit() else 0)
    return ("- Bounded waiting, the unmutated series: %s." % "; ".join(
        "%s vCPUs, bound %s ms: %d boots (%d of today's series), %d failed%s, longest drain %d ms" % (
            c, b, n, t, f, " (%s)" % ", ".join(sorted(d)) if d else "", m)
        for (c, b), (n, f, m, d, t) in sorted(groups.items(), key=key)))


def inode_line(torture_runs):
    """The inode-cache torture on the unmutated series: per kernel (global
    lock or hash-bl) and vCPU count, boots, how many failed and on which
    detectors, and the operations checked."""
    groups = {}
    for run in torture_runs:
        for s in run.scenarios:
            if s.get("torture_type") != "inode_cache":
                continue
            g = groups.setdefault((s.get("flavour", "?"), s.get("vcpus", "?")), [0, 0, set(), 0])
            g[0] += 1
            g[3] += int(s.get("inode_ops_total", "0") or 0)
            if not s.get("judgement", "").startswith("PASS"):
                g[1] += 1
                g[2].update(d for d in s.get("detectors", "").split(",") if d and d != "none")
    if not groups:
        return "- Inode cache: no inode torture boot in `results/torture/`."
    key = lambda kv: (kv[0][0], int(kv[0][1]) if kv[0][1].isdigit() else 0)
    return ("- Inode cache under torture (the unmutated series; lockdep, KASAN and list debugging on "
            "`inode-*` kernels): %s." % "; ".join(
                "`%s` at %s vCPUs: %d boots, %d failed%s, %d operations checked" % (
                    fl, c, n, f, " (%s)" % ", ".join(sorted(d)) if d else "", ops)
                for (fl, c), (n, f, d, ops) in sorted(groups.items(), key=key)))


def hashbl_changes(bench_verdicts):
    """(resolved rows, unresolved count, runs judged, runs left out and why)
    of bench-hashbl against bench-global, from calibrated runs only."""
    rows, unresolved, used, left = [], 0, [], []
    for run, verdicts, cal in bench_verdicts:
        pairs = [(ph, t, c) for _title, b, n, results in verdicts if (b, n) == (BASE, NEW) for ph, t, c in results]
        if not pairs:
            continue
        if cal and cal["m"] and not trust(cal).startswith("Calibrated"):
            left.append((run.name, "its A/A calibration failed: its noise calls changes that are not there"))
            continue
        over = run.env.get("overcommit", "")
        if not run.insns and over.replace(".", "", 1).isdigit() and float(over) > 1:
            left.append((run.name, "timed with %s vCPUs a host CPU: its rates measure the host's scheduler"
                         % over.rstrip("0").rstrip(".")))
            continue
        used.append(run.name)
        what = "instructions per %s" if run.insns else "%ss per second"
        for ph, t, c in pairs:
            if not c.testable or not c.significant:
                unresolved += 1
                continue
            eq = stats.equivalent(run.samples(BASE, ph, t), run.samples(NEW, ph, t), first_n=run.first_n)
            rows.append((abs(c.ratio - 1), ["`%s`" % run.name, what % ph, str(t), "%s vCPU%s" % (run.params.get("vcpus"), "" if run.params.get("vcpus") == "1" else "s"),
                                             fmt_change(c.ratio), "[%s, %s]" % (fmt_change(c.lo), fmt_change(c.hi)),
                                             "yes" if eq else "no", c.verdict(run.higher_is_better)]))
    return rows, unresolved, used, left


def answers_lines(bench_verdicts, torture_runs, mutant_runs, coverage_runs=(), kcsan_runs=()):
    """The answers, question by question; with runs of several kernel lines,
    each question is answered per line, the lines side by side ([6.1],
    [6.12]): a line differs from another in its whole kernel, not in the
    series alone, so nothing here sets one line's numbers against another's."""
    runs = [r for r, _v, _c in bench_verdicts] + list(torture_runs) + list(mutant_runs) + \
        list(coverage_runs) + list(kcsan_runs)
    lines = sorted({line_of(r) for r in runs}, key=line_key) or ["6.1"]
    mark = (lambda text, line: "- [%s] %s" % (line, text[2:])) if len(lines) > 1 else (lambda text, _line: text)
    mine = lambda rs, line: [r for r in rs if line_of(r) == line]
    out = ["## Answers", ""]
    if len(lines) > 1:
        out += ["Kernel lines: %s, each answered on its own (`[line]`): they differ in the whole kernel "
                "(Debian's linux-source of each), not in the series alone." % ", ".join(
                    "%s (%d runs)" % (line, len(mine(runs, line))) for line in lines), ""]
    for fn, rs in ((torture_line, torture_runs), (mutants_line, mutant_runs), (inode_line, torture_runs),
                   (quiet_line, torture_runs), (coverage_line, coverage_runs), (kcsan_line, kcsan_runs)):
        out += [mark(fn(mine(rs, line)), line) for line in lines]
    tables = []
    for line in lines:
        rows, unresolved, used, left = hashbl_changes([v for v in bench_verdicts if line_of(v[0]) == line])
        if used:
            big = sorted(rows, key=lambda r: -r[0])
            out.append(mark("- hash-bl (`%s`) against the global lock (`%s`): %d changes resolved at the 5%% level "
                            "in %d calibrated runs%s; %d comparisons resolve no change (their intervals include "
                            "none)." % (NEW, BASE, len(rows), len(used),
                                        ", the largest %s on %s (`%s`)" % (big[0][1][4], big[0][1][1],
                                                                           big[0][1][0].strip("`"))
                                        if big else "", unresolved), line))
        if left:
            out.append(mark("- Left out of these answers, %d bench runs: %s." % (
                len(left), "; ".join("`%s` (%s)" % (n, why) for n, why in left)), line))
        if rows:
            shown = sorted(rows, key=lambda r: -r[0])[:SHOWN]
            tables += ["Resolved changes%s, hash-bl against the global lock (the %d largest of %d; every "
                       "comparison is in its run's section):" % (" on " + line if len(lines) > 1 else "",
                                                                  len(shown), len(rows)), ""]
            tables += table(["run", "metric", "threads", "guest", "change", "95% CI", "within ±2%", "verdict"],
                            [r for _s, r in shown]) + [""]
    out.append("- Scaling to many CPUs: the next section (a projection from counted critical sections; timed "
               "rates with more vCPUs than host CPUs measure the host's scheduler, not the lock).")
    out.append("")
    return out + tables
