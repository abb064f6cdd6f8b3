"""The lab's stored runs, as the report and the bench summary read them:
results/bench/<run>/ (parameters, env, results.csv, profiles/) and
results/torture/<run>/<scenario>/ (summary, env), and what perf saw in a
bench run's profile boots."""
import csv
import math
import os
import re

PHASES = ("create", "lookup", "unlink")
# Every phase inode-create reports, in the order tables show them: the
# create workload, the same in one shared directory, the cold tree walk.
ALL_PHASES = PHASES + ("shared-create", "shared-lookup", "shared-unlink", "walk", "fsmark")
WORKLOAD_PHASES = {"create": PHASES, "shared": ("shared-create", "shared-lookup", "shared-unlink"),
                   "walk": ("walk",), "fsmark": ("fsmark",)}
SIDES = ("writes", "reads", "intent")
KINDS = ("bench", "torture", "mutants", "coverage", "kcsan")  # results/<kind>/<run>/
# The functions of 6.1's fs/inode.c that take inode_hash_lock.  They are
# exported (or called across fs/inode.c), never inlined into a filesystem,
# so spinning on the hash lock shows one of them among the slow path's
# callers; spinning under, say, __ext4_new_inode is on locks ext4 takes
# itself.
INODE_HASH_FUNCS = ("insert_inode_locked", "inode_insert5", "iget_locked", "ilookup",
                    "ilookup5_nowait", "find_inode_nowait", "__insert_inode_hash",
                    "__remove_inode_hash", "__wait_on_freeing_inode")


def line_of(run):
    """The kernel line a run booted (its kernels' lab-build.env, kernel_line=
    in each boot's env); runs made before the lab had lines are 6.1's."""
    return run.env.get("kernel_line") or "6.1"


class RunError(Exception):
    """A run that cannot be reported: missing, incomplete or unreadable."""


def read_kv(path):
    kv = {}
    try:
        # newline="\n": a CR that a serial console left in a value (runs
        # judged before judge.sh dropped them) must not split its line.
        for line in open(path, newline="\n"):
            k, sep, v = line.rstrip("\n").replace("\r", "").partition("=")
            if sep:
                kv[k] = v
    except OSError:
        pass
    return kv


# ---------------------------------------------------------------- runs

def sshlogin(boot_dir):
    """The host a boot was made on as the HOSTS file names it (make bench
    HOSTS=), without GNU parallel's "N/" CPU count; None for a local boot."""
    try:
        with open(os.path.join(boot_dir, "sshlogin")) as f:
            return re.sub(r"^[0-9]+/", "", f.read().strip())
    except OSError:
        return None


class BenchRun:
    """A bench run.  A run over several hosts (make bench HOSTS=) is read
    one host at a time, BenchRun(path, host): its kernels are compared
    within a host, never pooled across hosts; its name is RUN@HOST."""
    kind = "bench"

    def __init__(self, path, host=None):
        self.path, self.name, self.host = path, os.path.basename(path), host
        self.params = read_kv(os.path.join(path, "parameters"))
        self.env = read_kv(os.path.join(path, "env"))
        self.arms = self.params.get("arms", "").split()
        # metric=insns (make bench METRIC=insns): guest time is instructions
        # (-icount shift=0: 1 ns each), so a sample is guest instructions per
        # operation, and fewer is better; else operations per second.
        # metric=locks (make bench METRIC=locks): counted by the plugin too,
        # with each boot's critical sections in its locks.csv.
        self.locks = self.params.get("metric") == "locks"
        self.insns = self.params.get("metric") in ("insns", "locks")
        self.unit = "instructions/op" if self.insns else "ops/s"
        self.higher_is_better = not self.insns
        # PRECISION= runs: Stein's rule set the repeats after a first stage,
        # whose spread the final intervals use (stats.stein_boots).
        self.precision = read_kv(os.path.join(path, "precision"))
        self.first_n = int(self.precision["first_stage"]) if self.precision else None
        self.data = {}
        with open(os.path.join(path, "results.csv")) as f:
            rows = sorted(csv.DictReader(f), key=lambda r: int(r["repeat"]))
        self.hosts = sorted({r["host"] for r in rows if r.get("host")})
        if host is not None:
            if host not in self.hosts:
                raise ValueError("no boot of it was made on host '%s' (hosts: %s)" % (host, ", ".join(self.hosts)))
            rows = [r for r in rows if r.get("host") == host]
            self.name = "%s@%s" % (self.name, host)
            self.env = dict(self.env, **self.host_env())
        self.first_repeat = {}  # arm: its first repeat (on this host)
        for r in rows:
            self.first_repeat.setdefault(r["arm"], int(r["repeat"]))
        self.n_repeats = len({r["repeat"] for r in rows})  # (on this host)
        for r in rows:
            key = (r["arm"], r["phase"], int(r["threads"]))
            # (ops_per_s has the precision: elapsed_s is rounded to ms)
            v = 1e9 / float(r["ops_per_s"]) if self.insns else float(r["ops_per_s"])
            self.data.setdefault(key, []).append(v)
        self.threads = sorted({t for (_a, _p, t) in self.data})
        self.phases = [ph for ph in ALL_PHASES if any(p == ph for (_a, p, _t) in self.data)]
        # The run's env is written when it ends: its start is its first boot's.
        boots = os.path.join(path, "boots")
        dates = [read_kv(os.path.join(boots, b, "env")).get("date")
                 for b in (sorted(os.listdir(boots)) if os.path.isdir(boots) else [])]
        if any(dates):
            self.env = dict(self.env, date=min(d for d in dates if d))

    def host_env(self):
        """This host's facts (host-env, written there by vm/boot-job.sh),
        which replace the preparing host's in the run's env."""
        boots = os.path.join(self.path, "boots")
        for b in sorted(os.listdir(boots)):
            if sshlogin(os.path.join(boots, b)) == self.host:
                e = read_kv(os.path.join(boots, b, "host-env"))
                if e.get("host_cpus", "").isdigit() and self.env.get("vcpus", "").isdigit():
                    e["overcommit"] = "%.2f" % (int(self.env["vcpus"]) / int(e["host_cpus"]))
                return dict(e, sshlogin=self.host)
        return {"sshlogin": self.host}

    def work(self):
        """What one measurement did: fixed files per thread, or (older
        runs) a time per phase."""
        p = self.params
        if "files_per_thread" in p:
            return "%s files per thread" % p["files_per_thread"]
        return "%s s per phase" % p.get("duration_s")

    def lockdep_kernels(self):
        """The run's kernels built with lockdep (their .config in
        provenance/): their rates are slowed by it and compare with nothing."""
        return [k for k in self.params.get("kernels", "").split()
                if "CONFIG_LOCKDEP=y" in read_lines(os.path.join(self.path, "provenance", k + ".config"))]

    def lock_stats(self):
        """inode_hash_lock's lock statistics from each LOCK_STAT kernel's
        first boot, per workload and thread count: [{kernel, workload,
        threads, acquisitions, contentions, wait_s, ops, busy_s}], where ops
        and busy_s (elapsed time x threads) are the workload's phases'."""
        out = []
        for arm in [a for a in self.arms if not a.endswith("-aa")]:
            rep = str(self.first_repeat.get(arm, 1))
            guest = os.path.join(self.path, "boots", "%s-r%s" % (arm, rep), "guest")
            if not os.path.isdir(guest):
                continue
            with open(os.path.join(self.path, "results.csv")) as f:
                rows = [r for r in csv.DictReader(f) if r["arm"] == arm and r["repeat"] == rep]
            for name in sorted(os.listdir(guest)):
                m = re.match(r"lock_stat-inode_hash_lock-(\d+)-(\w+)\.txt$", name)
                if not m:
                    continue
                t, w = int(m.group(1)), m.group(2)
                f = next((line.split(":", 1)[1].split() for line in read_lines(os.path.join(guest, name))
                          if line.strip().startswith("inode_hash_lock:")), None)
                if not f or len(f) < 8:
                    continue
                mine = [r for r in rows if int(r["threads"]) == t and r["phase"] in WORKLOAD_PHASES[w]]
                out.append({"kernel": arm, "workload": w, "threads": t, "contentions": int(f[1]),
                            "wait_s": float(f[4]) * 1e-6, "acquisitions": int(f[7]),
                            "ops": sum(int(r["ops"]) for r in mine),
                            "busy_s": sum(float(r["elapsed_s"]) for r in mine) * t})
        return out

    def spin_turns(self):
        """{(arm, phase, threads): [pause instructions per operation, a
        value per boot]} from the boots the counting plugin counted (their
        insns.txt: "mark ID VCPU TOTAL PAUSES ..."); the k-th marked
        interval is the k-th BENCH line's, the pairing the bench's boot parser
        checked when it recorded the boot."""
        out = {}
        boots = os.path.join(self.path, "boots")
        for name in sorted(os.listdir(boots)) if os.path.isdir(boots) else []:
            m = re.match(r"(.+)-r(\d+)$", name)
            marks = [ln.split() for ln in read_lines(os.path.join(boots, name, "insns.txt"))
                     if ln.startswith("mark ")]
            if not m or m.group(1) not in self.arms or not marks:
                continue
            starts = [int(f[4]) for f in marks if f[1] == "1"]
            ends = [int(f[4]) for f in marks if f[1] == "2"]
            lines = [dict(kv.split("=", 1) for kv in ln.split()[1:])
                     for ln in read_lines(os.path.join(boots, name, "guest", "bench.txt")) if ln.startswith("BENCH ")]
            for b, s, e in zip(lines, starts, ends):
                out.setdefault((m.group(1), b["phase"], int(b["threads"])), []).append((e - s) / int(b["ops"]))
        return out

    def critical_sections(self):
        """Every boot's locks.csv rows (its critical sections), each with its arm,
        kernel and repeat; numbers as numbers."""
        out = []
        boots = os.path.join(self.path, "boots")
        for name in sorted(os.listdir(boots)) if os.path.isdir(boots) else []:
            m = re.match(r"(.+)-r(\d+)$", name)
            path = os.path.join(boots, name, "locks.csv")
            if not m or m.group(1) not in self.arms or not os.path.exists(path):
                continue
            with open(path) as f:
                for r in csv.DictReader(f):
                    r.update(arm=m.group(1), kernel=m.group(1).replace("-aa", ""), repeat=int(m.group(2)))
                    for k in ("threads", "ops", "acquisitions", "instances", "shared_instances", "unpaired",
                              "acq_per_op", "hold_mean", "hold_max", "wait_total"):
                        try:
                            r[k] = float(r[k])
                        except (KeyError, TypeError, ValueError):
                            r[k] = None
                    out.append(r)
        return out

    def samples(self, arm, phase, threads):
        return self.data.get((arm, phase, threads), [])

    def profiles(self):
        pdir = os.path.join(self.path, "profiles")
        if not os.path.isdir(pdir):
            return []
        return [Profile(os.path.join(pdir, k, "guest"), k) for k in sorted(os.listdir(pdir))
                if os.path.isdir(os.path.join(pdir, k, "guest"))
                and (self.host is None or sshlogin(os.path.join(pdir, k)) == self.host)]

    def per_host(self):
        """The run as it is read: itself, or one view per host for a run
        made on several."""
        if not self.hosts or self.host is not None:
            return [self]
        return [BenchRun(self.path, h) for h in self.hosts]


class TortureRun:
    kind = "torture"

    def __init__(self, path):
        self.path, self.name = path, os.path.basename(path)
        self.scenarios = []
        for d in sorted(os.listdir(path)):
            s = read_kv(os.path.join(path, d, "summary"))
            if s:
                s["base"] = re.sub(r"\.[0-9]+$", "", s.get("scenario", d))
                self.scenarios.append(s)
        envs = [read_kv(os.path.join(path, d, "env")) for d in sorted(os.listdir(path))]
        self.env = dict(next((e for e in envs if e), {}))
        self.env["date"] = min((e["date"] for e in envs if e.get("date")), default="?")
        self.env["vcpus"] = " ".join(sorted({s.get("vcpus", "?") for s in self.scenarios}, key=_num))
        self.env["overcommit"] = " ".join(sorted({e.get("overcommit", "?") for e in envs if e}, key=_num))
        # Scenarios packed onto the host together (make torture CPUS=):
        # "BATCH INSTANCE VCPUS" lines; a run before packing has none.
        batches = {}
        try:
            with open(os.path.join(path, "batches")) as f:
                batches = dict((w[1], w[0]) for w in (line.split() for line in f) if len(w) == 3)
        except OSError:
            pass
        size = {}
        for b in batches.values():
            size[b] = size.get(b, 0) + 1
        self.packed = {inst for inst, b in batches.items() if size[b] > 1}

    def rates(self):
        """{(torture_type, vcpus, long_hold): {side: [acquisitions/s per
        boot]}}, from the scenarios that were meant to succeed and did.
        long_hold is locktorture's hold policy: -1 (each type its own
        delays, the default and every run before it was recorded) or N ms.
        A scenario that booted beside others (packed) shared the host's
        CPUs with them: its rate depends on its neighbours, so it has none."""
        out = {}
        for s in self.scenarios:
            if (s.get("expect") != "SUCCESS" or not s.get("judgement", "").startswith("PASS")
                    or not s.get("vcpus", "").isdigit() or s.get("scenario") in self.packed):
                continue
            key = (s["torture_type"], int(s["vcpus"]), int(s.get("long_hold", -1)))
            for side in SIDES:
                v = float(s.get(side + "_per_s", 0) or 0)
                if v > 0:
                    out.setdefault(key, {}).setdefault(side, []).append(v)
        return out


def _num(s):
    try:
        return float(s)
    except ValueError:
        return math.inf


def find_runs(results, names):
    """The runs of these names; a bench run made on several hosts comes as
    one run per host, RUN@HOST, and RUN@HOST names one of them."""
    runs = []
    for name in names:
        name, _at, host = name.partition("@")
        if host:
            path = os.path.join(results, "bench", name)
            try:
                runs.append(BenchRun(path, host))
            except (OSError, KeyError, ValueError) as e:
                raise RunError("no bench run '%s@%s': %s" % (name, host, e))
            continue
        if name.endswith(".partial"):
            raise RunError("run '%s' is incomplete (.partial): it is never reported" % name)
        found = [os.path.join(results, k, name) for k in KINDS
                 if os.path.isdir(os.path.join(results, k, name))]
        if not found:
            raise RunError("no run '%s' in %s/{%s}" % (name, results, ",".join(KINDS)))
        run = load_run(found[0])
        runs += run.per_host() if run.kind == "bench" else [run]
    return runs


def all_runs(results):
    names = []
    for k in KINDS:
        d = os.path.join(results, k)
        if os.path.isdir(d):
            names += [n for n in sorted(os.listdir(d))
                      if not n.endswith(".partial") and os.path.isdir(os.path.join(d, n))]
    return names


class KcsanRun(TortureRun):
    """A torture run on the KCSAN kernel (flavour torture-kcsan), kept
    apart from the torture runs: its verdicts answer whether KCSAN sees a
    data race, not whether the lock held.  races() groups KCSAN's reports
    by their two accesses: kind, size and the function of each (the first
    frame of its stack), e.g. "write 8 B in six_unlock_intent / read 8 B
    in six_optimistic_spin", with how many reports and which scenarios."""
    kind = "kcsan"
    ACCESS = re.compile(r"((?:read|write|read-write)(?: \(marked\))?(?: \(reordered\))?) to "
                        r"0x[0-9a-f]+ of (\d+) bytes")
    FRAME = re.compile(r"\]\s+([A-Za-z0-9_.]+)\+0x")
    # Only six.c and locktorture.c are instrumented, so each access is in
    # one of their functions; frames above it on a stalled watcher's stack
    # are often stale (mark_lock, desc_read), so the first of theirs names it.
    OURS = re.compile(r"six|torture")

    def _frame(self, lines, j):
        for k in range(j + 1, min(j + 25, len(lines))):
            f = self.FRAME.search(lines[k])
            if not f:
                break
            if self.OURS.search(f.group(1)):
                return f.group(1)
        return "?"

    def races(self):
        out = {}
        for s in self.scenarios:
            name = s.get("scenario", "?")
            lines = read_lines(os.path.join(self.path, name, "console.log"))
            for i, line in enumerate(lines):
                if "BUG: KCSAN:" not in line:
                    continue
                sides = []
                for j in range(i + 1, min(i + 60, len(lines))):
                    if "=====" in lines[j]:
                        break
                    m = self.ACCESS.search(lines[j])
                    if m:
                        sides.append("%s %s B in %s" % (m.group(1), m.group(2), self._frame(lines, j)))
                        if "unknown origin" in lines[j]:
                            sides.append("a write of unknown origin (the value changed)")
                title = " / ".join(sides) or line.split("BUG: KCSAN: ", 1)[1].strip()
                n, where = out.get(title, (0, []))
                out[title] = (n + 1, where if name in where else where + [name])
        return out


class CoverageRun:
    """A make torture-coverage run: six.c's coverage summed over the boots
    of its torture run (coverage.txt), what no boot ran (uncovered.txt),
    and the torture run itself, whose scenarios give the environment."""
    kind = "coverage"

    def __init__(self, path):
        self.path, self.name = path, os.path.basename(path)
        self.coverage = read_kv(os.path.join(path, "coverage.txt"))
        if not self.coverage:
            raise ValueError("no coverage.txt")
        self.uncovered = read_lines(os.path.join(path, "uncovered.txt"))
        self.torture = TortureRun(os.path.join(path, "torture"))
        self.env = self.torture.env
        self.scenarios = self.torture.scenarios


class MutantRun:
    """A run of the mutant gate: per mutant its header (from the patch the
    run kept), its outcome, and the run's score."""
    kind = "mutants"

    def __init__(self, path):
        self.path, self.name = path, os.path.basename(path)
        self.score = read_kv(os.path.join(path, "score"))
        if not self.score:
            raise ValueError("no score")
        self.mutants = []
        for f in sorted(os.listdir(path)):
            if f.endswith(".outcome"):
                m = read_kv(os.path.join(path, f))
                m["header"], m["text"] = mutant_header(
                    os.path.join(path, m["mutant"], "provenance", "extra.patch"))
                self.mutants.append(m)
        envs = []
        for m in self.mutants:
            d = os.path.join(path, m["mutant"])
            for s in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                e = read_kv(os.path.join(d, s, "env"))
                if e:
                    envs.append(e)
        self.env = dict(envs[0]) if envs else {}
        self.env["date"] = min((e["date"] for e in envs if e.get("date")), default="?")
        self.env["vcpus"] = " ".join(sorted({e.get("vcpus", "?") for e in envs}, key=_num))
        self.env["overcommit"] = " ".join(sorted({e.get("overcommit", "?") for e in envs}, key=_num))


def mutant_header(path):
    """The "Key: value" lines of a mutant patch and the paragraph after them."""
    head, text = {}, []
    try:
        lines = open(path).read().split("\n")
    except OSError:
        return head, ""
    i = 0
    while i < len(lines) and lines[i]:
        k, sep, v = lines[i].partition(": ")
        if sep:
            head[k] = v
        i += 1
    for line in lines[i + 1:]:
        if not line or line.startswith("diff --git"):
            break
        text.append(line)
    return head, " ".join(text)


def load_run(path):
    try:
        kind = os.path.basename(os.path.dirname(path))
        if kind == "bench":
            return BenchRun(path)
        if kind == "mutants":
            return MutantRun(path)
        if kind == "coverage":
            return CoverageRun(path)
        if kind == "kcsan":
            return KcsanRun(path)
        return TortureRun(path)
    except (OSError, KeyError, ValueError) as e:
        raise RunError("run %s is unreadable: %s" % (path, e))


# ---------------------------------------------------------------- the guest

def guest_facts(run, kernel):
    """How a kernel's guest behaved in a bench run, read from its first
    boot (console, guest-env.txt written by /init, idle ticks) and its
    profile boot: what decides whether the guest is like hardware for this
    benchmark.  Values an older run did not record are None."""
    boot = os.path.join(run.path, "boots", kernel + "-r1")
    console = read_lines(os.path.join(boot, "console.log"))
    env = read_kv(os.path.join(boot, "guest", "guest-env.txt"))
    facts = {"clocksource": None, "crng_s": None, "hypervisor": env.get("hypervisor_bit"),
             "idle_ticks": read_text(os.path.join(boot, "guest", "idle-ticks-per-cpu-s.txt")) or None,
             "get_random": None, "read_hpet": None, "spin_events": None}
    for line in console:
        m = re.search(r"clocksource: Switched to clocksource (\S+)", line)
        if m:
            facts["clocksource"] = m.group(1)
        m = re.match(r"\[ *([0-9.]+)\] random: crng init done", line)
        if m and facts["crng_s"] is None:
            facts["crng_s"] = float(m.group(1))
    if console and facts["crng_s"] is None:
        facts["crng_s"] = "never"
    guest = os.path.join(run.path, "profiles", kernel, "guest")
    report = read_lines(os.path.join(guest, "perf-report.txt"))
    if report:
        for sym, key in (("_get_random_bytes", "get_random"), ("read_hpet", "read_hpet")):
            facts[key] = sum(float(m.group(1)) for m in
                             (re.match(r"\s+([0-9.]+)%\s+\[[kK.]\]\s+" + re.escape(sym) + r"\s", ln)
                              for ln in report) if m)
    if os.path.exists(os.path.join(guest, "perf-lock-contention.txt")):
        facts["spin_events"] = sum(c["contended"] for c in Profile(guest, kernel).contention
                                   if c["type"].startswith("spinlock"))
    return facts


# ---------------------------------------------------------------- profiles

def seconds(text):
    """perf lock's '1.15 m', '43.74 s', '840.34 ms', '55.72 us', '0 ns'."""
    v, unit = text.split()
    return float(v) * {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[unit]


class Profile:
    """What one profile boot saw at the top thread count."""

    def __init__(self, guest, kernel):
        self.kernel, self.guest = kernel, guest
        # Percentages of all samples: symbols (by symbol), idle, busy,
        # slowpath, hash_path_pct (the slow path under inode-hash functions).
        self.symbols, self.idle, self.hash_path_pct, self.callers = {}, 0.0, None, []
        self._callchains(os.path.join(guest, "perf-report-callchains.txt"))
        self.slowpath = self.symbols.get("queued_spin_lock_slowpath", 0.0)
        self.busy = 100.0 - self.idle
        self.has_hash_lock = read_text(os.path.join(guest, "kallsyms-inode_hash_lock.txt")) == "1"
        # ext4's features in this boot (None: not recorded, older runs)
        features = read_text(os.path.join(guest, "fs-features.txt"))
        self.orphan_file = ("orphan_file" in features.split()) if features else None
        self.fs_mark = None
        for line in read_lines(os.path.join(guest, "fs_mark.txt")):
            f = line.split()
            if len(f) >= 5 and f[0].isdigit():
                self.fs_mark = float(f[3])
        # trace-cmd's lock:contention_* summary (trace-contention.txt)
        self.traced = []
        for line in read_lines(os.path.join(guest, "trace-contention.txt"))[1:]:
            f = line.split()
            if len(f) == 5:
                self.traced.append({"waits": int(f[0]), "wait_s": float(f[1]), "max_s": float(f[2]),
                                    "lock": f[3], "caller": f[4]})
        self.contention = []
        for line in read_lines(os.path.join(guest, "perf-lock-contention.txt")):
            m = re.match(r"\s*(\d+)\s+([0-9.]+ \w+)\s+([0-9.]+ \w+)\s+([0-9.]+ \w+)\s+(\S+)\s+(\S+)", line)
            if m:
                self.contention.append({"contended": int(m.group(1)), "wait_s": seconds(m.group(2)),
                                        "type": m.group(5), "caller": m.group(6)})

    def _callchains(self, path):
        """Flat shares of perf's caller graph, which entry is the idle loop
        (its chain runs through do_idle), and the part of the spinlock slow
        path reached from the inode hash lock's callers."""
        sym, block = None, []
        for line in read_lines(path) + ["    0.00%  [k] END"]:
            m = re.match(r"\s+([0-9.]+)%\s+\[[kK.]\]\s+(\S+)", line)
            if not m:
                block.append(line)
                continue
            if sym and any("do_idle" in b for b in block):
                self.idle += self.symbols[sym]
            if sym == "queued_spin_lock_slowpath":
                self.hash_path_pct, self.callers = hash_lock_share(block, self.symbols[sym])
            sym, block = m.group(2), []
            self.symbols[sym] = self.symbols.get(sym, 0.0) + float(m.group(1))


def hash_lock_share(block, whole):
    """(share, callers) of the spinlock slow path's caller graph below its
    entry: share, the part of all samples under the inode cache's hash
    functions, None when perf listed no caller (all under its threshold);
    callers, [(share, name)] of the first-level callers, largest first.
    A branch counts once, at its first hash function: the callers above it
    in the same branch are the same samples."""
    share, stack, branches = 0.0, [], []  # stack: [indent, share, counted]
    for line in block:
        m = re.search(r"--([0-9.]+)%--(\S+)", line) or re.search(r"---(\S+)", line)
        if m:
            while stack and stack[-1][0] >= m.start():
                stack.pop()
            part = float(m.group(1)) if m.lastindex == 2 else (stack[-1][1] if stack else whole)
            stack.append([m.start(), part, any(b[2] for b in stack)])
            name = m.group(m.lastindex)
            branches.append((m.start(), part, name))
        else:
            name = line.strip(" |")
            if not name or not stack:
                continue
        if name in INODE_HASH_FUNCS and not stack[-1][2]:
            share += stack[-1][1]
            stack[-1][2] = True
    if not branches:
        return None, []
    top = min(b[0] for b in branches)
    return share, sorted(((p, n) for i, p, n in branches if i == top), reverse=True)


def read_lines(path):
    try:
        return open(path).read().splitlines()
    except OSError:
        return []


def read_text(path):
    return "\n".join(read_lines(path)).strip()


def vcpu_arms(run):
    """The arms KERNEL@N of a bench run whose KERNEL is an arm too: the same
    kernel booted with N vCPUs instead of the run's, interleaved with it."""
    return [a for a in run.arms if "@" in a and not a.endswith("-aa") and a.split("@")[0] in run.arms]


def bench_pairs(run):
    """(title, base arm, new arm) for each comparison a bench run holds: the
    report's tables and plots and PRECISION= use this one grid."""
    arms = run.arms
    pairs = []
    if "bench-global" in arms and "bench-hashbl" in arms:
        pairs.append(("bench-hashbl vs bench-global: the hash-bl inode cache (patches 20-22)",
                      "bench-global", "bench-hashbl"))
    if "vanilla" in arms and "bench-hashbl" in arms:
        pairs.append(("bench-hashbl vs vanilla: the whole series (whole-series regression check)",
                      "vanilla", "bench-hashbl"))
    for a in vcpu_arms(run):
        k, n = a.split("@")
        pairs.append(("%s vs %s: the same kernel at %s vCPUs against %s (what the vCPUs cost, "
                      "interleaved)" % (a, k, n, run.params.get("vcpus")), k, a))
    aa = [a for a in arms if a.endswith("-aa")]
    for a in aa:
        pairs.append(("A/A: %s vs %s booted again (calibration: nothing changed)" % (a[:-3], a[:-3]),
                      a[:-3], a))
    return pairs
