#!/bin/sh
# Test group "hosts": make torture HOSTS= against sshd on the loopback
# addresses.  Two logins (127.0.0.1 and 127.0.0.2) stand in for two hosts,
# a third (127.0.0.3) refuses connections; the key and sshd are made for the
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

# A private sshd on a free port of the loopback addresses.
k=$o/ssh
ssh-keygen -q -t ed25519 -N '' -f "$k/hostkey" && ssh-keygen -q -t ed25519 -N '' -f "$k/clientkey" &&
	cp "$k/clientkey.pub" "$k/authorized_keys" || { fail "ssh-keygen failed"; exit 0; }
mkdir -p /run/sshd 2>/dev/null
port=
for p in 22022 22122 22222 22322 22422; do
	cat >"$k/sshd_config" <<-EOF
	Port $p
	ListenAddress 127.0.0.1
	ListenAddress 127.0.0.2
	HostKey $k/hostkey
	AuthorizedKeysFile $k/authorized_keys
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	PermitRootLogin prohibit-password
	StrictModes no
	UsePAM no
	PidFile $k/sshd.pid
	EOF
	if /usr/sbin/sshd -f "$k/sshd_config" -E "$k/sshd.log"; then
		port=$p
		break
	fi
done
[ -n "$port" ] || { fail "could not start a test sshd on the loopback (see $k/sshd.log)"; exit 0; }
trap 'kill "$(cat "$k/sshd.pid" 2>/dev/null)" 2>/dev/null' EXIT
cat >"$k/ssh_config" <<EOF
Host lab-a
  HostName 127.0.0.1
Host lab-b
  HostName 127.0.0.2
Host lab-dead
  HostName 127.0.0.3
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
