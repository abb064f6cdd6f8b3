# Helpers for the test scripts: each check prints one line, "ok - NAME",
# "not ok - NAME: WHY" or "skip - NAME: WHY"; tests/run.sh counts them.
# Source after lib/functions.sh.

TEST_OUT=${TEST_OUT:-$LAB_BUILD/tests}
mkdir -p "$TEST_OUT"

pass() { echo "ok - $*"; }
# plan N: the group will make N checks (TAP's "1..N"); end_of_group: its last
# line, which says it ran to its end (TAP's done_testing).  tests/run.sh
# fails a group that ends without it, or makes other than its plan.
plan() { echo "1..$1"; }
end_of_group() { echo "# end of group"; }
fail() { echo "not ok - $*"; }
skip() { echo "skip - $*"; }

# check NAME CMD...: pass when CMD succeeds; its output goes to a log.
check() {
	name=$1
	shift
	log=$TEST_OUT/$(printf '%s' "$name" | tr -c 'A-Za-z0-9_.-' '_' | cut -c1-80).log
	if "$@" >"$log" 2>&1; then
		pass "$name"
	else
		fail "$name: exit $?, see $log"
	fi
}

# expect_exit CODE NAME CMD...: pass when CMD exits with CODE.
expect_exit() {
	code=$1 name=$2
	shift 2
	log=$TEST_OUT/$(printf '%s' "$name" | tr -c 'A-Za-z0-9_.-' '_' | cut -c1-80).log
	"$@" >"$log" 2>&1
	got=$?
	if [ "$got" = "$code" ]; then
		pass "$name"
	else
		fail "$name: exit $got, expected $code, see $log"
	fi
}

# expect_grep PATTERN FILE NAME: pass when FILE has a line matching PATTERN.
expect_grep() {
	if grep -qE -- "$1" "$2" 2>/dev/null; then
		pass "$3"
	else
		fail "$3: no line matching '$1' in $2"
	fi
}

# expect_stopped WHAT RC QEMU_PID: an interrupted run exited with 130 and
# its guest is gone, by QEMU's own pid (one left running is killed).
expect_stopped() {
	[ "$2" = 130 ] && pass "$1: the run exits with 130" || fail "$1: exit $2, expected 130"
	if kill -0 "$3" 2>/dev/null; then
		fail "$1 left QEMU (pid $3) running"
		kill -KILL "$3"
	else
		pass "$1 stops its QEMU (pid $3)"
	fi
}
