"""The statistics behind the lab's verdicts: the report's, and those of a
bench run's summary and PRECISION= while it runs.

A comparison is of two samples of a rate (operations or acquisitions per
second, one value per boot).  Rates are compared as ratios, so the test is
Welch's t-test on their logarithms: the change is the ratio of the geometric
means, its 95% interval comes from Welch's t interval of the difference of
the log means, and the verdict is "better" or "worse" only when that interval
excludes no change (p < ALPHA).  Welch's, because the two kernels need not be
equally noisy; logarithms, because a ratio's interval must be multiplicative
and rates are skewed.  A percentile bootstrap of the ratio of medians (what
the bench summary printed before the report existed) is calibrated beside
it: with five boots a side it only fires when the two groups barely overlap,
whatever their spread.

A/A calibration: the first kernel of every bench run is booted twice per
repeat.  Under "no difference" every split of the pooled A and A' boots into
two groups of the original sizes is equally likely, so the share of splits a
test calls significant is that test's false-positive rate on this run's own
noise: measured, not assumed.  Small pools are enumerated exactly; large ones
sampled with a fixed seed, so the same results give the same numbers.
"""
import itertools
import math

import numpy as np
from scipy import special
from scipy import stats as sps

ALPHA = 0.05
BOOTSTRAP = 2000
SEED = 20230509  # the series' posting date: any fixed seed will do
MAX_SPLITS = 2000  # more splits than this are sampled, not enumerated
# The bootstrap's false-positive rate costs BOOTSTRAP resamples a split, so
# it is estimated on fewer splits: its standard error at a 5% rate is then
# 1.5 points a point, and the report gives only its mean over the points.
BOOT_SPLITS = 200
MAX_ENUMERATE = 100000  # splits listed to draw distinct ones from


def describe(x):
    """n, mean, standard deviation (n-1), median, quartiles and CV of x."""
    x = np.asarray(x, dtype=float)
    n = len(x)
    mean = float(x.mean()) if n else math.nan
    sd = float(x.std(ddof=1)) if n > 1 else math.nan
    q1, med, q3 = (float(v) for v in np.percentile(x, [25, 50, 75])) if n else (math.nan,) * 3
    cv = sd / mean if n > 1 and mean else math.nan
    return {"n": n, "mean": mean, "sd": sd, "median": med, "q1": q1, "q3": q3, "cv": cv}


class Comparison:
    """Welch's t-test of ln(b) against ln(a).

    ratio: geometric mean of b over that of a; lo, hi: its (1 - alpha)
    interval; p: two-sided p-value; df: Welch-Satterthwaite degrees of
    freedom; testable: False when a side has fewer than two values (then
    there is a ratio but no interval and no verdict).
    """

    def __init__(self, a, b, alpha=ALPHA, first_n=None):
        la, lb = np.log(np.asarray(a, dtype=float)), np.log(np.asarray(b, dtype=float))
        na, nb = len(la), len(lb)
        self.alpha = alpha
        self.na, self.nb = na, nb
        d = float(lb.mean() - la.mean())
        self.ratio = math.exp(d)
        self.testable = na >= 2 and nb >= 2
        if not self.testable:
            self.lo = self.hi = self.p = self.df = self.t = math.nan
            return
        if first_n and min(na, nb) >= first_n >= 2:
            # Stein's second stage: the variance of the first stage only,
            # with its degrees of freedom (see stein_boots).
            va = la[:first_n].var(ddof=1) / na
            vb = lb[:first_n].var(ddof=1) / nb
        else:
            va, vb = la.var(ddof=1) / na, lb.var(ddof=1) / nb
        se = math.sqrt(va + vb)
        if se == 0:
            # Two constant samples: any difference is certain, none is none.
            self.df, self.t = float(na + nb - 2), math.copysign(math.inf, d) if d else 0.0
            self.p = 0.0 if d else 1.0
            self.lo = self.hi = self.ratio
            return
        if first_n and min(na, nb) >= first_n >= 2:
            self.df = float(2 * first_n - 2)
        else:
            self.df = (va + vb) ** 2 / (va ** 2 / (na - 1) + vb ** 2 / (nb - 1))
        self.t = d / se
        # scipy.special's stdtr and stdtrit: what sps.t.sf and sps.t.ppf
        # compute, without their argument checking (the A/A calibration
        # makes thousands of comparisons).
        self.p = float(2 * special.stdtr(self.df, -abs(self.t)))
        q = float(special.stdtrit(self.df, 1 - alpha / 2))
        self.lo, self.hi = math.exp(d - q * se), math.exp(d + q * se)

    @property
    def significant(self):
        return self.testable and self.p < self.alpha

    def verdict(self, higher_is_better=True):
        if not self.testable:
            return "n<2: no test"
        if not self.significant:
            return "no significant change"
        return "better" if (self.ratio > 1) == higher_is_better else "worse"


def welch_significant(a, b, alpha=ALPHA):
    return Comparison(a, b, alpha).significant


def row_medians(x):
    """np.median(x, axis=1), the same numbers, without its general
    machinery: the A/A calibration takes thousands of bootstraps."""
    x = np.sort(x, axis=1)
    m = x.shape[1]
    return x[:, m // 2] if m % 2 else (x[:, m // 2 - 1] + x[:, m // 2]) / 2


def bootstrap_ratio_ci(a, b, rng, alpha=ALPHA, n=BOOTSTRAP):
    """Percentile bootstrap interval of median(b) / median(a)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    ra = row_medians(a[rng.integers(0, len(a), (n, len(a)))])
    rb = row_medians(b[rng.integers(0, len(b), (n, len(b)))])
    lo, hi = np.percentile(rb / ra, [100 * alpha / 2, 100 * (1 - alpha / 2)])
    return float(lo), float(hi)


def bootstrap_significant(a, b, rng, alpha=ALPHA):
    lo, hi = bootstrap_ratio_ci(a, b, rng, alpha)
    return lo > 1 or hi < 1


def splits(na, nb, rng, max_splits=MAX_SPLITS):
    """Index sets of the first group for splits of na + nb pooled values:
    all of them, or max_splits distinct ones drawn at random when there are
    more (drawn one by one, and so not always distinct, beyond MAX_ENUMERATE)."""
    total = math.comb(na + nb, na)
    if total <= max_splits:
        return [list(c) for c in itertools.combinations(range(na + nb), na)]
    if total <= MAX_ENUMERATE:
        every = list(itertools.combinations(range(na + nb), na))
        return [list(every[i]) for i in sorted(rng.choice(total, max_splits, replace=False))]
    return [sorted(rng.choice(na + nb, na, replace=False)) for _ in range(max_splits)]


def false_positive_rate(a, a2, test, max_splits=MAX_SPLITS):
    """Share of the splits of a + a2 (same-kernel boots) that test(x, y)
    calls significant: the test's false-positive rate on this noise."""
    pooled = np.concatenate([np.asarray(a, dtype=float), np.asarray(a2, dtype=float)])
    rng = np.random.default_rng(SEED)
    hits = total = 0
    for first in splits(len(a), len(a2), rng, max_splits):
        mask = np.zeros(len(pooled), dtype=bool)
        mask[first] = True
        hits += bool(test(pooled[mask], pooled[~mask]))
        total += 1
    return hits / total if total else math.nan


def binomial_tail(k, m, p=ALPHA):
    """P(X >= k) for X ~ Binomial(m, p): how surprising k false alarms in m
    A/A comparisons would be if the test's rate were p."""
    return float(sps.binom.sf(k - 1, m, p)) if m else math.nan


def min_detectable_change(a, b, alpha=ALPHA):
    """Half-width of the interval of ln(b/a), as a ratio - 1: changes smaller
    than this cannot be called significant with these samples."""
    c = Comparison(a, b, alpha)
    if not c.testable:
        return math.nan
    return math.sqrt(c.hi / c.lo) - 1


# ---------------------------------------------------------------- equivalence and precision

MARGIN = 0.02  # "no change larger than 2%", the equivalence margin
MIN_N = 5      # boots a side before the precision rule may stop a run


def equivalent(a, b, margin=MARGIN, alpha=ALPHA, first_n=None):
    """TOST: two one-sided Welch tests at level alpha, i.e. the (1 - 2 alpha)
    interval of the ratio lies within [1/(1+margin), 1+margin].  "No
    significant change" only says a change was not shown; this says one
    larger than the margin was ruled out."""
    c = Comparison(a, b, 2 * alpha, first_n=first_n)
    return bool(c.testable and c.lo >= 1 / (1 + margin) and c.hi <= 1 + margin)


def half_width(a, b, alpha=ALPHA, first_n=None):
    """Half-width of the ratio's (1 - alpha) interval, as a fraction: the
    larger of hi/ratio - 1 and 1 - lo/ratio; inf when untestable."""
    c = Comparison(a, b, alpha, first_n=first_n)
    if not c.testable:
        return math.inf
    return max(c.hi / c.ratio - 1, 1 - c.lo / c.ratio)


def stein_boots(pairs, target, first_n=MIN_N, alpha=ALPHA):
    """Stein's two-stage rule, for make bench PRECISION=: from the spread of
    the first first_n boots a side of every comparison (a, b), the boots a
    side that make each ratio's (1 - alpha) half-width at most target.  The
    run looks once, after the first stage, and never at the difference; the
    final interval uses the first stage's variance (Comparison(first_n=)),
    so its level is exact for log-normal noise however many boots follow.
    Looking again after every boot with the running variance would not be:
    it stops when the spread happens to look small, and the simulation of
    that rule gave 6-7% false positives at 5%."""
    need = first_n
    q = float(sps.t.ppf(1 - alpha / 2, 2 * first_n - 2))
    for a, b in pairs:
        la, lb = np.log(np.asarray(a[:first_n], dtype=float)), np.log(np.asarray(b[:first_n], dtype=float))
        v = la.var(ddof=1) + lb.var(ddof=1)
        need = max(need, math.ceil(q * q * v / math.log(1 + target) ** 2))
    return need


def simulated_false_positive_rate(cv, target, max_n, trials=2000, seed=SEED, first_n=MIN_N):
    """A/A runs drawn from one log-normal noise of the given CV, extended to
    stein_boots() boots a side (at most max_n): the share that the final
    test (Comparison(first_n=)) calls a change, and the mean boots a side."""
    rng = np.random.default_rng(seed)
    sigma = math.sqrt(math.log(1 + cv * cv))
    hits, boots = 0, 0
    for _ in range(trials):
        a, b = list(rng.lognormal(0, sigma, first_n)), list(rng.lognormal(0, sigma, first_n))
        n = min(max_n, stein_boots([(a, b)], target, first_n))
        a += list(rng.lognormal(0, sigma, n - first_n))
        b += list(rng.lognormal(0, sigma, n - first_n))
        hits += Comparison(a, b, first_n=first_n).significant
        boots += n
    return hits / trials, boots / trials
