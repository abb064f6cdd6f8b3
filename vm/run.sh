#!/bin/sh
# Boot a kernel in QEMU, run a guest payload, and return the guest's verdict:
# the initramfs and qemu-cmd are made here, the boot is vm/boot.sh's.
# usage: vm/run.sh -k BZIMAGE -o OUTDIR [-c VCPUS] [-m MEM_MB] [-t TIMEOUT_S]
#                  [-p PAYLOAD_DIR] [-M MODROOT] [-a "BOOT ARGS"] [-i] [-l] [-v] [-n]
#   -p  directory with a "run" script, run as the guest's /payload/run with
#       the results share (OUTDIR/guest on the host) as working directory
#   -M  modules_install tree to put in the initramfs
#   -a  extra kernel command line
#   -i  count instructions.  One vCPU: single-threaded TCG with -icount
#       shift=0,sleep=off, so guest time is instructions executed (1 ns
#       each) and idle time is skipped; accelerator "tcg-icount".  More
#       vCPUs (where QEMU 7.2's -icount hangs the guest): multi-threaded TCG
#       with the plugin vm/insn-count.c, which writes every vCPU's count at
#       each marker the guest executes to OUTDIR/insns.txt; accelerator
#       "tcg-insns"
#   -l  trace lock acquisitions and releases too (implies -i): the plugin,
#       at any vCPU count (under -icount too at one vCPU), writes the
#       atomics and lock-releasing stores between the guest's markers to
#       OUTDIR/locks.bin (vm/insn-count.c), for the caller to pair
#   -v  stream the console to the terminal, each line prefixed "[guest] "
#   -n  dry run: write the initramfs, qemu-cmd, env and kernel.config and
#       print the QEMU command; boot nothing (vm/boot.sh OUTDIR boots it
#       later, here or on another host)
# Environment: LAB_ACCEL=kvm|tcg skips the accelerator probe.
# Exit status and OUTDIR/verdict: 0 PASS, 1 FAIL (payload exit code),
# 2 PANIC, 3 HANG (timeout), 4 NOVERDICT (guest ended without reporting),
# 5 ERROR (QEMU or runner), 130 INTERRUPTED (INT, TERM or HUP: the guest is
# stopped before this script exits).  OUTDIR also gets console.log, qemu-cmd,
# qemu-exit, qemu.stderr, env, kernel.config and guest/.
. "$(dirname "$0")/../lib/functions.sh"

kernel= out= vcpus=2 mem= timeout= payload= modroot= bootargs= verbose= dry= icount= locks= plugin=
while getopts k:o:c:m:t:p:M:a:ilvnh opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	o) out=$OPTARG ;;
	c) vcpus=$OPTARG ;;
	m) mem=$OPTARG ;;
	t) timeout=$OPTARG ;;
	p) payload=$OPTARG ;;
	M) modroot=$OPTARG ;;
	a) bootargs=$OPTARG ;;
	i) icount=1 ;;
	l) icount=1 locks=1 ;;
	v) verbose=1 ;;
	n) dry=1 ;;
	*) usage_from_header; exit 5 ;;
	esac
done
[ -n "$kernel" ] && [ -n "$out" ] || { usage_from_header; exit 5; }
[ -r "$kernel" ] || die "no kernel image at $kernel (build it: make kernel)"
"$LAB_ROOT/vm/check-vcpus.sh" "$vcpus" || exit 5
is_uint "${mem:-0}" || die "memory must be a number of MiB, not '$mem'"
is_uint "${timeout:-0}" || die "timeout must be a number of seconds, not '$timeout'"
# Lockdep's per-CPU state and the 9p buffers want room; grow with the vCPUs.
[ -n "$mem" ] || mem=$((1024 + 32 * vcpus))
need_cmd qemu-system-x86_64 qemu-system-x86

mkdir -p "$out/guest"
rm -f "$out/verdict" "$out/console.log" "$out/qemu-exit" "$out/insns.txt" "$out/locks.bin"
if [ -z "$payload" ]; then
	payload=$out/payload
	mkdir -p "$payload"
	echo 'true' >"$payload/run"
fi
"$LAB_ROOT/vm/mkinitramfs.sh" "$payload" "$out/initramfs.cpio.gz" "$modroot" || exit 5

hostcpus=$(nproc)
if [ -n "$icount" ]; then
	# Instruction counting exists only in TCG.  QEMU 7.2's -icount hangs
	# a guest with more than one vCPU at SMP bring-up (docs/bench.md).
	if [ "$vcpus" = 1 ]; then
		accel=tcg-icount
	else
		accel=tcg-insns
	fi
	[ "$accel$locks" = tcg-icount ] || plugin=$("$LAB_ROOT/vm/build-plugin.sh") || exit 5
else
	accel=${LAB_ACCEL:-$("$LAB_ROOT/vm/accel.sh" "$kernel")} || exit 5
fi
# A guest that behaves like hardware where locks and timing care:
# - no hypervisor CPUID bit: with it, virt_spin_lock() (PARAVIRT without PV
#   spinlocks) makes every spinlock a test-and-set lock, where hardware runs
#   the qspinlock and its contention tracepoints;
# - "max" under TCG: an invariant TSC as clocksource (qemu64 is an old AMD
#   whose TSC Linux marks unstable, leaving HPET, an MMIO exit per read) and
#   RDRAND, which with random.trust_cpu=on seeds the CRNG before /init;
# - tsc=reliable: TCG's TSC is one clock for all vCPUs; the watchdog would
#   otherwise compare it with HPET on a time-sliced host and give it up;
# - pci=noacpi: PCI interrupts routed by the BIOS's $PIR table, not ACPI's
#   link devices, whose methods the interpreter took 3.3 s each to run in
#   a lockdep kernel under TCG (2026-12-05: a 2-vCPU torture guest reached
#   /init in 2.1 s instead of 6.7 s, a 32-vCPU one booted in 93 s where it
#   had not reached /init in 240 s).  No measurement involves PCI interrupts.
case $accel in
kvm) accel_opts="-accel kvm -cpu host,-hypervisor" ;;
tcg) accel_opts="-accel tcg,thread=multi -cpu max,-hypervisor" ;;
# -seed: RDRAND (the CRNG's seed) from a fixed sequence, so that the guest
# makes the same choices on every boot and an instruction count repeats.
tcg-icount) accel_opts="-accel tcg,thread=single -icount shift=0,sleep=off -seed 1 -cpu max,-hypervisor" ;;
tcg-insns) accel_opts="-accel tcg,thread=multi -seed 1 -cpu max,-hypervisor" ;;
*) die "unknown accelerator '$accel'" ;;
esac
[ -z "$plugin" ] ||
	accel_opts="$accel_opts -plugin $(realpath -m --relative-to="$out" "$plugin"),out=insns.txt${locks:+,locks=locks.bin}"
hwargs="tsc=reliable random.trust_cpu=on pci=noacpi"
# Under TCG each vCPU is a host thread doing emulation: boot time grows with
# the vCPU count (measured here: 2 s at 2 vCPUs, 25 s at 32 on 2 cores).
[ -n "$timeout" ] || timeout=$((120 + 5 * vcpus))
if [ "$vcpus" -gt "$hostcpus" ]; then
	warn "$vcpus vCPUs on $hostcpus host CPUs: overcommitted $((vcpus / hostcpus))x;" \
		"vCPUs are time-sliced, so lock hold times, contention and throughput are distorted"
fi

# QEMU runs in OUTDIR and every path of its command is relative, so that
# qemu-cmd still boots after RUN.partial/ is renamed to RUN/.
set -- qemu-system-x86_64 -M pc $accel_opts -smp "$vcpus" -m "$mem" \
	-kernel "$(realpath -m --relative-to="$out" "$kernel")" -initrd initramfs.cpio.gz \
	-append "console=ttyS0 panic=-1 oops=panic $hwargs ${bootargs}" \
	-display none -no-reboot -monitor none -serial file:console.log \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-virtfs "local,path=guest,mount_tag=labresults,security_model=none,multidevs=remap" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
{
	echo "# QEMU command of this boot; replay from anywhere with: sh qemu-cmd"
	echo "# kernel=$kernel vcpus=$vcpus mem=${mem}M accel=$accel timeout=${timeout}s host_cpus=$hostcpus"
	echo 'cd "$(dirname "$0")" || exit'
	# results/ does not keep the initramfs (.gitignore): make it again.
	printf "[ -r initramfs.cpio.gz ] || sh '%s' '%s' initramfs.cpio.gz '%s' || exit\n" \
		"$(realpath -m --relative-to="$out" "$LAB_ROOT/vm/mkinitramfs.sh")" \
		"$(realpath -m --relative-to="$out" "$payload")" \
		"$([ -z "$modroot" ] || realpath -m --relative-to="$out" "$modroot")"
	# exec: QEMU is the process that timeout and signals reach; "$@":
	# options added by the caller (vm/boot.sh adds -pidfile); LAB_KERNEL:
	# the kernel elsewhere (a remote host gets it beside the boot).
	printf 'exec '
	prev=
	for a in "$@"; do
		if [ "$prev" = -kernel ]; then printf '"${LAB_KERNEL:-%s}" ' "$a"; else printf "'%s' " "$a"; fi
		prev=$a
	done
	echo '"$@"'
} | write_atomic "$out/qemu-cmd"
"$LAB_ROOT/vm/env.sh" "$kernel" "$accel" "$vcpus" "$mem" | write_atomic "$out/env"
kdir=$(kernel_build_dir "$kernel")
[ -r "$kdir/.config" ] && cp "$kdir/.config" "$out/kernel.config"
if [ -n "$dry" ]; then
	cat "$out/qemu-cmd"
	exit 0
fi

progress boot "$(basename "$kdir"): $vcpus vCPUs, ${mem} MiB, $accel, timeout ${timeout}s -> $out"
exec "$LAB_ROOT/vm/boot.sh" ${verbose:+-v} "$out" "$timeout"
