#!/bin/sh
# Boot a kernel with KUnit built in and report its suites (the series'
# mean_and_variance tests run at boot), one line per case.
# usage: vm/kunit.sh OUTDIR [VCPUS] [FLAVOUR]
#   FLAVOUR  a built flavour whose config has KUnit (default torture, the
#            one flavour that builds it; make kunit)
# Writes OUTDIR/kunit.txt ("PASS suite.case" lines, see vm/ktap.awk) besides
# the boot's files; exits non-zero if the boot fails, a case fails, or there
# is no case at all.
. "$(dirname "$0")/../lib/functions.sh"

[ $# -ge 1 ] || { usage_from_header; exit 2; }
out=$1 vcpus=${2:-2} flavour=${3:-torture}
kernel=$LAB_OUT/$flavour/arch/x86/boot/bzImage
"$LAB_ROOT/vm/run.sh" -k "$kernel" -o "$out" -c "$vcpus" -p "$LAB_ROOT/vm/payloads/kunit" ||
	die "KUnit boot failed: $(cat "$out/verdict" 2>/dev/null)"
cat "$out"/guest/kunit/*.ktap | awk -f "$LAB_ROOT/vm/ktap.awk" | write_atomic "$out/kunit.txt"
cat "$out/kunit.txt"
grep -q . "$out/kunit.txt" || die "no KUnit case found in $out/guest/kunit/"
! grep -q '^FAIL' "$out/kunit.txt" || die "KUnit cases failed; see $out/kunit.txt"
