#!/bin/sh
# Test group "runner": the QEMU runner returns the guest's verdict, brings
# files back, and never takes a hang, a panic or a silent power-off for a pass.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"

kernel=$LAB_BUILD/out/torture/arch/x86/boot/bzImage
[ -r "$kernel" ] || { fail "no torture kernel to boot (group kernel failed?)"; exit 0; }
pl=$LAB_ROOT/tests/payloads
o=$TEST_OUT/runner

# boot NAME TIMEOUT: boot the payload NAME into $o/NAME.
boot() {
	"$LAB_ROOT/vm/run.sh" -k "$kernel" -o "$o/$1" -c 2 -t "$2" -p "$pl/$1"
}

expect_exit 0 "a passing payload is PASS" boot pass 180
expect_grep '^PASS$' "$o/pass/verdict" "the verdict file says PASS"
expect_grep '^written by the guest$' "$o/pass/guest/from-guest.txt" "a file written in the guest comes back to the host"
expect_grep '^perf version 6\.1' "$o/pass/guest/perf-version.txt" "the host's perf runs in the guest through the 9p root share"
expect_grep 'cpu-clock' "$o/pass/guest/perf-stat.csv" "perf stat counts a software event in the guest"
expect_grep '^accel=(kvm|tcg)$' "$o/pass/env" "the boot records its accelerator"
# pci=noacpi: the link devices' ACPI methods are never run (3.3 s each in
# the lockdep kernel under TCG).  Negative control: the line a boot without
# it prints (2026-12-05) is found.
acpi_link_enabled() { grep -q 'ACPI: .*LNK.: Enabled at IRQ' "$1"; }
if grep -q 'pci=noacpi' "$o/pass/qemu-cmd" && ! acpi_link_enabled "$o/pass/console.log"; then
	pass "pci=noacpi: no ACPI interrupt link was enabled at boot"
else
	fail "pci=noacpi: an ACPI interrupt link was enabled; see $o/pass/console.log"
fi
echo '[    7.070190] ACPI: \_SB_.LNKD: Enabled at IRQ 11' >"$o/acpi-link-console.log"
acpi_link_enabled "$o/acpi-link-console.log" &&
	pass "negative control: a console whose boot enabled an ACPI link is told apart" ||
	fail "negative control: the ACPI link line of a boot without pci=noacpi was not found"
expect_grep "^kernel_debian_source_version=$(debian_source_version)\$" "$o/pass/env" "the boot records the kernel's source version"
expect_grep '^qemu=QEMU emulator version' "$o/pass/env" "the boot records the QEMU version"
expect_grep "qemu-system-x86_64.*-smp' '2'" "$o/pass/qemu-cmd" "the QEMU command is kept as a replayable file"
expect_grep '^[0-9a-f]{64}  \./payload/run$' "$o/pass/initramfs.cpio.gz.manifest" \
	"the initramfs keeps a manifest of what it was built from (payload, /init, programs)"
# Each payload brings its own guest programs (its file "programs"): the
# runner's own go into every guest, the bench's only into the bench's.
grep -q '  \./bin/lab-exit$' "$o/pass/initramfs.cpio.gz.manifest" &&
	! grep -q 'inode-create' "$o/pass/initramfs.cpio.gz.manifest" &&
	"$LAB_ROOT/vm/mkinitramfs.sh" "$LAB_ROOT/bench/payload" "$o/bench-initramfs.cpio.gz" &&
	grep -q '  \./bin/inode-create$' "$o/bench-initramfs.cpio.gz.manifest" &&
	pass "a guest gets the runner's programs and only the programs its payload names" ||
	fail "guest programs: see $o/pass/initramfs.cpio.gz.manifest and $o/bench-initramfs.cpio.gz.manifest"
mkdir -p "$o/bad-programs"
echo true >"$o/bad-programs/run"
echo 'bench/no-such-program.c' >"$o/bad-programs/programs"
"$LAB_ROOT/vm/mkinitramfs.sh" "$o/bad-programs" "$o/bad-programs.cpio.gz" >"$o/bad-programs.log" 2>&1
rc=$?
[ "$rc" != 0 ] && grep -q 'names a program bench/no-such-program.c that does not exist' "$o/bad-programs.log" &&
	[ ! -e "$o/bad-programs.cpio.gz" ] &&
	pass "a payload naming a missing program is a clear error, and no initramfs is made" ||
	fail "a payload naming a missing program: exit $rc; see $o/bad-programs.log"

# Replay: qemu-cmd boots again from anywhere after its directory moved (as
# RUN.partial/ becomes RUN/); QEMU's own exit status for a guest exit 0 is 1.
rm -rf "$o/pass-moved"
cp -r "$o/pass" "$o/pass-moved"
rm -f "$o/pass-moved/console.log" "$o/pass-moved/initramfs.cpio.gz"  # as in a fresh clone
expect_exit 1 "qemu-cmd replays the boot after its directory was moved, making its initramfs again" \
	sh -c 'cd / && exec timeout 180 sh "$1"' sh "$o/pass-moved/qemu-cmd"
expect_grep '^LAB-VERDICT: exit 0' "$o/pass-moved/console.log" "the replayed boot wrote its own console log"

# -i: instruction counting (single-threaded TCG, -icount), recorded as such.
"$LAB_ROOT/vm/run.sh" -i -k "$kernel" -o "$o/icount" -c 1 -t 180 -p "$pl/pass" >"$o/icount.log" 2>&1
expect_grep '^accel=tcg-icount$' "$o/icount/env" "an instruction-counting boot records accelerator tcg-icount"
expect_grep "'-icount' 'shift=0,sleep=off'" "$o/icount/qemu-cmd" "an instruction-counting boot runs QEMU with -icount shift=0"
expect_grep '^PASS$' "$o/icount/verdict" "an instruction-counting boot passes its payload"

# -i with more vCPUs: the TCG plugin counts instructions between markers.
# The payload's loops run 2 x 10M and 2 x 20M instructions between theirs;
# the plugin must count them (never fewer; at most 10% more, for the blocks
# around the markers and the interrupts meanwhile), so a plugin that counts
# nothing or counts blocks instead of instructions fails.
"$LAB_ROOT/vm/run.sh" -i -k "$kernel" -o "$o/insns" -c 2 -t 180 -p "$pl/insn-loop" >"$o/insns.log" 2>&1
expect_grep '^accel=tcg-insns$' "$o/insns/env" "an instruction-counting boot with 2 vCPUs records accelerator tcg-insns"
expect_grep '^PASS$' "$o/insns/verdict" "an instruction-counting boot with 2 vCPUs passes its payload"
# loops_counted INSNS_TXT: the instructions of each marked interval, and
# whether they are the loops' 2e7 and 4e7 (at least, and at most 10% more).
loops_counted() {
	loops=$(awk '$1 == "mark" { if ($2 == 1) s = $4; else printf "%d ", $4 - s }' "$1" 2>/dev/null)
	echo "$loops" | awk '{ exit !(NF == 2 && $1 >= 2e7 && $1 <= 2.2e7 && $2 >= 4e7 && $2 <= 4.4e7) }'
}
loops_counted "$o/insns/insns.txt" &&
	pass "the plugin counts a loop's known instructions: 2e7 and 4e7 expected, counted $loops" ||
	fail "the plugin's counts of 2e7 and 4e7 instructions: '$loops'; see $o/insns/insns.txt"
# Negative control: a plugin that counted blocks (here one per loop turn:
# half the instructions) fails the check.
printf 'mark 1 0 0 0\nmark 2 0 10000000 0\nmark 1 0 10000000 0\nmark 2 0 30000000 0\n' >"$o/blocks-insns.txt"
! loops_counted "$o/blocks-insns.txt" &&
	pass "negative control: counts of half the loops' instructions fail the check" ||
	fail "negative control: half the instructions passed as the loops' count"

# Negative control: a plugin QEMU cannot load (here a library without
# qemu_plugin_install, newer than the source so it is not rebuilt) stops
# the boot as ERROR, with QEMU's reason, before any guest runs.
mkdir -p "$o/bad-plugin-build"
echo 'int not_a_plugin;' >"$o/bad-plugin.c"
gcc -shared -fPIC "$o/bad-plugin.c" -o "$o/bad-plugin-build/insn-count.so"
LAB_BUILD=$o/bad-plugin-build "$LAB_ROOT/vm/run.sh" -i -k "$kernel" -o "$o/bad-plugin" -c 2 -t 60 \
	>"$o/bad-plugin.log" 2>&1
rc=$?
[ "$rc" = 5 ] && grep -q '^ERROR: .*Could not load plugin .*insn-count.so' "$o/bad-plugin/verdict" &&
	pass "negative control: a TCG plugin QEMU cannot load is an ERROR that names it" ||
	fail "negative control: a plugin QEMU cannot load gave exit $rc; see $o/bad-plugin.log"

expect_exit 1 "negative control: a payload exiting 3 is FAIL" boot fail 180
expect_grep '^FAIL: payload exit code 3$' "$o/fail/verdict" "the FAIL verdict carries the payload's exit code"

expect_exit 3 "negative control: a hanging payload is killed at its timeout and reported as HANG" boot hang 40
expect_grep '^HANG' "$o/hang/verdict" "the verdict file says HANG"

expect_exit 2 "negative control: a kernel panic is reported as PANIC" boot panic 180
expect_grep '^PANIC: [^'"$(printf '\r')"']*$' "$o/panic/verdict" \
	"the verdict file says PANIC, quoting the console without its CR"

expect_exit 4 "negative control: a guest that powers off without an exit code is not a pass" boot poweroff 180

# A QEMU that dies of a fault is the emulator's failure, not the guest's:
# booted again once, kept on record, and never a pass when it keeps dying.
# fake_qemu NAME BODY: a boot directory $o/NAME whose "QEMU" runs BODY.
fake_qemu() {
	rm -rf "${o:?}/$1"
	mkdir -p "$o/$1/bin" "$o/$1/guest"
	printf '#!/bin/sh\n%s\n' "$2" >"$o/$1/bin/qemu-system-x86_64"
	chmod +x "$o/$1/bin/qemu-system-x86_64"
	echo 'exec qemu-system-x86_64 "$@"' >"$o/$1/qemu-cmd"
}
fake_boot() {
	PATH=$o/$1/bin:$PATH "$LAB_ROOT/vm/boot.sh" "$o/$1" 30
}
fake_qemu crash-once 'if [ ! -e crashed ]; then : >crashed; echo "first try" >console.log; kill -SEGV $$; fi
echo "LAB-VERDICT: exit 0" >console.log; exit 1'
expect_exit 0 "a QEMU that segfaults once is booted again, and the second boot's verdict stands" fake_boot crash-once
expect_grep '^try 1: QEMU killed by SIGSEGV \(exit status 139\)' "$o/crash-once/qemu-crashes" "the crash is on record in qemu-crashes"
expect_grep '^first try$' "$o/crash-once/console.log.crash1" "the crashed try's console is kept"
fake_qemu crash-always 'kill -SEGV $$'
expect_exit 5 "negative control: a QEMU that segfaults on every try is ERROR, not a pass" fake_boot crash-always
expect_grep '^ERROR: QEMU killed by SIGSEGV .* on all 2 tries' "$o/crash-always/verdict" "the verdict names the crash"
fake_qemu exit-69 'echo "LAB-VERDICT: exit 69" >console.log; exit 139'
expect_exit 1 "a guest's exit code 69 (QEMU status 139, as a SIGSEGV) is FAIL, not a crash" fake_boot exit-69
[ ! -e "$o/exit-69/qemu-crashes" ] && pass "lab-exit 69 is not booted again" || fail "lab-exit 69 was taken for a crash"

expect_exit 0 "a dry run writes the QEMU command and boots nothing" \
	"$LAB_ROOT/vm/run.sh" -n -k "$kernel" -o "$o/dry" -c 2
[ ! -e "$o/dry/console.log" ] && pass "the dry run left no console log" || fail "the dry run booted"
end_of_group
