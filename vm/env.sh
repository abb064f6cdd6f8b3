#!/bin/sh
# Describe the environment of a boot: host, accelerator, QEMU, kernel, lab revision.
# usage: vm/env.sh BZIMAGE ACCEL VCPUS MEM_MB
# Written beside every result, so that no number stands without its context.
. "$(dirname "$0")/functions.sh"

[ $# -eq 4 ] || { usage_from_header; exit 2; }
echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "host=$(hostname)"
echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "host_cpus=$(nproc)"
echo "host_mem_mib=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)"
echo "host_kernel=$(uname -r)"
echo "accel=$2"
echo "vcpus=$3"
echo "mem_mib=$4"
echo "overcommit=$(awk -v v="$3" -v h="$(nproc)" 'BEGIN { printf "%.2f", v / h }')"
echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
echo "lab_git_rev=$(git -C "$LAB_ROOT" rev-parse HEAD 2>/dev/null || echo none)"
echo "lab_git_dirty=$(git -C "$LAB_ROOT" status --porcelain 2>/dev/null | grep -c .)"
echo "kernel=$1"
echo "accel_probe=$(sed -n 2p "$LAB_BUILD/accel.probe" 2>/dev/null)"
benv=$(kernel_build_dir "$1")/lab-build.env
[ -r "$benv" ] && sed 's/^/kernel_/' "$benv"
exit 0
