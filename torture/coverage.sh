#!/bin/sh
# Coverage of six.c under the torture (make torture-coverage): the default
# six scenarios on the torture kernel, which has gcov counters in six.c
# only, the counters of every boot summed, and the lines, branches
# and functions that no scenario ran.
# usage: torture/coverage.sh [-s "SCENARIO..."] [-d DURATION_S] [-r RUN] [-o DIR]
#   -s  scenarios (default: the six_* scenarios of CFLIST that expect
#       SUCCESS; negative controls end early and would only add noise)
#   -d  seconds of torture per scenario (default 10: coverage of a scenario
#       stops growing within seconds; a longer run can only cover more)
#   -r  run name (default: UTC date and time); -o where runs go
#       (default results/coverage)
# DIR/RUN/ gets torture/ (the torture run, each boot's guest/six.gcda),
# six.gcno and six.c (what the counters describe), coverage.txt
# (key=value: lines, branches, functions hit and total), uncovered.txt
# (every line, branch and function no scenario ran, with its source), and
# per-scenario.txt.  torture/coverage.py recomputes them from those files.
. "$(dirname "$0")/functions.sh"

scenarios= duration=10 run=$(date -u +%Y%m%d-%H%M%S) dir=$LAB_ROOT/results/coverage
while getopts s:d:r:o:h opt; do
	case $opt in
	s) scenarios=$OPTARG ;;
	d) duration=$OPTARG ;;
	r) run=$OPTARG ;;
	o) dir=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
if [ -z "$scenarios" ]; then
	for s in $(grep -v '^#' "$(scenario_file "CFLIST")"); do
		grep -q 'torture_type=six_' "$(scenario_file "$s.boot")" && [ ! -e "$(scenario_file "$s.expect")" ] &&
			scenarios="$scenarios $s"
	done
fi
is_uint "$duration" && [ "$duration" -ge 1 ] || die_usage "DURATION must be a whole number of seconds, not '$duration'"
need_cmd gcov gcc
run_create "$dir" "$run"
rundir=$run_dir
record_provenance "$rundir"
progress coverage "$(echo $scenarios | wc -w) scenarios, ${duration}s each, on the torture kernel (gcov counters in six.c)"
run_child "$LAB_ROOT/torture/run.sh" -f torture -s "$scenarios" -d "$duration" -o "$rundir" -r torture
rc=$?
[ "$rc" = 130 ] && run_interrupt
[ -d "$rundir/torture" ] || die "the torture run did not complete (exit $rc); see $rundir"
kout=$LAB_OUT/torture
tree=$(sed -n 's/^tree=//p' "$kout/lab-build.env")
# six.c is kernel/locking/six.c on 6.1 (the series' patch 04), bcachefs's
# fs/bcachefs/six.c on 6.12.
six=kernel/locking/six
[ -e "$tree/$six.c" ] || six=fs/bcachefs/six
cp "$kout/$six.gcno" "$rundir/six.gcno" || die "no $six.gcno in $kout: was it built with gcov (vm/flavours/torture.conf)?"
cp "$tree/$six.c" "$rundir/six.c"
echo "$rc" >"$rundir/torture-exit"
/usr/bin/python3 "$LAB_ROOT/torture/coverage.py" "$rundir" || die "could not compute coverage of $rundir"
cat "$rundir/coverage.txt"
run_finish
progress coverage "run complete: $run_dir"
