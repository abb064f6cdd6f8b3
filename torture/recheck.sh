#!/bin/sh
# Re-judge a stored torture run from its files, without booting anything
# (like upstream's kvm-recheck.sh): judgements, summaries and the table are
# made again from each scenario's console.log.
# usage: torture/recheck.sh RUN     (a directory, or a run name in results/torture)
. "$(dirname "$0")/functions.sh"

[ $# -eq 1 ] || { usage_from_header; exit 2; }
run=$1
[ -d "$run" ] || run=$LAB_ROOT/results/torture/$1
[ -d "$run" ] || die "no torture run '$1' (runs: $(ls "$LAB_ROOT/results/torture" 2>/dev/null | paste -sd' ' -))"
fails=0
for d in "$run"/*/; do
	[ -r "$d/console.log" ] || continue
	"$LAB_ROOT/torture/judge.sh" "$d" || fails=$((fails + 1))
	echo "$(basename "$d"): $(cat "$d/judgement")"
done
"$LAB_ROOT/torture/table.sh" "$run" | write_atomic "$run/table.txt" || die "could not tabulate $run"
cat "$run/table.txt"
[ "$fails" = 0 ]
