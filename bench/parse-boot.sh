#!/bin/sh
# The results.csv rows of one bench boot, from its guest's bench.txt.
# usage: bench/parse-boot.sh ARM KERNEL REPEAT BOOT_DIR [HOST]
#        bench/parse-boot.sh -H [HOST]   (the header)
# Columns: arm,kernel,repeat,threads,phase,ops,elapsed_s,ops_per_s,
# min_thread_ops,max_thread_ops, and host for a run over hosts (make bench
# HOSTS=: the sshlogin, without its CPU count).  Used by the run and by
# bench/recheck.sh, so that both make the same bytes.
# A boot counted by the instruction-counting plugin (vm/run.sh -i with more
# than one vCPU) has BOOT_DIR/insns.txt: the k-th BENCH line's elapsed_s
# becomes the instructions all vCPUs executed between the k-th pair of
# markers, at 1 ns each (as under -icount), and ops_per_s follows from it.
. "$(dirname "$0")/../lib/functions.sh"

if [ "${1:-}" = -H ]; then
	echo "arm,kernel,repeat,threads,phase,ops,elapsed_s,ops_per_s,min_thread_ops,max_thread_ops${2:+,host}"
	exit 0
fi
[ $# -eq 4 ] || [ $# -eq 5 ] || { usage_from_header; exit 2; }
[ -r "$4/guest/bench.txt" ] || die "no guest/bench.txt in $4"
insns=
[ ! -e "$4/insns.txt" ] || insns=$4/insns.txt
sed -n 's/^BENCH //p' "$4/guest/bench.txt" | awk -v arm="$1" -v k="$2" -v r="$3" -v host="${5:+,$5}" -v insns="$insns" '
	function fail(why) { print "parse-boot: " insns ": " why >"/dev/stderr"; bad = 1; exit 1 }
	BEGIN {
		# "mark ID VCPU TOTAL ...": ID 1 starts a measurement, 2 ends it.
		while (insns != "" && (getline line <insns) > 0) {
			split(line, f, " ")
			if (f[1] != "mark") continue
			if (f[2] == 1) { if (open) fail("two start markers in a row"); start = f[4]; open = 1 }
			else if (f[2] == 2) { if (!open) fail("an end marker without a start"); d[++pairs] = f[4] - start; open = 0 }
		}
	}
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (insns != "") {
			if (++line_no > pairs) fail("more BENCH lines than measurements marked")
			v["elapsed_s"] = sprintf("%.9f", d[line_no] / 1e9)
			v["ops_per_s"] = sprintf("%.3f", v["ops"] / (d[line_no] / 1e9))
		}
		printf "%s,%s,%d,%d,%s,%d,%s,%s,%d,%d%s\n", arm, k, r, v["threads"],
			v["phase"], v["ops"], v["elapsed_s"], v["ops_per_s"],
			v["min_thread_ops"], v["max_thread_ops"], host
	}
	END { if (!bad && insns != "" && line_no != pairs) fail(pairs " measurements marked, " line_no " BENCH lines") }'
