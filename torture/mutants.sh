#!/bin/sh
# The mutant gate (make torture-mutants): build each mutant of
# torture/mutants/ (six.c, or the inode cache's fs/inode.c: inode-*; another
# kernel line's in torture/mutants/LINE/, LAB_LINE) and run the scenarios its header names; a mutant that every scenario passes
# was missed.
# usage: torture/mutants.sh [-m "MUTANT..."] [-F] [-d DURATION_S] [-j CPUS | -H HOSTS_FILE] [-r RUN] [-o DIR]
#   -m  mutants by name, * as in the shell: 'inode-*' (default: every
#       torture/mutants/*.patch)
#   -F  the fast subset listed in torture/mutants/FAST (one per detector)
#   -d  seconds of torture per scenario (default 12)
#   -j, -H  as for torture/run.sh: scenarios packed onto CPUS host CPUs, or
#       booted on the ssh hosts of HOSTS_FILE (each mutant built here)
#   -r  run name (default: UTC date and time); -o where runs go
#       (default results/mutants)
# A mutant's header says what it breaks (Mutant:), which scenarios must
# catch it (Scenarios:), the detector meant to (Detects:), and Expect:
# caught, may-miss (counted, but a miss does not fail the gate), or
# survives (a control that must pass); Duration: seconds of torture, when
# the mutant needs more than -d to show.  Each mutant is built incrementally
# from its scenarios' flavour (its one object and the link), then run as
# torture/run.sh -e MUTANT: DIR/RUN/MUTANT/ is a torture run of its own.
# DIR/RUN/ gets matrix.txt (mutant x scenario: the detectors that fired, or
# missed), score (key=value) and, per mutant, outcome.  Exit status 0 when
# every "caught" mutant was caught and every control passed.
. "$(dirname "$0")/functions.sh"

# Each kernel line has its own mutants (torture/mutants/LINE/ beside 6.1's):
# they are patches to that line's six.c and fs/inode.c.
mdir=$LAB_ROOT/torture/mutants$LAB_LINE_DIR
mutants= duration=12 run=$(date -u +%Y%m%d-%H%M%S) dir=$LAB_ROOT/results/mutants fast=
spread=
while getopts m:Fd:j:H:r:o:h opt; do
	case $opt in
	m) mutants=$OPTARG ;;
	F) fast=1 ;;
	d) duration=$OPTARG ;;
	j) spread="-j $OPTARG" ;;
	H) check_hosts_file "$OPTARG"
	   spread="-H $(realpath "$OPTARG")" ;;
	r) run=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
[ -z "$fast" ] || mutants="$mutants $(grep -v '^#' "$mdir/FAST")"
[ -n "$mutants" ] || mutants=$(cd "$mdir" && ls *.patch | sed 's/\.patch$//')
# A name with * stands for the mutants it matches ('inode-*': the inode
# cache's half of the gate).
set -f
names=
for m in $mutants; do
	case $m in
	*'*'*) got=$(cd "$mdir" && ls | sed -n 's/\.patch$//p' | while read -r x; do
		case $x in $m) echo "$x" ;; esac; done)
	       [ -n "$got" ] || die_usage "no mutant matches '$m'"
	       names="$names $got" ;;
	*) names="$names $m" ;;
	esac
done
set +f
mutants=$(echo $names)
for m in $mutants; do
	[ -r "$mdir/$m.patch" ] ||
		die_usage "no mutant '$m' (have: $(cd "$mdir" && ls *.patch | sed 's/\.patch$//' | paste -sd' ' -))"
	scen=$(mutant_field "$mdir/$m.patch" Scenarios)
	[ -n "$scen" ] || die_usage "mutant $m names no Scenarios:"
	# A mutant is built once, on one flavour: its scenarios must share it
	# (found before any boot, not as an error half-way through the gate).
	why=$(mutant_flavour "$mdir/$m.patch" 2>&1 >/dev/null) || die_usage "mutant $why"
done
is_uint "$duration" && [ "$duration" -ge 1 ] || die_usage "DURATION must be a whole number of seconds, not '$duration'"
run_create "$dir" "$run"
rundir=$run_dir
record_provenance "$rundir"
echo "duration_s=$duration" >"$rundir/parameters"
echo "mutants=$(echo $mutants)" >>"$rundir/parameters"

n=$(echo $mutants | wc -w)
i=0
t_start=$(date +%s)
for m in $mutants; do
	i=$((i + 1))
	p=$mdir/$m.patch
	scen=$(mutant_field "$p" Scenarios)
	# A mutant may need longer than the default to show (Duration:).
	d=$duration
	md=$(mutant_field "$p" Duration)
	[ -n "$md" ] && [ "$md" -gt "$d" ] && d=$md
	left=$(awk -v i="$i" -v n="$n" -v s="$(( $(date +%s) - t_start ))" \
		'BEGIN { if (i == 1) print "?"; else printf "%d", s / (i - 1) * (n - i + 1) / 60 }')
	progress mutants "$m ($i of $n): $scen; about $left min left"
	t0=$(date +%s)
	run_child "$LAB_ROOT/torture/run.sh" -e "${mdir#$LAB_ROOT/}/$m.patch" -s "$scen" \
		-d "$d" $spread -o "$rundir" -r "$m" >"$rundir/$m.log" 2>&1
	rc=$?
	[ "$rc" = 130 ] && run_interrupt
	t1=$(date +%s)
	mutant_outcome "$p" "$rundir/$m" "$rc" $((t1 - t0)) | write_atomic "$rundir/$m.outcome"
	progress mutants "$m: $(sed -n 's/^outcome=//p' "$rundir/$m.outcome") ($(sed -n 's/^detectors=//p' "$rundir/$m.outcome"))"
done

mutant_matrix "$rundir" $mutants | write_atomic "$rundir/matrix.txt"
mutant_score "$rundir" $mutants | write_atomic "$rundir/score"
cat "$rundir/matrix.txt"
cat "$rundir/score"
run_finish
progress mutants "run complete: $run_dir"
[ "$(sed -n 's/^gate=//p' "$run_dir/score")" = PASS ]
