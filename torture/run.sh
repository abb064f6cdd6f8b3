#!/bin/sh
# Run lock-torture scenarios in QEMU guests and judge them (make torture).
# usage: torture/run.sh [-s "SCENARIO..."] [-d DURATION_S] [-c VCPUS] [-j CPUS | -H HOSTS_FILE] [-r RUN] [-o DIR] [-f FLAVOUR] [-e PATCH]
#   -s  scenarios of torture/configs/ (default: those listed in CFLIST);
#       "N*NAME" runs NAME N times, as NAME, NAME.2 ... NAME.N, interleaved
#   -d  seconds of torture per scenario (default 30)
#   -c  vCPUs for every scenario (default: each one's CONFIG_NR_CPUS)
#   -j  host CPUs to pack scenarios onto (default: this host's): scenarios
#       whose vCPUs fit together boot at once, as with kvm.sh --cpus
#   -H  boot the scenarios on the ssh hosts of HOSTS_FILE instead, through
#       GNU parallel (vm/hosts.sh); built and judged here
#   -r  run name (default: UTC date and time)
#   -o  where runs go (default results/torture)
#   -f  kernel flavour of every scenario (default: each scenario's
#       configs/NAME.flavour, or torture where it has none)
#   -e  a patch on top of the flavour, e.g. a mutant of torture/mutants/;
#       built incrementally in build/out/FLAVOUR-mutant, one run at a time
#       (the scenarios must then share one flavour)
# Each scenario gets DIR/RUN/SCENARIO/ (torture/scenario.sh) with console.log,
# boot, expect, config-fragment, kernel.config, verdict, judgement, summary,
# badness, schedule, lockstat.txt and guest/; DIR/RUN/batches says which
# booted together.  The run is DIR/RUN.partial until every
# scenario is done, then it is renamed DIR/RUN: an interrupted run is never
# taken for a result.  Exit status 0 when every scenario ended as expected.
. "$(dirname "$0")/functions.sh"

scenarios= duration=30 vcpus= run=$(date -u +%Y%m%d-%H%M%S) dir=$LAB_ROOT/results/torture
flavour= extra= cpus=$(nproc) hosts=
while getopts s:d:c:j:H:r:o:f:e:h opt; do
	case $opt in
	s) scenarios=$OPTARG ;;
	d) duration=$OPTARG ;;
	c) vcpus=$OPTARG ;;
	j) cpus=$OPTARG ;;
	H) hosts=$OPTARG ;;
	r) run=$OPTARG ;;
	o) dir=$OPTARG ;;
	f) flavour=$OPTARG ;;
	e) extra=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
set -f  # "N*NAME" is not a file pattern
[ -n "$scenarios" ] || scenarios=$(grep -v '^#' "$(scenario_file "CFLIST")")
scenarios=$(expand_scenarios $scenarios)
for s in $scenarios; do
	case $s in BAD-REPEAT:*) die_usage "'${s#BAD-REPEAT:}': a repeat is N*SCENARIO with N a whole number from 1" ;; esac
	b=$(scenario_base "$s")
	[ -r "$(scenario_file "$b")" ] && [ -r "$(scenario_file "$b.boot")" ] ||
		die_usage "no torture scenario '$b' (have: $(grep -v '^#' "$(scenario_file "CFLIST")" | paste -sd' ' -))"
done
is_uint "$duration" && [ "$duration" -ge 1 ] || die_usage "DURATION must be a whole number of seconds, not '$duration'"
[ -z "$vcpus" ] || "$LAB_ROOT/vm/check-vcpus.sh" "$vcpus" || exit 2
is_uint "$cpus" && [ "$cpus" -ge 1 ] || die_usage "CPUS must be a whole number of host CPUs from 1, not '$cpus'"
[ -z "$extra" ] || [ -r "$LAB_ROOT/$extra" ] || die_usage "no patch $extra (a path from the lab's root)"
[ -z "$hosts" ] || check_hosts_file "$hosts"
[ -z "$hosts" ] || hosts=$(realpath "$hosts")
# The kernels: one build per flavour the scenarios name; a patch goes on one.
flavours=$(for s in $scenarios; do scenario_flavour "$s" "$flavour"; done | sort -u)
[ -z "$extra" ] || [ "$(echo $flavours | wc -w)" = 1 ] ||
	die_usage "a patch (-e) goes on one flavour, but the scenarios use $(echo $flavours)"
host_lock shared
run_create "$dir" "$run"
rundir=$run_dir

# The plan, before any kernel is built: batches of scenarios whose vCPUs fit
# the host's CPUs together, and about how long each boot takes (the
# torture, 20 s of boot and teardown, 2 s a vCPU; the KASAN kernels' inode
# scenarios fit it too: 46 s for 20 s at 4 vCPUs), so that the first line
# says when the boots will end.
instance_vcpus() {
	echo "${vcpus:-$(scenario_vcpus "$(scenario_file "$(scenario_base "$1")")")}"
}
if [ -z "$hosts" ]; then
	for s in $scenarios; do
		echo "$s $(instance_vcpus "$s")"
	done | pack_batches "$cpus" >"$rundir/batches"
	for s in $scenarios; do
		echo "$s $((duration + 20 + 2 * $(instance_vcpus "$s")))"
	done >"$rundir/estimate"
fi
# minutes_after BATCH: the estimate of the batches after it (a batch takes
# as long as its longest boot).
minutes_after() {
	awk -v b="$1" 'FNR == NR { t[$1] = $2; next }
		$1 > b { if (t[$2] > m[$1]) m[$1] = t[$2] }
		END { for (i in m) s += m[i]; printf "%d", (s + 59) / 60 }' "$rundir/estimate" "$rundir/batches"
}
[ -n "$hosts" ] || nb=$(tail -n 1 "$rundir/batches" | cut -d' ' -f1)
[ -n "$hosts" ] ||
	progress torture "$(echo $scenarios | wc -w) scenarios in $nb batches: about $(minutes_after 0) min of boots, after the kernels ($(echo $flavours))"

t_build=$(date +%s)
if [ -n "$extra" ]; then
	# The build directory is shared by every patched run: hold it until
	# the last boot is done.
	mkdir -p "$LAB_OUT"
	exec 7>"$LAB_OUT/$flavours-mutant.use"
	flock -n 7 || { progress torture "waiting for another run using build/out/$flavours-mutant"; flock 7; }
	run_child "$LAB_ROOT/vm/build-kernel.sh" -e "$extra" -O "$flavours-mutant" "$flavours" || exit 1
else
	for fl in $flavours; do
		run_child "$LAB_ROOT/vm/build-kernel.sh" "$fl" || exit 1
	done
fi
# kout INSTANCE: the built kernel that boots it.
kout() { echo "$LAB_OUT/$(scenario_flavour "$1" "$flavour")${extra:+-mutant}"; }
record_provenance "$rundir"
echo $(( $(date +%s) - t_build )) >"$rundir/provenance/build-seconds"
[ -z "$extra" ] || cp "$LAB_ROOT/$extra" "$rundir/provenance/extra.patch"

n=$(echo $scenarios | wc -w)
fails=0
# judged INSTANCE...: count and show the judgements.
judged() {
	for s in "$@"; do
		j=$(cat "$rundir/$s/judgement" 2>/dev/null || echo "FAIL: no judgement")
		case $j in PASS*) ;; *) fails=$((fails + 1)) ;; esac
		progress torture "$s: $j"
	done
}
if [ -n "$hosts" ]; then
	for s in $scenarios; do
		"$LAB_ROOT/torture/scenario.sh" -P -k "$(kout "$s")" -o "$rundir/$s" -d "$duration" ${vcpus:+-c "$vcpus"} "$s" ||
			die "could not prepare $s; see $rundir/$s/run.log"
	done
	run_child "$LAB_ROOT/vm/hosts.sh" -H "$hosts" "$rundir" $scenarios
	for s in $scenarios; do
		"$LAB_ROOT/torture/scenario.sh" -J -o "$rundir/$s" "$s"
	done
	judged $scenarios
else
	echo "$cpus" >"$rundir/cpus"
	b=0
	while [ "$b" -lt "$nb" ]; do
		b=$((b + 1))
		batch=$(awk -v b="$b" '$1 == b { print $2 }' "$rundir/batches")
		progress torture "batch $b of $nb: $(awk -v b="$b" '$1 == b { printf "%s%s (%d vCPUs)", s, $2, $3; s = ", " }' "$rundir/batches"),"\
			"${duration}s of torture; about $(minutes_after "$b") min for the rest"
		for s in $batch; do
			run_spawn "$LAB_ROOT/torture/scenario.sh" -k "$(kout "$s")" -o "$rundir/$s" -d "$duration" ${vcpus:+-c "$vcpus"} "$s"
		done
		run_wait
		judged $batch
	done
fi

"$LAB_ROOT/torture/table.sh" "$rundir" >"$rundir/table.txt" || die "could not tabulate $rundir"
cat "$rundir/table.txt"
run_finish
progress torture "run complete: $dir/$run ($fails of $n scenarios not as expected)"
[ "$fails" = 0 ]
