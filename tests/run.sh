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
	sh "$script" >"$out/group-$g.txt" 2>"$out/group-$g.stderr"
	rc=$?
	cat "$out/group-$g.txt"
	if ! grep -qE "^(not )?ok - " "$out/group-$g.txt"; then
		echo "not ok - group $g ran no check (exit $rc); see $out/group-$g.stderr"
		echo "not ok - group $g ran no check" >>"$out/group-$g.txt"
	fi
	cat "$out/group-$g.txt" >>"$out/all.txt"
done
passed=$(grep -c '^ok - ' "$out/all.txt")
failed=$(grep -c '^not ok - ' "$out/all.txt")
skipped=$(grep -c '^skip - ' "$out/all.txt")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
