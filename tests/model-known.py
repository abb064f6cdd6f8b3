#!/usr/bin/python3
"""Known answers for lib/lockmodel.py (the projection of make bench
METRIC=locks), worked by hand; one "ok - " or "not ok - " line per check."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from lockmodel import Lock, fit_ns_per_insn, mva  # noqa: E402


def check(name, got, want, tol=1e-6):
    good = abs(got - want) <= tol * max(1, abs(want))
    print("%s - model: %s (got %.6g, want %.6g)" % ("ok" if good else "not ok", name, got, want))


# A lock held for the whole operation (1000 instructions at 1 ns): one
# operation at a time whatever the threads, 1e6 ops/s; with 8 threads
# 7 of every 8 threads wait, so 7/8 of each thread's time is spinning.
whole = mva(1000, [Lock("all", 1, 1000)], 1.0, 0.0, 8)
check("a lock held for the whole operation saturates at one CPU (1 thread)", whole[0]["ops_per_s"], 1e6)
check("... and at 8 threads", whole[7]["ops_per_s"], 1e6)
check("... where a thread spins 7/8 of its time", whole[7]["spin_share"], 7 / 8)
# No lock: n threads do n times one thread's operations.
free = mva(1000, [], 1.0, 0.0, 64)
check("a path with no lock scales linearly (64 threads)", free[63]["ops_per_s"], 64e6)
check("... and spins never", free[63]["spin_share"], 0.0)
# A tenth of the operation under one lock, 2 threads: MVA by hand.
# n=1: R = 100, X = 1/1000, Q = 0.1.  n=2: R = 100 * 1.1 = 110,
# X = 2 / (900 + 110) = 1/505 per ns, so 1.980198e6 ops/s; an acquisition
# finds the lock held with the probability of its use at n=1, 0.1.
tenth = mva(1000, [Lock("l", 1, 100)], 1.0, 0.0, 2)
check("a tenth under one lock at 2 threads (hand MVA)", tenth[1]["ops_per_s"], 2e9 / 1010)
check("... the wait share, 10 of 1010 ns", tenth[1]["locks"]["l"]["wait_share"], 10 / 1010)
check("... an acquisition finds it held with p = 0.1", tenth[1]["locks"]["l"]["contended"], 0.1)
# The same lock split into 1000 instances barely queues: near linear.
striped = mva(1000, [Lock("l", 1, 100, instances=1000)], 1.0, 0.0, 2)
check("1000 instances of it queue 1000x less", striped[1]["ops_per_s"], 2e9 / (900 + 100 * (1 + 0.1 / 1000)))
# The handoff: tau = 50 ns is paid with probability (n-1)/n: at 2 threads
# 25 ns more per acquisition: demand 125, n=1 queue 0.1 (tau not paid
# alone), so R = 125 * 1.1 = 137.5 and X = 2 / (900 + 137.5).
hand = mva(1000, [Lock("l", 1, 100)], 1.0, 50.0, 2)
check("a handoff's cost is paid by contenders only", hand[1]["ops_per_s"], 2e9 / 1037.5)
# A sleeping lock's wait is no spin.
sleep = mva(1000, [Lock("m", 1, 1000, kind="mutex")], 1.0, 0.0, 4)
check("waiting on a mutex is not spinning", sleep[3]["spin_share"], 0.0)
# The fit inverts the model: the c that gives 1.980198e6 ops/s at 2 threads is 1.
check("the fitted ns per instruction is the one that made the point",
      fit_ns_per_insn(1000, [Lock("l", 1, 100)], 0.0, 2, 2e9 / 1010), 1.0, tol=1e-4)
try:
    mva(100, [Lock("l", 1, 200)], 1.0, 0.0, 2)
    print("not ok - model: a lock held longer than the operation is refused")
except ValueError:
    print("ok - model: a lock held longer than the operation is refused")
