# Helpers of the torture scripts.  Source it after nothing else: it sources
# the lab's common functions.
. "$(dirname "$0")/../vm/functions.sh"

# scenario_vcpus FRAGMENT: a scenario's vCPU count, its CONFIG_NR_CPUS.
scenario_vcpus() {
	sed -n 's/^CONFIG_NR_CPUS=//p' "$1" | tail -n 1 | grep . || echo 2
}
