#!/bin/sh
# Boot the torture kernel and report its KUnit suites (the series'
# mean_and_variance tests run at boot), one line per case.
# usage: vm/kunit.sh OUTDIR [VCPUS]
# Writes OUTDIR/kunit.txt ("PASS suite.case" lines, see vm/ktap.awk) besides
# the boot's files; exits non-zero if the boot fails, a case fails, or there
# is no case at all.
. "$(dirname "$0")/functions.sh"

[ $# -ge 1 ] || { usage_from_header; exit 2; }
out=$1 vcpus=${2:-2}
kernel=$LAB_BUILD/out/torture/arch/x86/boot/bzImage
"$LAB_ROOT/vm/run.sh" -k "$kernel" -o "$out" -c "$vcpus" -p "$LAB_ROOT/vm/payloads/kunit" ||
	die "KUnit boot failed: $(cat "$out/verdict" 2>/dev/null)"
cat "$out"/guest/kunit/*.ktap | awk -f "$LAB_ROOT/vm/ktap.awk" | write_atomic "$out/kunit.txt"
cat "$out/kunit.txt"
grep -q . "$out/kunit.txt" || die "no KUnit case found in $out/guest/kunit/"
! grep -q '^FAIL' "$out/kunit.txt" || die "KUnit cases failed; see $out/kunit.txt"
