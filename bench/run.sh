#!/bin/sh
# The inode-create benchmark: kernels compared in one run, interleaved (make bench).
# usage: bench/run.sh -c VCPUS [-t "THREADS"] [-n REPEATS] [-d DURATION_S]
#                     [-k "KERNELS"] [-s] [-P] [-r RUN] [-o DIR]
#   -c  vCPUs of every guest (required)
#   -t  thread counts (default 1 2 4 ... up to VCPUS)
#   -n  repeats of every point (default 5)
#   -d  seconds per phase: create, lookup, unlink (default 3)
#   -k  kernel flavours (default "bench-global bench-hashbl"; add vanilla)
#   -s  all threads in one shared directory (default: one per thread)
#   -P  no profile boots (perf, lock contention, fs_mark)
# Every repeat boots each kernel once, in the same order (A B A' ...), and
# sweeps every thread count in that boot; the first kernel is booted twice
# per repeat (arm "<kernel>-aa"), an A/A comparison that calibrates the
# statistics.  Then one profile boot per kernel at the top thread count.
# Output: DIR/RUN/ (results.csv, boots/, profiles/, env, provenance/,
# summary.txt); DIR/RUN.partial until complete.
. "$(dirname "$0")/../vm/functions.sh"

vcpus= threads= repeats=5 duration=3 kernels="bench-global bench-hashbl"
shared=0 profile=1 run=$(date -u +%Y%m%d-%H%M%S) dir=$LAB_ROOT/results/bench
while getopts c:t:n:d:k:sPr:o:h opt; do
	case $opt in
	c) vcpus=$OPTARG ;;
	t) threads=$OPTARG ;;
	n) repeats=$OPTARG ;;
	d) duration=$OPTARG ;;
	k) kernels=$OPTARG ;;
	s) shared=1 ;;
	P) profile=0 ;;
	r) run=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
[ -n "$vcpus" ] || die "VCPUS is required: make bench VCPUS=N"
"$LAB_ROOT/vm/check-vcpus.sh" "$vcpus" || exit 2
is_uint "$repeats" && [ "$repeats" -ge 1 ] || die "REPEATS must be a whole number from 1, not '$repeats'"
[ "$repeats" -ge 5 ] || warn "REPEATS=$repeats: fewer than 5 repeats make wide confidence intervals"
is_uint "$duration" && [ "$duration" -ge 1 ] || die "DURATION must be a whole number of seconds, not '$duration'"
if [ -z "$threads" ]; then
	t=1
	while [ "$t" -lt "$vcpus" ]; do threads="$threads $t"; t=$((t * 2)); done
	threads="$threads $vcpus"
fi
for t in $threads; do
	is_uint "$t" && [ "$t" -ge 1 ] || die "THREADS must be whole numbers from 1, not '$t'"
	[ "$t" -le "$vcpus" ] || warn "THREADS=$t is above VCPUS=$vcpus: threads will share vCPUs"
done
for k in $kernels; do
	[ -r "$LAB_ROOT/vm/flavours/$k.conf" ] ||
		die "no kernel flavour '$k' (have: $(ls "$LAB_ROOT/vm/flavours" | sed 's/\.conf$//' | paste -sd' ' -))"
done
[ ! -e "$dir/$run" ] || die "run $dir/$run exists already; choose another RUN="

for k in $kernels; do
	"$LAB_ROOT/vm/build-kernel.sh" "$k" || exit 1
done

rundir=$dir/$run.partial
rm -rf "$rundir"
mkdir -p "$rundir/boots" "$rundir/profiles"
trap 'echo; warn "interrupted: partial results stay in $rundir and are not a result"; exit 130' INT TERM
record_provenance "$rundir"
for k in $kernels; do
	cp "$LAB_BUILD/out/$k/lab-build.env" "$rundir/provenance/$k.build.env"
	cp "$LAB_BUILD/out/$k/.config" "$rundir/provenance/$k.config"
done
first=$(echo $kernels | cut -d' ' -f1)
arms="$kernels $first-aa"
nthreads=$(echo $threads | wc -w)
# Room for the RAM disk (1 GiB), the page cache and every vCPU.
mem=$((2048 + 32 * vcpus))
bench_args() {  # bench_args "THREADS...": the guest's command line for a sweep
	echo "brd.rd_nr=1 brd.rd_size=1048576 lab.threads=$(echo $1 | tr ' ' ,) lab.duration=$duration lab.shared=$shared"
}
{
	echo "vcpus=$vcpus"
	echo "threads=$threads"
	echo "repeats=$repeats"
	echo "duration_s=$duration"
	echo "kernels=$kernels"
	echo "arms=$arms"
	echo "shared_dir=$shared"
	echo "mem_mib=$mem"
	echo "order=interleaved: each repeat boots $arms in this order"
} >"$rundir/parameters"

echo "arm,kernel,repeat,threads,phase,ops,elapsed_s,ops_per_s,min_thread_ops,max_thread_ops" >"$rundir/results.csv"
nboots=$(( $(echo $arms | wc -w) * repeats + profile * $(echo $kernels | wc -w) ))
b=0
t_start=$(date +%s)
left() {  # estimated minutes left, from the boots done before this one
	awk -v b="$((b - 1))" -v n="$nboots" -v s="$(( $(date +%s) - t_start ))" \
		'BEGIN { if (b <= 0) print "?"; else printf "%d", s / b * (n - b) / 60 }'
}

boot() {  # boot KERNEL OUTDIR "THREADS..." EXTRA_ARGS
	"$LAB_ROOT/vm/run.sh" -k "$LAB_BUILD/out/$1/arch/x86/boot/bzImage" -o "$2" -c "$vcpus" \
		-m "$mem" -t $((300 + 10 * vcpus + 60 * duration * nthreads)) \
		-p "$LAB_ROOT/bench/payload" -a "$(bench_args "$3") $4" 2>"$2.log" ||
		die "boot of $1 failed: $(cat "$2/verdict" 2>/dev/null); see $2/console.log"
}

r=1
while [ "$r" -le "$repeats" ]; do
	for arm in $arms; do
		k=${arm%-aa}
		b=$((b + 1))
		progress bench "repeat $r of $repeats, $arm ($k): boot $b of $nboots, $vcpus vCPUs, threads $threads; about $(left) min left"
		d=$rundir/boots/$arm-r$r
		mkdir -p "$d"
		boot "$k" "$d" "$threads" ""
		sed -n 's/^BENCH //p' "$d/guest/bench.txt" | awk -v arm="$arm" -v k="$k" -v r="$r" '
			{
				for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
				printf "%s,%s,%d,%d,%s,%d,%s,%s,%d,%d\n", arm, k, r, v["threads"],
					v["phase"], v["ops"], v["elapsed_s"], v["ops_per_s"],
					v["min_thread_ops"], v["max_thread_ops"]
			}' >>"$rundir/results.csv"
		[ "$(grep -c '^BENCH' "$d/guest/bench.txt")" = $((3 * nthreads)) ] ||
			die "boot $d reported $(grep -c '^BENCH' "$d/guest/bench.txt") results, expected $((3 * nthreads))"
	done
	r=$((r + 1))
done

if [ "$profile" = 1 ]; then
	top=$(echo $threads | tr ' ' '\n' | tail -n 1)
	for k in $kernels; do
		b=$((b + 1))
		progress bench "profile of $k at $top threads: perf stat, perf record, perf lock, fs_mark (boot $b of $nboots); about $(left) min left"
		d=$rundir/profiles/$k
		mkdir -p "$d"
		boot "$k" "$d" "$top" "lab.profile=1"
	done
fi

"$LAB_ROOT/vm/env.sh" "$LAB_BUILD/out/$first/arch/x86/boot/bzImage" \
	"$(sed -n 's/^accel=//p' "$rundir/boots/$first-r1/env")" "$vcpus" "$mem" >"$rundir/env"
/usr/bin/python3 "$LAB_ROOT/bench/summarize.py" "$rundir" | tee "$rundir/summary.txt"
mv "$rundir" "$dir/$run"
progress bench "run complete: $dir/$run"
