#!/bin/sh
# Re-derive a stored bench run's results.csv and summary.txt from its boots'
# raw output, without booting (make bench-recheck), as torture/recheck.sh
# does for torture runs.
# usage: bench/recheck.sh RUN   (a directory, or a run name in results/bench)
# Writes RUN/results.csv and RUN/summary.txt again, each atomically; exits
# non-zero when a boot's output is missing or incomplete.
. "$(dirname "$0")/../lib/functions.sh"

[ $# -eq 1 ] || { usage_from_header; exit 2; }
run=$1
[ -d "$run" ] || run=$LAB_ROOT/results/bench/$1
[ -r "$run/parameters" ] ||
	die_usage "no bench run '$1' (runs: $(ls "$LAB_ROOT/results/bench" 2>/dev/null | paste -sd' ' -))"
param() { sed -n "s/^$1=//p" "$run/parameters"; }
# A run over hosts (make bench HOSTS=) has a host column: each boot's sshlogin.
overhosts=$(param hosts)
# A PRECISION= run booted as many repeats as its second stage asked for:
# its precision file has them, its parameters the first stage's.
repeats=$(sed -n 's/^repeats=//p' "$run/precision" 2>/dev/null)
[ -n "$repeats" ] || repeats=$(param repeats)
{
	"$LAB_ROOT/bench/parse-boot.sh" -H $overhosts
	r=1
	while [ "$r" -le "$repeats" ]; do
		for arm in $(param arms); do
			d=$run/boots/$arm-r$r
			"$LAB_ROOT/bench/parse-boot.sh" "$arm" "${arm%-aa}" "$r" "$d" \
				${overhosts:+"$(boot_sshlogin "$d")"} || exit 1
		done
		r=$((r + 1))
	done
} >"$run/results.csv.tmp" && mv "$run/results.csv.tmp" "$run/results.csv" ||
	{ rm -f "$run/results.csv.tmp"; die "could not re-derive $run/results.csv"; }
/usr/bin/python3 "$LAB_ROOT/bench/summarize.py" "$run" | write_atomic "$run/summary.txt" ||
	die "could not summarise $run"
cat "$run/summary.txt"
