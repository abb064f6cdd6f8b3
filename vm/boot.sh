#!/bin/sh
# Boot a prepared guest and write its verdict.  Needs only sh, coreutils and
# QEMU, so that it also runs on a remote host (make torture HOSTS=).
# usage: vm/boot.sh [-v] OUTDIR TIMEOUT_S
#   OUTDIR  has qemu-cmd (written by vm/run.sh, which calls this) and what
#           it names: the initramfs, the kernel at its relative path
#   -v      stream the console to the terminal, each line prefixed "[guest] "
# Writes OUTDIR/console.log, qemu.stderr, qemu-exit, boot-host and verdict.
# A QEMU that dies of a fault (SIGSEGV...) is booted again, once by default
# (LAB_QEMU_CRASH_RETRIES); each crash is a line in OUTDIR/qemu-crashes.
# Exit status and verdict: 0 PASS, 1 FAIL (payload exit code), 2 PANIC,
# 3 HANG (timeout), 4 NOVERDICT (guest ended without reporting), 5 ERROR
# (QEMU or runner), 130 INTERRUPTED (INT, TERM or HUP: the guest is stopped
# before this script exits).

verbose=
[ "${1:-}" = -v ] && { verbose=1; shift; }
[ $# -eq 2 ] || { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 5; }
out=$1 timeout=$2
[ -r "$out/qemu-cmd" ] || { echo "ERROR: no qemu-cmd in $out" >&2; exit 5; }

# write FILE: stdin to FILE through a rename (a reader never sees half).
write() {
	cat >"$1.tmp.$$" && mv -f "$1.tmp.$$" "$1"
}
# say MESSAGE: a progress line, in the lab's format when a lab command started us.
say() {
	if [ -n "${LAB_START:-}" ]; then
		e=$(($(date +%s) - LAB_START))
		printf '[lab %d:%02d:%02d] boot: %s\n' $((e / 3600)) $((e % 3600 / 60)) $((e % 60)) "$*"
	else
		printf '[boot] %s\n' "$*"
	fi >&2
}
verdict() {  # the console's CRLF stays out of the verdicts quoting it
	printf '%s\n' "$1" | tr -d '\r' | write "$out/verdict"
	say "verdict $1"
	exit "$2"
}

rm -rf "$out/verdict" "$out/qemu-exit" "$out/qemu.pid" "$out/qemu-crashes" "$out"/*.crash[0-9]*
hostname 2>/dev/null | write "$out/boot-host" || uname -n | write "$out/boot-host"
# timeout --foreground stays in our process group, so a terminal's Ctrl-C
# reaches QEMU too; INT, TERM or HUP sent to this script alone stops the
# guest here (QEMU's own pid is in qemu.pid, written by QEMU).
qpid=
stop_guest() {
	trap '' INT TERM HUP
	[ -n "$qpid" ] && kill -TERM "$qpid" 2>/dev/null
	g=$(cat "$out/qemu.pid" 2>/dev/null)
	[ -n "$g" ] && kill -TERM "$g" 2>/dev/null
	i=0
	while [ $i -lt 50 ] && { kill -0 "$qpid" 2>/dev/null || { [ -n "$g" ] && kill -0 "$g" 2>/dev/null; }; }; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$g" ] && kill -KILL "$g" 2>/dev/null
	echo "INTERRUPTED: the boot was stopped by a signal" | write "$out/verdict"
	say "interrupted: guest stopped"
	exit 130
}
trap stop_guest INT TERM HUP
# boot_once: one boot; sets status (timeout's, which is QEMU's own, or
# 128+N when QEMU died of signal N) and reported (the guest's exit code
# from its console, empty if it printed none).
boot_once() {
	: >"$out/console.log"
	(cd "$out" && exec timeout --foreground -k 5 "$timeout" sh qemu-cmd -pidfile qemu.pid) </dev/null >"$out/qemu.stderr" 2>&1 &
	qpid=$!
	if [ -n "$verbose" ]; then
		tail -n +1 -f --pid=$qpid "$out/console.log" | sed -u 's/^/[guest] /' &
	fi
	wait $qpid
	status=$?
	qpid=
	[ -n "$verbose" ] && sleep 1
	reported=$(sed -n 's/^LAB-VERDICT: exit \([0-9]*\).*/\1/p' "$out/console.log" | tail -n 1)
}
# lab_exited: QEMU exited through isa-debug-exit with the code the guest
# printed: status (CODE << 1) | 1.
lab_exited() {
	[ $((status % 2)) = 1 ] && [ -n "$reported" ] && [ $(((status - 1) / 2)) = "$reported" ]
}
# crash_signal: the name of the signal that killed QEMU itself, if one did:
# SEGV, BUS, ABRT, ILL or FPE, a fault of the emulator, not of the guest
# (TCG in QEMU 7.2 segfaults now and then: a general protection fault in
# this host's dmesg on 2026-12-05, and a KUnit boot of CI's, exit 139).
# A status that is lab-exit's is not a crash (139 is also lab-exit 69).
crash_signal() {
	[ "$status" -gt 128 ] && ! lab_exited || return 1
	case $((status - 128)) in 4 | 6 | 7 | 8 | 11) kill -l $((status - 128)) ;; *) return 1 ;; esac
}
# A crashed emulator says nothing of the kernel under test: boot again, at
# most LAB_QEMU_CRASH_RETRIES times (default 1), keeping each crashed try's
# console, stderr and guest files as *.crashN and a line in qemu-crashes.
retries=${LAB_QEMU_CRASH_RETRIES:-1}
try=1
while :; do
	boot_once
	sig=$(crash_signal) || break
	echo "try $try: QEMU killed by SIG$sig (exit status $status) after $(wc -l <"$out/console.log") console lines" >>"$out/qemu-crashes"
	[ "$try" -le "$retries" ] || break
	for f in console.log qemu.stderr guest; do
		[ -e "$out/$f" ] && mv "$out/$f" "$out/$f.crash$try"
	done
	mkdir "$out/guest"
	try=$((try + 1))
	say "QEMU crashed (SIG$sig, exit status $status); booting again, try $try of $((retries + 1))"
done
trap - INT TERM HUP
echo "$status" | write "$out/qemu-exit"

if grep -q 'Kernel panic - not syncing' "$out/console.log"; then
	verdict "PANIC: $(grep -m1 'Kernel panic - not syncing' "$out/console.log" | sed 's/^.*Kernel panic - not syncing: *//')" 2
elif [ "$status" = 124 ] || [ "$status" = 137 ]; then
	verdict "HANG: no verdict within ${timeout}s; last console line: $(tail -n 1 "$out/console.log" | cut -c1-100)" 3
elif lab_exited; then
	[ "$reported" = 0 ] && verdict PASS 0
	verdict "FAIL: payload exit code $reported" 1
elif [ "$status" = 0 ]; then
	verdict "NOVERDICT: the guest ended without reporting an exit code" 4
elif sig=$(crash_signal); then
	verdict "ERROR: QEMU killed by SIG$sig (exit status $status) on all $try tries; see qemu-crashes and qemu.stderr" 5
else
	verdict "ERROR: QEMU exit status $status: $(head -n 3 "$out/qemu.stderr" | tr '\n' ' ')" 5
fi
