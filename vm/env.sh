#!/bin/sh
# Describe the environment of a boot: host, accelerator, QEMU, kernel, lab revision.
# usage: vm/env.sh BZIMAGE ACCEL VCPUS MEM_MB
# Written beside every result, so that no number stands without its context.
. "$(dirname "$0")/../lib/functions.sh"

[ $# -eq 4 ] || { usage_from_header; exit 2; }
echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
host_env
echo "accel=$2"
echo "vcpus=$3"
echo "mem_mib=$4"
echo "overcommit=$(awk -v v="$3" -v h="$(nproc)" 'BEGIN { printf "%.2f", v / h }')"
echo "lab_git_rev=$(git -C "$LAB_ROOT" rev-parse HEAD 2>/dev/null || echo none)"
echo "lab_git_dirty=$(git -C "$LAB_ROOT" status --porcelain 2>/dev/null | grep -c .)"
echo "kernel=$1"
benv=$(kernel_build_dir "$1")/lab-build.env
[ -r "$benv" ] && sed 's/^/kernel_/' "$benv"
exit 0
