#!/bin/sh
# Run lock-torture scenarios in QEMU guests and judge them (make torture).
# usage: torture/run.sh [-s "SCENARIO..."] [-d DURATION_S] [-c VCPUS] [-r RUN] [-o DIR] [-f FLAVOUR] [-e PATCH]
#   -s  scenarios of torture/configs/ (default: those listed in CFLIST);
#       "N*NAME" runs NAME N times, as NAME, NAME.2 ... NAME.N, interleaved
#   -d  seconds of torture per scenario (default 30)
#   -c  vCPUs for every scenario (default: each one's CONFIG_NR_CPUS)
#   -r  run name (default: UTC date and time)
#   -o  where runs go (default results/torture)
#   -f  kernel flavour (default torture)
#   -e  a patch on top of the flavour, e.g. a mutant of torture/mutants/;
#       built incrementally in build/out/FLAVOUR-mutant, one run at a time
# Each scenario gets DIR/RUN/SCENARIO/ with console.log, boot, expect,
# config-fragment, kernel.config, verdict, judgement, summary, badness,
# lockstat.txt and guest/.  The run is DIR/RUN.partial until every
# scenario is done, then it is renamed DIR/RUN: an interrupted run is never
# taken for a result.  Exit status 0 when every scenario ended as expected.
. "$(dirname "$0")/functions.sh"

scenarios= duration=30 vcpus= run=$(date -u +%Y%m%d-%H%M%S) dir=$LAB_ROOT/results/torture
flavour=torture extra=
while getopts s:d:c:r:o:f:e:h opt; do
	case $opt in
	s) scenarios=$OPTARG ;;
	d) duration=$OPTARG ;;
	c) vcpus=$OPTARG ;;
	r) run=$OPTARG ;;
	o) dir=$OPTARG ;;
	f) flavour=$OPTARG ;;
	e) extra=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
configs=$LAB_ROOT/torture/configs
set -f  # "N*NAME" is not a file pattern
[ -n "$scenarios" ] || scenarios=$(grep -v '^#' "$configs/CFLIST")
scenarios=$(expand_scenarios $scenarios)
for s in $scenarios; do
	case $s in BAD-REPEAT:*) die_usage "'${s#BAD-REPEAT:}': a repeat is N*SCENARIO with N a whole number from 1" ;; esac
	b=$(scenario_base "$s")
	[ -r "$configs/$b" ] && [ -r "$configs/$b.boot" ] ||
		die_usage "no torture scenario '$b' (have: $(grep -v '^#' "$configs/CFLIST" | paste -sd' ' -))"
done
is_uint "$duration" && [ "$duration" -ge 1 ] || die_usage "DURATION must be a whole number of seconds, not '$duration'"
[ -z "$vcpus" ] || "$LAB_ROOT/vm/check-vcpus.sh" "$vcpus" || exit 2
[ -z "$extra" ] || [ -r "$LAB_ROOT/$extra" ] || die_usage "no patch $extra (a path from the lab's root)"
host_lock shared
run_create "$dir" "$run"
rundir=$run_dir

t_build=$(date +%s)
if [ -n "$extra" ]; then
	kname=$flavour-mutant
	# The build directory is shared by every patched run: hold it until
	# the last boot is done.
	mkdir -p "$LAB_BUILD/out"
	exec 7>"$LAB_BUILD/out/$kname.use"
	flock -n 7 || { progress torture "waiting for another run using build/out/$kname"; flock 7; }
	run_child "$LAB_ROOT/vm/build-kernel.sh" -e "$extra" -O "$kname" "$flavour" || exit 1
else
	kname=$flavour
	run_child "$LAB_ROOT/vm/build-kernel.sh" "$flavour" || exit 1
fi
kout=$LAB_BUILD/out/$kname
record_provenance "$rundir"
echo $(( $(date +%s) - t_build )) >"$rundir/provenance/build-seconds"
[ -z "$extra" ] || cp "$LAB_ROOT/$extra" "$rundir/provenance/extra.patch"

n=$(echo $scenarios | wc -w)
i=0
fails=0
for s in $scenarios; do
	i=$((i + 1))
	b=$(scenario_base "$s")
	c=${vcpus:-$(scenario_vcpus "$configs/$b")}
	left=$(for r in $scenarios; do echo "$r"; done | tail -n +$((i + 1)) |
		while read -r r; do scenario_vcpus "$configs/$(scenario_base "$r")"; done |
		awk -v d="$duration" -v c="$vcpus" '{ t += d + 20 + 2 * (c ? c : $1) } END { printf "%d", t / 60 }')
	progress torture "$s ($i of $n): $c vCPUs, ${duration}s of torture; about $left min for the rest"
	sd=$rundir/$s
	mkdir -p "$sd"
	cp "$configs/$b" "$sd/config-fragment"
	echo "$(cat "$configs/$b.boot") lab.duration=$duration" >"$sd/boot"
	cat "$configs/$b.expect" 2>/dev/null >"$sd/expect" || echo SUCCESS >"$sd/expect"
	# The fragment's CONFIG_NR_CPUS is the scenario's vCPU count (as in
	# upstream's kvm.sh); every other option must be in the torture kernel.
	grep -v '^CONFIG_NR_CPUS=' "$configs/$b" >"$sd/config-required"
	if ! "$LAB_ROOT/vm/check-config.sh" "$kout/.config" "$sd/config-required" 2>"$sd/config-check.log"; then
		echo "FAIL: the torture kernel lacks options of $s; see config-check.log" >"$sd/judgement"
		fails=$((fails + 1))
		continue
	fi
	run_child "$LAB_ROOT/vm/run.sh" -k "$kout/arch/x86/boot/bzImage" -M "$kout/modroot" -o "$sd" \
		-c "$c" -t $((120 + 5 * c + duration + 60)) -p "$LAB_ROOT/torture/payload" \
		-a "$(cat "$sd/boot")" 2>"$sd/run.log"
	grep -E '^ *[^ ]*(torture|six_nest|pcpu_rwsem)[^ ]*:' "$sd/guest/lock_stat.txt" \
		>"$sd/lockstat.txt" 2>/dev/null
	"$LAB_ROOT/torture/judge.sh" "$sd" || fails=$((fails + 1))
	progress torture "$s: $(cat "$sd/judgement")"
done

"$LAB_ROOT/torture/table.sh" "$rundir" >"$rundir/table.txt" || die "could not tabulate $rundir"
cat "$rundir/table.txt"
run_finish
progress torture "run complete: $dir/$run ($fails of $n scenarios not as expected)"
[ "$fails" = 0 ]
