#!/bin/sh
# The results.csv rows of one bench boot, from its guest's bench.txt.
# usage: bench/parse-boot.sh ARM KERNEL REPEAT BOOT_DIR [HOST]
#        bench/parse-boot.sh -H [HOST]   (the header)
# Columns: arm,kernel,repeat,threads,phase,ops,elapsed_s,ops_per_s,
# min_thread_ops,max_thread_ops, and host for a run over hosts (make bench
# HOSTS=: the sshlogin, without its CPU count).  Used by the run and by
# bench/recheck.sh, so that both make the same bytes.
. "$(dirname "$0")/../lib/functions.sh"

if [ "${1:-}" = -H ]; then
	echo "arm,kernel,repeat,threads,phase,ops,elapsed_s,ops_per_s,min_thread_ops,max_thread_ops${2:+,host}"
	exit 0
fi
[ $# -eq 4 ] || [ $# -eq 5 ] || { usage_from_header; exit 2; }
[ -r "$4/guest/bench.txt" ] || die "no guest/bench.txt in $4"
sed -n 's/^BENCH //p' "$4/guest/bench.txt" | awk -v arm="$1" -v k="$2" -v r="$3" -v host="${5:+,$5}" '
	{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%s,%s,%d,%d,%s,%d,%s,%s,%d,%d%s\n", arm, k, r, v["threads"],
			v["phase"], v["ops"], v["elapsed_s"], v["ops_per_s"],
			v["min_thread_ops"], v["max_thread_ops"], host
	}'
