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
