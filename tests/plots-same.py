#!/usr/bin/python3
"""Are two plot directories the same plots?  usage: plots-same.py DIR_A DIR_B

The same PNG names, and for each the same size in pixels with at most
0.1% of the pixels different.  Byte equality is too strict across hosts:
the same matplotlib on another CPU moved one error bar of a 1600x420 plot
by a pixel (12 pixels, 2026-12-04); a plot made from other data differs in
thousands.  Prints each plot that differs, and exits 1 if any does.
"""
import os
import sys

import matplotlib.image
import numpy as np

TOLERANCE = 0.001


def differs(a, b):
    """Why PNG files a and b are not the same plot, or None."""
    with open(a, "rb") as fa, open(b, "rb") as fb:
        if fa.read() == fb.read():  # the same bytes: no need to decode
            return None
    pa, pb = matplotlib.image.imread(a), matplotlib.image.imread(b)
    if pa.shape != pb.shape:
        return "size %s vs %s" % (pa.shape[:2], pb.shape[:2])
    frac = float((np.abs(pa - pb).max(axis=2) > 0).mean())
    return "%.3f%% of pixels differ" % (100 * frac) if frac > TOLERANCE else None


def main(da, db):
    na = sorted(f for f in os.listdir(da) if f.endswith(".png"))
    nb = sorted(f for f in os.listdir(db) if f.endswith(".png"))
    bad = ["only in %s: %s" % (d, f) for d, fs, other in ((da, na, nb), (db, nb, na))
           for f in fs if f not in other]
    for f in sorted(set(na) & set(nb)):
        why = differs(os.path.join(da, f), os.path.join(db, f))
        if why:
            bad.append("%s: %s" % (f, why))
    if bad:
        print("\n".join(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[0])
    sys.exit(main(sys.argv[1], sys.argv[2]))
