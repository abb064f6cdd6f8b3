#!/bin/sh
# Boot a job's prepared guests on this host, one after another: the remote
# half of vm/hosts.sh, run there by GNU parallel beside boot.sh and the
# kernels (needs only sh, coreutils and QEMU, as boot.sh does).
# usage: sh boot-job.sh JOB
#   JOB   the job's directory: its file "boots" names its prepared boots,
#         in order, each a directory of JOB with qemu-cmd and lab-kernel
#         (the path of its kernel here, from this directory)
# Each boot gets sshlogin (the hosts file's name of this host), host-env
# (this host's facts, vm/host-env.sh) and boot.log.
# Exit status 1 when a boot could not be made here (boot.sh's ERROR or
# INTERRUPTED), so that parallel tries the whole job on another host; a
# guest's own verdict, FAILURE included, is the boot's result: 0.
[ $# -eq 1 ] || { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 2; }
job=$1
for b in $(cat "$job/boots"); do
	d=$job/$b
	echo "${PARALLEL_SSHLOGIN:-local}" >"$d/sshlogin"
	sh host-env.sh >"$d/host-env"
	t=$(sed -n 's/^# kernel=.* timeout=\([0-9]*\)s.*/\1/p' "$d/qemu-cmd")
	# A line a boot for the progress shown where the run was started.
	echo "$b: booting on ${PARALLEL_SSHLOGIN:-local} ($(hostname))"
	LAB_KERNEL=$PWD/$(cat "$d/lab-kernel") sh boot.sh "$d" "${t:-600}" 2>"$d/boot.log"
	rc=$?
	echo "$b: $(cat "$d/verdict" 2>/dev/null)"
	case $rc in 5 | 130) exit 1 ;; esac
done
exit 0
