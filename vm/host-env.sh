#!/bin/sh
# The facts of the host a guest runs on: name, CPU, CPUs, memory, kernel,
# QEMU.  Standalone (sh and coreutils), so that a remote host of make
# bench/torture HOSTS= records its own (vm/boot-job.sh) as the local one
# does (vm/env.sh).
echo "host=$(hostname)"
echo "host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "host_cpus=$(nproc)"
echo "host_mem_mib=$(awk '/^MemTotal/ { print int($2 / 1024) }' /proc/meminfo)"
echo "host_kernel=$(uname -r)"
echo "qemu=$(qemu-system-x86_64 --version | head -n 1)"
