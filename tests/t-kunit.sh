#!/bin/sh
# Test group "kunit": the series' KUnit suite (mean_and_variance) runs in a
# 2-vCPU guest of the torture kernel; every case is a counted check.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"

o=$TEST_OUT/kunit
"$LAB_ROOT/vm/kunit.sh" "$o" 2 >/dev/null 2>"$TEST_OUT/kunit.stderr"
if [ ! -s "$o/kunit.txt" ]; then
	fail "no KUnit results: $(cat "$o/verdict" 2>/dev/null || tail -n 1 "$TEST_OUT/kunit.stderr")"
	exit 0
fi
sed -e 's/^PASS \(.*\)/ok - kunit: \1/' -e 's/^FAIL \(.*\)/not ok - kunit: \1/' \
	-e 's/^SKIP \(.*\)/skip - kunit: \1/' "$o/kunit.txt"
expect_grep '^PASS mean and variance tests\.mean_and_variance_' "$o/kunit.txt" "the series' mean_and_variance suite ran"
end_of_group
