#!/bin/sh
# The lab's test suite: run the test groups, count every check, and end with
# the line "N passed, N failed".
# usage: tests/run.sh [GROUP...]
#   GROUP  series kernel check-series runner kunit vcpus (default: all, in order)
# Each group is tests/t-GROUP.sh; its checks print "ok - ...", "not ok - ..."
# or "skip - ...".  A group that dies without checks counts as one failure.
. "$(dirname "$0")/../vm/functions.sh"

groups=${*:-series kernel check-series runner kunit vcpus}
out=$LAB_BUILD/tests
mkdir -p "$out"
: >"$out/all.txt"
for g in $groups; do
	script=$LAB_ROOT/tests/t-$g.sh
	[ -r "$script" ] || die "no test group '$g' (no $script)"
	progress test "group $g"
	sh "$script" >"$out/$g.txt" 2>"$out/$g.stderr"
	rc=$?
	cat "$out/$g.txt"
	if ! grep -qE '^(not )?ok - ' "$out/$g.txt"; then
		echo "not ok - group $g ran no check (exit $rc); see $out/$g.stderr"
		echo "not ok - group $g ran no check" >>"$out/$g.txt"
	fi
	cat "$out/$g.txt" >>"$out/all.txt"
done
passed=$(grep -c '^ok - ' "$out/all.txt")
failed=$(grep -c '^not ok - ' "$out/all.txt")
skipped=$(grep -c '^skip - ' "$out/all.txt")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
