#!/bin/sh
# The lab's test suite: run the test groups, count every check, and end with
# the line "N passed, N failed".
# usage: tests/run.sh [GROUP...]
#   GROUP  report series kernel check-series lines runner kunit torture mutants bench hosts vcpus (default: all)
# Each group is tests/t-GROUP.sh; its checks print "ok - ...", "not ok - ..."
# or "skip - ...", and ends with end_of_group ("# end of group"); it may
# declare a plan first ("1..N").  A group that dies without checks, is
# stopped by a signal, ends without its end line, or makes other than its
# plan counts as one more failure.  LAB_TESTS: where the groups are (default
# tests/; the suite's own test of this runner points it elsewhere).
. "$(dirname "$0")/../lib/functions.sh"
tests=${LAB_TESTS:-$LAB_ROOT/tests}

groups=${*:-report series kernel check-series lines runner kunit torture mutants bench hosts vcpus}
out=$LAB_BUILD/tests
mkdir -p "$out"
: >"$out/all.txt"
: >"$out/times.txt"
for g in $groups; do
	[ -r "$tests/t-$g.sh" ] || die "no test group '$g' (no $tests/t-$g.sh)"
done

# Kernels build in the background while the groups before the first one
# that boots them run: most groups leave part of the host idle (python on
# one core, guests waiting on timeouts), and a cold run spends over 20
# minutes compiling.  SCHED_IDLE: the build gets only what the groups leave
# (their guests still slow down some, sharing caches and memory: mutants
# took 559 s beside it, 427 s alone, in two cold runs).  A group that boots a kernel
# waits for its build first (so it never boots one being rebuilt); one
# that builds calls vm/build-kernel.sh itself, which then finds the kernel
# built (or builds it and reports the error, if the background build
# failed).  LAB_TEST_PREBUILD=0 turns this off.
group_kernel() {
	case $1 in
	kernel | runner | kunit | torture | hosts | mutants) echo torture ;;
	bench | vcpus) echo bench-global ;;
	esac
}
prebuild=
for g in $groups; do
	k=$(group_kernel "$g")
	[ -n "$k" ] || continue
	case " $prebuild " in *" $k "*) ;; *) prebuild="$prebuild $k" ;; esac
done
pb=
if [ -n "$prebuild" ] && [ "${LAB_TEST_PREBUILD:-1}" != 0 ]; then
	progress test "building$prebuild in the background (idle priority; log: $out/prebuild.log)"
	rm -f "$out"/prebuilt-*
	setsid chrt -i 0 sh -c 'o=$1; shift
		for k in "$@"; do "$0" "$k" || break; : >"$o/prebuilt-$k"; done
		: >"$o/prebuilt-all"' \
		"$LAB_ROOT/vm/build-kernel.sh" "$out" $prebuild >"$out/prebuild.log" 2>&1 &
	pb=$!
	# Its own process group: stopped whole when the tests end or are stopped.
	trap 'kill -TERM -$pb 2>/dev/null' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
fi
# wait_prebuilt GROUP: until the background build of GROUP's kernel is done,
# or the background builds have ended (one failed) or died (a zombie
# counts as dead: kill -0 would still find it).
wait_prebuilt() {
	k=$(group_kernel "$1")
	[ -n "$pb" ] && [ -n "$k" ] || return 0
	while [ ! -e "$out/prebuilt-$k" ] && [ ! -e "$out/prebuilt-all" ] &&
		[ -r "/proc/$pb/stat" ] && ! grep -q ') Z ' "/proc/$pb/stat"; do
		sleep 2
	done
}

n=0
for g in $groups; do
	n=$((n + 1))
	script=$tests/t-$g.sh
	progress test "group $g ($n of $(echo $groups | wc -w)), $(grep -c '^ok - ' "$out/all.txt") passed and $(grep -c '^not ok - ' "$out/all.txt") failed so far"
	t0=$(date +%s)
	wait_prebuilt "$g"
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
	elif ! grep -q '^# end of group$' "$out/group-$g.txt"; then
		# Exited before its end: the same, by its own hand.
		echo "not ok - group $g stopped before its end (exit $rc); see $out/group-$g.stderr" | tee -a "$out/group-$g.txt"
	else
		planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$out/group-$g.txt" | head -n 1)
		made=$(grep -cE '^(ok|not ok|skip) - ' "$out/group-$g.txt")
		[ -z "$planned" ] || [ "$planned" = "$made" ] ||
			echo "not ok - group $g made $made of its $planned planned checks" | tee -a "$out/group-$g.txt"
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
