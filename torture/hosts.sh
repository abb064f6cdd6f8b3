#!/bin/sh
# Boot prepared torture scenarios on other hosts through GNU parallel, and
# bring their boots back (make torture HOSTS=FILE).
# usage: torture/hosts.sh -H HOSTS_FILE -k KERNEL_OUT RUN_DIR INSTANCE...
#   HOSTS_FILE  GNU parallel's --sshloginfile: one sshlogin a line
#               ("user@host", "8/user@host" for 8 CPUs, "ssh -p 2222 host")
#   KERNEL_OUT  the built flavour the scenarios were prepared with
#   RUN_DIR     the run; RUN_DIR/INSTANCE was prepared by torture/scenario.sh -P
# Environment: LAB_SSH, the ssh command (default "ssh").
# Each host needs QEMU, rsync and perl (GNU parallel's remote side); it gets
# the kernel, vm/boot.sh and the scenario's directory (initramfs, qemu-cmd)
# under ~/lab-hosts/RUN, runs vm/boot.sh there, and the directory comes back
# with console.log, verdict, guest/, boot-host and sshlogin.  Jobs per host:
# its CPUs over the widest scenario's vCPUs.  A boot that cannot start or
# whose host fails (ssh error, QEMU missing) is tried on another host, each
# host once; a scenario no host booted gets the verdict "ERROR: not booted",
# which the judge fails: never a pass.  Writes RUN_DIR/hosts (the file),
# hosts.joblog (parallel's: host, times, exit value per try) and hosts.log.
. "$(dirname "$0")/functions.sh"

hosts= kout=
while getopts H:k:h opt; do
	case $opt in
	H) hosts=$OPTARG ;;
	k) kout=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] && [ -n "$hosts" ] && [ -n "$kout" ] || { usage_from_header; exit 2; }
rundir=$1
shift
[ -r "$hosts" ] || die_usage "no hosts file $hosts"
nhosts=$(grep -cv '^[[:space:]]*\(#\|$\)' "$hosts")
[ "$nhosts" -ge 1 ] || die_usage "$hosts names no host"
need_cmd parallel parallel
need_cmd rsync rsync
ssh=${LAB_SSH:-ssh}

run=$(basename "$rundir" .partial)
stagedir=$LAB_BUILD/hosts/$run
rm -rf "$stagedir"
mkdir -p "$stagedir"
cp "$kout/arch/x86/boot/bzImage" "$stagedir/bzImage"
cp "$LAB_ROOT/vm/boot.sh" "$stagedir/boot.sh"
cp "$hosts" "$rundir/hosts"
vmax=1
for s in "$@"; do
	cp -r "$rundir/$s" "$stagedir/$s"
	v=$(sed -n 's/^vcpus=//p' "$rundir/$s/env")
	[ "$v" -gt "$vmax" ] && vmax=$v
done

# A try fails, and goes to another host, when the boot could not be made
# there (boot.sh's ERROR, 5) or ssh failed (255); a guest's own verdict,
# FAILURE included, is the scenario's result.
progress hosts "$# scenarios on $nhosts hosts ($(grep -v '^[[:space:]]*\(#\|$\)' "$hosts" | paste -sd' ' -)), widest $vmax vCPUs"
for s in "$@"; do echo "$s $(cat "$rundir/$s/timeout")"; done |
	(cd "$stagedir" && parallel --will-cite --ssh "$ssh" --slf "$hosts" -j "$((100 / vmax))%" \
		--retries "$nhosts" --colsep ' ' --wd "lab-hosts/$run" --basefile bzImage --basefile boot.sh \
		--transferfile '{1}' --return '{1}' --joblog "$rundir/hosts.joblog" \
		'echo "$PARALLEL_SSHLOGIN" >{1}/sshlogin; LAB_KERNEL=../bzImage sh boot.sh {1} {2} 2>{1}/boot.log; rc=$?; [ $rc != 5 ] && [ $rc != 130 ]') \
	>"$rundir/hosts.log" 2>&1
rc=$?
# Leave nothing behind on the hosts (a dead one cannot be cleaned).
(cd "$stagedir" && parallel --will-cite --ssh "$ssh" --slf "$hosts" --nonall "rm -rf lab-hosts/$run") \
	>>"$rundir/hosts.log" 2>&1

booted=0
for s in "$@"; do
	if [ -s "$stagedir/$s/verdict" ]; then
		cp -r "$stagedir/$s/." "$rundir/$s/"
		booted=$((booted + 1))
		progress hosts "$s: booted on $(cat "$rundir/$s/sshlogin" 2>/dev/null): $(cat "$rundir/$s/verdict")"
	else
		: >>"$rundir/$s/console.log"
		echo "ERROR: not booted: no host could run it (see hosts.log and hosts.joblog)" >"$rundir/$s/verdict"
		progress hosts "$s: no host booted it"
	fi
done
rm -rf "$stagedir"
progress hosts "$booted of $# scenarios booted on the hosts (GNU parallel exit $rc)"
[ "$booted" = $# ]
