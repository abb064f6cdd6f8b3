#!/usr/bin/python3
"""Boots a side that make bench PRECISION= needs (Stein's two-stage rule).

usage: bench/precision.py RUN_DIR TARGET_PCT FIRST_N

Reads RUN_DIR's results.csv (a run in progress: RUN.partial) after its
first FIRST_N repeats and prints the repeats every comparison of the run
(each kernel pair and the A/A pair, at every phase and thread count) needs
for a 95% half-width of at most TARGET_PCT percent, then the comparison
that needs the most.  Only the first stage's spread is used, never the
difference between kernels (lib/stats.py, stein_boots).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import stats  # noqa: E402
from runs import BenchRun, bench_pairs  # noqa: E402


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[2])
    run, target, first_n = BenchRun(sys.argv[1]), float(sys.argv[2]) / 100, int(sys.argv[3])
    worst, need = None, first_n
    for _title, base, new in bench_pairs(run):
        for phase in run.phases:
            for t in run.threads:
                a, b = run.samples(base, phase, t), run.samples(new, phase, t)
                n = stats.stein_boots([(a, b)], target, first_n)
                if n > need or worst is None:
                    worst, need = "%s vs %s, %s, %d threads" % (new, base, phase, t), max(need, n)
    print(need)
    print(worst)


if __name__ == "__main__":
    main()
