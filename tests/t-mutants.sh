#!/bin/sh
# Test group "mutants": the torture catches broken six locks.  The fast
# subset of the mutant gate (torture/mutants/FAST, one mutant per detector:
# a failed six check, the relock data check, six_lock_counts(), a lost
# wakeup, one only a quiet phase shows, lockdep validation, a crash) must be
# caught, each by the detector its header names; the scoring on made-up
# outcomes must fail a gate that missed a mutant or whose control failed.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"
. "$LAB_ROOT/torture/functions.sh"

o=$TEST_OUT/mutants
rm -rf "$o"
mkdir -p "$o"
M=$LAB_ROOT/torture/mutants

# Every mutant says what it breaks, where it must be caught and how.
for p in "$M"/*.patch; do
	m=$(basename "$p" .patch)
	for f in Mutant Scenarios Detects Expect; do
		[ -n "$(mutant_field "$p" $f)" ] || { fail "mutant $m has no $f: line"; continue 2; }
	done
	for s in $(mutant_field "$p" Scenarios); do
		[ -r "$LAB_ROOT/torture/configs/$s" ] || { fail "mutant $m names an unknown scenario $s"; continue 2; }
	done
	why=$(mutant_flavour "$p" 2>&1 >/dev/null) || { fail "mutant $why"; continue; }
	pass "mutant $m has a complete header"
done
# Negative control: a mutant whose scenarios boot two flavours (the six
# torture kernel and inode-hashbl) cannot be built once for both.
printf 'Mutant: x\nScenarios: SIX-4 INODE-HASHBL-4\nDetects: check\nExpect: caught\n\n' >"$o/two-flavours.patch"
why=$(mutant_flavour "$o/two-flavours.patch" 2>&1 >/dev/null) && fail "a mutant booting two flavours was taken" ||
	case $why in
	*"2 kernel flavours (inode-hashbl torture)"*) pass "negative control: a mutant whose scenarios boot two flavours is refused, naming them" ;;
	*) fail "a mutant booting two flavours: '$why'" ;;
	esac
# Every mutant applies, without fuzz, to the series as it is now.  The fast
# gate below builds only a few, and a mutant that a change to the series
# left behind would give the full gate an error, not a verdict.
applies() {  # applies TREE PATCH
	patch -d "$1" -p1 -F0 -s --dry-run <"$2" >/dev/null 2>&1
}
# flavour_tree FLAVOUR: the source tree a flavour builds (its EXCLUDE and EXTRA).
flavour_tree() (
	EXCLUDE= EXTRA=
	. "$LAB_ROOT/vm/flavours/$1.conf"
	"$LAB_ROOT/vm/tree.sh" $(for x in $EXTRA; do printf -- '-p %s ' "$x"; done) $EXCLUDE
)
if tree=$("$LAB_ROOT/vm/tree.sh" 2>"$o/tree.log"); then
	for p in "$M"/*.patch; do
		# The tree of the flavour that boots its first scenario.
		fl=$(scenario_flavour "$(mutant_field "$p" Scenarios | cut -d' ' -f1)")
		t=$(flavour_tree "$fl" 2>>"$o/tree.log")
		applies "$t" "$p" && pass "mutant $(basename "$p" .patch) applies to the series ($fl)" ||
			fail "mutant $(basename "$p" .patch) does not apply to the $fl tree (patch -F0 --dry-run in $t)"
	done
	# Negative control: one context line of a mutant changed, as an edit
	# of the series would.
	p=$M/excl-write-ignores-readers.patch
	awk '/^@@/ { hunk = 1 } hunk && !done && /^ / { print $0 "x"; done = 1; next } 1' "$p" >"$o/stale.patch"
	applies "$tree" "$o/stale.patch" && fail "a mutant whose context the series no longer has still applies" ||
		pass "negative control: a mutant whose context changed does not apply"
else
	fail "vm/tree.sh could not make the series' tree; see $o/tree.log"
fi
# MUTANTS='inode-*': a pattern stands for the mutants it matches, and one
# that matches none is refused.
"$LAB_ROOT/torture/mutants.sh" -m 'inode-ctl-*' -d abc -o "$o" -r glob >"$o/glob.log" 2>&1
[ $? = 2 ] && grep -q 'DURATION must be' "$o/glob.log" &&
	pass "make torture-mutants MUTANTS='inode-ctl-*' finds its mutant (and then refuses DURATION=abc)" ||
	fail "a mutant pattern was not expanded; see $o/glob.log"
expect_exit 2 "make torture-mutants refuses a pattern that matches no mutant" \
	"$LAB_ROOT/torture/mutants.sh" -m 'no-such-*' -o "$o" -r glob2
n=$(ls "$M"/*.patch | wc -l)
[ "$n" -ge 16 ] && pass "the gate has $n mutants (at least 16)" || fail "only $n mutants"

# The score on made-up outcomes: a missed "caught" mutant or a failed
# control fails the gate; a "may-miss" mutant that was missed does not.
mk() {  # mk RUN MUTANT EXPECT OUTCOME
	mkdir -p "$o/$1"
	printf 'expect=%s\noutcome=%s\nscenario_SIX-4=x\n' "$3" "$4" >"$o/$1/$2.outcome"
}
mk good a caught caught; mk good b may-miss missed; mk good c survives survived
mk missed a caught caught; mk missed b caught missed
mk ctl a caught caught; mk ctl c survives control-failed
[ "$(mutant_score "$o/good" a b c | sed -n 's/^gate=//p')" = PASS ] &&
	pass "score: every mutant caught but a may-miss one, control passed: gate PASS" ||
	fail "score: the good made-up run did not PASS: $(mutant_score "$o/good" a b c | paste -sd' ' -)"
mutant_score "$o/good" a b c | grep -qx 'score_pct=50.0' &&
	pass "score: a may-miss mutant that was missed still counts against the score" ||
	fail "score: wrong score for the good made-up run"
[ "$(mutant_score "$o/missed" a b | sed -n 's/^gate=//p')" = FAIL ] &&
	pass "negative control: a missed mutant fails the gate" || fail "score: a missed mutant passed the gate"
[ "$(mutant_score "$o/ctl" a c | sed -n 's/^gate=//p')" = FAIL ] &&
	pass "negative control: a control that failed fails the gate" || fail "score: a failed control passed the gate"

# A build killed half-way (SIGKILL to make and everything under it, as a
# lost terminal or the OOM killer would) leaves objects and stamps behind; the
# next build must finish without `make clean`.  The fast gate's first
# mutant, in the directory the gate builds its mutants in, so that the gate
# below boots the kernel the build after the killed one made.
kb=$o/killed-build
mkdir -p "$kb"
kc=$LAB_BUILD/out/torture-mutant/arch/x86/boot/compressed
ctl=torture/mutants/$(grep -v '^#' "$M/FAST" | head -n 1).patch
setsid "$LAB_ROOT/vm/build-kernel.sh" -e "$ctl" -O torture-mutant torture >"$kb/first.log" 2>&1 &
bpid=$!
# Wait for make in the build's process group (its log is written in
# blocks, so it cannot tell), then let it work for two seconds: the mutant's
# object and the link take about 25 s.
while kill -0 $bpid 2>/dev/null; do
	pgrep -g $bpid -f 'make .*bzImage' >/dev/null && { sleep 2; break; }
	sleep 0.2
done
if kill -KILL -$bpid 2>/dev/null; then  # dash: no "--"
	wait $bpid 2>/dev/null
	"$LAB_ROOT/vm/build-kernel.sh" -e "$ctl" -O torture-mutant torture >"$kb/again.log" 2>&1
	rc=$?
	# The state it leaves is whole: make, run once more, compiles nothing.
	LAB_BUILD_MAKE=1 "$LAB_ROOT/vm/build-kernel.sh" -e "$ctl" -O torture-mutant torture >"$kb/third.log" 2>&1
	# Its compressed kernel, for the image check after the gate.
	cp "$kc/piggy.o" "$o/piggy-first.o" 2>/dev/null
	if [ "$rc" = 0 ] && grep -q 'done (' "$kb/again.log" && grep -q 'done (0 objects compiled)' "$kb/third.log"; then
		pass "a kernel build killed in make is finished by the next build, no make clean ($(grep -o '[0-9]* objects compiled' "$kb/again.log"))"
	else
		fail "the build after a killed one: exit $rc; see $kb/again.log and $kb/third.log"
	fi
else
	wait $bpid
	fail "the build to be killed ended (exit $?) before make started; see $kb/first.log"
fi

# The fast subset, for real: each built incrementally and booted.
"$LAB_ROOT/torture/mutants.sh" -F -d 10 -o "$o" -r fast >"$o/fast.log" 2>&1
rc=$?
r=$o/fast
if [ ! -d "$r" ]; then
	fail "the fast mutant gate did not complete (exit $rc); see $o/fast.log"
	exit 0
fi
for m in $(grep -v '^#' "$M/FAST"); do
	out=$(sed -n 's/^outcome=//p' "$r/$m.outcome")
	det=$(sed -n 's/^detectors=//p' "$r/$m.outcome")
	want=$(mutant_field "$M/$m.patch" Detects)
	want=${want%%:*}
	case $out:,$det, in
	caught:*,$want,* | caught:*,$want:*) pass "mutant $m is caught by $want ($det)" ;;
	caught:*) fail "mutant $m is caught, but by $det, not $want" ;;
	*) fail "mutant $m: $out; see $r/$m/" ;;
	esac
done
# The hung-task detector's negative control: a waiter that lost its wakeup
# sleeps uninterruptibly past lab.hung_task_secs.
expect_grep '^detectors=.*hung_task' "$r/wakeup-lost-read-unlock.outcome" \
	"negative control: a lost wakeup also fires the hung-task detector"
[ "$rc" = 0 ] && expect_grep '^gate=PASS$' "$r/score" "the fast gate passes (exit 0)" ||
	fail "the fast gate exited $rc; see $r/score"
expect_grep '^mutant +expect +scenario +result' "$r/matrix.txt" "the gate prints its kill matrix"
b=$(sed -n 's/^build_seconds=//p' "$r/seq-frozen.outcome")
[ -n "$b" ] && [ "$b" -lt 120 ] && pass "a mutant builds incrementally ($b s)" ||
	fail "a mutant build took ${b:-?} s: not incremental"

# Negative control of build-kernel.sh's image check: the compressed kernel
# of one mutant's build (the gate's first), put back after another's (the
# gate's last), as the cache once did, must stop the build; without it the
# next build is whole again.
last=$(grep -v '^#' "$M/FAST" | tail -n 1)
mb() {  # mb MUTANT: build it in the gate's directory
	"$LAB_ROOT/vm/build-kernel.sh" -e "torture/mutants/$1.patch" -O torture-mutant torture
}
if [ -r "$o/piggy-first.o" ] && ! cmp -s "$o/piggy-first.o" "$kc/piggy.o" &&
	cp "$o/piggy-first.o" "$kc/piggy.o" && touch "$kc/piggy.o"; then
	mb "$last" >"$o/piggy-stale.log" 2>&1 && fail "a bzImage holding another build's kernel was not noticed" ||
		expect_grep 'bzImage does not hold the kernel just built' "$o/piggy-stale.log" \
			"negative control: a bzImage holding another build's kernel stops the build"
	rm -f "$kc/piggy.o"
	mb "$last" >"$o/piggy-again.log" 2>&1 && pass "the build after it makes a whole image again" ||
		fail "the build after the stale image failed; see $o/piggy-again.log"
else
	fail "no compressed kernel of the gate's first mutant to put back, or it is the last one's ($o/piggy-first.o)"
fi
end_of_group
