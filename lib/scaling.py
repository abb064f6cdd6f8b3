"""The scaling answer of a METRIC=locks bench run: per kernel and phase the
critical sections counted at one thread (every boot's locks.csv), which
of them two threads share, and their projection to many CPUs
(lockmodel.py), held against published hardware numbers (published.py).

Which locks are queues: a class is shared when, with two threads, one of
its instances was taken on two kernel stacks (in any boot); read sides
(rwlock-r, rwsem-r) are not queues, readers do not exclude each other, and
neither is the file table that inode-create's threads share and fs_mark's
processes do not.
A shared class has as many instances as the two-thread phase took (hash-bl's
chains: many, each a queue of its own; inode_hash_lock: one).  What one
thread counts is the demand; what two threads share is the topology.
"""
import re

import numpy as np

import lockmodel
import published

READ_SIDES = ("rwlock-r", "rwsem-r")
# The process's file table (files->file_lock): inode-create's threads share
# it, the processes of fs_mark, which the projection is held against, do not.
FILE_TABLE = re.compile(r"^spin@(alloc_fd|close_fd|__close_fd|put_unused_fd|__?fd_install|expand_files|__x64_sys_close)$")
# The phase that stands for fs_mark's create (Chinner's measurements).
FIT_PHASE = "create"
FIT_THREADS = 2


def cv(xs):
    xs = [x for x in xs if x is not None]
    if len(xs) < 2 or not np.mean(xs):
        return None
    return float(np.std(xs, ddof=1) / np.mean(xs))


class Sections:
    """A locks run's critical sections, per kernel (its A/A arm's boots
    pooled with its own: the same kernel)."""
    def __init__(self, run):
        self.run = run
        self.rows = run.critical_sections()
        self.kernels = [a for a in run.arms if not a.endswith("-aa")]
        self.phases = [p for p in run.phases if any(r["phase"] == p for r in self.rows)]

    def _rows(self, kernel, phase, threads):
        return [r for r in self.rows if r["kernel"] == kernel and r["phase"] == phase and r["threads"] == threads]

    def boots(self, kernel, phase, threads=1):
        return sorted({(r["arm"], r["repeat"]) for r in self._rows(kernel, phase, threads)})

    def work(self, kernel, phase):
        """Instructions per operation at one thread: mean and CV over boots."""
        xs = self.run.samples(kernel, phase, 1) + self.run.samples(kernel + "-aa", phase, 1)
        return (float(np.mean(xs)) if xs else None), cv(xs)

    def unpaired(self, kernel, phase, threads=1):
        """Acquisitions left unpaired, per boot."""
        return [r["unpaired"] for r in self._rows(kernel, phase, threads) if r["class"] == "(all)"]

    def classes(self, kernel, phase):
        """Per lock class at one thread, commonest first: name, kind,
        acquisitions per operation and instructions held per acquisition
        (means over boots, and their CVs; a boot that did not take it counts
        0 acquisitions), instances, and whether two threads share it."""
        one = [r for r in self._rows(kernel, phase, 1) if r["class"] != "(all)"]
        two = [r for r in self._rows(kernel, phase, 2) if r["class"] != "(all)"]
        boots = self.boots(kernel, phase)
        out = []
        for name in sorted({r["class"] for r in one}):
            mine = {(r["arm"], r["repeat"]): r for r in one if r["class"] == name}
            acq = [mine[b]["acq_per_op"] if b in mine else 0.0 for b in boots]
            hold = [mine[b]["hold_mean"] for b in boots if b in mine]
            pair = [r for r in two if r["class"] == name]
            out.append({"name": name, "kind": next(iter(mine.values()))["kind"],
                        "acq": float(np.mean(acq)), "acq_cv": cv(acq),
                        "hold": float(np.mean(hold)), "hold_cv": cv(hold),
                        "instances": int(max(r["instances"] for r in mine.values())),
                        "instances_2": int(max([r["instances"] for r in pair] or [0])),
                        "shared": any(r["shared_instances"] for r in pair)})
        return sorted(out, key=lambda c: -c["acq"] * c["hold"])

    def queues(self, kernel, phase):
        """The lock classes that are queues, as lockmodel.Locks."""
        return [lockmodel.Lock(c["name"], c["acq"], c["hold"], max(c["instances_2"], 1), c["kind"])
                for c in self.classes(kernel, phase) if queue(c)]


def queue(c):
    """Whether a lock class (Sections.classes) is a queue of the model."""
    return c["shared"] and c["kind"] not in READ_SIDES and not FILE_TABLE.match(c["name"])


class Projection:
    """Both kernels of a locks run projected to 1..max CPUs, with the one
    free parameter (ns per instruction) fitted on Chinner's global-lock
    kernel at FIT_THREADS threads."""
    def __init__(self, sections, max_threads=64, tau_ns=published.LINE_TRANSFER_NS):
        self.s, self.tau = sections, tau_ns
        self.max = max(max_threads, max(published.CHINNER_2021["threads"]))
        self.base = next((k for k in sections.kernels if "global" in k), None)
        self.new = next((k for k in sections.kernels if "hashbl" in k), None)
        self.ns_per_insn = None
        if self.base and FIT_PHASE in sections.phases:
            w, _ = sections.work(self.base, FIT_PHASE)
            i = published.CHINNER_2021["threads"].index(FIT_THREADS)
            self.fit_point = published.CHINNER_2021["global"][i]
            if w:
                self.ns_per_insn = lockmodel.fit_ns_per_insn(w, sections.queues(self.base, FIT_PHASE), tau_ns,
                                                             FIT_THREADS, self.fit_point)

    def points(self, kernel, phase):
        w, _ = self.s.work(kernel, phase)
        if not w or not self.ns_per_insn:
            return None
        return lockmodel.mva(w, self.s.queues(kernel, phase), self.ns_per_insn, self.tau, self.max)

    def gain(self, phase, threads):
        a, b = self.points(self.base, phase), self.points(self.new, phase)
        if not a or not b:
            return None
        return b[threads - 1]["ops_per_s"] / a[threads - 1]["ops_per_s"] - 1

    def hold_for_spin(self, phase, lock, threads, spin):
        """The instructions lock would have to be held per acquisition for
        the global kernel to spin the share spin of its time at threads:
        what the published profile implies, against what was counted."""
        w, _ = self.s.work(self.base, phase)
        queues = self.s.queues(self.base, phase)
        target = next((q for q in queues if q.name == lock), None)
        if target is None or not w:
            return None
        lo, hi = target.hold, w / max(target.acq, 1e-9)
        for _ in range(100):
            mid = (lo + hi) / 2
            q2 = [lockmodel.Lock(q.name, q.acq, mid if q is target else q.hold, q.instances, q.kind) for q in queues]
            held = sum(q.acq * q.hold for q in q2)
            p = lockmodel.mva(max(w, held), q2, self.ns_per_insn, self.tau, threads)[-1]
            if p["locks"][lock]["wait_share"] < spin:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2
