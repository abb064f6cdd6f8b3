#!/bin/sh
# Judge one torture scenario from its stored files, without booting.
# usage: torture/judge.sh SCENARIO_DIR
# Reads console.log, verdict (the runner's), expect (SUCCESS, FAILURE or
# LOCKDEP) and guest/duration.txt; writes badness (count per class of
# torture/console-badness), judgement (one line: PASS or FAIL and why) and
# summary (key=value: verdict, the detectors that fired, statistics,
# acquisitions per second).
# Exits 0 when the scenario ended as expected.
. "$(dirname "$0")/functions.sh"

[ $# -eq 1 ] || { usage_from_header; exit 2; }
d=$1
[ -r "$d/console.log" ] || die "no console.log in $d"
expect=$(cat "$d/expect" 2>/dev/null || echo SUCCESS)
# tr: verdicts written before vm/boot.sh dropped the console's CR.
runner=$(tr -d '\r' 2>/dev/null <"$d/verdict" || echo "NOVERDICT: no runner verdict")

# One pass over the console for every class (a grep per class made the
# recheck of every committed run fork some twenty greps per scenario).
LC_ALL=C awk -F'\t' 'NR == FNR { if ($0 !~ /^#/ && $0 != "") { n++; cls[n] = $1; re[n] = $2 }; next }
	{ for (i = 1; i <= n; i++) if ($0 ~ re[i]) c[i]++ }
	END { for (i = 1; i <= n; i++) printf "%s=%d\n", cls[i], c[i] }' \
	"$LAB_ROOT/torture/console-badness" "$d/console.log" | write_atomic "$d/badness"
count() { sed -n "s/^$1=//p" "$d/badness"; }
# Classes named info_* are reported, never a failure.
bad=$(awk -F= '$2 > 0 && $1 !~ /^info_/ { printf "%s%s=%s", sep, $1, $2; sep = " " }' "$d/badness")
# The detectors that fired, most specific first: bang and failure only
# when nothing more specific did.
detectors=$(awk -F= '$2 > 0 && $1 !~ /^info_/ { print $1 }' "$d/badness" |
	awk '{ c[++n] = $0 } END {
		for (i = 1; i <= n; i++) if (c[i] != "bang" && c[i] != "failure") { printf "%s%s", s, c[i]; s = ","; k++ }
		if (!k) for (i = 1; i <= n; i++) { printf "%s%s", s, c[i]; s = "," }
	}')
ended=$(grep -oE 'End of test: [A-Z_]+' "$d/console.log" | tail -n 1 | sed 's/End of test: //')

case $expect in
SUCCESS)
	if [ "${runner%%:*}" != PASS ]; then
		j="FAIL: guest $runner"
	elif [ -z "$ended" ]; then
		j="FAIL: no End of test line (hang?)"
	elif [ "$ended" != SUCCESS ] || [ -n "$bad" ]; then
		j="FAIL: End of test: $ended; $bad"
	else
		j="PASS"
	fi ;;
FAILURE)
	if [ "$ended" = FAILURE ] && [ "$(count bang)" -gt 0 ]; then
		j="PASS: FAILURE detected as expected ($bad)"
	else
		j="FAIL: expected End of test: FAILURE, got '${ended:-none}' ($runner)"
	fi ;;
LOCKDEP)
	if grep -q 'possible recursive locking detected' "$d/console.log"; then
		j="PASS: lockdep reported recursive locking as expected"
	else
		j="FAIL: expected lockdep's recursive-locking report, got none ($runner)"
	fi ;;
*)
	die "unknown expectation '$expect' in $d/expect" ;;
esac
echo "$j" | write_atomic "$d/judgement"

# Final statistics: the last of locktorture's lines of each kind.
duration=$(cat "$d/guest/duration.txt" 2>/dev/null || echo 0)
{
	echo "scenario=$(basename "$d")"
	# The inode scenarios torture the inode cache (torture/payload/inode).
	echo "torture_type=$(sed -n -e 's/.*locktorture\.torture_type=\([^ ]*\).*/\1/p' \
		-e 's/.*lab\.torture=inode.*/inode_cache/p' "$d/boot" 2>/dev/null)"
	# The hold policy (locktorture's default -1: each type its own delays).
	hold=$(sed -n 's/.*locktorture\.long_hold=\([-0-9]*\).*/\1/p' "$d/boot" 2>/dev/null)
	echo "long_hold=${hold:--1}"
	[ ! -r "$d/flavour" ] || echo "flavour=$(cat "$d/flavour")"
	echo "vcpus=$(sed -n 's/^vcpus=//p' "$d/env" 2>/dev/null)"
	echo "accel=$(sed -n 's/^accel=//p' "$d/env" 2>/dev/null)"
	# Where it booted (a remote host of make torture HOSTS=, by its sshlogin).
	[ ! -r "$d/boot-host" ] || echo "boot_host=$(cat "$d/boot-host")"
	[ ! -r "$d/sshlogin" ] || echo "sshlogin=$(cat "$d/sshlogin")"
	# Boots the emulator lost to its own crash before this one (vm/boot.sh).
	echo "qemu_crashes=$(cat "$d/qemu-crashes" 2>/dev/null | wc -l)"
	echo "expect=$expect"
	echo "judgement=$j"
	echo "end_of_test=${ended:-none}"
	echo "detectors=${detectors:-none}"
	echo "check=$(sed -n 's/.*!!! six check failed: //p' "$d/console.log" | head -n 1)"
	echo "duration_s=$duration"
	awk -v dur="$duration" '
		{ sub(/^\[[ 0-9.]+\] /, "") }
		/^(Writes|Reads |Intent): +Total: / {
			side = substr($0, 1, 6); sub(/ *:?$/, "", side)
			match($0, /Total: *[0-9]+/)
			t = substr($0, RSTART, RLENGTH); sub(/Total: */, "", t)
			total[side] = t
		}
		/^Six: / { six = $0 }
		/^inode-torture: Ops: / { iops = $0; sub(/^inode-torture: Ops: /, "", iops) }
		/^Quiet: / {
			match($0, /phases: *[0-9]+/); qp = substr($0, RSTART + 7, RLENGTH - 7)
			match($0, /longest drain: *[0-9]+/); qd = substr($0, RSTART + 14, RLENGTH - 14)
			match($0, /ms of *[0-9]+/); qb = substr($0, RSTART + 5, RLENGTH - 5)
			gsub(/ /, "", qp); gsub(/ /, "", qd); gsub(/ /, "", qb)
		}
		END {
			n = split("Writes Reads Intent", sides, " ")
			for (i = 1; i <= n; i++) {
				s = tolower(sides[i])
				t = (sides[i] in total) ? total[sides[i]] : 0
				printf "%s_total=%d\n%s_per_s=%.0f\n", s, t, s, (dur > 0 ? t / dur : 0)
			}
			# Quiet phases: how many, and the longest a correct drain took
			# (the bound quiet_wait_ms has that much margin).
			if (qp != "") printf "quiet_phases=%d\nquiet_drain_max_ms=%d\nquiet_wait_ms=%d\n", qp, qd, qb
			# inode-torture: its operations by kind, and all of them a second.
			if (iops != "") {
				n = split(iops, kv, " ")
				for (i = 1; i <= n; i++) {
					split(kv[i], p, "=")
					printf "inode_%s=%s\n", p[1], p[2]
					if (p[1] != "evictions" && p[1] != "failures") it += p[2]
				}
				printf "inode_ops_total=%d\ninode_ops_per_s=%.0f\n", it, (dur > 0 ? it / dur : 0)
			}
			if (six != "") {
				gsub(/  +/, "  ", six)
				printf "six=%s\n", six
			}
		}' "$d/console.log"
	sed 's/^/badness_/' "$d/badness"
} | tr -d '\r' | write_atomic "$d/summary"  # the serial console's CRLF

case $j in PASS*) exit 0 ;; *) exit 1 ;; esac
