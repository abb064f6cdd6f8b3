#!/bin/sh
# Test group "bench": bad input is refused before anything boots; a test-sized
# make bench runs the whole pipeline (both kernels boot, numbers are produced
# and parsed, profiles and fs_mark run, the kernels differ in the code under
# test); an interrupted run is never taken for a result.  No check asks that
# a number be large: benchmarks measure, tests check behaviour.
. "$(dirname "$0")/../vm/functions.sh"
. "$LAB_ROOT/tests/lib.sh"

B=$LAB_ROOT/bench/run.sh
o=$TEST_OUT/bench
rm -rf "$o"
mkdir -p "$o"

expect_exit 2 "make bench refuses VCPUS=0" "$B" -c 0 -o "$o" -r bad
expect_exit 2 "make bench refuses VCPUS=abc" "$B" -c abc -o "$o" -r bad
expect_exit 2 "make bench refuses more vCPUs than QEMU allows (VCPUS=300)" "$B" -c 300 -o "$o" -r bad
expect_exit 1 "make bench refuses a missing kernel flavour" "$B" -c 2 -k "bench-global no-such-kernel" -o "$o" -r bad
expect_exit 1 "make bench refuses REPEATS=0" "$B" -c 2 -n 0 -o "$o" -r bad
expect_exit 2 "make bench without VCPUS says how to call it" make -s -C "$LAB_ROOT" bench
[ ! -e "$o/bad" ] && [ ! -e "$o/bad.partial" ] && pass "refused bench runs leave no results" ||
	fail "a refused bench run left results"

# An interrupted run stays RUN.partial, and no RUN appears: once the first
# boot began, stop the run and everything it started (found by the run's
# name and directory: a process group is not reliable from a test shell).
"$B" -c 2 -t 1 -n 1 -d 1 -P -o "$o" -r interrupted >"$o/interrupted.log" 2>&1 &
pid=$!
i=0
while [ ! -d "$o/interrupted.partial/boots/bench-global-r1" ] && [ $i -lt 300 ]; do
	sleep 1
	i=$((i + 1))
done
sleep 2
pkill -TERM -f -- "-r interrupted\$|$o/interrupted\.partial"
wait "$pid"
if [ -d "$o/interrupted.partial" ] && [ ! -e "$o/interrupted" ]; then
	pass "an interrupted bench run is left as RUN.partial, never as a result"
else
	fail "an interrupted bench run was not marked incomplete; see $o/interrupted.log"
fi

# The whole pipeline, test-sized: 2 vCPUs, 1 and 3 threads (3 > VCPUS: warned).
"$B" -c 2 -t "1 3" -n 1 -d 1 -o "$o" -r smoke >"$o/smoke.log" 2>&1
r=$o/smoke
if [ ! -d "$r" ]; then
	fail "the test-sized bench run did not complete; see $o/smoke.log"
	exit 0
fi
pass "a test-sized bench run completes with both kernels and the A/A arm"
expect_grep 'WARNING: THREADS=3 is above VCPUS=2' "$o/smoke.log" "THREADS above VCPUS is warned about"
for arm in bench-global bench-hashbl bench-global-aa; do
	for t in 1 3; do
		for phase in create lookup unlink; do
			expect_grep "^$arm,[a-z-]+,1,$t,$phase,[1-9][0-9]*,[0-9.]+,[0-9.]+," "$r/results.csv" \
				"results.csv: $arm, $t threads, $phase parsed"
		done
	done
done
[ "$(cat "$r/profiles/bench-global/guest/kallsyms-inode_hash_lock.txt")" = 1 ] &&
	pass "bench-global has the global inode_hash_lock" || fail "bench-global lacks inode_hash_lock"
[ "$(cat "$r/profiles/bench-hashbl/guest/kallsyms-inode_hash_lock.txt")" = 0 ] &&
	pass "bench-hashbl has no inode_hash_lock (hash-bl)" || fail "bench-hashbl still has inode_hash_lock"
for k in bench-global bench-hashbl; do
	g=$r/profiles/$k/guest
	expect_grep 'cpu-clock' "$g/perf-stat.csv" "$k: perf stat ran in the guest"
	expect_grep '%.*\[k\]' "$g/perf-report.txt" "$k: perf record -g sampled the kernel"
	expect_grep 'contended +total wait' "$g/perf-lock-contention.txt" "$k: lock contention summarised from the lock:contention_* tracepoints"
	expect_grep '^ +[0-9]+ +[0-9]+ +0 +[0-9.]+ ' "$g/fs_mark.txt" "$k: fs_mark produced a result line"
done
expect_grep '^accel=(kvm|tcg)$' "$r/env" "the run records its accelerator"
expect_grep '^vcpus=2$' "$r/env" "the run records its vCPUs"
[ -s "$r/provenance/bench-global.config" ] && [ -s "$r/provenance/patches.sha256" ] &&
	pass "the run keeps each kernel's .config and the patches' checksums" || fail "provenance incomplete"
expect_grep '^create +threads' "$r/summary.txt" "the summary table is printed"
expect_grep 'hashbl/global' "$r/summary.txt" "the summary has the hash-bl/global ratio"
