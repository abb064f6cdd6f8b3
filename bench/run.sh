#!/bin/sh
# The inode-create benchmark: kernels compared in one run, interleaved (make bench).
# usage: bench/run.sh -c VCPUS [-t "THREADS"] [-n REPEATS] [-f FILES]
#                     [-w "WORKLOADS"] [-k "KERNELS"] [-i | -L | -A] [-W PCT [-B MIN]]
#                     [-P] [-H HOSTS_FILE] [-r RUN] [-o DIR] [-D]
#   -c  vCPUs of every guest (required), but see -k's KERNEL@N; with -L the
#       CPU count the projection reaches (at least 64)
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
#   -L  count critical sections (make bench METRIC=locks): every boot has
#       one vCPU under -icount (so that a count repeats), runs 1 and 2
#       threads, and the plugin traces its lock acquisitions (vm/run.sh -l);
#       bench/locks.py pairs them into each boot's locks.csv (acquisitions
#       per operation and instructions held at one thread, and which locks
#       the two threads' tasks share), and the summary projects throughput
#       against CPUs from them (lib/lockmodel.py).  Defaults: 3 repeats,
#       500 files, workloads "create shared walk", no profile boots
#   -D  print the plan (what would boot, and about how long) and stop
#   -A  choose (make bench with no METRIC): rates (as without -i or -L) on a
#       host with at least VCPUS CPUs where KVM works; elsewhere -L, which
#       answers the scaling question from counts, then a short labelled
#       side run of rates at VCPUS vCPUs (RUN-overcommit: one repeat, 100
#       files, threads 1 and VCPUS), which shows what overcommit does
#       and nothing about the kernels
# Every repeat boots each kernel once, in the same order (A B A' ...), and
# sweeps every thread count in that boot; the first kernel is booted twice
# per repeat (arm "<kernel>-aa"), an A/A comparison that calibrates the
# statistics.  Then one profile boot per kernel at the top thread count.
# Output: DIR/RUN/ (results.csv, boots/, profiles/, env, provenance/,
# summary.txt); DIR/RUN.partial until complete.
. "$(dirname "$0")/../lib/functions.sh"

vcpus= threads= repeats=5 files=4000 workloads=create kernels="bench-global bench-hashbl"
profile=1 run=$(date -u +%Y%m%d-%H%M%S) dir=$LAB_ROOT/results/bench icount= metric=rate precision= budget=120
hosts= given=
plan_only=
while getopts c:t:n:f:w:k:iLAW:B:PH:r:o:Dh opt; do
	given="$given$opt"
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
	L) icount=-l profile=0 metric=locks ;;
	A) metric=auto ;;
	D) plan_only=1 ;;
	r) run=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
[ -n "$vcpus" ] || die_usage "VCPUS is required: make bench VCPUS=N"
"$LAB_ROOT/vm/check-vcpus.sh" "$vcpus" || exit 2
hostcpus=$(nproc)
opt_given() { case $given in *"$1"*) ;; *) return 1 ;; esac; }
side=
if [ "$metric" = auto ]; then
	# Rates answer the scaling question only where every vCPU is a real CPU.
	why=
	if [ "$vcpus" -gt "$hostcpus" ]; then
		why="$vcpus vCPUs on $hostcpus host CPUs are time-sliced $(( (vcpus + hostcpus - 1) / hostcpus ))x"
	elif [ ! -w /dev/kvm ]; then
		why="there is no KVM here (no writable /dev/kvm), and TCG's timing is not the hardware's"
	else
		first_kernel=${kernels%% *}
		run_child "$LAB_ROOT/vm/build-kernel.sh" "${first_kernel%@*}" || exit 1
		[ "$("$LAB_ROOT/vm/accel.sh" "$LAB_OUT/${first_kernel%@*}/arch/x86/boot/bzImage")" = kvm ] ||
			why="KVM's probe boot failed here ($(sed -n 2p "$LAB_BUILD/accel.probe")), and TCG's timing is not the hardware's"
	fi
	if [ -z "$why" ]; then
		metric=rate
		progress bench "$vcpus vCPUs on $hostcpus host CPUs with KVM: rates are measured directly"
	else
		metric=locks icount=-l profile=0 side=$vcpus
		cat >&2 <<-EOF
		make bench VCPUS=$vcpus on this host: $why.
		  What rates at $vcpus vCPUs would show here is the host's scheduling (spinning vCPUs
		  waiting for lock holders the host has descheduled), not whether a lock stops scaling.
		  So this run counts every lock's critical sections exactly (one vCPU under -icount, the
		  TCG plugin), per operation and kernel, and projects them to 1-$(( vcpus > 64 ? vcpus : 64 )) CPUs with a queueing
		  model (lib/lockmodel.py), set beside published hardware numbers in REPORT.md.  It
		  cannot measure a rate on real cores: run it on a host with $vcpus CPUs and KVM for that.
		  Then a short side run, $run-overcommit, times $vcpus vCPUs here, labelled as such.
		EOF
	fi
fi
target=
if [ "$metric" = locks ]; then
	# The boots have one vCPU under -icount (counts repeat to the
	# instruction); VCPUS is how far the projection goes.
	target=$(( vcpus > 64 ? vcpus : 64 )) vcpus=1
	opt_given n || repeats=3
	opt_given f || files=500
	opt_given w || workloads="create shared walk"
	opt_given t || threads="1 2"
	for t in $threads; do
		[ "$t" = 1 ] || [ "$t" = 2 ] || die_usage "METRIC=locks runs 1 thread (the counts) and 2 (which locks they share), not THREADS=$t"
	done
	! echo "$kernels" | grep -q @ || die_usage "METRIC=locks does not take an arm KERNEL@N: every boot has one vCPU"
	[ -z "$hosts" ] || die_usage "METRIC=locks does not go with HOSTS=: its TCG plugin is built on this host only"
	[ -z "$precision" ] || die_usage "PRECISION= is for rates; critical sections are counted, not sampled"
fi
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
[ "$repeats" -ge 5 ] || [ "$metric" = locks ] || warn "REPEATS=$repeats: fewer than 5 repeats make wide confidence intervals"
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
	[ -r "$LAB_FLAVOURS/${k%@*}.conf" ] ||
		die_usage "no kernel flavour '${k%@*}' (have: $(cd "$LAB_FLAVOURS" && ls *.conf | sed 's/\.conf$//' | paste -sd' ' -))"
	case $k in *@*) "$LAB_ROOT/vm/check-vcpus.sh" "${k##*@}" || exit 2 ;; esac
done
[ "$(echo $kernels | tr ' ' '\n' | sort -u | wc -l)" = "$(echo $kernels | wc -w)" ] ||
	die_usage "KERNELS names an arm twice: '$kernels'"
# The guest's ext4 has a fixed number of inodes (mke2fs -N in the payload).
# Files live at most one measurement (unlinked, or the walk's tree removed),
# except fs_mark's, which stay for the boot; a profile boot sweeps the top
# thread count alone, then profiles inode-create and runs fs_mark once more.
# Stop before building or booting anything.
guest_inodes=200000
top=$(echo $threads | tr ' ' '\n' | sort -n | tail -n 1)
inodes_needed=$(echo $threads | tr ' ' '\n' | awk -v f="$files" -v w=" $workloads " -v p="$profile" -v top="$top" '
	{ if ($1 * (f + 17) > one) one = $1 * (f + 17); if (w ~ / fsmark /) { kept += $1 * f; kept_top = top * f } }
	END { n = one + kept; if (p && kept_top + top * (f + 17) > n) n = kept_top + top * (f + 17); print n + 100 }')
[ "$inodes_needed" -le "$guest_inodes" ] ||
	die_usage "FILES=$files with THREADS up to $top ($workloads) needs about $inodes_needed inodes, more than the guest's ext4 has ($guest_inodes): lower FILES or THREADS"
first=$(echo $kernels | cut -d' ' -f1)
arms="$kernels $first-aa"
nthreads=$(echo $threads | wc -w)
nboots=$(( $(echo $arms | wc -w) * repeats + profile * $(echo $kernels | wc -w) ))
# estimate_s VCPUS "THREADS" FILES PHASES: the seconds one boot takes, from
# rates measured on this lab's 2-core hosts (2026-12-06/07): a boot and its
# ext4 (10 s + 1.5 s a vCPU), a settle and sync before every phase (1 s);
# per thread 1,500 operations/s while threads and vCPUs fit the host's
# CPUs, else 250/s for all threads together; 800/s under -icount, and the
# lock trace's rate (-L) per thread.
estimate_s() {
	echo $2 | tr ' ' '\n' | awk -v v="$1" -v f="$3" -v p="$4" -v h="$hostcpus" -v m="$metric" '
		{ t = $1; s += p
		  if (m == "locks") s += p * f / 250
		  else if (m == "insns" && v == 1) s += p * t * f / 800
		  else if (t <= h && v <= h) s += p * f / 1500
		  else s += p * t * f / 250 }
		END { printf "%d", 10 + 1.5 * v + s }'
}
plan_s=$(( (nboots - profile * $(echo $kernels | wc -w)) * $(estimate_s "$vcpus" "$threads" "$files" "$nphases") +
	profile * $(echo $kernels | wc -w) * $(estimate_s "$vcpus" "$top" "$files" 13) ))
[ -z "$side" ] || plan_s=$((plan_s + 3 * $(estimate_s "$side" "1 $side" 100 3)))
progress bench "plan: METRIC=$metric, $nboots boots of $vcpus vCPUs ($arms; $repeats repeats${target:+; projected to 1-$target CPUs}), threads $threads, $files files per thread, $workloads${side:+; then the side run at $side vCPUs}: about $(( (plan_s + 59) / 60 )) min, kernel builds not included"
[ -z "$plan_only" ] || exit 0
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
	cp "$LAB_OUT/${k%@*}/lab-build.env" "$rundir/provenance/$k.build.env"
	cp "$LAB_OUT/${k%@*}/.config" "$rundir/provenance/$k.config"
done
# Room for the RAM disk (1 GiB), the page cache and every vCPU.
guest_mem() { echo $((2048 + 32 * $1)); }
mem=$(guest_mem "$vcpus")
arm_vcpus() {  # arm_vcpus ARM: the vCPUs it boots with (KERNEL@N: N)
	case $1 in *@*) echo "${1##*@}" ;; *) echo "$vcpus" ;; esac
}
bench_args() {  # bench_args "THREADS...": the guest's command line for a sweep
	echo "brd.rd_nr=1 brd.rd_size=1048576 lab.inodes=$guest_inodes lab.threads=$(echo $1 | tr ' ' ,) lab.files=$files lab.workloads=$(echo $workloads | tr ' ' ,)${icount:+ norandmaps}"
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
	[ -z "$target" ] || echo "project_to=$target"
	[ -z "${LAB_BENCH_SIDE_OF:-}" ] || echo "side_run_of=$LAB_BENCH_SIDE_OF"
	[ -z "$hosts" ] || echo "hosts=hosts"
	[ -z "$precision" ] || echo "precision_pct=$precision budget_min=$budget first_stage=$repeats" | tr ' ' '\n'
} >"$rundir/parameters"

"$LAB_ROOT/bench/parse-boot.sh" -H ${hosts:+host} >"$rundir/results.csv"
b=0
t_start=$(date +%s)
left() {  # estimated minutes left: from the boots done before this one, or the plan
	awk -v b="$((b - 1))" -v n="$nboots" -v s="$(( $(date +%s) - t_start ))" -v plan="$plan_s" \
		'BEGIN { if (b <= 0) printf "%d", (plan + 59) / 60; else printf "%d", (s / b * (n - b) + 59) / 60 }'
}

# A boot's time limit: generous for 100 operations a second (a 32-vCPU TCG
# guest on 2 cores did 250 creates/s at worst).
ops=0
for t in $threads; do ops=$((ops + t * files * nphases)); done
dry=
boot() {  # boot KERNEL[@N] OUTDIR "THREADS..." EXTRA_ARGS [OPERATIONS]
	c=$(arm_vcpus "$1")
	run_child "$LAB_ROOT/vm/run.sh" $icount $dry -k "$LAB_OUT/${1%@*}/arch/x86/boot/bzImage" -o "$2" -c "$c" \
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
	[ "$metric" != locks ] || count_locks "$d" "${1%-aa}"
}
# count_locks BOOT_DIR KERNEL: the boot's critical sections (locks.csv) from
# its lock trace, which is too large to keep (tens of MB a boot) unless
# LAB_KEEP_LOCK_TRACE is set.
count_locks() {
	/usr/bin/python3 "$LAB_ROOT/bench/locks.py" "$1" "$LAB_OUT/$2/System.map" >"$1/locks.csv.tmp" &&
		mv -f "$1/locks.csv.tmp" "$1/locks.csv" || die "could not count the critical sections of $1"
	[ -n "${LAB_KEEP_LOCK_TRACE:-}" ] || rm -f "$1/locks.bin"
}
# profile_boot KERNEL: one boot at the top thread count with perf, lock
# contention, trace-cmd and fs_mark: four create workloads and fs_mark,
# each of FILES per thread, 13 phases.
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

"$LAB_ROOT/vm/env.sh" "$LAB_OUT/${first%@*}/arch/x86/boot/bzImage" \
	"$(sed -n 's/^accel=//p' "$rundir/boots/$first-r1/env")" "$vcpus" "$mem" >"$rundir/env"
/usr/bin/python3 "$LAB_ROOT/bench/summarize.py" "$rundir" >"$rundir/summary.txt" ||
	die "could not summarise $rundir; see above"
cat "$rundir/summary.txt"
run_finish
progress bench "run complete: $dir/$run"
[ -n "$side" ] || exit 0
# The side run has the host to itself too: this run lets go of its lock.
exec 9>&-
progress bench "side run $run-overcommit: rates at $side vCPUs on $hostcpus host CPUs, to show what overcommit does"
LAB_BENCH_SIDE_OF=$run exec "$0" -c "$side" -t "1 $side" -n 1 -f 100 -w create -P -k "$kernels" -r "$run-overcommit" -o "$dir"
