# Helpers of the torture scripts.  Source it after nothing else: it sources
# the lab's common functions.
. "$(dirname "$0")/../vm/functions.sh"

# scenario_vcpus FRAGMENT: a scenario's vCPU count, its CONFIG_NR_CPUS.
scenario_vcpus() {
	sed -n 's/^CONFIG_NR_CPUS=//p' "$1" | tail -n 1 | grep . || echo 2
}

# expand_scenarios LIST: kvm.sh's "N*NAME" repeats, as instances NAME,
# NAME.2 ... NAME.N (numbered across the list, so "A 2*A" is A A.2 A.3),
# interleaved by round (A B A.2 B.2 ...) so that slow drift of the host
# touches every scenario alike.
expand_scenarios() {
	echo $* | tr ' ' '\n' | awk '
		/\*/ { n = $0; sub(/\*.*/, "", n); name = $0; sub(/^[^*]*\*/, "", name) }
		!/\*/ { n = 1; name = $0 }
		n !~ /^[0-9]+$/ || n < 1 { print "BAD-REPEAT:" $0; next }
		{ want[++k] = name; reps[k] = n; if (n > max) max = n }
		END {
			for (r = 1; r <= max; r++)
				for (i = 1; i <= k; i++)
					if (r <= reps[i] && ++seen[want[i]])
						print (seen[want[i]] == 1 ? want[i] : want[i] "." seen[want[i]])
		}'
}

# scenario_base INSTANCE: the scenario an instance runs (SIX-4.2 -> SIX-4).
scenario_base() {
	echo "${1%.[0-9]*}"
}
