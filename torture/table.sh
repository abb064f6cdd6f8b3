#!/bin/sh
# Print the table of a torture run from its scenarios' summary files.
# usage: torture/table.sh RUN_DIR
# Columns: scenario, torture type, vCPUs, result, acquisitions per second
# for each side (writes, reads, intent), seconds of torture.
. "$(dirname "$0")/functions.sh"

[ $# -eq 1 ] || { usage_from_header; exit 2; }
printf '%-18s %-18s %5s  %-6s %10s %10s %10s %6s  %s\n' \
	scenario type vCPUs result writes/s reads/s intent/s secs expected
for sum in "$1"/*/summary; do
	[ -r "$sum" ] || continue
	awk -F= '
		{ v[$1] = substr($0, length($1) + 2) }
		END {
			r = v["judgement"]; sub(/:.*/, "", r)
			printf "%-18s %-18s %5s  %-6s %10s %10s %10s %6.0f  %s\n",
				v["scenario"], v["torture_type"], v["vcpus"], r,
				v["writes_per_s"], v["reads_per_s"], v["intent_per_s"],
				v["duration_s"], v["expect"]
		}' "$sum"
done
