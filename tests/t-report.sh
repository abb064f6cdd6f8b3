#!/bin/sh
# Test group "report": the statistics against hand-computed answers; make
# report on made-up runs with known differences (a shifted arm must be
# flagged, an A/A arm must not, a run-to-run drop must read "worse", a
# profile's hash-lock share must be found); bad input refused without
# touching the last report; the committed REPORT.md and plots/ made again,
# byte for byte, from the runs they name.  No boot: seconds.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"

PY=/usr/bin/python3
R=$LAB_ROOT/report/report.py
o=$TEST_OUT/report
rm -rf "$o"
mkdir -p "$o/out"

"$PY" "$LAB_ROOT/tests/stats-known.py" || fail "stats: the known-answer script died"
"$PY" "$LAB_ROOT/tests/model-known.py" || fail "model: the known-answer script died"

# The scaling answer (METRIC=locks runs), from made-up critical sections:
# a short inode_hash_lock hold leaves another lock the busiest and the
# published spin share out of reach; a long one makes it the busiest and
# spins more than the profile did.  Each sentence follows its data.
for hold in 33 3000; do
	"$PY" "$LAB_ROOT/tests/fake-runs.py" --locks "$o/locks-$hold/results" "$hold"
	mkdir -p "$o/locks-$hold/out"
	"$PY" "$R" -r "$o/locks-$hold/results" -o "$o/locks-$hold/out" >"$o/locks-$hold/report.log" 2>&1
done
lr=$o/locks-33/out/REPORT.md
expect_grep '^## Does the global inode_hash_lock stop scaling' "$lr" "scaling: the answer is a section of the report"
[ "$(grep '^## ' "$lr" | head -n 2 | tr '\n' '|')" = "## Answers|## Does the global inode_hash_lock stop scaling? (from \`fake-l\`)|" ] &&
	pass "scaling: the answers, then the scaling answer, open the report" || fail "scaling: not the report's first sections; see $lr"
expect_grep '^\*\*Projection, not a measurement\*\*' "$lr" "scaling: the projection says it is one"
expect_grep 'busiest lock .* is `spin@other`.*`inode_hash_lock` is busy' "$lr" \
	"scaling: a short inode_hash_lock hold leaves the shared lock with more demand the busiest"
expect_grep 'would have to cost [0-9]+ instructions' "$lr" "scaling: ... and the report says what hold the published spin share needs"
expect_grep '`inode_hash_lock` is less than half busy up to 64 CPUs \(Chinner' "$lr" \
	"scaling: ... and when inode_hash_lock would be half busy, beside Chinner's 8 threads"
expect_grep '^\| 32 \| [0-9]+ \| [0-9]+ \| [-+][0-9.]+% \|.*\| 360000 \| 437000 \| \+21\.4% \|$' "$lr" \
	"scaling: the table sets the projection at 32 CPUs beside Chinner's published points"
lr=$o/locks-3000/out/REPORT.md
expect_grep 'busiest lock .* is `inode_hash_lock`, busy 100\.0%' "$lr" "scaling: a long hold makes inode_hash_lock the busiest"
expect_grep 'counted holds alone make `inode_hash_lock` take [0-9.]+% .* at least the published 25\.0%' "$lr" \
	"scaling: ... and then the report says the counted holds reach the published spin share"
! grep -q 'would have to cost' "$lr" && pass "scaling: ... and asks for no longer hold" ||
	fail "scaling: a hold that reaches the published share still asks for more; see $lr"
ls "$o/locks-33/out/plots/fake-l-projection.png" >/dev/null 2>&1 &&
	pass "scaling: the projection is plotted" || fail "scaling: no projection plot in $o/locks-33/out/plots"

"$PY" "$LAB_ROOT/tests/fake-runs.py" "$o/results"
rep=$o/out/REPORT.md
check "make report on made-up runs" "$PY" "$R" -r "$o/results" -o "$o/out"
# Page one: a sentence a question, then the resolved changes only.
[ "$(grep -m 1 '^## ' "$rep")" = "## Answers" ] && pass "answers: the report opens with its answers" ||
	fail "answers: the report does not open with them; see $rep"
expect_grep '^- Torture: the newest run, `fake-t` .* ended as expected in 10 of 10 scenarios\.$' "$rep" \
	"answers: the newest torture run's scenarios, counted"
expect_grep '^- Mutant gate, six locks: the newest, `fake-[mn]`, caught [12] of 2 mutants' "$rep" "answers: the newest mutant gate's score"
# The torture answer leads with the newest run of the default set (CFLIST),
# not with a newer run of a few scenarios; without such a run, the newest.
got=$(PYTHONPATH="$LAB_ROOT/lib:$LAB_ROOT/report" "$PY" - 2>&1 <<'PYEOF'
import answers
class Run:
    def __init__(self, name, names, failed=()):
        self.name, self.path, self.env = name, "/nonexistent", {"date": name}
        self.scenarios = [{"scenario": n, "judgement": "FAIL: x" if n in failed else "PASS"} for n in names]
answers.series_of = answers.series_now = lambda *a: "same"
runs = [Run("r1", ["A", "B", "B.2"]), Run("r2", ["A"], failed=["A"])]
print(answers.torture_line(runs, default={"A", "B"}))
print(answers.torture_line(runs, default={"A", "B", "C"}))
PYEOF
)
echo "$got" | sed -n 1p | grep -q '^- Torture: the newest run of the default set (2 scenarios), `r1` .*3 of 3 scenarios; newer, of other scenarios: `r2` .*0 of 1 scenarios, not in: `A`\.$' &&
	pass "answers: the torture line leads with the newest run of the default set, then the newer partial run" ||
	fail "answers: torture line with a default-set run: $got"
echo "$got" | sed -n 2p | grep -q '^- Torture: the newest run, `r2` ' &&
	pass "answers: ... and with no run of the whole default set, the newest run" ||
	fail "answers: torture line without a default-set run: $got"
# Kernel lines: runs of two lines are answered per line, side by side
# ([6.1], [6.12]), never pooled; runs of one line keep the plain answers.
got=$(PYTHONPATH="$LAB_ROOT/lib:$LAB_ROOT/report" "$PY" - 2>&1 <<'PYEOF'
import answers
class Run:
    def __init__(self, name, line, names):
        self.name, self.path, self.env = name, "/nonexistent", {"date": name}
        if line:
            self.env["kernel_line"] = line
        self.scenarios = [{"scenario": n, "judgement": "PASS"} for n in names]
answers.series_of = answers.series_now = lambda *a: "same"
print("\n".join(answers.answers_lines([], [Run("a", None, ["A"])], [])))
print("----")
print("\n".join(answers.answers_lines([], [Run("a", None, ["A"]), Run("b", "6.12", ["B", "C"])], [])))
PYEOF
)
one=$(echo "$got" | sed '/^----$/,$d') two=$(echo "$got" | sed '1,/^----$/d')
echo "$one" | grep -q '^- Torture: the newest run, `a` ' && ! echo "$one" | grep -q '^- \[' &&
	echo "$two" | grep -q '^- \[6\.1\] Torture: the newest run, `a` .*1 of 1 scenarios' &&
	echo "$two" | grep -q '^- \[6\.12\] Torture: the newest run, `b` .*2 of 2 scenarios' &&
	echo "$two" | grep -q '^Kernel lines: 6\.1 (1 runs), 6\.12 (1 runs), each answered on its own' &&
	[ "$(echo "$two" | grep -c '^- \[6\.1\] ')" = "$(echo "$two" | grep -c '^- \[6\.12\] ')" ] &&
	pass "answers: runs of two kernel lines are answered per line, side by side; one line keeps plain answers" ||
	fail "answers: kernel lines: $got"
expect_grep '; inode cache: no gate run\.$' "$rep" "answers: a half of the series that no gate run broke says so"
expect_grep '^- Inode cache under torture .*`inode-global` at 2 vCPUs: 1 boots, 0 failed, 1000 operations checked; `inode-global` at 4 vCPUs: 1 boots, 0 failed' "$rep" \
	"answers: the inode torture's boots per kernel and vCPU count"
expect_grep '`inode-hashbl` at 4 vCPUs: 1 boots, 1 failed \(bug, kasan\)' "$rep" \
	"answers: a failed inode boot is counted with its detectors (the sentence follows the data)"
expect_grep '^- hash-bl .* [0-9]+ changes resolved at the 5% level in [0-9]+ calibrated runs, the largest \+114\.3%' "$rep" \
	"answers: hash-bl's resolved changes, counted, with the largest"
expect_grep '^\| `fake-a` \| creates per second \| 2 \| 2 vCPUs \| \+50\.0% \| \[\+44\.2%, \+56\.1%\] \| no \| better \|$' "$rep" \
	"answers: a resolved change in the table, with its interval and equivalence"
row() {  # row PHASE THREADS: the table rows of that point, in report order
	grep -E "^\| $1 \| $2 \| " "$rep"
}
# In fake-a: hash-bl vs global, hash-bl vs vanilla, A/A; each table lists
# create at 1 thread once.
[ "$(row create 1 | sed -n 1p | grep -c '\*\*better\*\*')" = 1 ] &&
	pass "report: a 50% shift of bench-hashbl is flagged better" ||
	fail "report: the shifted arm was not flagged: $(row create 1 | sed -n 1p)"
[ "$(row create 1 | sed -n 2p | grep -c '\*\*better\*\*')" = 1 ] &&
	pass "report: the whole-series comparison (vanilla) is made when a run has it" ||
	fail "report: no vanilla comparison: $(row create 1 | sed -n 2p)"
[ "$(row create 1 | sed -n 3p | grep -c 'no significant change')" = 1 ] &&
	pass "report: an A/A arm is not flagged" || fail "report: A/A flagged: $(row create 1 | sed -n 3p)"
expect_grep '^\| create \| 1 \| 1000 ± 27.4 \| 1500 ± 41.1 \| \+50\.0% \| \[\+44\.2%, \+56\.1%\]' "$rep" \
	"report: mean, sd, change and Welch interval as computed by hand"
expect_grep 'Welch false-positive rate 4\.8% \(must be at most 5%\)' "$rep" \
	"report: the A/A false-positive rate is measured and stated"
expect_grep '^\| create \| 1 \| 2\.7% \| 2\.7% \|' "$rep" "report: the coefficient of variation per point"
expect_grep '^- `fake-a` A/A calibration: .*Calibrated: ' "$rep" "report: a quiet A/A arm calibrates the run"
# Verdicts at a glance follow the metric: in fake-q (METRIC=insns) hash-bl
# executes 1/1.5 of the instructions, which is better, not worse.
expect_grep '^- `fake-q`, 2 vCPUs, `bench-hashbl` vs `bench-global` instructions/create: better at 1 thread \(-33\.3%\), 2 threads \(-33\.3%\)\.$' "$rep" \
	"report: at a glance, fewer instructions per operation is better"
# An arm KERNEL@N (the kernel at N vCPUs, interleaved): compared with the
# kernel's own arm, and stated in the findings on what vCPUs cost.
expect_grep '^- `fake-v`, one thread, create/s at 32 vCPUs over 2 vCPUs: 0\.67x \[0\.6[0-9], 0\.[67][0-9]\], worse \(5 and 5 boots\)\.$' "$rep" \
	"report: a 32-vCPU arm at 1/1.5 of the rate is found worse, with its ratio and interval"
expect_grep '^- `fake-w`, one thread, create/s at 32 vCPUs over 2 vCPUs: 1\.00x \[0\.9[0-9], 1\.0[0-9]\], no significant change' "$rep" \
	"report: negative control: a 32-vCPU arm at the same rate is no significant change"
expect_grep '^### bench-global@32 vs bench-global: the same kernel at 32 vCPUs against 2' "$rep" \
	"report: a run with a KERNEL@N arm gets its comparison table"
# The before/after table of the guest: a column per kind (clocksource), its
# cells read from each kind's boots (fake-c: HPET, no CRNG; fake-v and
# fake-w: TSC, CRNG at 0.25 s and the interleaved 32-vCPU arms).
expect_grep '^\|  \| guest on `hpet` \(1 run\) \| guest on `tsc` \(2 runs\) \|$' "$rep" \
	"report: the guest before/after table has a column per kind of guest"
expect_grep '^\| crng init done \| never in 2 of 2 first boots \| 0\.25 s \|$' "$rep" \
	"report: the guest table reads when the CRNG was seeded, and that it never was"
expect_grep '^\| one thread.s creates/s at more vCPUs over fewer, interleaved .* \| - \| 0\.67x \[0\.6[0-9], 0\.[67][0-9]\] at 32 vs 2 \(`fake-v`\); 1\.00x' "$rep" \
	"report: the guest table carries each kind's interleaved vCPU ratios"
expect_grep '^- `fake-e` A/A calibration: 0 of 6 .*false-positive rate 6\.3% .*NOT TRUSTWORTHY: the test' "$rep" \
	"report: noise that makes Welch's test too eager is caught by the calibration"
expect_grep '^- `fake-f` A/A calibration: 6 of 6 .*NOT TRUSTWORTHY: the A/A arm differs' "$rep" \
	"report: an A/A arm that moved (drift, a neighbour) is caught by the calibration"
expect_grep '^\| `bench-global` \| yes \| 72\.8% \| 11\.28% \(41\.5% of busy\) \| none of its listed callers \| `__ext4_new_inode` 4\.68% \| 890 \|' \
	"$rep" "report: the profile's idle loop, slow path and its callers are parsed; ext4's own spinning is not the hash lock's"
expect_grep '^\| `bench-hashbl` \| no \(hash-bl\) \| 50\.0% \| 10\.00% \(20\.0% of busy\) \| 4\.00% \(8\.0% of busy\) \| `insert_inode_locked` 3\.00%, `d_alloc_parallel` 2\.00%, `iget_locked` 1\.00% \|' \
	"$rep" "report: spinning under inode-hash functions is found, each branch counted once"
expect_grep '^\| 4 \| own \| reads \| `six_lock` \| `six_lock_pcpu` \|.*\*\*better\*\*' "$rep" \
	"report: torture boots of one scenario are compared (six_lock_pcpu reads 1.3x)"
expect_grep '^\| 4 \| own \| writes \| `six_lock` \| `six_lock_pcpu` \|.*no significant change' "$rep" \
	"report: equal torture rates are not flagged"
grep -q 'six_busted' "$rep" && ! grep -q '^| [0-9] | [a-z_=0-9]* | [a-z]* | `six_busted`' "$rep" &&
	pass "report: negative controls are judged but not compared for speed" ||
	fail "report: six_busted missing from the judgements or compared for speed"
# Scenarios packed onto the host together (CPUS=) shared its CPUs: their
# rates are never compared, the unpacked ones' still are.
got=$(cd "$LAB_ROOT/tests" && "$PY" -c '
import importlib.util, sys
sys.path.insert(0, "../lib")
import runs
spec = importlib.util.spec_from_file_location("fake", "fake-runs.py")
fake = importlib.util.module_from_spec(spec); spec.loader.exec_module(fake)
fake.torture(sys.argv[1], "packed", packed=True)
print(" ".join(sorted(k[0] for k in runs.TortureRun(sys.argv[1] + "/torture/packed").rates())))' "$o/packed")
[ "$got" = "rwsem_lock" ] && pass "report: packed torture scenarios have no rate to compare, the unpacked ones have" ||
	fail "report: rates of a packed run: '$got', expected only rwsem_lock"
# The most-waited-for lock is read from each profile, not assumed: ext4's
# orphan list on bench-global, kjournald2's rwlock on bench-hashbl.
expect_grep '`bench-hashbl` on `fake-a`: rwlock:W from `kjournald2\+0x2b0`, 3\.81 s.*In 1 of 2 boots it is taken from ext4' \
	"$rep" "report: the most-waited-for lock of each profile boot is read from perf lock"
rm -rf "$o/noorphan"
cp -r "$o/results" "$o/noorphan"
rm "$o/noorphan/bench/fake-a/profiles/bench-global/guest/perf-lock-contention.txt"
mkdir -p "$o/noorphan-out"
"$PY" "$R" -r "$o/noorphan" -o "$o/noorphan-out" fake-a >/dev/null 2>&1
expect_grep "In none of the 1 boots is it ext4's orphan list lock" "$o/noorphan-out/REPORT.md" \
	"report: without an orphan-list waiter the report does not claim one"
# Whether the orphan-list boots had orphan_file is read from each boot.
f=$o/results/bench/fake-a/profiles/bench-global/guest/fs-features.txt
for feat in "has_journal orphan_file extent" "has_journal extent"; do
	echo "$feat" >"$f"
	"$PY" "$R" -r "$o/results" -o "$o/noorphan-out" fake-a >/dev/null 2>&1
	grep -o "orphan_file feature ([^)]*)[^.]*" "$o/noorphan-out/REPORT.md"
done >"$o/orphan-file.txt"
rm -f "$f"
sed -n 1p "$o/orphan-file.txt" | grep -q '; 1 of these 1 boots. file systems had it' &&
	sed -n 2p "$o/orphan-file.txt" | grep -q "; none of these boots' file systems had it (their fs-features" &&
	pass "report: whether the orphan-list boots had orphan_file follows their fs-features.txt" ||
	fail "report: the orphan_file clause did not follow fs-features.txt: $(cat "$o/orphan-file.txt")"

# The overcommit findings are computed: the same sentence says "more noise"
# when the overcommitted runs are noisier, and "overlap" when they are not;
# the idle-loop count follows the profiles.
got=$(cd "$LAB_ROOT/report" && "$PY" -c '
import context
def pt(over, cv, creates):
    return {"over": over, "cv": cv, "creates": creates}
noisy = context.overcommit_findings([pt(1, 0.03, 5000), pt(16, 0.20, 400), pt(2, 0.10, 4000)], [(16, 80.0), (16, 30.0)])
mixed = context.overcommit_findings([pt(1, 0.03, 5000), pt(16, 0.02, 6000), pt(2, 0.10, 4000)], [(1, 80.0)])
print("|".join(noisy)); print("|".join(mixed))')
echo "$got" | sed -n 1p | grep -q 'Median A/A CV: 3.0% within .*10.0%-20.0% overcommitted (2 runs); every overcommitted run has more noise' &&
	echo "$got" | sed -n 1p | grep -q 'creates/s.*every overcommitted run has a lower one-thread rate' &&
	echo "$got" | sed -n 1p | grep -q 'In 1 of 2 profile boots of overcommitted runs the idle loop takes most' &&
	echo "$got" | sed -n 2p | grep -q 'Median A/A CV: .*the ranges overlap' &&
	echo "$got" | sed -n 2p | grep -q 'creates/s.*the ranges overlap' &&
	! echo "$got" | sed -n 2p | grep -q 'idle loop' &&
	pass "report: the overcommit findings (noise, one-thread rate, idle loop) flip with the runs" ||
	fail "report: overcommit findings did not follow made-up runs: $got"

expect_grep '^\| `bench-global` \| create \| 1 \| 15000 \| 2\.58 \| 0\.0007 \| 1\.00% \|' "$rep" \
	"report: lock_stat's inode_hash_lock counts become acquisitions per operation and a wait share"

expect_grep '^\| `bench-global` \| `inode_hash_lock` \| `iget_locked` \| 40 \| 0\.25 \| 20 \|' "$rep" \
	"report: trace-cmd's waits by lock and caller are tabulated"

# PRECISION=: the report says whether the target was reached, from the run.
expect_grep '^Precision: PRECISION=3 .*asked for 12 repeats; the run booted 5: NOT reached: the budget of 10 minutes' \
	"$rep" "report: a PRECISION run that ran out of budget says so"
expect_grep '^Precision: PRECISION=3 .*asked for 5 repeats; the run booted 5: reached' "$rep" \
	"report: a PRECISION run that reached its target says so"
expect_grep '^\| create \| 1 \| 1000000 ± [0-9]+ \| 666667 ± [0-9]+ \| -33\.3% \|.*\| \*\*better\*\* \| no \|' "$rep" \
	"report: METRIC=insns shows instructions per operation, and fewer is better"
# A 2-vCPU METRIC=insns run counts through the plugin, and its boots'
# insns.txt give the spin-wait turns per operation (fake-q: 4.0 and 1.0
# at two threads; its A/A arm has no such boot).
expect_grep '^Metric: .*counted by the lab.s TCG plugin .*the guest.s vCPUs \(2\) executed' "$rep" \
	"report: a 2-vCPU METRIC=insns run says the plugin counted it, not -icount"
expect_grep '^\| create \| 2 \| 4\.0 \| 1\.0 \|$' "$rep" \
	"report: spin-wait turns per operation are read from each boot's insns.txt, per arm"
expect_grep '^\| create \| 1 \| 0\.5 \| 0\.2 \|$' "$rep" \
	"report: spin-wait turns at one thread differ from two threads' (the k-th marked interval is the k-th phase)"
expect_grep '^\| lookup \| 2 \| .* \| no significant change \| yes \|' "$rep" \
	"report: TOST calls an A/A pair equivalent within 2%"
n=$("$PY" "$LAB_ROOT/bench/precision.py" "$o/results/bench/fake-a" 3 5 | sed -n 1p)
[ "$n" -gt 5 ] && [ "$("$PY" "$LAB_ROOT/bench/precision.py" "$o/results/bench/fake-a" 50 5 | sed -n 1p)" = 5 ] &&
	pass "precision.py: +-3% needs more than the first stage on 3% noise ($n repeats), +-50% does not" ||
	fail "precision.py: gave '$n' repeats for +-3% on fake-a"

# The hold-policy caveat is chosen by the data: fake-t has each type's own
# delays (an rwsem 1000x slower), fake-u one policy for every type.
sed -n '/^## Torture run `fake-t`/,/^## /p' "$rep" >"$o/fake-t.md"
sed -n '/^## Torture run `fake-u`/,/^## /p' "$rep" >"$o/fake-u.md"
grep -q "2 of these pairs compare a six lock with an incumbent lock under each type's own 6.1 delays" "$o/fake-t.md" &&
	! grep -q 'under one hold policy' "$o/fake-t.md" &&
	pass "report: rates under each type's own delays are said to compare hold policies" ||
	fail "report: the own-delays caveat is missing or wrong for fake-t"
grep -q '2 pairs compare a six lock with an incumbent lock under one hold policy' "$o/fake-u.md" &&
	! grep -q "own 6.1 delays" "$o/fake-u.md" &&
	grep -q '^| 4 | long_hold=0 | reads | `rwsem_lock` | `six_lock` |' "$o/fake-u.md" &&
	pass "report: rates under one hold policy are compared and said to compare the locks" ||
	fail "report: the one-policy sentence or table is missing or wrong for fake-u"
expect_grep '^  - 4 vCPUs, long_hold=0, `six_lock` vs `rwsem_lock` reads/s: ' "$rep" \
	"report: the summary lists comparisons with incumbent locks under one hold policy"
expect_grep '^- `fake-m` mutant gate: 1 of 2 mutants caught \(50\.0%\), missed: barrier-x; gate PASS\.' "$rep" \
	"report: the mutation score and what was missed are stated"
# A missed mutant reads as its title and its reason, each a sentence, with
# what it was expected to do (not its outcome) in brackets.
expect_grep '^- `barrier-x` \(expected: may-miss\): No barrier\. The reason barrier-x can be missed\.$' "$rep" \
	"report: a missed mutant's title and reason are two sentences, beside its expectation"
expect_grep '^- `fake-n` mutant gate: 2 of 2 mutants caught \(100\.0%\), missed: none' "$rep" \
	"report: the score sentence flips when every mutant is caught"
expect_grep '^\| `wakeup-x` \| caught \| SIX-4 \| stall,hung_task,check \(writer waited\) \|' "$rep" \
	"report: the kill matrix names the detectors, and a six check's message whole (a console's CR dropped)"
expect_grep '^Within the host.s 2 CPUs: these points are the lab.s timing reference\.' "$rep" \
	"report: a run within the host's CPUs is the timing reference"
expect_grep '^Overcommitted: the guest.s 4 vCPUs exceed the host.s 2 CPUs' "$rep" \
	"report: the overcommit sentence flips for a run above the host's CPUs"
! grep -q 'fake-d' "$rep" && pass "report: an interrupted run (.partial) is left out" ||
	fail "report: a .partial run was reported"
for p in fake-a-rates fake-a-ratio fake-a-profile fake-a-contention fake-t-torture; do
	head -c 4 "$o/out/plots/$p.png" 2>/dev/null | grep -q PNG && grep -q "(plots/$p.png)" "$rep" &&
		pass "report: plot $p.png made and embedded" || fail "report: plot $p.png missing"
done
# A run over two ssh hosts (HOSTS=) is read per host, never pooled:
# hash-bl is 1.5x on lab-a and 1/1.5 on lab-b.  Negative control: pooled,
# the same samples show no significant change.
expect_grep '^- `fake-h@lab-a`, 2 vCPUs, `bench-hashbl` vs `bench-global` create/s: better at 1 thread \(\+50\.0%\), 2 threads \(\+50\.0%\)' "$rep" \
	"report: a run over hosts is compared within its first host (better there)"
expect_grep '^- `fake-h@lab-b`, 2 vCPUs, `bench-hashbl` vs `bench-global` create/s: worse at 1 thread \(-33\.3%\), 2 threads \(-33\.3%\)' "$rep" \
	"report: and within its second host (worse there)"
expect_grep '^\| `fake-h@lab-b` \| bench \| 6\.1 \| [^|]* \| 8 \| tcg \| 2 \| 0\.25 \|' "$rep" \
	"report: each host's section has that host's CPUs and overcommit (from the host-env it brought back)"
! grep -q '^## Bench run `fake-h`$' "$rep" && pass "report: no section pools the two hosts" ||
	fail "report: a section pools the hosts of fake-h"
pooled=$(cd "$LAB_ROOT/lib" && "$PY" -c '
import sys, runs, stats
r = runs.BenchRun(sys.argv[1])
print(stats.Comparison(r.samples("bench-global", "create", 1), r.samples("bench-hashbl", "create", 1)).significant)' \
	"$o/results/bench/fake-h")
[ "$pooled" = False ] && pass "negative control: pooled over both hosts, the same samples show no change" ||
	fail "negative control: pooled samples gave significant=$pooled"
# What idle vCPUs cost one thread, per kind of guest: computed from the
# runs' points, and said only where a guest kind has two vCPU counts.
cost=$(cd "$LAB_ROOT/report" && "$PY" -c '
import sys
sys.path.insert(0, "../lib")
from context import vcpu_cost_lines
p = lambda run, v, clock, c: {"run": run, "vcpus": str(v), "clock": clock, "creates": c}
print("\n".join(vcpu_cost_lines([p("a", 4, "hpet", 5000.0), p("b", 32, "hpet", 250.0), p("c", 4, "hpet", 4000.0),
                                  p("d", 2, "tsc", 6000.0)])))')
echo "$cost" | grep -q '^- Guests on clocksource `hpet`: one thread created files 18\.0x slower at 32 vCPUs (`b`, 250/s) than at 4 vCPUs (2 runs: `a`, `c`, mean 4500/s)\.$' &&
	! echo "$cost" | grep -q '`tsc`' &&
	pass "report: the cost of idle vCPUs is computed per guest kind, and not said for a kind run at one vCPU count" ||
	fail "report: the idle-vCPU cost lines: $cost"
cp -r "$o/out" "$o/first"
"$PY" "$R" -r "$o/results" -o "$o/out" >/dev/null 2>&1
diff -r "$o/first" "$o/out" >/dev/null && pass "report: the same runs give the same REPORT.md and plots" ||
	fail "report: a second make report differs from the first"

check "report: BASE= and NEW= of two runs" "$PY" "$R" -r "$o/results" -o "$o/out" --base fake-a --new fake-b fake-a fake-b
expect_grep '^## Run to run: `fake-a` \(base\) vs `fake-b` \(new\)' "$rep" "report: the run-to-run section is made"
[ "$(sed -n '/^### `bench-global`$/,/^###/p' "$rep" | grep -c '\*\*worse\*\*')" = 6 ] &&
	pass "report: a 30% run-to-run drop reads worse at every point" || fail "report: run-to-run drop not flagged"
[ "$(sed -n '/^### `bench-hashbl`$/,/^##/p' "$rep" | grep -c 'no significant change')" = 6 ] &&
	pass "report: an unchanged kernel reads no change run to run" || fail "report: unchanged kernel flagged run to run"

check "report: BASE= one host's part of a run over hosts" "$PY" "$R" -r "$o/results" -o "$o/out" --base fake-h@lab-a --new fake-a

# Bad input: a clear error, exit 2, and the last report stays as it was.
cp "$rep" "$o/last.md"
expect_exit 2 "report refuses BASE without NEW" "$PY" "$R" -r "$o/results" -o "$o/out" --base fake-a
expect_exit 2 "report refuses runs of different vCPUs as run to run" "$PY" "$R" -r "$o/results" -o "$o/out" --base fake-a --new fake-c
expect_exit 2 "report refuses a bench run against a torture run" "$PY" "$R" -r "$o/results" -o "$o/out" --base fake-a --new fake-t
expect_exit 2 "report refuses a run over several hosts as BASE= (a host's part can be)" "$PY" "$R" -r "$o/results" -o "$o/out" --base fake-h --new fake-a
expect_exit 2 "report refuses an interrupted run" "$PY" "$R" -r "$o/results" -o "$o/out" fake-d.partial
expect_exit 2 "report refuses an unknown run" "$PY" "$R" -r "$o/results" -o "$o/out" no-such-run
printf 'arm,repeat\nbench-global,x\n' >"$o/results/bench/fake-c/results.csv"
expect_exit 2 "report refuses an unreadable run" "$PY" "$R" -r "$o/results" -o "$o/out" fake-c
expect_exit 2 "make report BASE= without NEW= says how to call it" make -s -C "$LAB_ROOT" report BASE=x
[ -z "$(ls -d "$o"/out/.report.* 2>/dev/null)" ] && pass "report: refused calls leave no half-made report behind" ||
	fail "report: a refused call left $(ls -d "$o"/out/.report.*)"
# A full file system: a tmpfs 32 KiB larger than the last REPORT.md holds
# it but not the plots.  The report fails with a clear error and the last one stays whole.
mkdir -p "$o/full"
unshare -m --propagation private sh -c '
	mount -t tmpfs -o size=$(($(wc -c <"$2") / 1024 + 32))k tmpfs "$1" && cp "$2" "$1/REPORT.md" || exit 98
	"$3" "$4" -r "$5" -o "$1" fake-a >"$1/../full.log" 2>&1
	rc=$?
	cmp -s "$2" "$1/REPORT.md" || rc=99
	[ -z "$(ls -d "$1"/.report.* 2>/dev/null)" ] || rc=97
	exit $rc' sh "$o/full" "$rep" "$PY" "$R" "$o/results"
rc=$?
[ "$rc" = 1 ] && grep -q 'report: error: .*No space left' "$o/full.log" &&
	pass "report: a full file system is a clear error; the last REPORT.md stays whole, nothing half-made is left" ||
	fail "report: on a full file system: exit $rc (97: temporary files left, 99: REPORT.md changed); see $o/full.log"
cmp -s "$rep" "$o/last.md" && pass "report: refused calls and failed writes leave the last REPORT.md untouched" ||
	fail "report: a refused call changed REPORT.md"

# Every committed run is what its recheck makes of its stored boots: a copy
# of results/ rechecked (torture: judged again; bench: results.csv and
# summary.txt parsed again) differs from the committed files in nothing.
rm -rf "$o/recheck"
mkdir -p "$o/recheck/results"
rechecked="torture coverage bench"
for k in $rechecked; do
	[ ! -d "$LAB_ROOT/results/$k" ] || cp -r "$LAB_ROOT/results/$k" "$o/recheck/results/"
done
# (A torture recheck exits 1 when a scenario was not as expected, as a run
# does: a kept run of false positives is evidence too.  Only an error, its
# "ERROR:" line or a usage exit, is a failed recheck.)
for r in "$o"/recheck/results/torture/*/; do
	"$LAB_ROOT/torture/recheck.sh" "$r" >"$o/recheck/one" 2>&1
	rc=$?
	cat "$o/recheck/one" >>"$o/recheck/log"
	{ [ $rc -gt 1 ] || grep -q '^ERROR:' "$o/recheck/one"; } && echo "torture recheck failed: $r" >>"$o/recheck/log"
done
for r in "$o"/recheck/results/coverage/*/; do
	[ -d "$r" ] || continue
	"$PY" "$LAB_ROOT/torture/coverage.py" "$r" >>"$o/recheck/log" 2>&1 || echo "coverage recheck failed: $r" >>"$o/recheck/log"
done
for r in "$o"/recheck/results/bench/*/; do
	"$LAB_ROOT/bench/recheck.sh" "$r" >>"$o/recheck/log" 2>&1 || echo "bench recheck failed: $r" >>"$o/recheck/log"
done
for k in $rechecked; do
	[ ! -d "$LAB_ROOT/results/$k" ] || diff -rq -x initramfs.cpio.gz "$LAB_ROOT/results/$k" "$o/recheck/results/$k"
done >"$o/recheck/diff" 2>&1
[ ! -s "$o/recheck/diff" ] &&
	! grep -q 'recheck failed' "$o/recheck/log" &&
	pass "every committed torture, bench and coverage run is what its recheck makes of it" ||
	fail "rechecking the committed runs changes them: $(head -n 3 "$o/recheck/diff" | tr '\n' ';') (see $o/recheck/)"

# Coverage: torture/coverage.py sums the boots' gcov counters.  Without the
# conversion scenarios' boots, what only they run (six_lock_tryupgrade())
# must show as unrun; and the answers' coverage line says whether the goals
# are met from the numbers, not from fixed text.
cov=$(ls -d "$LAB_ROOT"/results/coverage/*/ 2>/dev/null | head -n 1)
if [ -z "$cov" ]; then
	fail "coverage: no committed run in results/coverage/"
else
	rm -rf "$o/cov"
	cp -r "$cov" "$o/cov"
	rm -rf "$o"/cov/torture/SIX-CONVERT*
	if "$PY" "$LAB_ROOT/torture/coverage.py" "$o/cov" >"$o/cov.log" 2>&1 &&
		grep -q '^function six_lock_tryupgrade .*never called' "$o/cov/uncovered.txt" &&
		! grep -q '^function six_lock_tryupgrade' "${cov}uncovered.txt"; then
		pass "negative control: coverage without the conversion scenarios' boots shows six_lock_tryupgrade() unrun"
	else
		fail "coverage: dropping the conversion boots did not show six_lock_tryupgrade() unrun; see $o/cov.log"
	fi
fi
PYTHONPATH="$LAB_ROOT/lib:$LAB_ROOT/report" "$PY" - "$o" >"$o/cov-answers.txt" 2>&1 <<'PYEOF'
import answers
class Run:
    def __init__(self, name, f, l, b):
        self.name, self.env = name, {"date": name}
        self.coverage = {"boots": "3", "functions_hit": "1", "functions_total": "1", "functions_pct": f,
                         "lines_hit": "1", "lines_total": "1", "lines_pct": l,
                         "branches_hit": "1", "branches_total": "1", "branches_pct": b}
print(answers.coverage_line([Run("a", "100.0", "95.0", "90.0")]))
print(answers.coverage_line([Run("a", "100.0", "95.0", "90.0"), Run("b", "96.6", "97.0", "89.9")]))
class Torture:
    def __init__(self, drains):
        self.path, self.env = "/nonexistent", {}
        self.scenarios = [{"vcpus": c, "quiet_drain_max_ms": str(d), "quiet_wait_ms": b, "expect": "SUCCESS",
                           "judgement": j, "detectors": det} for c, d, b, j, det in drains]
answers.series_of = lambda run: "same"
answers.series_now = lambda *a: "same"
print(answers.quiet_line([Torture([("2", 12, "1000", "PASS", "none"), ("8", 40, "1000", "PASS", "none"),
                                    ("2", 30, "1000", "PASS", "none"),
                                    ("32", 980, "1000", "FAIL: x", "quiet,hung_task")])]))
print(answers.quiet_line([]))
class Kcsan:
    name, scenarios, path = "k", [{}], "/nonexistent"
    env = {"date": "k"}
    def __init__(self, races):
        self._r = races
    def races(self):
        return self._r
print(answers.kcsan_line([Kcsan({})]))
print(answers.kcsan_line([Kcsan({"write 8 B in a / read 8 B in b": (3, ["SIX-4"])})]))
# A run with a lab fix (its extra patch has a Subject:, no Mutant:) is told
# by what it no longer shows of the newest run without a patch.
import os, sys
fixed = Kcsan({"write 4 B in c / read 4 B in d": (1, ["SIX-2"])})
fixed.name, fixed.env, fixed.path = "f", {"date": "z"}, os.path.join(sys.argv[1], "fixrun")
os.makedirs(os.path.join(fixed.path, "provenance"), exist_ok=True)
open(os.path.join(fixed.path, "provenance", "extra.patch"), "w").write("Subject: [PATCH] six: mark it\n")
print(answers.kcsan_line([Kcsan({"write 8 B in a / read 8 B in b": (3, ["SIX-4"]),
                                 "write 4 B in c / read 4 B in d": (2, ["SIX-4"])}), fixed]))
PYEOF
if [ "$(grep -c 'goals met\.$' "$o/cov-answers.txt")" = 1 ] &&
	grep -q 'goals not met: functions below 100%, branches below 90%\.$' "$o/cov-answers.txt"; then
	pass "answers: the coverage line names the goals met and missed, from the newest run's numbers"
else
	fail "answers: the coverage line does not follow the numbers; see $o/cov-answers.txt"
fi
grep -q '2 vCPUs, bound 1000 ms: 2 boots (2 of today.s series), 0 failed, longest drain 30 ms; 8 vCPUs, bound 1000 ms: 1 boots (1 of today.s series), 0 failed, longest drain 40 ms; 32 vCPUs, bound 1000 ms: 1 boots (1 of today.s series), 1 failed (hung_task, quiet), longest drain 980 ms\.$' "$o/cov-answers.txt" &&
	grep -q 'Bounded waiting: no boot ran quiet phases' "$o/cov-answers.txt" &&
	pass "answers: bounded waiting reports boots, false positives and the longest drain per vCPU count and bound, or that none ran" ||
	fail "answers: the bounded-waiting line does not follow the boots; see $o/cov-answers.txt"
grep -q 'scenarios, no report\.$' "$o/cov-answers.txt" &&
	grep -q '3 reports of 1 kinds, the most frequent .write 8 B in a / read 8 B in b. (3, in 1 scenarios)' "$o/cov-answers.txt" &&
	grep -q "With a lab fix: .f. (six: mark it): 1 reports of 1 kinds; of .k.'s 2 kinds, 1 not shown\.$" "$o/cov-answers.txt" &&
	pass "answers: the KCSAN line names each distinct report, or none, and what a lab fix no longer shows" ||
	fail "answers: the KCSAN line does not follow the reports; see $o/cov-answers.txt"

# README's command list is make help's output, so that no command it shows
# goes stale; a README whose list lost a line must fail the check.
readme_help() {  # readme_help README: the first fenced block
	awk '/^```/ { if (on) exit; on = 1; next } on' "$1"
}
make -s -C "$LAB_ROOT" help >"$o/help.txt" 2>&1
readme_help "$LAB_ROOT/README.md" | cmp -s - "$o/help.txt" &&
	pass "README: its command list is make help's output" ||
	fail "README: its command list differs from make help's output ($o/help.txt)"
grep -v 'make torture-again' "$LAB_ROOT/README.md" >"$o/README-stale.md"
! readme_help "$o/README-stale.md" | cmp -s - "$o/help.txt" &&
	pass "negative control: a README command list missing a target is told apart" ||
	fail "negative control: a stale README command list passed"
[ "$(wc -l <"$LAB_ROOT/README.md")" -le 300 ] && pass "README: a user guide of at most 300 lines" ||
	fail "README: $(wc -l <"$LAB_ROOT/README.md") lines; reference belongs in docs/"

# The flow patches -> vm -> torture | bench -> results -> report: no stage's
# code names a later stage's folder (comments and results/ paths aside).
later() {  # later ROOT DIR FOLDER...: code lines under ROOT/DIR naming one of FOLDERs
	r=$1 d=$2
	shift 2
	grep -rnE "(^|[^a-z_])($(echo "$*" | tr ' ' '|'))/" "$r/$d" |
		grep -vE '^[^:]*:[0-9]+:[[:space:]]*#|results/' || true
}
reaches() {  # reaches ROOT: every such line of the lab at ROOT
	later "$1" vm torture bench report
	later "$1" lib torture bench report
	later "$1" torture bench report
	later "$1" bench torture report
}
mkdir -p "$o/layout/vm" "$o/layout/lib" "$o/layout/torture" "$o/layout/bench"
printf '#!/bin/sh\n# bench/ is named in a comment only\n"$LAB_ROOT"/bench/run.sh\n' >"$o/layout/vm/x.sh"
[ "$(reaches "$o/layout" | wc -l)" = 1 ] && pass "layout: the check finds a vm/ script that calls into bench/" ||
	fail "layout: the check missed a vm/ script calling bench/: $(reaches "$o/layout")"
reach=$(reaches "$LAB_ROOT")
[ -z "$reach" ] && pass "layout: no stage reaches into a later stage's folder (vm, lib, torture, bench)" ||
	fail "layout: a stage reaches into a later one: $reach"

# The suite's runner counts a group stopped by a signal as a failure, even
# after checks that passed (a separate build directory: this run's own
# counts stay untouched).
mkdir -p "$o/suite"
printf 'echo "ok - one check"\nkill -TERM $$\necho "ok - never reached"\n' >"$o/suite/t-killed.sh"
printf 'echo "ok - one check"\necho "# end of group"\n' >"$o/suite/t-whole.sh"
LAB_TESTS=$o/suite LAB_BUILD=$o/suite-build sh "$LAB_ROOT/tests/run.sh" killed whole >"$o/suite.log" 2>&1
rc=$?
[ "$rc" = 1 ] && tail -n 1 "$o/suite.log" | grep -q '^2 passed, 1 failed' &&
	grep -q '^not ok - group killed was stopped by signal 15' "$o/suite.log" &&
	pass "tests/run.sh: a group killed part-way counts as a failure" ||
	fail "tests/run.sh: a killed group was not counted (exit $rc); see $o/suite.log"
# A group that declares 5 checks and exits after 3, and one that exits
# before its end line, each fail the suite (they passed before plans).
printf 'echo "1..5"\nfor i in 1 2 3; do echo "ok - check $i"; done\necho "# end of group"\n' >"$o/suite/t-short.sh"
printf 'echo "ok - one check"\nexit 0\necho "# end of group"\n' >"$o/suite/t-early.sh"
LAB_TESTS=$o/suite LAB_BUILD=$o/suite-build sh "$LAB_ROOT/tests/run.sh" short early whole >"$o/suite-plan.log" 2>&1
rc=$?
[ "$rc" = 1 ] && tail -n 1 "$o/suite-plan.log" | grep -q '^5 passed, 2 failed' &&
	grep -q '^not ok - group short made 3 of its 5 planned checks' "$o/suite-plan.log" &&
	grep -q '^not ok - group early stopped before its end' "$o/suite-plan.log" &&
	pass "tests/run.sh: a group short of its plan, or ending early, fails the suite" ||
	fail "tests/run.sh: a group short of its plan or ending early passed; see $o/suite-plan.log"

# The committed report, made again from the runs it names.
cmd=$(sed -n 's/^Generated by `make report \([^`]*\)`.*/\1/p' "$LAB_ROOT/REPORT.md")
runs=$(echo "$cmd" | sed -n 's/.*RUN="\([^"]*\)".*/\1/p')
pair=$(echo "$cmd" | sed -n 's/.*BASE=\([^ ]*\) NEW=\([^ ]*\).*/--base \1 --new \2/p')
if [ -z "$runs" ]; then
	fail "REPORT.md does not name the runs it was made from"
else
	mkdir -p "$o/again"
	# shellcheck disable=SC2086
	"$PY" "$R" -o "$o/again" $pair $runs >"$o/again.log" 2>&1
	cmp -s "$o/again/REPORT.md" "$LAB_ROOT/REPORT.md" &&
		pass "the committed REPORT.md is what make report makes from its runs" ||
		fail "the committed REPORT.md differs from make report $cmd; see $o/again"
	"$PY" "$LAB_ROOT/tests/plots-same.py" "$o/again/plots" "$LAB_ROOT/plots" >"$o/plots-same.txt" &&
		pass "the committed plots/ are what make report makes from its runs (pixels, 0.1% tolerance)" ||
		fail "the committed plots/ differ from make report $cmd: $(head -n 3 "$o/plots-same.txt" | paste -sd';' -)"
	# Negative control: a block of 1% of one plot's pixels, painted over, is
	# told apart, and so is a missing plot.
	mkdir -p "$o/painted"
	cp "$o/again/plots"/*.png "$o/painted/"
	p1=$(ls "$o/painted" | head -n 1)
	"$PY" - "$o/painted/$p1" <<'PY'
import sys, matplotlib.image as m
img = m.imread(sys.argv[1])
h, w = img.shape[0] // 10, img.shape[1] // 10
img[:h, :w, :3] = 1 - img[:h, :w, :3]
m.imsave(sys.argv[1], img)
PY
	expect_exit 1 "negative control: a plot with a painted block is not the committed one" \
		"$PY" "$LAB_ROOT/tests/plots-same.py" "$o/painted" "$LAB_ROOT/plots"
	rm "$o/painted/$p1"
	cp "$o/again/plots/$p1" "$o/painted/"
	rm "$o/painted/$(ls "$o/painted" | tail -n 1)"
	expect_exit 1 "negative control: a missing plot is told apart" \
		"$PY" "$LAB_ROOT/tests/plots-same.py" "$o/painted" "$LAB_ROOT/plots"
fi
end_of_group
