#!/bin/sh
# The lab's test suite: run the test groups, count every check, and end with
# the line "N passed, N failed".
# usage: tests/run.sh [GROUP...]
#   GROUP  report series kernel check-series runner kunit torture hosts mutants bench vcpus (default: all)
# Each group is tests/t-GROUP.sh; its checks print "ok - ...", "not ok - ..."
# or "skip - ...".  A group that dies without checks, or is stopped by a
# signal, counts as one failure.  LAB_TESTS: where the groups are (default
# tests/; the suite's own test of this runner points it elsewhere).
. "$(dirname "$0")/../lib/functions.sh"
tests=${LAB_TESTS:-$LAB_ROOT/tests}

groups=${*:-report series kernel check-series runner kunit torture hosts mutants bench vcpus}
out=$LAB_BUILD/tests
mkdir -p "$out"
: >"$out/all.txt"
: >"$out/times.txt"
for g in $groups; do
	[ -r "$tests/t-$g.sh" ] || die "no test group '$g' (no $tests/t-$g.sh)"
done
n=0
for g in $groups; do
	n=$((n + 1))
	script=$tests/t-$g.sh
	progress test "group $g ($n of $(echo $groups | wc -w)), $(grep -c '^ok - ' "$out/all.txt") passed and $(grep -c '^not ok - ' "$out/all.txt") failed so far"
	t0=$(date +%s)
	sh "$script" >"$out/group-$g.txt" 2>"$out/group-$g.stderr"
	rc=$?
	echo "$g $(($(date +%s) - t0))" >>"$out/times.txt"
	cat "$out/group-$g.txt"
	if ! grep -qE "^(not )?ok - " "$out/group-$g.txt"; then
		echo "not ok - group $g ran no check (exit $rc); see $out/group-$g.stderr" | tee -a "$out/group-$g.txt"
	elif [ "$rc" -gt 128 ]; then
		# Killed part-way: the checks it never reached would go uncounted.
		echo "not ok - group $g was stopped by signal $((rc - 128)) after its last check; see $out/group-$g.stderr" |
			tee -a "$out/group-$g.txt"
	fi
	cat "$out/group-$g.txt" >>"$out/all.txt"
done
passed=$(grep -c '^ok - ' "$out/all.txt")
failed=$(grep -c '^not ok - ' "$out/all.txt")
skipped=$(grep -c '^skip - ' "$out/all.txt")
# Seconds per group, so a slow cold run says where its time went.
echo "seconds per group: $(tr '\n' ' ' <"$out/times.txt")"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
