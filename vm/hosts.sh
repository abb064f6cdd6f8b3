#!/bin/sh
# Boot prepared guests on other hosts through GNU parallel, and bring their
# boots back (make torture HOSTS=FILE, make bench HOSTS=FILE).
# usage: vm/hosts.sh [-1] -H HOSTS_FILE RUN_DIR JOB...
#   HOSTS_FILE  GNU parallel's --sshloginfile: one sshlogin a line
#               ("user@host", "8/user@host" for 8 CPUs, "ssh -p 2222 host")
#   RUN_DIR     the run, whose boots vm/run.sh -n prepared
#   JOB         boot directories of RUN_DIR joined by commas, booted one
#               after another on one host: a torture scenario (one boot),
#               or a bench repeat (each kernel once, in the run's order)
#   -1          one job per host at a time (a benchmark has its host to
#               itself); otherwise a host's CPUs over the widest boot's vCPUs
# Environment: LAB_SSH, the ssh command (default "ssh").
# Each host needs QEMU, rsync and perl (GNU parallel's remote side); it gets
# the kernels, vm/boot.sh, boot-job.sh, host-env.sh and the job's boot
# directories (initramfs, qemu-cmd) under ~/lab-hosts/RUN, and each boot
# comes back with console.log, verdict, guest/, sshlogin and host-env.  A
# job that cannot boot on a host (ssh error, QEMU missing or dead) is tried
# whole on another host: at most twice as many tries as hosts, parallel
# giving each retry to a host it failed on least (with one try a host, CI
# on 2026-12-05 saw a scenario's last try end on the host that always
# drops, not tried again; parallel's job log keeps no earlier try, so
# hosts.log records each).  A boot no host made gets the verdict "ERROR:
# not booted", never a pass.  Writes RUN_DIR/hosts (the file), hosts.joblog
# (parallel's: host, times and exit of each job's last try) and hosts.log.
. "$(dirname "$0")/../lib/functions.sh"

hosts= one=
while getopts H:1h opt; do
	case $opt in
	H) hosts=$OPTARG ;;
	1) one=1 ;;
	*) usage_from_header; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] && [ -n "$hosts" ] || { usage_from_header; exit 2; }
rundir=$1
shift
check_hosts_file "$hosts"
nhosts=$(hosts_in "$hosts" | wc -l)
need_cmd parallel parallel
need_cmd rsync rsync
ssh=${LAB_SSH:-ssh}

run=$(basename "$rundir" .partial)
stagedir=$LAB_BUILD/hosts/$run
rm -rf "$stagedir"
mkdir -p "$stagedir"
cp "$LAB_ROOT/vm/boot.sh" "$LAB_ROOT/vm/boot-job.sh" "$LAB_ROOT/vm/host-env.sh" "$stagedir/"
cp "$hosts" "$rundir/hosts"
# Stage each job as jN/ with its boots and their order (jN/boots), and
# each kernel once, as kN.bzImage, named in every boot's lab-kernel.
vmax=1 n=0 kernels=
for job in "$@"; do
	n=$((n + 1))
	mkdir "$stagedir/j$n"
	for b in $(echo "$job" | tr ',' ' '); do
		s=$stagedir/j$n/$(basename "$b")
		cp -r "$rundir/$b" "$s"
		basename "$b" >>"$stagedir/j$n/boots"
		k=$(sed -n 's/^kernel=//p' "$s/env")
		[ -r "$k" ] || die "$rundir/$b/env names no readable kernel ($k)"
		i=$(printf '%s\n' $kernels | grep -nxF "$k" | cut -d: -f1)
		[ -n "$i" ] || { kernels="$kernels $k"; i=$(echo $kernels | wc -w); cp "$k" "$stagedir/k$i.bzImage"; }
		echo "k$i.bzImage" >"$s/lab-kernel"
		v=$(sed -n 's/^vcpus=//p' "$s/env")
		[ "$v" -gt "$vmax" ] && vmax=$v
	done
done
jobs="$((100 / vmax))%"
[ -z "$one" ] || jobs=1
basefiles=$(cd "$stagedir" && for f in boot.sh boot-job.sh host-env.sh k*.bzImage; do printf -- '--basefile %s ' "$f"; done)

progress hosts "$n jobs on $nhosts hosts ($(hosts_in "$hosts" | paste -sd' ' -)), widest $vmax vCPUs, $([ -n "$one" ] && echo "one job a host at a time" || echo "packed by vCPUs")"
# boot-job.sh's lines (a boot started, its verdict) as they come: progress,
# and in hosts.log a record of every try, which the job log does not keep.
: >"$rundir/hosts.log"
{
	seq 1 "$n" | sed 's/^/j/' |
		(cd "$stagedir" && parallel --will-cite --ssh "$ssh" --slf "$hosts" -j "$jobs" \
			--retries "$((2 * nhosts))" --wd "lab-hosts/$run" $basefiles --line-buffer \
			--transferfile '{}' --return '{}' --joblog "$rundir/hosts.joblog" 'sh boot-job.sh {}') \
		2>>"$rundir/hosts.log"
	echo "$?" >"$stagedir/parallel-exit"
} | while IFS= read -r line; do
	echo "$line" >>"$rundir/hosts.log"
	progress hosts "$line"
done
rc=$(cat "$stagedir/parallel-exit")
# Leave nothing behind on the hosts (a dead one cannot be cleaned).
(cd "$stagedir" && parallel --will-cite --ssh "$ssh" --slf "$hosts" --nonall "rm -rf lab-hosts/$run") \
	>>"$rundir/hosts.log" 2>&1

booted=0 nboots=0 n=0
for job in "$@"; do
	n=$((n + 1))
	for b in $(echo "$job" | tr ',' ' '); do
		nboots=$((nboots + 1))
		s=$stagedir/j$n/$(basename "$b")
		if [ -s "$s/verdict" ]; then
			cp -r "$s/." "$rundir/$b/"
			booted=$((booted + 1))
			progress hosts "$b: booted on $(cat "$rundir/$b/sshlogin" 2>/dev/null): $(cat "$rundir/$b/verdict")"
		else
			: >>"$rundir/$b/console.log"
			echo "ERROR: not booted: no host could run it (see hosts.log and hosts.joblog)" >"$rundir/$b/verdict"
			progress hosts "$b: no host booted it"
		fi
	done
done
rm -rf "$stagedir"
progress hosts "$booted of $nboots boots made on the hosts (GNU parallel exit $rc)"
[ "$booted" = "$nboots" ]
