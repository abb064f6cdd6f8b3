#!/bin/sh
# Check a vCPU count before anything boots.
# usage: vm/check-vcpus.sh VCPUS
# QEMU's pc machine takes at most 255 vCPUs (7.2); the lab's kernels have
# NR_CPUS=256.  More vCPUs than host CPUs works, with a warning at boot.
. "$(dirname "$0")/../lib/functions.sh"

max=255
is_uint "$1" || die "VCPUS must be a whole number from 1 to $max, not '$1'"
[ "$1" -ge 1 ] && [ "$1" -le $max ] ||
	die "VCPUS=$1 is out of range: QEMU's pc machine takes 1 to $max vCPUs"
