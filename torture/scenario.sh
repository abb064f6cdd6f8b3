#!/bin/sh
# Run one torture scenario instance: write its files, boot it, judge it
# (torture/run.sh runs one per scenario, several at once when packed).
# usage: torture/scenario.sh -k KERNEL_OUT -o SCENARIO_DIR -d DURATION_S [-c VCPUS] [-P|-J] INSTANCE
#   KERNEL_OUT    a built flavour, build/out/FLAVOUR (bzImage and modroot)
#   INSTANCE      a scenario of torture/configs/, or a repeat of one (SIX-4.2)
#   -c            vCPUs (default: the scenario's CONFIG_NR_CPUS)
#   -P            prepare only: the files, initramfs and qemu-cmd, no boot
#                 (the boot is made elsewhere: vm/hosts.sh)
#   -J            judge only, a boot made elsewhere (-k and -d unused)
# Writes SCENARIO_DIR/: config-fragment, config-required, flavour, boot, expect,
# schedule (when it started and ended), the runner's files (console.log,
# verdict, guest/ ...), lockstat.txt, and the judge's badness, judgement and
# summary.  Exit status 0 when the scenario ended as expected.
. "$(dirname "$0")/functions.sh"

kout= sd= duration= vcpus= mode=all
while getopts k:o:d:c:PJh opt; do
	case $opt in
	P) mode=prepare ;;
	J) mode=judge ;;
	k) kout=$OPTARG ;;
	o) sd=$OPTARG ;;
	d) duration=$OPTARG ;;
	c) vcpus=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] && [ -n "$sd" ] && { [ "$mode" = judge ] || { [ -n "$kout" ] && [ -n "$duration" ]; }; } ||
	{ usage_from_header; exit 2; }
s=$1
b=$(scenario_base "$s")
c=${vcpus:-$(scenario_vcpus "$(scenario_file "$b")")}

judge() {
	grep -E '^ *[^ ]*(torture|six_nest|pcpu_rwsem)[^ ]*:' "$sd/guest/lock_stat.txt" \
		>"$sd/lockstat.txt" 2>/dev/null
	"$LAB_ROOT/torture/judge.sh" "$sd"
}
[ "$mode" != judge ] || { judge; exit; }

mkdir -p "$sd"
echo "started=$(date +%s)" >"$sd/schedule.tmp"
cp "$(scenario_file "$b")" "$sd/config-fragment"
basename "$kout" >"$sd/flavour"  # the kernel's build (FLAVOUR or FLAVOUR-mutant)
# Time bounds of the liveness detectors (stall_secs, quiet_wait_ms, the
# hung-task timeout) hold up to 4 vCPUs a host CPU: no unmutated boot at 2,
# 4 or 8 vCPUs on 2 host CPUs came near them.  At 16 (32 vCPUs here) a
# descheduled vCPU holds its lock for whole host time slices and the
# unmutated series trips all three (results/torture/20261207-quiet-32vcpu),
# so beyond 4 vCPUs a host CPU they grow with the overcommit.  (This host's
# CPUs: neither neighbours packed by CPUS= nor a HOSTS= host are counted.)
scale=$(( (c + 4 * $(nproc) - 1) / (4 * $(nproc)) ))
boot=$(cat "$(scenario_file "$b.boot")")
if [ "$scale" -gt 1 ]; then
	boot=$(echo "$boot" | tr ' ' '\n' | awk -v k="$scale" -F= '
		$1 ~ /^(locktorture\.stall_secs|locktorture\.quiet_wait_ms|lab\.hung_task_secs)$/ { $0 = $1 "=" $2 * k }
		{ printf "%s%s", sep, $0; sep = " " }')
fi
echo "$boot lab.duration=$duration" >"$sd/boot"
cat "$(scenario_file "$b.expect")" 2>/dev/null >"$sd/expect" || echo SUCCESS >"$sd/expect"
# The fragment's CONFIG_NR_CPUS is the scenario's vCPU count (as in
# upstream's kvm.sh); every other option must be in the torture kernel.
grep -v '^CONFIG_NR_CPUS=' "$(scenario_file "$b")" >"$sd/config-required"
if ! "$LAB_ROOT/vm/check-config.sh" "$kout/.config" "$sd/config-required" 2>"$sd/config-check.log"; then
	echo "FAIL: the torture kernel lacks options of $s; see config-check.log" >"$sd/judgement"
	exit 1
fi
# The end-of-test liveness check of locktorture may wait 2 * stall_secs.
stall=$(tr ' ' '\n' <"$sd/boot" | sed -n 's/^locktorture\.stall_secs=//p' | tail -n 1)
timeout=$((120 + 5 * c + duration + 60 + 2 * ${stall:-0}))
echo "$timeout" >"$sd/timeout"
dry=
[ "$mode" = prepare ] && dry=-n
"$LAB_ROOT/vm/run.sh" $dry -k "$kout/arch/x86/boot/bzImage" -M "$kout/modroot" -o "$sd" \
	-c "$c" -t "$timeout" -p "$LAB_ROOT/torture/payload" -a "$(cat "$sd/boot")" >/dev/null 2>"$sd/run.log"
[ "$mode" = all ] || { rm -f "$sd/schedule.tmp"; exit 0; }
echo "ended=$(date +%s)" >>"$sd/schedule.tmp"
mv "$sd/schedule.tmp" "$sd/schedule"
judge
