#!/bin/sh
# Test group "check-series": every file the series touches, and every user of
# the iterators it reworks, compiles; a file that does not is caught.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"

"$LAB_ROOT/vm/check-series.sh" "$TEST_OUT/check-series.txt" >/dev/null 2>"$TEST_OUT/check-series.stderr"
if [ ! -s "$TEST_OUT/check-series.txt" ]; then
	fail "check-series produced no result; see $TEST_OUT/check-series.stderr"
	exit 0
fi
sed -e 's/^PASS \(.*\)/ok - compiles: \1/' -e 's/^FAIL \(.*\)/not ok - compiles: \1/' \
	-e 's/^SKIP \(.*\)/skip - compiles: \1/' "$TEST_OUT/check-series.txt"

# Negative control: a file that cannot compile must be reported as FAIL, next
# to one that can.  New files only: the tree's own files are hard links to
# the pristine source and are never written.
tree=$("$LAB_ROOT/vm/tree.sh")
bad=lib/lab-negative-control.c
printf '#include <linux/bio.h>\nvoid f(struct bio *b) { struct bio_vec *v; struct bvec_iter_all i;\n  bio_for_each_segment_all(v, b, i) ; }\n' >"$tree/$bad"
"$LAB_ROOT/vm/check-series.sh" "$TEST_OUT/check-negative.txt" "$bad" lib/errname.c >/dev/null 2>&1
rc=$?
rm -f "$tree/$bad"
if [ $rc != 0 ] && grep -qx "FAIL $bad" "$TEST_OUT/check-negative.txt" &&
	grep -qx 'PASS lib/errname.c' "$TEST_OUT/check-negative.txt"; then
	pass "negative control: an old-style bio_for_each_segment_all() user fails to compile and is reported"
else
	fail "negative control: a file that cannot compile was not reported (exit $rc)"
fi
end_of_group
