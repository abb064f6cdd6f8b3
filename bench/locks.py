#!/usr/bin/python3
"""Critical sections of one bench boot, from its lock trace (make bench
METRIC=locks): every lock the measured phases took, how often per operation,
and for how many instructions it was held.

usage: bench/locks.py BOOT_DIR SYSTEM_MAP >locks.csv

BOOT_DIR/locks.bin is the trace vm/insn-count.c wrote (struct lock_event):
the atomics and lock-releasing stores of the guest between its markers.
What is a lock is told here, by the function an atomic is in (System.map):

  spin, rwlock-r, rwlock-w   _raw_{spin,read,write}_{lock,trylock}*, and
                             their queued slow paths
  mutex                      mutex_lock*, mutex_trylock, __mutex_lock*
  rwsem-r, rwsem-w           down_{read,write}*
  bit                        a locked bts (bit_spin_lock(): hlist_bl_lock(),
                             the hash-bl inode and dentry hash chains)

An acquisition opens a section on (vCPU, address), and the holder's next
write of that address that is no acquisition closes it (a plain store such
as queued_spin_unlock()'s, an atomic such as up_write()'s add; for a bit
lock, its bit cleared): the held instructions are the vCPU's own between
the two.  Retries in the slow path
before the lock is had are the wait.  A trylock that failed, or a bit set
that is not a lock, opens a section nothing closes: those are counted as
unpaired, never as sections.

A lock's class is its static symbol (inode_hash_lock) or, for a lock in a
dynamic object, its kind and the function that most often takes it
("spin@inode_sb_list_add": the super block's s_inode_list_lock).  A class
has as many instances as addresses; an instance taken on two kernel stacks
(two tasks, or a task and an interrupt) is shared.

Columns: phase,threads,ops,class,kind,instances,shared_instances,
acquisitions,acq_per_op,hold_mean,hold_max,wait_total,unpaired; a row per
class and phase, and per phase a row of class "(all)": the sections paired
and the acquisitions left unpaired (its unpaired column; "-" elsewhere).
"""
import bisect
import collections
import os
import re
import sys

import numpy as np

EVENT = np.dtype([("insns", "<u8"), ("pc", "<u8"), ("addr", "<u8"), ("ret0", "<u8"), ("ret1", "<u8"),
                  ("kstack", "<u8"), ("vcpu", "u1"), ("kind", "u1"), ("op", "u1"), ("reg", "u1"), ("imm", "u1"), ("pad", "V3")])
EV_ATOMIC, EV_STORE, EV_MARK = 1, 2, 3
MARK_START, MARK_END = 1, 2

KERNEL = 0xffff800000000000   # lower: a user-space instruction, not the kernel's

# Acquiring functions and the kind of lock they take.  The bench kernels are
# built for size (tinyconfig's -Os), so the kernel's inline lock helpers
# (do_raw_spin_lock, queued_read_lock, rwsem_write_trylock, hlist_bl_lock)
# are often functions of their own: the names cover both.
ACQUIRE = [(re.compile(r"^(_raw|do_raw|queued|arch)_spin_(lock|trylock)\w*$"), "spin"),
           (re.compile(r"^(_raw|do_raw|__raw|queued|arch)_read_(lock|trylock)\w*$"), "rwlock-r"),
           (re.compile(r"^(_raw|do_raw|__raw|queued|arch)_write_(lock|trylock)\w*$"), "rwlock-w"),
           (re.compile(r"^(mutex_lock\w*|mutex_trylock|__mutex_lock\w*|__mutex_trylock\w*)$"), "mutex"),
           (re.compile(r"^(down_read\w*|__down_read\w*|rwsem_read_trylock|rwsem_down_read_slowpath)$"), "rwsem-r"),
           (re.compile(r"^(down_write\w*|__down_write\w*|rwsem_write_trylock|rwsem_down_write_slowpath)$"), "rwsem-w")]
SLEEPING = ("mutex", "rwsem-r", "rwsem-w")
# Slow paths: an atomic or a store there is a retry or the lock finally had.
SLOW = re.compile(r"slowpath$|^__mutex_lock")
# Functions that only wrap a lock: a section is named after the first
# function of its stack that is none of these.
WRAPPER = re.compile(r"^(_raw|do_raw|__raw|queued|arch)_(spin|read|write)_|^(__)?mutex_|^(__)?down_|^rwsem_|"
                     r"^hlist_bl_lock$|^bit_spin_lock$")


def bts_bit(op, reg, imm):
    """The bit a locked bts sets (bit_spin_lock()'s acquisition: 0f ba /5
    ib), or None: not a bts with an immediate bit."""
    return imm if op == 0xba and reg == 5 else None


def clears(op, reg, imm, bit, addr, base):
    """Whether an instruction at addr clears bit of the word at base: btr
    (0f ba /6 ib: the bit; 0f b3: a register's, taken as this one) or an
    8-bit and (80 /4 ib) of the byte that holds it, its mask without it."""
    if op == 0xba and reg == 6:
        return imm == bit and addr == base
    if op == 0xb3:
        return addr == base
    if op == 0x80 and reg == 4:
        return addr == base + bit // 8 and not (imm >> (bit % 8)) & 1
    return False


class Symbols:
    """System.map: the function a code address is in, the static object a
    data address is in."""
    def __init__(self, path):
        text, data = [], []
        with open(path) as f:
            for line in f:
                a, t, name = line.split()[:3]
                (text if t in "tTwW" else data if t in "dDbBrR" else []).append((int(a, 16), name))
        text.sort()
        data.sort()
        self.text_at, self.text = [a for a, _ in text], [n for _, n in text]
        self.data_at, self.data = [a for a, _ in data], [n for _, n in data]

    def function(self, pc):
        i = bisect.bisect_right(self.text_at, pc) - 1
        return self.text[i] if i >= 0 else "?"

    def static(self, addr):
        """The static object addr lies at the start of (a lock that is a
        variable of its own), or None."""
        i = bisect.bisect_left(self.data_at, addr)
        return self.data[i] if i < len(self.data_at) and self.data_at[i] == addr else None


def bench_lines(boot):
    with open(os.path.join(boot, "guest", "bench.txt")) as f:
        for line in f:
            if line.startswith("BENCH "):
                yield dict(kv.split("=", 1) for kv in line.split()[1:])


def sections(events, syms):
    """Yield (phase number, kind, addr, task, caller, hold, wait) for every
    paired section, and at each phase's end (phase, None, unpaired count,
    ...).  A bit lock is keyed by its bit too: the word holds other flags,
    set and cleared while the lock is held."""
    fn_cache = {}

    def fn(pc):
        if pc not in fn_cache:
            fn_cache[pc] = syms.function(int(pc)) if pc >= KERNEL else "(user)"
        return fn_cache[pc]

    def acquire_kind(name):
        for rx, kind in ACQUIRE:
            if rx.match(name):
                return kind
        return None

    def caller(e):
        for pc in (e["pc"], e["ret0"], e["ret1"]):
            name = fn(pc)
            if not WRAPPER.search(name):
                return name
        return fn(e["ret1"])

    phase = -1
    inside = False
    # A spinning lock is held by a CPU (preemption is off), a sleeping one
    # by a task, which may sleep and let another run on the same vCPU.
    open_ = {}   # (vcpu or task, addr, bit or None) -> [first try, acquired, caller, kind, task]
    bits = collections.defaultdict(set)   # (vcpu, addr) -> its open bit locks' bits
    for e in events:
        kind = e["kind"]
        if kind == EV_MARK:
            if e["addr"] == MARK_START:
                phase += 1
                inside = True
                open_ = {}
                bits.clear()
            elif e["addr"] == MARK_END and inside:
                inside = False
                yield phase, None, sum(1 for o in open_.values() if o[3] != "bit"), 0, "", 0, 0
            continue
        if not inside or e["pc"] < KERNEL:
            continue
        vcpu, addr, insns, task = int(e["vcpu"]), int(e["addr"]), int(e["insns"]), int(e["kstack"])
        name = fn(e["pc"])
        lk = acquire_kind(name) if kind == EV_ATOMIC or SLOW.search(name) else None
        bit = None
        if lk is None and kind == EV_ATOMIC:
            bit = bts_bit(e["op"], e["reg"], e["imm"])
            lk = None if bit is None else "bit"
        if lk is not None:
            key = (task if lk in SLEEPING else vcpu, addr, bit)
            o = open_.get(key)
            if o is None:
                open_[key] = [insns, insns, caller(e), lk, task]
                if bit is not None:
                    bits[(vcpu, addr)].add(bit)
            else:
                o[1] = insns
            continue
        # A release: of a word lock at this address, or of a bit lock whose
        # bit this clears.
        key = (vcpu, addr, None) if (vcpu, addr, None) in open_ else (task, addr, None)
        if key in open_:
            pass   # its holder wrote the lock word: unlocked it (nothing else writes it meanwhile)
        else:
            key = next(((vcpu, base, b) for base in range(addr - 7, addr + 1) for b in bits.get((vcpu, base), ())
                        if clears(e["op"], e["reg"], e["imm"], b, addr, base)), None)
            if key is None:
                continue
            bits[key[:2]].discard(key[2])
        o = open_.pop(key)
        yield phase, o[3], key[1:], o[4], o[2], insns - o[1], o[1] - o[0]


def analyse(boot, system_map):
    syms = Symbols(system_map)
    events = np.fromfile(os.path.join(boot, "locks.bin"), dtype=EVENT)
    benches = list(bench_lines(boot))
    per = collections.defaultdict(list)   # (phase, addr) -> [(kind, task, caller, hold, wait)]
    unpaired = {}
    for ph, kind, addr, task, caller, hold, wait in sections(events, syms):
        if kind is None:
            unpaired[ph] = addr
        else:
            per[(ph, addr)].append((kind, task, caller, hold, wait))
    starts = np.flatnonzero((events["kind"] == EV_MARK) & (events["addr"] == MARK_START))
    if len(starts) != len(benches):
        sys.exit("locks.py: %s: %d measurements marked in locks.bin, %d BENCH lines"
                 % (boot, len(starts), len(benches)))
    # A class per address: its static name, or its kind at its commonest caller.
    classes = collections.defaultdict(lambda: collections.defaultdict(list))  # phase -> class -> addr rows
    for (ph, addr), rows in per.items():
        static = syms.static(addr[0])
        if static and addr[1] is not None:
            static = "%s.bit%d" % (static, addr[1])
        kind = collections.Counter(r[0] for r in rows).most_common(1)[0][0]
        caller = collections.Counter(r[2] for r in rows).most_common(1)[0][0]
        classes[ph][static or "%s@%s" % (kind, caller)].append((addr, kind, rows))
    print("phase,threads,ops,class,kind,instances,shared_instances,acquisitions,acq_per_op,"
          "hold_mean,hold_max,wait_total,unpaired")
    for ph, b in enumerate(benches):
        ops = int(b["ops"])
        paired = sum(len(rs) for _a, _k, rs in (i for c in classes[ph].values() for i in c))
        print("%s,%s,%d,(all),-,-,-,%d,%.4f,-,-,-,%d" % (b["phase"], b["threads"], ops, paired, paired / ops,
                                                         unpaired.get(ph, 0)))
        for name in sorted(classes[ph]):
            insts = classes[ph][name]
            rows = [r for _a, _k, rs in insts for r in rs]
            holds = np.array([r[3] for r in rows], dtype=float)
            shared = sum(1 for _a, _k, rs in insts if len({r[1] for r in rs}) > 1)
            print("%s,%s,%d,%s,%s,%d,%d,%d,%.4f,%.2f,%d,%d,-" % (
                b["phase"], b["threads"], ops, name, insts[0][1], len(insts), shared, len(rows),
                len(rows) / ops, holds.mean(), holds.max(), sum(r[4] for r in rows)))


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[4], file=sys.stderr)
        sys.exit(2)
    analyse(sys.argv[1], sys.argv[2])


if __name__ == "__main__":
    main()
