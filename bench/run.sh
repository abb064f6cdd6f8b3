#!/bin/sh
# The inode-create benchmark: kernels compared in one run, interleaved (make bench).
# usage: bench/run.sh -c VCPUS [-t "THREADS"] [-n REPEATS] [-f FILES]
#                     [-w "WORKLOADS"] [-k "KERNELS"] [-i] [-W PCT [-B MIN]] [-P]
#                     [-H HOSTS_FILE] [-r RUN] [-o DIR]
#   -c  vCPUs of every guest (required), but see -k's KERNEL@N
#   -t  thread counts (default 1 2 4 ... up to VCPUS)
#   -n  repeats of every point (default 5)
#   -f  files per thread and phase: fixed work, not time (default 4000)
#   -w  workloads of inode-create (default create): create (per-thread
#       directories: create, lookup, unlink), shared (the same in one shared
#       directory: phases shared-*), walk (a cold readdir+stat walk of a
#       per-thread tree), fsmark (fs_mark in Chinner's shape: a directory
#       and FILES zero-length files per thread, phase fsmark)
#   -k  kernel flavours (default "bench-global bench-hashbl"; add vanilla);
#       an arm KERNEL@N boots KERNEL with N vCPUs instead of VCPUS, so that
#       a run compares vCPU counts interleaved, as it compares kernels
#       (-k "bench-global bench-global@32": what idle vCPUs cost)
#   -P  no profile boots (perf, lock contention, fs_mark)
#   -W  precision (make bench PRECISION=3): after the first REPEATS
#       repeats (at least 5), boot as many more as every ratio's 95%
#       interval needs to be at most +-PCT% wide (Stein's two-stage rule,
#       bench/precision.py), unless the budget runs out first
#   -B  that budget in minutes of the whole run (default 120)
#   -H  boot on the ssh hosts of HOSTS_FILE (make bench HOSTS=), through
#       GNU parallel (vm/hosts.sh): every boot is prepared here, and each
#       repeat (every kernel once, in the run's order) is booted whole on
#       one host, one repeat a host at a time; results.csv gets a host
#       column, and the report compares kernels within each host only
#   -i  count instructions instead of timing (make bench METRIC=insns):
#       at one vCPU every boot runs under single-threaded TCG with -icount
#       shift=0, where guest time is instructions executed, so a phase's
#       guest seconds per operation are instructions per operation, and
#       threads default to 1 2 (the second time-sliced on that vCPU); with
#       more vCPUs (where -icount hangs the guest) a TCG plugin counts every
#       vCPU's instructions between markers around each phase (vm/run.sh
#       -i); no profile boots; user address spaces are not randomised
#       (norandmaps), so a count repeats
# Every repeat boots each kernel once, in the same order (A B A' ...), and
# sweeps every thread count in that boot; the first kernel is booted twice
# per repeat (arm "<kernel>-aa"), an A/A comparison that calibrates the
# statistics.  Then one profile boot per kernel at the top thread count.
# Output: DIR/RUN/ (results.csv, boots/, profiles/, env, provenance/,
# summary.txt); DIR/RUN.partial until complete.
. "$(dirname "$0")/../lib/functions.sh"

vcpus= threads= repeats=5 files=4000 workloads=create kernels="bench-global bench-hashbl"
profile=1 run=$(date -u +%Y%m%d-%H%M%S) dir=$LAB_ROOT/results/bench icount= metric=rate precision= budget=120
hosts=
while getopts c:t:n:f:w:k:iW:B:PH:r:o:h opt; do
	case $opt in
	c) vcpus=$OPTARG ;;
	t) threads=$OPTARG ;;
	n) repeats=$OPTARG ;;
	f) files=$OPTARG ;;
	w) workloads=$OPTARG ;;
	k) kernels=$OPTARG ;;
	P) profile=0 ;;
	W) precision=$OPTARG ;;
	B) budget=$OPTARG ;;
	H) hosts=$OPTARG ;;
	i) icount=-i profile=0 metric=insns ;;
	r) run=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
[ -n "$vcpus" ] || die_usage "VCPUS is required: make bench VCPUS=N"
"$LAB_ROOT/vm/check-vcpus.sh" "$vcpus" || exit 2
is_uint "$repeats" && [ "$repeats" -ge 1 ] || die_usage "REPEATS must be a whole number from 1, not '$repeats'"
if [ -n "$precision" ]; then
	echo "$precision" | grep -Eq '^[0-9]+(\.[0-9]+)?$' && awk -v p="$precision" 'BEGIN { exit !(p > 0) }' ||
		die_usage "PRECISION must be a percentage above 0, not '$precision'"
	is_uint "$budget" && [ "$budget" -ge 1 ] || die_usage "MAXMIN must be a whole number of minutes from 1, not '$budget'"
	[ "$repeats" -ge 5 ] || die_usage "PRECISION needs REPEATS of at least 5 (the first stage), not $repeats"
fi
if [ -n "$hosts" ]; then
	check_hosts_file "$hosts"
	hosts=$(realpath "$hosts")
	# Stein's second stage needs the first stage's spread of one host.
	[ -z "$precision" ] || die_usage "PRECISION= and HOSTS= do not go together: the repeats a ratio needs are a host's own"
fi
[ "$repeats" -ge 5 ] || warn "REPEATS=$repeats: fewer than 5 repeats make wide confidence intervals"
is_uint "$files" && [ "$files" -ge 1 ] || die_usage "FILES must be a whole number from 1, not '$files'"
nphases=0
for w in $workloads; do
	case $w in
	create | shared) nphases=$((nphases + 3)) ;;
	walk | fsmark) nphases=$((nphases + 1)) ;;
	*) die_usage "WORKLOADS: no workload '$w' (have: create shared walk fsmark)" ;;
	esac
done
[ "$nphases" -gt 0 ] || die_usage "WORKLOADS is empty (have: create shared walk fsmark)"
# With more than one vCPU, instructions are counted by a TCG plugin built
# here (vm/run.sh -i): a remote host would not have it.
[ -z "$icount" ] || [ -z "$hosts" ] || { [ "$vcpus" = 1 ] && ! echo "$kernels" | grep -q @; } ||
	die_usage "METRIC=insns with more than one vCPU (VCPUS, or an arm KERNEL@N) does not go with HOSTS=: its TCG plugin is built on this host only"
[ -n "$threads" ] || [ -z "$icount" ] || [ "$vcpus" != 1 ] || threads="1 2"
if [ -z "$threads" ]; then
	t=1
	while [ "$t" -lt "$vcpus" ]; do threads="$threads $t"; t=$((t * 2)); done
	threads="$threads $vcpus"
fi
for t in $threads; do
	is_uint "$t" && [ "$t" -ge 1 ] || die_usage "THREADS must be whole numbers from 1, not '$t'"
	[ "$t" -le "$vcpus" ] || warn "THREADS=$t is above VCPUS=$vcpus: threads will share vCPUs"
done
for k in $kernels; do
	[ -r "$LAB_ROOT/vm/flavours/${k%@*}.conf" ] ||
		die_usage "no kernel flavour '${k%@*}' (have: $(ls "$LAB_ROOT/vm/flavours" | sed 's/\.conf$//' | paste -sd' ' -))"
	case $k in *@*) "$LAB_ROOT/vm/check-vcpus.sh" "${k##*@}" || exit 2 ;; esac
done
[ "$(echo $kernels | tr ' ' '\n' | sort -u | wc -l)" = "$(echo $kernels | wc -w)" ] ||
	die_usage "KERNELS names an arm twice: '$kernels'"
# A benchmark has the host to itself.  (Stale guests of a killed run hold the
# host lock too: reap them first.)
reap_stale_runs "$dir"
host_lock exclusive
run_create "$dir" "$run"
rundir=$run_dir
mkdir -p "$rundir/boots" "$rundir/profiles"

for k in $(echo $kernels | tr ' ' '\n' | sed 's/@.*//' | sort -u); do
	run_child "$LAB_ROOT/vm/build-kernel.sh" "$k" || exit 1
done

record_provenance "$rundir"
for k in $kernels; do  # per arm: a KERNEL@N arm gets KERNEL's
	cp "$LAB_BUILD/out/${k%@*}/lab-build.env" "$rundir/provenance/$k.build.env"
	cp "$LAB_BUILD/out/${k%@*}/.config" "$rundir/provenance/$k.config"
done
first=$(echo $kernels | cut -d' ' -f1)
arms="$kernels $first-aa"
nthreads=$(echo $threads | wc -w)
# Room for the RAM disk (1 GiB), the page cache and every vCPU.
guest_mem() { echo $((2048 + 32 * $1)); }
mem=$(guest_mem "$vcpus")
arm_vcpus() {  # arm_vcpus ARM: the vCPUs it boots with (KERNEL@N: N)
	case $1 in *@*) echo "${1##*@}" ;; *) echo "$vcpus" ;; esac
}
bench_args() {  # bench_args "THREADS...": the guest's command line for a sweep
	echo "brd.rd_nr=1 brd.rd_size=1048576 lab.threads=$(echo $1 | tr ' ' ,) lab.files=$files lab.workloads=$(echo $workloads | tr ' ' ,)${icount:+ norandmaps}"
}
{
	echo "vcpus=$vcpus"
	echo "threads=$threads"
	echo "repeats=$repeats"
	echo "files_per_thread=$files"
	echo "workloads=$workloads"
	echo "kernels=$kernels"
	echo "arms=$arms"
	echo "mem_mib=$mem"
	echo "order=interleaved: each repeat boots $arms in this order"
	echo "metric=$metric"
	[ -z "$hosts" ] || echo "hosts=hosts"
	[ -z "$precision" ] || echo "precision_pct=$precision budget_min=$budget first_stage=$repeats" | tr ' ' '\n'
} >"$rundir/parameters"

"$LAB_ROOT/bench/parse-boot.sh" -H ${hosts:+host} >"$rundir/results.csv"
nboots=$(( $(echo $arms | wc -w) * repeats + profile * $(echo $kernels | wc -w) ))
b=0
t_start=$(date +%s)
left() {  # estimated minutes left, from the boots done before this one
	awk -v b="$((b - 1))" -v n="$nboots" -v s="$(( $(date +%s) - t_start ))" \
		'BEGIN { if (b <= 0) print "?"; else printf "%d", s / b * (n - b) / 60 }'
}

# A boot's time limit: generous for 100 operations a second (a 32-vCPU TCG
# guest on 2 cores did 250 creates/s at worst).
ops=0
for t in $threads; do ops=$((ops + t * files * nphases)); done
dry=
boot() {  # boot KERNEL[@N] OUTDIR "THREADS..." EXTRA_ARGS [OPERATIONS]
	c=$(arm_vcpus "$1")
	run_child "$LAB_ROOT/vm/run.sh" $icount $dry -k "$LAB_BUILD/out/${1%@*}/arch/x86/boot/bzImage" -o "$2" -c "$c" \
		-m "$(guest_mem "$c")" -t $((300 + 10 * c + ${5:-$ops} / 100)) \
		-p "$LAB_ROOT/bench/payload" -a "$(bench_args "$3") $4" >"$2.log" 2>&1 ||
		die "boot of $1 failed: $(cat "$2/verdict" 2>/dev/null); see $2/console.log"
}
# record ARM REPEAT: the results.csv rows of that arm's boot in that repeat.
record() {
	d=$rundir/boots/$1-r$2
	[ "$(cat "$d/verdict" 2>/dev/null)" = PASS ] ||
		die "boot $d on $(boot_sshlogin "$d" 2>/dev/null): $(cat "$d/verdict" 2>/dev/null); see its console.log"
	"$LAB_ROOT/bench/parse-boot.sh" "$1" "${1%-aa}" "$2" "$d" ${hosts:+"$(boot_sshlogin "$d")"} \
		>>"$rundir/results.csv" || die "could not parse $d"
	[ "$(grep -c '^BENCH' "$d/guest/bench.txt")" = $((nphases * nthreads)) ] ||
		die "boot $d reported $(grep -c '^BENCH' "$d/guest/bench.txt") results, expected $((nphases * nthreads))"
}
# profile_boot KERNEL: one boot at the top thread count with perf, lock
# contention, trace-cmd and fs_mark: four create workloads and fs_mark,
# each of FILES per thread, 13 phases.
top=$(echo $threads | tr ' ' '\n' | tail -n 1)
profile_boot() {
	mkdir -p "$rundir/profiles/$1"
	boot "$1" "$rundir/profiles/$1" "$top" "lab.profile=1" $((top * files * 13))
}

# After the first stage, PRECISION= decides how many repeats there are.
first_stage=$repeats
stop=
precision_stage() {
	set -- $(/usr/bin/python3 "$LAB_ROOT/bench/precision.py" "$rundir" "$precision" "$first_stage") ||
		die "could not compute the repeats PRECISION=$precision needs; see above"
	need=$1
	shift
	repeats=$need
	per=$(( ($(date +%s) - t_start) / first_stage ))
	most=$(( (budget * 60 - ($(date +%s) - t_start)) / (per > 0 ? per : 1) + first_stage ))
	if [ "$need" -gt "$most" ]; then
		repeats=$most stop=budget
	else
		stop=precision
	fi
	progress bench "PRECISION=$precision%: $need repeats needed (most by $*); $repeats fit the ${budget}-minute budget"
	nboots=$(( $(echo $arms | wc -w) * repeats + profile * $(echo $kernels | wc -w) ))
}
# Over hosts: every boot prepared here (vm/run.sh -n), then booted there,
# a repeat a job, and recorded here in the run's order.
if [ -n "$hosts" ]; then
	dry=-n jobs=
	r=1
	while [ "$r" -le "$repeats" ]; do
		job=
		for arm in $arms; do
			mkdir -p "$rundir/boots/$arm-r$r"
			boot "${arm%-aa}" "$rundir/boots/$arm-r$r" "$threads" ""
			job=$job,boots/$arm-r$r
		done
		jobs="$jobs ${job#,}"
		r=$((r + 1))
	done
	if [ "$profile" = 1 ]; then
		for k in $kernels; do
			profile_boot "$k"
			jobs="$jobs profiles/$k"
		done
	fi
	dry=
	progress bench "$nboots boots prepared; booting them on the hosts of $hosts, each repeat whole on one host"
	run_child "$LAB_ROOT/vm/hosts.sh" -1 -H "$hosts" "$rundir" $jobs ||
		die "not every boot was made on the hosts; see $rundir/hosts.log"
	r=1
	while [ "$r" -le "$repeats" ]; do
		for arm in $arms; do record "$arm" "$r"; done
		r=$((r + 1))
	done
else
	r=1
	while [ "$r" -le "$repeats" ]; do
		for arm in $arms; do
			k=${arm%-aa}
			b=$((b + 1))
			progress bench "repeat $r of $repeats, $arm ($k): boot $b of $nboots, $(arm_vcpus "$k") vCPUs, threads $threads; about $(left) min left"
			d=$rundir/boots/$arm-r$r
			mkdir -p "$d"
			boot "$k" "$d" "$threads" ""
			record "$arm" "$r"
		done
		[ -z "$precision" ] || [ "$r" != "$first_stage" ] || precision_stage
		r=$((r + 1))
	done
fi
if [ -n "$precision" ]; then
	{
		echo "target_pct=$precision"
		echo "first_stage=$first_stage"
		echo "needed=$need"
		echo "repeats=$repeats"
		echo "stop=$stop"
	} >"$rundir/precision"
fi

if [ "$profile" = 1 ] && [ -z "$hosts" ]; then
	for k in $kernels; do
		b=$((b + 1))
		progress bench "profile of $k at $top threads: perf stat, perf record, perf lock, fs_mark (boot $b of $nboots); about $(left) min left"
		profile_boot "$k"
	done
fi

"$LAB_ROOT/vm/env.sh" "$LAB_BUILD/out/${first%@*}/arch/x86/boot/bzImage" \
	"$(sed -n 's/^accel=//p' "$rundir/boots/$first-r1/env")" "$vcpus" "$mem" >"$rundir/env"
/usr/bin/python3 "$LAB_ROOT/bench/summarize.py" "$rundir" >"$rundir/summary.txt" ||
	die "could not summarise $rundir; see above"
cat "$rundir/summary.txt"
run_finish
progress bench "run complete: $dir/$run"
