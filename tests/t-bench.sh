#!/bin/sh
# Test group "bench": bad input is refused before anything boots; a test-sized
# make bench runs the whole pipeline (a kernel and its A/A arm boot, numbers
# are produced and parsed, profiles and fs_mark run); the two kernels of the
# comparison differ in the code under test; an interrupted run is never taken
# for a result.  No check asks that a number be large: benchmarks measure,
# tests check behaviour.
#
# Only bench-global is built and booted.  bench-hashbl changes
# include/linux/fs.h, so a whole build of it after bench-global recompiles
# 846 objects (measured 2026-12-03); here only its fs/inode.o is
# compiled.  Its tree is the torture kernel's (the full series), which the
# torture groups boot.  LAB_TEST_BENCH_KERNELS="bench-global bench-hashbl"
# runs the test-sized make bench on both.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"

B=$LAB_ROOT/bench/run.sh
K=${LAB_TEST_BENCH_KERNELS:-bench-global}
o=$TEST_OUT/bench
rm -rf "$o"
mkdir -p "$o"

expect_exit 2 "make bench refuses VCPUS=0" "$B" -c 0 -o "$o" -r bad
expect_exit 2 "make bench refuses VCPUS=abc" "$B" -c abc -o "$o" -r bad
expect_exit 2 "make bench refuses more vCPUs than QEMU allows (VCPUS=300)" "$B" -c 300 -o "$o" -r bad
expect_exit 2 "make bench refuses a missing kernel flavour" "$B" -c 2 -k "bench-global no-such-kernel" -o "$o" -r bad
expect_exit 2 "make bench refuses REPEATS=0" "$B" -c 2 -n 0 -o "$o" -r bad
expect_exit 2 "make bench refuses FILES=0" "$B" -c 2 -f 0 -o "$o" -r bad
expect_exit 2 "make bench refuses an unknown workload" "$B" -c 2 -w "create nope" -o "$o" -r bad
expect_exit 2 "make bench refuses an arm KERNEL@N with a bad vCPU count (bench-global@0)" "$B" -c 2 -k "bench-global bench-global@0" -o "$o" -r bad
expect_exit 2 "make bench refuses an arm named twice" "$B" -c 2 -k "bench-global bench-global" -o "$o" -r bad
expect_exit 2 "make bench without VCPUS says how to call it" make -s -C "$LAB_ROOT" bench
# Before any build or boot: files that would not fit the guest's ext4 are
# refused (its -N 200000 inodes: 32 threads x 6300 files do not fit, the
# default 4000 do), and the plan line gives an ETA in minutes.
expect_exit 2 "make bench refuses FILES beyond the guest's inodes before any boot (32 x 6300)" \
	"$B" -c 32 -f 6300 -o "$o" -r bad -D
expect_exit 0 "make bench takes the largest FILES that fits (32 x 4000)" "$B" -c 32 -o "$o" -r bad -D
"$B" -c 32 -A -o "$o" -r plan -D >"$o/plan.log" 2>&1
expect_grep 'bench: plan: METRIC=locks, 9 boots .*: about [0-9]+ min' "$o/plan.log" \
	"make bench VCPUS=32 on 2 host CPUs plans to count critical sections, with an ETA before the first boot"
expect_grep 'time-sliced 16x' "$o/plan.log" "... and says first what an overcommitted host can and cannot show"
[ ! -e "$o/plan" ] && [ ! -e "$o/plan.partial" ] && pass "... and a plan alone (-D) makes no run" ||
	fail "bench/run.sh -D made a run directory"
expect_exit 2 "METRIC=locks refuses more than 2 threads" "$B" -c 2 -L -t "1 4" -o "$o" -r bad -D
echo lab-a >"$o/hosts"
expect_exit 2 "METRIC=insns with 2 vCPUs refuses HOSTS= (its TCG plugin is built here only)" "$B" -i -c 2 -H "$o/hosts" -o "$o" -r bad
[ ! -e "$o/bad" ] && [ ! -e "$o/bad.partial" ] && pass "refused bench runs leave no results" ||
	fail "a refused bench run left results"

# The whole pipeline, test-sized: 2 vCPUs, 1 and 3 threads (3 > VCPUS: warned).
"$B" -c 2 -t "1 3" -n 1 -f 200 -w "create shared walk fsmark" -k "$K" -o "$o" -r smoke >"$o/smoke.log" 2>&1
r=$o/smoke
if [ -d "$r" ]; then
	pass "a test-sized bench run completes with $K and the A/A arm"
else
	fail "the test-sized bench run did not complete; see $o/smoke.log"
fi
expect_grep 'WARNING: THREADS=3 is above VCPUS=2' "$o/smoke.log" "THREADS above VCPUS is warned about"
for arm in $K bench-global-aa; do
	for t in 1 3; do
		for phase in create lookup unlink shared-create shared-lookup shared-unlink walk fsmark; do
			expect_grep "^$arm,[a-z-]+,1,$t,$phase,[1-9][0-9]*,[0-9.]+,[0-9.]+," "$r/results.csv" \
				"results.csv: $arm, $t threads, $phase parsed"
		done
	done
done
[ "$(cat "$r/profiles/bench-global/guest/kallsyms-inode_hash_lock.txt")" = 1 ] &&
	pass "bench-global has the global inode_hash_lock (read in the guest)" || fail "bench-global lacks inode_hash_lock"
# The other kernel of the comparison: hash-bl's fs/inode.o has no
# inode_hash_lock, where bench-global's has it.
check "bench-hashbl's fs/inode.o compiles" "$LAB_ROOT/vm/build-kernel.sh" bench-hashbl fs/inode.o
hashlock() { nm "$LAB_BUILD/out/$1/fs/inode.o" 2>/dev/null | grep -cw inode_hash_lock; }
[ "$(hashlock bench-global)" = 1 ] && [ "$(hashlock bench-hashbl)" = 0 ] &&
	pass "bench-hashbl's inode cache has no inode_hash_lock (hash-bl); bench-global's has it" ||
	fail "inode_hash_lock symbols in fs/inode.o: bench-global $(hashlock bench-global), bench-hashbl $(hashlock bench-hashbl); expected 1 and 0"
for k in $K; do
	g=$r/profiles/$k/guest
	expect_grep 'cpu-clock' "$g/perf-stat.csv" "$k: perf stat ran in the guest"
	expect_grep '%.*\[k\]' "$g/perf-report.txt" "$k: perf record -g sampled the kernel"
	expect_grep 'contended +total wait' "$g/perf-lock-contention.txt" "$k: lock contention summarised from the lock:contention_* tracepoints"
	expect_grep '^ +[0-9]+ +[0-9]+ +0 +[0-9.]+ ' "$g/fs_mark.txt" "$k: fs_mark produced a result line"
	[ -s "$g/trace.dat" ] && expect_grep '^waits total_wait_s max_wait_s lock caller$' "$g/trace-contention.txt" \
		"$k: trace-cmd recorded the lock:contention_* tracepoints (trace.dat) and they were summarised" ||
		fail "$k: no trace.dat from trace-cmd; see $g/trace-cmd-record.err"
done
expect_grep '^accel=(kvm|tcg)$' "$r/env" "the run records its accelerator"
expect_grep '^vcpus=2$' "$r/env" "the run records its vCPUs"
[ -s "$r/provenance/bench-global.config" ] && [ -s "$r/provenance/patches.sha256" ] &&
	pass "the run keeps each kernel's .config and the patches' checksums" || fail "provenance incomplete"
expect_grep '^create +threads' "$r/summary.txt" "the summary table is printed"
cp -r "$r" "$o/smoke-recheck"
rm "$o/smoke-recheck/results.csv" "$o/smoke-recheck/summary.txt"
"$LAB_ROOT/bench/recheck.sh" "$o/smoke-recheck" >"$o/recheck.log" 2>&1
cmp -s "$r/results.csv" "$o/smoke-recheck/results.csv" && cmp -s "$r/summary.txt" "$o/smoke-recheck/summary.txt" &&
	pass "bench recheck re-derives results.csv and summary.txt from the boots, byte for byte" ||
	fail "bench recheck differs from the run; see $o/recheck.log"

# The guest behaves like hardware where the benchmark cares, as read in
# the guest by /init and the payload (not as the QEMU command says).
g=$r/boots/bench-global-r1/guest  # the smoke run: 3 threads, both kernels
expect_grep '^clocksource=tsc(-early)?$' "$g/guest-env.txt" "guest: the clocksource is the TSC (not HPET)"
expect_grep '^tsc_unstable=0$' "$g/guest-env.txt" "guest: the TSC was not marked unstable"
expect_grep '^hypervisor_bit=0$' "$g/guest-env.txt" \
	"guest: no hypervisor CPUID bit, so spinlocks take the native qspinlock path (no virt_spin_lock)"
expect_grep '^rdrand=1$' "$g/guest-env.txt" "guest: the CPU has RDRAND"
awk -F= '/^crng_init_done_s=/ { c = $2 } /^init_started_s=/ { i = $2 }
	END { exit !(c != "" && c + 0 < i + 0) }' "$g/guest-env.txt" &&
	pass "guest: the CRNG was seeded before /init ran" ||
	fail "guest: crng init done not before /init; see $g/guest-env.txt"
expect_grep '^nohz_idle=1$' "$g/guest-env.txt" "guest: the bench kernel idles without a tick (NO_HZ_IDLE)"
awk '{ exit !($1 < 50) }' "$g/idle-ticks-per-cpu-s.txt" 2>/dev/null &&
	pass "guest: an idle vCPU takes $(cat "$g/idle-ticks-per-cpu-s.txt") timer interrupts/s, not HZ" ||
	fail "guest: idle vCPUs still tick: $(cat "$g/idle-ticks-per-cpu-s.txt" 2>/dev/null) interrupts/s"
expect_grep 'orphan_file' "$g/fs-features.txt" "guest: the bench ext4 has orphan_file"
grep -q '^r[0-9]*-000$' "$g/toplevel.txt" 2>/dev/null && grep -q '^r[0-9]*-002$' "$g/toplevel.txt" 2>/dev/null &&
	pass "guest: per-thread directories are at the top of the file system" ||
	fail "guest: per-thread directories not at the top; see $g/toplevel.txt"
expect_grep 'global-aa/global' "$r/summary.txt" "the summary has the A/A ratio with its interval"

# METRIC=insns: two boots of one kernel (the A/A pair) under -icount must
# count the same instructions per operation to well within 1%, at every
# thread count and phase: that is what makes a 1% change between kernels
# detectable.  (Phases of 2000 operations: in one of 300, a tick's worth of
# RCU callbacks falling in or after the phase is about 1%.)
# insns_spread RUN: per phase and thread count, both arms' instructions per
# operation and their relative difference.
insns_spread() {
	/usr/bin/python3 - "$1/results.csv" <<'PY'
import csv, sys
per = {}
for r in csv.DictReader(open(sys.argv[1])):
    per.setdefault((r["phase"], int(r["threads"])), {})[r["arm"]] = 1e9 / float(r["ops_per_s"])
for (ph, t), v in sorted(per.items()):
    a, b = v["bench-global"], v["bench-global-aa"]
    print("%s/%d %.0f %.0f %.4f" % (ph, t, a, b, abs(a - b) / min(a, b)))
PY
}
# insns_agree RUN POINTS MAX: RUN has POINTS points, and at each its two
# arms' instructions per operation differ by at most MAX (a fraction).
insns_agree() {
	insns_spread "$1" >"$1.spread"
	[ "$(wc -l <"$1.spread")" = "$2" ] &&
		awk -v m="$3" '$2 < 1000 || $4 > m { bad = 1 } END { exit bad }' "$1.spread"
}
expect_insns_agree() {  # expect_insns_agree RUN POINTS MAX WHAT
	insns_agree "$1" "$2" "$3" && pass "$4" ||
		fail "$4: they disagree (phase/threads, insns/op A, A', spread): $(tr '\n' ';' <"$1.spread")"
}
# Negative control: a made-up A/A pair 5% apart at one point disagrees.
mkdir -p "$o/insns-apart"
printf '%s\n' arm,kernel,repeat,threads,phase,ops,elapsed_s,ops_per_s,min_thread_ops,max_thread_ops \
	bench-global,bench-global,1,1,create,2000,0.04,50000.0,2000,2000 \
	bench-global-aa,bench-global,1,1,create,2000,0.042,47619.0,2000,2000 >"$o/insns-apart/results.csv"
! insns_agree "$o/insns-apart" 1 0.03 &&
	pass "negative control: instruction counts 5% apart fail the 3% agreement check" ||
	fail "negative control: counts 5% apart passed; see $o/insns-apart.spread"
"$B" -i -c 1 -n 1 -f 2000 -w create -k bench-global -o "$o" -r insns >"$o/insns.log" 2>&1
ri=$o/insns
expect_grep '^metric=insns$' "$ri/parameters" "METRIC=insns: the run records its metric"
expect_grep '^accel=tcg-icount$' "$ri/boots/bench-global-r1/env" "METRIC=insns: every boot counts instructions (tcg-icount)"
expect_grep "'-seed' '1'" "$ri/boots/bench-global-r1/qemu-cmd" "METRIC=insns: RDRAND is a fixed sequence (-seed)"
expect_insns_agree "$ri" 6 0.01 \
	"METRIC=insns: two boots of one kernel agree to within 1% on instructions per create, lookup and unlink, at 1 and 2 threads"

# With 2 vCPUs the TCG plugin counts instead of -icount: at one thread two
# boots agree within 3% per phase (measured: CV 0.2-0.9%).  Two threads are
# left out: waiters spin for as long as the host deschedules the holder's
# vCPU, so their counts follow the host's timing (CV up to 22% measured).
"$B" -i -c 2 -t 1 -n 1 -f 2000 -w create -k bench-global -o "$o" -r insns2 >"$o/insns2.log" 2>&1
ri=$o/insns2
expect_grep '^accel=tcg-insns$' "$ri/boots/bench-global-r1/env" "METRIC=insns with 2 vCPUs: boots count through the plugin (tcg-insns)"
expect_insns_agree "$ri" 3 0.03 \
	"METRIC=insns with 2 vCPUs: two boots of one kernel agree to within 3% on instructions per create, lookup and unlink"
cp "$ri/results.csv" "$o/insns2-results.csv"
"$LAB_ROOT/bench/recheck.sh" "$ri" >"$o/insns2-recheck.log" 2>&1 && cmp -s "$ri/results.csv" "$o/insns2-results.csv" &&
	pass "METRIC=insns with 2 vCPUs: bench-recheck remakes results.csv byte for byte from the boots' insns.txt" ||
	fail "METRIC=insns with 2 vCPUs: bench-recheck failed; see $o/insns2-recheck.log"
# Negative control of the pairing: BENCH lines whose markers are missing
# are an error, not numbers.
bad=$o/insns2-bad
rm -rf "$bad"
cp -r "$ri/boots/bench-global-r1" "$bad"
grep -v '^mark 2 ' "$ri/boots/bench-global-r1/insns.txt" | head -n 1 >"$bad/insns.txt"
"$LAB_ROOT/bench/parse-boot.sh" bench-global bench-global 1 "$bad" >"$o/insns2-bad.csv" 2>"$o/insns2-bad.err"
[ $? != 0 ] && grep -q 'parse-boot: .*insns.txt' "$o/insns2-bad.err" &&
	pass "negative control: BENCH lines without their plugin markers are an error" ||
	fail "negative control: unmarked BENCH lines were parsed; see $o/insns2-bad.err"

# METRIC=locks: the plugin traces lock acquisitions and releases, and
# bench/locks.py pairs them into critical sections per lock.  Two boots of
# one kernel (the A/A pair) must count the same sections: the global
# kernel's inode_hash_lock (the code under test) and the super block's
# inode list lock once per create (a section may be left unpaired: at
# least 99 in 100), held for the same number of instructions to within 0.5%.
LAB_KEEP_LOCK_TRACE=1 "$B" -L -c 2 -n 1 -f 200 -w create -k bench-global -o "$o" -r locks >"$o/locks.log" 2>&1
rl=$o/locks
expect_grep '^metric=locks$' "$rl/parameters" "METRIC=locks: the run records its metric"
expect_grep '^project_to=64$' "$rl/parameters" "METRIC=locks: and how far its projection goes"
expect_grep "^accel=tcg-icount$" "$rl/boots/bench-global-r1/env" "METRIC=locks: every boot counts under -icount"
# section RUN ARM CLASS FIELD: FIELD of CLASS in the 1-thread create phase.
section() {
	awk -F, -v c="$3" -v f="$4" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i }
		$1 == "create" && $2 == 1 && $4 == c { print $col[f] }' "$1/boots/$2-r1/locks.csv" 2>/dev/null
}
for cls in inode_hash_lock spin@inode_sb_list_add; do
	a=$(section "$rl" bench-global "$cls" acq_per_op) b=$(section "$rl" bench-global-aa "$cls" acq_per_op)
	ha=$(section "$rl" bench-global "$cls" hold_mean) hb=$(section "$rl" bench-global-aa "$cls" hold_mean)
	awk -v a="$a" -v b="$b" -v ha="$ha" -v hb="$hb" 'BEGIN { exit !(a >= 0.99 && a == b && ha > 0 &&
		(ha - hb) / ha < 0.005 && (hb - ha) / ha < 0.005) }' &&
		pass "METRIC=locks: $cls taken $a times a create, held $ha and $hb instructions in two boots (within 0.5%)" ||
		fail "METRIC=locks: $cls: acquisitions/create $a and $b, held $ha and $hb; see $rl"
done
u=$(section "$rl" bench-global "(all)" unpaired) n=$(section "$rl" bench-global "(all)" acquisitions)
awk -v u="$u" -v n="$n" 'BEGIN { exit !(n > 0 && u <= 0.01 * n) }' &&
	pass "METRIC=locks: every acquisition but $u of $n in the create phase has its release" ||
	fail "METRIC=locks: $u of $n acquisitions unpaired; see $rl"
expect_grep '^critical sections at one thread' "$rl/summary.txt" "METRIC=locks: the summary lists the critical sections"
# Negative control: without the releasing stores, the trace pairs nothing
# on inode_hash_lock and leaves its acquisitions unpaired.
nb=$o/locks-noreleases
rm -rf "$nb"
cp -r "$rl/boots/bench-global-r1" "$nb"
/usr/bin/python3 - "$rl/boots/bench-global-r1/locks.bin" "$nb/locks.bin" <<'PY'
import sys
import numpy as np
rec = np.dtype([("h", "V48"), ("vcpu", "u1"), ("kind", "u1"), ("t", "V6")])  # bench/locks.py's EVENT
ev = np.fromfile(sys.argv[1], dtype=rec)
ev[ev["kind"] != 2].tofile(sys.argv[2])
PY
/usr/bin/python3 "$LAB_ROOT/bench/locks.py" "$nb" "$LAB_BUILD/out/bench-global/System.map" >"$nb/locks.csv" 2>"$nb/locks.err"
if ! awk -F, '$1 == "create" && $2 == 1 && $4 == "inode_hash_lock"' "$nb/locks.csv" | grep -q . &&
	awk -F, '$1 == "create" && $2 == 1 && $4 == "(all)" { exit !($13 >= 200) }' "$nb/locks.csv"; then
	pass "negative control: a trace without its releasing stores pairs no inode_hash_lock section and leaves them unpaired"
else
	fail "negative control: sections paired without releases; see $nb/locks.csv"
fi
find "$rl" -name locks.bin -delete
cp "$rl/summary.txt" "$o/locks-summary.txt"
"$LAB_ROOT/bench/recheck.sh" "$rl" >"$o/locks-recheck.log" 2>&1 && cmp -s "$rl/summary.txt" "$o/locks-summary.txt" &&
	pass "METRIC=locks: bench-recheck remakes the summary from the stored locks.csv, byte for byte" ||
	fail "METRIC=locks: bench-recheck differs; see $o/locks-recheck.log"

# An arm KERNEL@N boots that kernel with N vCPUs, interleaved with the
# run's own vCPU count, and is compared with it like a kernel.
"$B" -c 2 -t 1 -n 1 -f 200 -w create -P -k "bench-global bench-global@4" -o "$o" -r vcpu-arm >"$o/vcpu-arm.log" 2>&1
rv=$o/vcpu-arm
grep -q "'-smp' '4'" "$rv/boots/bench-global@4-r1/qemu-cmd" 2>/dev/null &&
	grep -q "'-smp' '2'" "$rv/boots/bench-global-r1/qemu-cmd" 2>/dev/null &&
	grep -q "'-smp' '2'" "$rv/boots/bench-global-aa-r1/qemu-cmd" 2>/dev/null &&
	[ "$(grep -c '^bench-global@4,' "$rv/results.csv")" = 3 ] &&
	pass "an arm bench-global@4 boots with 4 vCPUs and the others with VCPUS=2, each with its rows" ||
	fail "an arm bench-global@4: see $o/vcpu-arm.log and $rv"
expect_grep 'global@4/global' "$rv/summary.txt" "the summary compares the 4-vCPU arm with the 2-vCPU one"

# first_guest RUNNER_PID RUN: QEMU's pid of the run's first boot, once it
# runs (empty if the runner ended first): a state, not a time.
first_guest() {
	while kill -0 "$1" 2>/dev/null && [ ! -s "$o/$2.partial/boots/bench-global-r1/qemu.pid" ]; do
		sleep 1
	done
	cat "$o/$2.partial/boots/bench-global-r1/qemu.pid" 2>/dev/null
}

# SIGINT during a boot: the runner stops its guest (checked by QEMU's own
# pid), leaves RUN.partial marked interrupted, exits 130, and the report
# refuses the run.  The signal is sent once the first guest runs, however
# long the kernels took to build: the check waits for a state, not a time.
# (env --default-signal: a background job starts with SIGINT ignored.)
env --default-signal=INT "$B" -c 2 -t 1 -n 1 -f 20000 -P -k "$K" -o "$o" -r interrupted >"$o/interrupted.log" 2>&1 &
pid=$!
qpid=$(first_guest "$pid" interrupted)
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [ -z "$qpid" ]; then
	fail "the interrupted bench run never started a guest; see $o/interrupted.log"
else
	expect_stopped "SIGINT during a bench boot" "$rc" "$qpid"
	if [ -s "$o/interrupted.partial/interrupted" ] && [ ! -e "$o/interrupted" ]; then
		pass "an interrupted bench run is left as RUN.partial, marked interrupted, never as a result"
	else
		fail "an interrupted bench run was not marked incomplete; see $o/interrupted.log"
	fi
	expect_exit 2 "make report refuses an interrupted run" \
		/usr/bin/python3 "$LAB_ROOT/report/report.py" --results "$TEST_OUT" -o "$o" interrupted.partial
	expect_exit 2 "a second run of an existing name is refused, not clobbered" \
		"$B" -c 2 -t 1 -n 1 -f 10 -P -o "$o" -r interrupted
fi

# SIGKILL of the runner: nothing can stop its guest then.  The next run in
# the same results directory finds the run whose runner is gone, stops its
# QEMU (by QEMU's own pid file) and marks it interrupted.
setsid "$B" -c 2 -t 1 -n 1 -f 20000 -P -k "$K" -o "$o" -r killed >"$o/killed.log" 2>&1 &
pid=$!
qpid=$(first_guest "$pid" killed)
kill -KILL "$pid"
wait "$pid" 2>/dev/null
if [ -z "$qpid" ] || ! kill -0 "$qpid" 2>/dev/null; then
	fail "the runner to be killed never left a running guest; see $o/killed.log"
else
	expect_exit 2 "after a SIGKILL, the next run still refuses a bad argument" "$B" -c 2 -n 0 -o "$o" -r after
	"$B" -c 2 -t 1 -n 1 -f 10 -P -k "$K" -o "$o" -r killed >"$o/after-kill.log" 2>&1
	i=0
	while kill -0 "$qpid" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.5; i=$((i + 1)); done
	if kill -0 "$qpid" 2>/dev/null; then
		fail "the guest of a SIGKILLed runner (pid $qpid) still runs after the next run started"
		kill -KILL "$qpid"
	else
		pass "the next run stops the guest that a SIGKILLed runner left running"
	fi
	expect_grep 'was gone' "$o/killed.partial/interrupted" "the SIGKILLed run is marked interrupted by the next run"
	expect_grep 'left running by a killed runner' "$o/after-kill.log" "the next run says it stopped a stale guest"
fi

# A benchmark does not share the host: while a torture run holds the host
# lock (shared), make bench is refused before anything runs.
flock -s -o "$LAB_BUILD/host.lock" sleep 30 &  # -o: the lock dies with flock, not its sleep
holder=$!
sleep 1
"$B" -c 2 -t 1 -n 1 -f 10 -P -o "$o" -r shared >"$o/shared.log" 2>&1
rc=$?
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
[ "$rc" = 1 ] && grep -q 'must have it to itself' "$o/shared.log" && [ ! -e "$o/shared.partial" ] &&
	pass "make bench refuses to share the host with a torture run, before anything runs" ||
	fail "make bench beside a torture run: exit $rc; see $o/shared.log"

# A read-only results directory: a clear error before anything is built or booted.
mkdir -p "$o/ro"
unshare -m --propagation private sh -c 'mount -t tmpfs -o ro tmpfs "$1" && exec "$2" -c 2 -o "$1" -r ro' \
	sh "$o/ro" "$B" >"$o/ro.log" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q 'cannot write results under' "$o/ro.log" && ! grep -q 'build:\|boot:' "$o/ro.log" &&
	pass "a read-only results directory is a clear error before anything builds or boots" ||
	fail "a read-only results directory: exit $rc; see $o/ro.log"
end_of_group
