#!/bin/sh
# Test group "hosts": make torture HOSTS= against sshd on the loopback
# addresses.  Two logins (127.0.0.1 and 127.0.0.2) stand in for two hosts,
# a third (127.0.0.3) refuses connections, and a fourth (127.0.0.4) drops
# the connection in the middle of a boot; the key and sshd are made for the
# test and stopped after it.  Scenarios must come back judged, with the
# login that booted them; a scenario no host could boot must fail, never pass.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"

T=$LAB_ROOT/torture
o=$TEST_OUT/hosts
rm -rf "$o"
mkdir -p "$o/ssh"
[ -r "$LAB_BUILD/out/torture/arch/x86/boot/bzImage" ] || { fail "no torture kernel (group kernel failed?)"; exit 0; }
need_pkg openssh-server openssh-client parallel rsync

expect_exit 2 "make torture refuses a HOSTS file that does not exist" "$T/run.sh" -H "$o/no-such-file" -o "$o" -r bad1
printf '# nothing\n\n' >"$o/empty-hosts"
expect_exit 2 "make torture refuses a HOSTS file that names no host" "$T/run.sh" -H "$o/empty-hosts" -o "$o" -r bad2

k=$o/ssh
# lab-drop's QEMU: the boot starts, then the host is lost.  It kills the
# sshd of its own session, so the connection drops as a crash or a cut
# cable would drop it (ssh exits 255 in the middle of the job).  Once it has,
# it notes the scenario: parallel's job log keeps only a job's last try.
mkdir -p "$k/lost-host"
cat >"$k/lost-host/qemu-system-x86_64" <<'EOF'
#!/bin/sh
# (the host's facts, vm/host-env.sh, ask QEMU its version first)
[ "$1" = --version ] && exec /usr/bin/qemu-system-x86_64 "$@"
# The session's end sends HUP, and boot.sh then TERM: this QEMU must live
# to note its scenario after the kill (a lost race left no note once).
trap '' HUP TERM
sleep 2
p=$$
while p=$(ps -o ppid= -p "$p" | tr -d ' ') && [ "${p:-1}" -gt 1 ]; do
	case $(ps -o args= -p "$p") in sshd:*) kill -KILL "$p" && basename "$PWD" >>"$(dirname "$0")/dropped"; exit 1 ;; esac
done
exit 1
EOF
chmod +x "$k/lost-host/qemu-system-x86_64"

# A private sshd on a free port of the loopback addresses.
ssh-keygen -q -t ed25519 -N '' -f "$k/hostkey" && ssh-keygen -q -t ed25519 -N '' -f "$k/clientkey" &&
	cp "$k/clientkey.pub" "$k/authorized_keys" || { fail "ssh-keygen failed"; exit 0; }
mkdir -p /run/sshd 2>/dev/null
port=
for p in 22022 22122 22222 22322 22422; do
	cat >"$k/sshd_config" <<-EOF
	Port $p
	ListenAddress 127.0.0.1
	ListenAddress 127.0.0.2
	ListenAddress 127.0.0.4
	HostKey $k/hostkey
	AuthorizedKeysFile $k/authorized_keys
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PermitRootLogin prohibit-password
	StrictModes no
	UsePAM no
	PidFile $k/sshd.pid
	Match LocalAddress 127.0.0.4
	SetEnv PATH=$k/lost-host:/usr/local/bin:/usr/bin:/bin
	EOF
	# sshd starts when any one of its addresses binds: a port that another
	# sshd holds on some of them (one left by a killed test) is no good.
	: >"$k/sshd.log"
	/usr/sbin/sshd -f "$k/sshd_config" -E "$k/sshd.log" || continue
	sleep 0.3
	if grep -q 'Bind to port .* failed' "$k/sshd.log"; then
		kill "$(cat "$k/sshd.pid" 2>/dev/null)" 2>/dev/null
		continue
	fi
	port=$p
	break
done
[ -n "$port" ] || { fail "could not start a test sshd on the loopback (see $k/sshd.log)"; exit 0; }
trap 'kill "$(cat "$k/sshd.pid" 2>/dev/null)" 2>/dev/null' EXIT
trap 'exit 130' INT TERM HUP
cat >"$k/ssh_config" <<EOF
Host lab-a
  HostName 127.0.0.1
Host lab-b
  HostName 127.0.0.2
Host lab-dead
  HostName 127.0.0.3
Host lab-drop
  HostName 127.0.0.4
Host *
  Port $port
  User $(id -un)
  IdentityFile $k/clientkey
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  BatchMode yes
  ConnectTimeout 5
EOF
export LAB_SSH="ssh -F $k/ssh_config"
i=0
until $LAB_SSH lab-a true 2>/dev/null || [ $i -ge 10 ]; do sleep 0.5; i=$((i + 1)); done
printf '# two logins standing in for two hosts, and one that refuses connections\nlab-a\nlab-b\nlab-dead\n' >"$o/hosts"

# Three scenarios (a negative control among them) over the hosts: judged
# here as a local run would be, each with the login that booted it.
scen="SIX-2 SIX-BUSTED SIX-NESTED-2"
"$T/run.sh" -s "$scen" -H "$o/hosts" -d 3 -o "$o" -r remote >"$o/remote.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ -d "$o/remote" ]; then
	pass "a torture run over two ssh hosts and a dead one completes, every scenario as expected"
else
	fail "the run over ssh hosts: exit $rc; see $o/remote.log"
fi
for s in $scen; do
	l=$(sed -n 's/^sshlogin=//p' "$o/remote/$s/summary" 2>/dev/null)
	case $l in
	lab-a | lab-b) pass "$s came back judged ($(sed -n 's/^judgement=//p' "$o/remote/$s/summary")), booted on $l" ;;
	*) fail "$s: no host provenance in its summary ('$l')" ;;
	esac
done
[ "$(sed -n 's/^sshlogin=//p' "$o"/remote/*/summary | sort -u | wc -l)" = 2 ] &&
	pass "the scenarios were spread over both live hosts" ||
	fail "the scenarios did not use both live hosts: $(sed -n 's/^sshlogin=//p' "$o"/remote/*/summary | paste -sd' ' -)"
expect_grep '^Seq' "$o/remote/hosts.joblog" "the run keeps GNU parallel's job log (host, times, exit per try)"
! grep -q 'lab-dead' "$o"/remote/*/sshlogin && pass "no scenario is credited to the host that refused connections" ||
	fail "a scenario is credited to the dead host"
[ -z "$($LAB_SSH lab-a "ls -A lab-hosts/remote 2>/dev/null")" ] && pass "nothing is left on the hosts" ||
	fail "files left on lab-a under ~/lab-hosts/remote"

# Only a dead host: nothing boots, and nothing passes.
printf 'lab-dead\n' >"$o/dead-hosts"
"$T/run.sh" -s "SIX-2 SIX-BUSTED" -H "$o/dead-hosts" -d 3 -o "$o" -r dead >"$o/dead.log" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q '^FAIL: guest ERROR: not booted' "$o/dead/SIX-2/judgement" &&
	grep -q '^FAIL' "$o/dead/SIX-BUSTED/judgement" &&
	pass "scenarios no host could boot fail (a negative control too), never pass" ||
	fail "a run whose only host is dead: exit $rc; see $o/dead.log"

# A host lost in the middle of a boot: both scenarios start at once, one on
# each login; lab-drop's connection dies during its boot, and that scenario
# must be booted again on lab-a, judged as a local run would judge it.
printf 'lab-drop\nlab-a\n' >"$o/drop-hosts"
"$T/run.sh" -s "SIX-2 SIX-BUSTED" -H "$o/drop-hosts" -d 3 -o "$o" -r drop >"$o/drop.log" 2>&1
rc=$?
lost=$(head -n 1 "$k/lost-host/dropped" 2>/dev/null)
case $lost in
SIX-2 | SIX-BUSTED) pass "lab-drop lost its connection in the middle of booting $lost" ;;
*) fail "lab-drop never started a boot, so no connection was dropped; see $o/drop.log" ;;
esac
[ "$rc" = 0 ] && grep -q '^judgement=PASS' "$o/drop/SIX-2/summary" &&
	grep -q '^judgement=PASS: FAILURE detected' "$o/drop/SIX-BUSTED/summary" &&
	[ "$(sed -n 's/^sshlogin=//p' "$o"/drop/*/summary | sort -u)" = lab-a ] &&
	pass "the scenario of the lost host${lost:+ ($lost)} was booted again on the live one, both judged as expected" ||
	fail "after a host dropped mid-boot: exit $rc, logins $(sed -n 's/^sshlogin=//p' "$o"/drop/*/summary | paste -sd' ' -); see $o/drop.log"

# make bench HOSTS=: every boot prepared here; each repeat (bench-global
# and its A/A arm) booted whole on one host, one repeat a host at a time
# (lab-dead's tries go elsewhere); a host column in results.csv, and the
# comparisons made within a host.  One live login: two bench guests at
# once on this 2-core host hung one of them (2026-12-05: CPU 0 halted, its
# timer never fired, RCU stall; docs/runner.md), and loopback logins are one
# host anyway; the per-host reading is tested on made-up runs (group report).
"$LAB_ROOT/vm/build-kernel.sh" bench-global >"$o/bench-build.log" 2>&1 ||
	{ fail "the bench-global kernel does not build; see $o/bench-build.log"; exit 0; }
expect_exit 2 "make bench refuses a HOSTS file that names no host" \
	"$LAB_ROOT/bench/run.sh" -c 2 -H "$o/empty-hosts" -o "$o/bench" -r bad
expect_exit 2 "make bench refuses PRECISION= with HOSTS= (a ratio's repeats are one host's)" \
	"$LAB_ROOT/bench/run.sh" -c 2 -n 5 -W 3 -H "$o/hosts" -o "$o/bench" -r bad
# "4/lab-a": room for two 2-vCPU jobs at once, so that only -1 (one job
# a host) keeps the check of parallel's job log below from failing.
printf 'lab-dead\n4/lab-a\n' >"$o/bench-hosts"
"$LAB_ROOT/bench/run.sh" -c 2 -t 1 -n 2 -f 200 -k bench-global -P -H "$o/bench-hosts" -o "$o/bench" -r over \
	>"$o/bench-over.log" 2>&1
rc=$?
b=$o/bench/over
[ "$rc" = 0 ] && [ -r "$b/results.csv" ] && [ "$(head -n 1 "$b/results.csv" | sed 's/.*,//')" = host ] &&
	[ "$(sed 1d "$b/results.csv" | cut -d, -f11 | grep -cvx 'lab-a')" = 0 ] &&
	[ "$(sed 1d "$b/results.csv" | wc -l)" = 12 ] &&
	pass "a bench run over the hosts completes: 2 repeats x 2 arms x 3 phases, each row with the host that booted it" ||
	fail "the bench run over ssh hosts: exit $rc; see $o/bench-over.log"
whole=0
for r in 1 2; do
	[ "$(cat "$b"/boots/*-r$r/sshlogin 2>/dev/null | sort -u | wc -l)" = 1 ] && [ -s "$b/boots/bench-global-r$r/host-env" ] &&
		whole=$((whole + 1))
done
[ "$whole" = 2 ] && pass "each repeat was booted whole on one host, which recorded its facts (host-env)" ||
	fail "only $whole of 2 repeats were booted whole on one host"
# parallel's job log: Seq Host Starttime JobRuntime ...; on one host, a job
# starts after the one before it ended (times printed in full: awk's
# default 6 digits round an epoch to 1.7965e+09).
one_at_a_time() {
	awk -F'\t' 'NR > 1 && $7 == 0 { printf "%s %.3f %.3f\n", $2, $3, $3 + $4 }' "$1" | sort -k1,1 -k2,2n |
		awk '$1 == h && $2 < end - 0.5 { bad = 1 } { h = $1; end = $3 } END { exit bad }'
}
one_at_a_time "$b/hosts.joblog" && pass "a host ran one repeat at a time (parallel's job log)" ||
	fail "a host ran repeats at once; see $b/hosts.joblog"
printf 'Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\n1\tlab-a\t1796495695.757\t29.1\t0\t0\t0\n2\tlab-a\t1796495710.000\t28.3\t0\t0\t0\n' \
	>"$o/overlapping.joblog"
! one_at_a_time "$o/overlapping.joblog" && pass "negative control: two jobs at once on one host are seen in a job log" ||
	fail "negative control: overlapping jobs in $o/overlapping.joblog were not seen"
cp -r "$b" "$o/over-recheck"
"$LAB_ROOT/bench/recheck.sh" "$o/over-recheck" >"$o/over-recheck.log" 2>&1 &&
	cmp -s "$b/results.csv" "$o/over-recheck/results.csv" &&
	pass "bench recheck re-derives a run over hosts byte for byte, host column included" ||
	fail "bench recheck of the run over hosts differs; see $o/over-recheck.log"
/usr/bin/python3 "$LAB_ROOT/report/report.py" -r "$o" -o "$o" over >"$o/over-report.log" 2>&1 &&
	grep -q '^## Bench run `over@lab-a`' "$o/REPORT.md" && ! grep -q '^## Bench run `over`$' "$o/REPORT.md" &&
	pass "the report reads the run over hosts one host at a time" ||
	fail "the report of the run over hosts; see $o/over-report.log"
end_of_group
