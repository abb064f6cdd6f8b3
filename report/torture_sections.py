"""The sections of REPORT.md about torture runs and the mutant gate."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import plots  # noqa: E402
from runs import SIDES, line_of  # noqa: E402
from markdown import COMPARISON_HEAD, comparison_row, env_line, table  # noqa: E402


BASELINE_LOCKS = ("rwsem_lock", "mutex_lock", "percpu_rwsem_lock", "spin_lock")


SIX_LOCKS = ("six_lock", "six_lock_pcpu")


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


def sentence(title):
    """A mutant's one-line title as a sentence of its own."""
    title = title.strip()
    return title[:1].upper() + title[1:] + ("" if title.endswith((".", "!", "?")) or not title else ".")


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
        out += ["- `%s` (expected: %s): %s" % (m["mutant"], m.get("expect"), sentence(m["header"].get("Mutant", "")) +
                                                (" " + m["text"] if m["text"] else ""))
                for m in missed]
    return out + [""]


def coverage_section(runs):
    """six.c's coverage under the torture, run by run (oldest first, so a
    change of the torture shows as before and after), then every line,
    branch and function the newest run left unrun, with the reason where
    one is known (torture/coverage-unreachable)."""
    if not runs:
        return []
    runs = sorted(runs, key=lambda r: r.env.get("date", ""))
    out = ["## six.c coverage under the torture", "",
           "`make torture-coverage` boots the six scenarios that expect success on a kernel with gcov "
           "counters in `kernel/locking/six.c` only (the torture kernel), sums the counters of every "
           "boot (gcov `--json-format`), and lists what no boot ran.  Goals: every function, 95% of lines, "
           "90% of branches.", ""]
    rows = []
    for r in runs:
        c = r.coverage

        def cell(what):
            v = "%s of %s (%s%%)" % (c.get(what + "_hit"), c.get(what + "_total"), c.get(what + "_pct"))
            if c.get(what + "_unreachable", "0") != "0":
                v += "; %s%% of what can run" % c.get(what + "_reachable_pct")
            return v
        rows.append(["`%s`" % r.name, r.env.get("date", "?"), c.get("boots", "?"),
                     cell("functions"), cell("lines"), cell("branches"), c.get("explained", "0")])
    out += ["What cannot run under torture is listed with its reason in `torture/coverage-unreachable` "
            "and left out of \"what can run\"; it is still counted in the raw figure.", ""]
    out += table(["run", "started", "boots", "functions", "lines", "branches", "unrun items with a reason"], rows)
    last = runs[-1]
    out += ["", "Unrun in `%s` (%d items; `results/coverage/%s/uncovered.txt`):" % (
        last.name, len(last.uncovered), last.name), ""]
    out += ["- %s" % line.replace("`", "'") for line in last.uncovered] or ["- nothing"]
    return out + [""]


def kcsan_extra(run):
    """The patch a KCSAN run was made with on top of its kernel (provenance/
    extra.patch), as (name, is_mutant): a mutant by its Mutant: header, a
    lab fix by its Subject:; None for a run of the kernel as it is."""
    try:
        head = open(os.path.join(run.path, "provenance", "extra.patch")).read(8192).splitlines()
    except OSError:
        return None
    for line in head:
        if line.startswith("Mutant:"):
            return line.split(":", 1)[1].strip(), True
    subject = [re.sub(r"^\[[^]]*\]\s*", "", line.split(":", 1)[1].strip())
               for line in head if line.startswith("Subject:")]
    return (subject[0] if subject else "an unnamed patch"), False


def kcsan_base(run, runs):
    """The newest run without a patch of run's kernel line, or None."""
    plain = [r for r in runs if kcsan_extra(r) is None and line_of(r) == line_of(run)]
    return max(plain, key=lambda r: r.env.get("date", "")) if plain else None


def kcsan_section(runs):
    """Each KCSAN run: per scenario its judgement and KCSAN's reports, then
    the kinds of report with the scenarios that printed them.  A run made
    with a patch is set against the newest run without one of its kernel
    line: a kind that only a mutant shows is what KCSAN saw of it, and a
    kind that a lab fix no longer shows is what the fix removed."""
    out = []
    for r in sorted(runs, key=lambda r: r.env.get("date", "")):
        out += ["## KCSAN: `%s`" % r.name, "",
                "The six scenarios on the `torture-kcsan` kernel: KCSAN strict, modelling weak memory, in "
                "`six.c` and `locktorture.c` only.  A report is a data race in the series' code or in its "
                "torture; the console of each scenario is in `results/kcsan/%s/SCENARIO/console.log`." % r.name,
                "", env_line(r), ""]
        out += table(["scenario", "vCPUs", "judgement", "KCSAN reports"],
                     [[s.get("scenario", "?"), s.get("vcpus", "?"), s.get("judgement", "?"),
                       s.get("badness_kcsan", "?")] for s in r.scenarios])
        races = r.races()
        extra, base = kcsan_extra(r), kcsan_base(r, runs)
        if extra and base is not None:
            new = sorted(set(races) - set(base.races()))
            gone = sorted(set(base.races()) - set(races))
            named = lambda kinds: "none" if not kinds else "%d (%s)" % (len(kinds), "; ".join("`%s`" % t for t in kinds))
            # A mutant is seen by what it adds, a fix by what it removes.
            shown, counted = (new, gone) if extra[1] else (gone, new)
            out += ["", "Made with %s: %s.  Against `%s` (no patch), kinds %s: %s; kinds %s: %d.  KCSAN samples "
                    "accesses with watchpoints, so kinds come and go between runs of one kernel too: a kind is "
                    "evidence only in the code the patch changed." % (
                        "a mutant" if extra[1] else "a lab fix", extra[0], base.name,
                        "only this run showed" if extra[1] else "this run no longer showed", named(shown),
                        "this run no longer showed" if extra[1] else "only this run showed", len(counted))]
        out += ["", "%d reports of %d kinds (the two accesses: kind, size, and the first frame of each "
                "stack), most frequent first:" % (sum(n for n, _ in races.values()), len(races)), ""]
        out += table(["accesses", "reports", "scenarios"],
                     [["`%s`" % t, str(n), ", ".join(sc)]
                      for t, (n, sc) in sorted(races.items(), key=lambda kv: (-kv[1][0], kv[0]))])
        out.append("")
    return out
