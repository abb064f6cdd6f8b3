"""Throughput against CPUs from counted critical sections: a closed
queueing network solved by exact mean-value analysis (M. Reiser and S. S.
Lavenberg, "Mean-Value Analysis of Closed Multichain Queuing Networks",
J. ACM 27(2):313-322, 1980), one class of customers.

Each of N threads (customers) runs operations in a loop.  An operation is
W instructions; of them, a shared lock L is held a_L times for h_L
instructions each (counted in the guest, METRIC=locks).  A shared lock is
a queueing centre, everything else a delay centre (work that runs in
parallel), which is Eyerman and Eeckhout's split of a program into parallel
work and critical sections ("Modeling critical sections in Amdahl's law
and its implications for multicore design", ISCA 2010), solved as a
queueing network rather than bounded.

Service times, per acquisition of L: c * h_L ns for the instructions, plus
tau ns to move the lock's cache line from the CPU that held it last, which
happens with probability (n-1)/n among n threads.  That is a queued lock's
cost: an MCS-style lock (the kernel's qspinlock) hands over with a fixed
number of cache-line transfers whatever the waiters, so the service time
does not grow with the queue; a ticket lock's does, by about c*k/2 with k
waiters (Boyd-Wickizer, Kaashoek, Morris and Zeldovich, "Non-scalable locks
are dangerous", Linux Symposium 2012), which this model leaves out.

A class of K instances (hash-bl's per-chain bit locks) is K centres, each
of them taken by 1/K of the acquisitions: with uniform hashing K equal
queues.  Waiting at a spinning lock (spin, rwlock, bit) is spinning, so it
is CPU time; waiting at a sleeping lock (mutex, rwsem) is not.

Everything is counted except two numbers: c, nanoseconds per instruction,
is the one free parameter (fitted on one stated point by fit_ns_per_insn),
and tau is a published cache-line transfer latency (a constant here).
"""

SPINNING = ("spin", "rwlock-w", "bit")


class Lock:
    """A shared lock class: acquisitions per operation, instructions held
    per acquisition, instances, kind (as the lock trace names them)."""
    def __init__(self, name, acq_per_op, hold, instances=1, kind="spin"):
        self.name, self.acq, self.hold, self.instances, self.kind = name, acq_per_op, hold, instances, kind


def mva(work, locks, ns_per_insn, tau_ns, max_threads):
    """Exact MVA from 1 to max_threads threads.  work: instructions per
    operation (the locks' held instructions included); locks: [Lock], the
    shared ones.  Returns one dict per thread count n: ops_per_s (all
    threads), per_thread (ops/s per thread), spin_share (the part of a
    thread's time spent waiting at spinning locks), and per lock its wait
    share, utilisation (of one instance) and the probability that an
    acquisition finds the instance held (arrival theorem: what an arriving
    thread sees is the network with one thread fewer)."""
    if work <= 0 or ns_per_insn <= 0:
        raise ValueError("work and ns_per_insn must be positive")
    held = sum(lk.acq * lk.hold for lk in locks)
    if held > work:
        raise ValueError("the locks are held for %.0f instructions of an operation's %.0f" % (held, work))
    think = ns_per_insn * (work - held)
    queue = [0.0] * len(locks)   # per instance, with n-1 threads
    out = []
    for n in range(1, max_threads + 1):
        move = tau_ns * (n - 1) / n
        demand = [lk.acq * (ns_per_insn * lk.hold + move) for lk in locks]   # per operation, whole class
        resid = [d * (1 + q) for d, q in zip(demand, queue)]
        cycle = think + sum(resid)
        x = n / cycle   # operations per ns, all threads
        busy = [x * d / lk.instances for d, lk in zip(demand, locks)]
        point = {"threads": n, "ops_per_s": x * 1e9, "per_thread": x * 1e9 / n,
                 "spin_share": sum(r - d for r, d, lk in zip(resid, demand, locks) if lk.kind in SPINNING) / cycle,
                 "locks": {lk.name: {"wait_share": (r - d) / cycle, "utilisation": u, "contended": q_prev_busy}
                           for lk, r, d, u, q_prev_busy in zip(locks, resid, demand, busy, _arrival_busy(out, locks))}}
        queue = [x * r / lk.instances for r, lk in zip(resid, locks)]
        out.append(point)
    return out


def _arrival_busy(points, locks):
    """Per lock, the chance that an acquisition finds its instance held:
    the instance's utilisation with one thread fewer (0 for one thread)."""
    if not points:
        return [0.0] * len(locks)
    return [points[-1]["locks"][lk.name]["utilisation"] for lk in locks]


def fit_ns_per_insn(work, locks, tau_ns, threads, ops_per_s):
    """The ns per instruction at which the model gives ops_per_s at
    threads (bisection: throughput falls as c grows)."""
    lo, hi = 1e-4, 1e3
    for _ in range(200):
        mid = (lo * hi) ** 0.5
        if mva(work, locks, mid, tau_ns, threads)[-1]["ops_per_s"] > ops_per_s:
            lo = mid
        else:
            hi = mid
    return (lo * hi) ** 0.5
