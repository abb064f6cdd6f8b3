#!/bin/sh
# Choose QEMU's accelerator: KVM if a short timed probe boot succeeds, else TCG.
# usage: vm/accel.sh BZIMAGE      (prints kvm or tcg)
# /dev/kvm can exist while KVM does not work: on the lab's 2-core hosts a KVM
# guest hangs at boot with the host spinning.  So KVM must prove itself by
# booting BZIMAGE to userspace within 30 s; the answer is cached in
# build/accel.probe until the host reboots or QEMU changes.
. "$(dirname "$0")/../lib/functions.sh"

[ $# -eq 1 ] || { usage_from_header; exit 2; }
cache=$LAB_BUILD/accel.probe
key="$(cat /proc/sys/kernel/random/boot_id) $(qemu-system-x86_64 --version | head -n 1)"
if [ -r "$cache" ] && [ "$(sed -n 1p "$cache")" = "$key" ]; then
	sed -n 2p "$cache" | cut -d' ' -f1
	exit 0
fi

mkdir -p "$LAB_BUILD"
if [ ! -w /dev/kvm ]; then
	result="tcg (no writable /dev/kvm)"
else
	progress accel "probing KVM: a 1-vCPU boot must reach userspace within 30 s"
	probe=$LAB_BUILD/accel-probe
	if LAB_ACCEL=kvm "$LAB_ROOT/vm/run.sh" -k "$1" -o "$probe" -c 1 -m 256 -t 30 >/dev/null 2>&1; then
		result="kvm (probe boot passed)"
	else
		result="tcg (KVM probe: $(cat "$probe/verdict" 2>/dev/null || echo 'no verdict'))"
	fi
fi
progress accel "$result"
printf '%s\n%s\n' "$key" "$result" | write_atomic "$cache"
echo "${result%% *}"
