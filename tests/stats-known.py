#!/usr/bin/python3
"""Known answers for lib/stats.py, worked by hand (see each comment);
one "ok - " or "not ok - " line per check, for tests/run.sh to count."""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import stats  # noqa: E402


def check(name, got, want, tol=1e-3):
    good = (got == want) if isinstance(want, (str, bool)) else abs(got - want) <= tol * max(1, abs(want))
    print("%s - stats: %s (got %s, want %s)" % ("ok" if good else "not ok", name, got, want))


E = math.e
# ln a = 0,1,2 and ln b = 1,2,3: means 1 and 2, variances 1 and 1, so
# se = sqrt(1/3 + 1/3) = 0.8165, t = 1/0.8165 = 1.2247, Welch df =
# (2/3)^2 / ((1/3)^2/2 * 2) = 4; t(0.975, 4) = 2.7764 (tables), so the
# interval of ln(ratio) is 1 -+ 2.2669 and two-sided p = 0.2879.
c = stats.Comparison([1, E, E ** 2], [E, E ** 2, E ** 3])
check("Welch df of equal-variance samples of 3", c.df, 4.0)
check("Welch t", c.t, 1.2247)
check("ratio of geometric means is e", c.ratio, E)
check("95% interval low end exp(1 - 2.2669)", c.lo, math.exp(1 - 2.7764 * math.sqrt(2 / 3)))
check("95% interval high end exp(1 + 2.2669)", c.hi, math.exp(1 + 2.7764 * math.sqrt(2 / 3)))
check("two-sided p from t(4) tables", c.p, 0.2879)
check("a wide interval is no significant change", c.verdict(), "no significant change")

# Unequal spreads: ln a = 0,1,2 (var 1, n 3), ln b = 0,2,4,6,8 (var 10, n 5):
# se^2 = 1/3 + 2, df = (7/3)^2 / ((1/3)^2/2 + 2^2/4) = 5.4444/1.0556 = 5.158,
# not the pooled test's 6.
check("Welch-Satterthwaite df of unequal spreads", stats.Comparison(
    [1, E, E ** 2], [1, E ** 2, E ** 4, E ** 6, E ** 8]).df, 5.158)

# A/A: the same five values in another order have the same geometric
# mean: ratio 1, t 0, p 1; must not be flagged.
aa = stats.Comparison([100, 102, 98, 101, 99], [101, 99, 100, 98, 102])
check("A/A: same values, ratio 1", aa.ratio, 1.0)
check("A/A: p = 1", aa.p, 1.0)
check("A/A is not flagged", aa.verdict(), "no significant change")

# Shifted: b = 1.2 a exactly, so the ratio is exactly 1.2 and the log
# spreads are equal (sd of ln a = 0.00707): t = ln 1.2 / 0.00447 = 40.8.
a = [100, 101, 99, 100, 100]
sh = stats.Comparison(a, [1.2 * x for x in a])
check("shifted by 20%: ratio 1.2", sh.ratio, 1.2)
check("shifted by 20%: flagged", sh.significant, True)
check("shifted by 20%: interval holds 1.2", sh.lo < 1.2 < sh.hi, True)
check("shifted up is better for a rate", sh.verdict(), "better")
check("shifted up is worse for a time", sh.verdict(higher_is_better=False), "worse")
check("shifted down is worse", stats.Comparison([1.2 * x for x in a], a).verdict(), "worse")

# One value a side: a ratio, but no test and no verdict.
one = stats.Comparison([10], [20])
check("n=1: ratio still given", one.ratio, 2.0)
check("n=1: no test", one.verdict(), "n<2: no test")

# Describe: 90, 100, 110 has mean 100, sd 10, CV 0.1, quartiles 95 and 105.
d = stats.describe([90, 100, 110])
check("mean", d["mean"], 100.0)
check("sd with n-1", d["sd"], 10.0)
check("coefficient of variation", d["cv"], 0.1)
check("lower quartile", d["q1"], 95.0)

# False-positive rate over splits: pooled ln values are five 0s and five 1s.
# Of the C(10,5) = 252 splits, the 2 that separate 0s from 1s have zero
# variance and a difference (flagged); a split with one 1 in the first group
# (25 splits, and 25 mirrored) has means .2 and .8, variances .2, t = 2.12,
# df 8, p = 0.067 (not flagged); closer splits less so.  Rate: 2/252.
check("Welch false-positive rate over all splits", stats.false_positive_rate([1] * 5, [E] * 5,
      stats.welch_significant), 2 / 252, tol=1e-9)
# Fewer splits than there are: distinct ones, each a set of the right size.
few = stats.splits(5, 5, np.random.default_rng(1), 200)
check("200 of the 252 splits of 5 + 5, drawn distinct", len({tuple(f) for f in few}), 200)
check("each drawn split has 5 of the 10 boots", {len(set(f)) for f in few} == {5}, True)
# Identical boots: no split can differ.
check("no false positive on constant samples", stats.false_positive_rate([5] * 5, [5] * 5,
      stats.welch_significant), 0.0)
# 0 alarms in 15 comparisons: P(X >= 0) = 1; 1 or more: 1 - 0.95^15 = 0.5367.
check("binomial tail of 1 alarm in 15 at 5%", stats.binomial_tail(1, 15), 1 - 0.95 ** 15)
check("binomial tail of 0 alarms", stats.binomial_tail(0, 15), 1.0)
# Smallest significant change of two identical samples with CV 7.9%:
# se = sd(ln)*sqrt(2/5), half-width t(0.975, 8) * se, as a ratio - 1.
s = [100, 110, 90, 105, 95]
lns = [math.log(x) for x in s]
m = sum(lns) / 5
sdl = math.sqrt(sum((x - m) ** 2 for x in lns) / 4)
check("smallest significant change", stats.min_detectable_change(s, s),
      math.exp(2.3060 * sdl * math.sqrt(2 / 5)) - 1)

# Equivalence (TOST, +-2%): 1% spread around equal means is within 2%; the
# same samples shifted by 5% are not.
eq_a = [100, 101, 99, 100.5, 99.5]
check("TOST: equal means and 1% spread are equivalent within 2%", stats.equivalent(eq_a, list(eq_a)), True)
check("TOST: a 5% shift is not equivalent within 2%", stats.equivalent(eq_a, [1.05 * x for x in eq_a]), False)
check("TOST: one boot a side proves nothing", stats.equivalent([100], [100]), False)

# Stein's rule: ln a = ln b = 0, .01, .02, .03, .04 (variance .00025 each,
# sum .0005), t(0.975, 8) = 2.3060: boots = ceil(2.306^2 * .0005 / ln(1+x)^2),
# 26.85 -> 27 for +-1%, and 3.04 -> the first stage's 5 for +-3%.
st = [math.exp(v) for v in (0, .01, .02, .03, .04)]
check("Stein: +-1% needs 27 boots a side", stats.stein_boots([(st, st)], 0.01, 5), 27)
check("Stein: +-3% needs no more than the first stage", stats.stein_boots([(st, st)], 0.03, 5), 5)
check("Stein: the final interval uses the first stage's variance (df 8)",
      stats.Comparison(st + [1.02] * 22, st + [1.02] * 22, first_n=5).df, 8.0)

# The stopping rule keeps the A/A false-positive rate at its 5% level
# (log-normal noise, CV 5%: Stein's rule extends runs to about 30 boots).
# A simulated rate has its own sampling error: 5% plus 2.5 of its sd is the
# bound (a rule at 6-7%, as looking after every boot gives, fails it).
TRIALS = 6000
fp, boots = stats.simulated_false_positive_rate(0.05, 0.03, 60, trials=TRIALS)
bound = 0.05 + 2.5 * math.sqrt(0.05 * 0.95 / TRIALS)
check("PRECISION rule: simulated A/A false-positive rate at CV 5%% is %.3f, within 5%% + sampling error (%.3f)"
      % (fp, bound), fp <= bound, True)
check("PRECISION rule: it did extend the runs (%.1f boots a side)" % boots, boots > 10, True)
