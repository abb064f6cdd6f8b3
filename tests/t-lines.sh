#!/bin/sh
# Test group "lines": the lab's second kernel line, Debian's
# linux-source-6.12 (make ... LINE=6.12).  No whole 6.12 kernel is built
# here (make torture LINE=6.12 builds and boots them): the 6.12 series
# applies, every file it touches and every user of the inode hash it
# converts compiles, the debugging patch compiles on top, each 6.12 mutant
# applies to the tree it mutates, and the lab refuses a line it has no
# series for.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"
. "$LAB_ROOT/torture/functions.sh"

# A line without a series is refused, with the lines there are, before
# anything is made.
o=$TEST_OUT/lines
rm -rf "$o"
mkdir -p "$o"
LAB_LINE=5.4 "$LAB_ROOT/vm/tree.sh" >"$o/bad.out" 2>"$o/bad.err"
rc=$?
[ $rc = 2 ] && grep -q "LINE must be 6.1 or 6.12" "$o/bad.err" && [ ! -s "$o/bad.out" ] &&
	pass "lines: an unknown LINE is refused (exit 2) and the message names the lines there are" ||
	fail "lines: LAB_LINE=5.4 vm/tree.sh exited $rc: $(cat "$o/bad.err")"
make -s -C "$LAB_ROOT" torture LINE=5.4 RUN=lines-bad-line DURATION=1 >"$o/make.out" 2>&1
rc=$?
[ $rc != 0 ] && grep -q "LINE must be 6.1 or 6.12" "$o/make.out" &&
	[ ! -e "$LAB_ROOT/results/torture/lines-bad-line" ] && [ ! -e "$LAB_ROOT/results/torture/lines-bad-line.partial" ] &&
	pass "lines: make torture LINE=5.4 stops with that message and starts no run" ||
	fail "lines: make torture LINE=5.4 exited $rc; see $o/make.out"

# The 6.12 tree: Debian's package, the 6.12 series, nothing of 6.1's.
export LAB_LINE=6.12
need_pkg linux-source-6.12
if tree=$("$LAB_ROOT/vm/tree.sh" 2>"$o/tree.err"); then
	want=$(grep -v '^#' "$LAB_ROOT/patches/6.12/series" | grep -c .)
	[ "$(grep -c . "$tree/.lab-patches")" = "$want" ] && grep -q '^6\.12\.' "$tree/.lab-debian-version" &&
		[ -e "$tree/fs/bcachefs/six.c" ] && grep -q 'hlist_bl_head' "$tree/fs/inode.c" &&
		pass "lines: the $want patches of patches/6.12/series apply to linux-source-6.12 $(cat "$tree/.lab-debian-version")" ||
		fail "lines: the 6.12 tree $tree is not the 6.12 series on linux-source-6.12"
	case $tree in "$LAB_BUILD/src-6.12/"*) pass "lines: the 6.12 tree lies apart from 6.1's (build/src-6.12)" ;;
	*) fail "lines: the 6.12 tree is at $tree, among 6.1's" ;; esac
else
	fail "lines: the 6.12 series does not apply; see $o/tree.err"
	end_of_group
	exit 0
fi
# Negative control: the 6.1 port of the hash-bl conversion does not apply to
# 6.12's RCU lookups, and is refused by name, not fuzzed in.
"$LAB_ROOT/vm/tree.sh" -p patches/0022-vfs-inode-cache-conversion-to-hash-bl.patch >/dev/null 2>"$o/neg.err"
rc=$?
[ $rc != 0 ] && grep -q "0022-vfs-inode-cache-conversion-to-hash-bl.patch does not apply: fs/inode.c" "$o/neg.err" &&
	pass "lines: negative control: 6.1's patch 0022 on 6.12 is refused, naming the patch and fs/inode.c" ||
	fail "lines: 6.1's patch 0022 on 6.12 was not refused as it should (exit $rc); see $o/neg.err"

# Patch 0036's rcutorture scenarios on 6.12 (LOCK10..LOCK14, SIXBUSTED: 6.12
# has its own LOCK08 and LOCK09) name real options and parameters.
check "lines: the 6.12 tree's configs/lock scenarios name real Kconfig options and locktorture parameters" \
	"$LAB_ROOT/torture/check-lock-configs.sh" "$tree"

# Every file the 6.12 series touches, and every user of what it converts.
"$LAB_ROOT/vm/check-series.sh" "$o/check-series.txt" >/dev/null 2>"$o/check-series.stderr"
if [ -s "$o/check-series.txt" ]; then
	sed -e 's/^PASS \(.*\)/ok - lines: 6.12 compiles: \1/' -e 's/^FAIL \(.*\)/not ok - lines: 6.12 compiles: \1/' \
		-e 's/^SKIP \(.*\)/skip - lines: 6.12 compiles: \1/' "$o/check-series.txt"
	for f in fs/inode.c kernel/locking/locktorture.c fs/bcachefs/fs.c; do
		grep -q "^PASS $f\$" "$o/check-series.txt" || fail "lines: 6.12 check-series did not compile $f"
	done
else
	fail "lines: 6.12 check-series produced no result; see $o/check-series.stderr"
fi
# The debugging patch of the inode torture, on the 6.12 hash-bl.
dbg=patches/6.12/debug/inode-hash-chain-lockdep.patch
check "lines: 6.12's $dbg compiles on hash-bl (fs/inode.o)" \
	"$LAB_ROOT/vm/build-kernel.sh" -e "$dbg" -O check-debug check fs/inode.o

# The 6.12 mutants: each names its scenarios and applies, without fuzz, to
# the tree of its scenarios' flavour.
mdir=$LAB_ROOT/torture/mutants/6.12
n=0 bad=
ttree=$("$LAB_ROOT/vm/tree.sh" -p "$dbg" 2>>"$o/tree.err")
for m in "$mdir"/*.patch; do
	[ -r "$m" ] || continue
	n=$((n + 1))
	for f in Mutant Scenarios Detects Expect; do
		grep -q "^$f: ." "$m" || bad="$bad $(basename "$m") (no $f:)"
	done
	mutant_flavour "$m" >/dev/null 2>&1 || bad="$bad $(basename "$m") (scenarios of several flavours)"
	patch -d "$ttree" -p1 -F0 -N --dry-run <"$m" >/dev/null 2>&1 || bad="$bad $(basename "$m") (does not apply)"
done
[ "$n" -gt 0 ] && [ -z "$bad" ] &&
	pass "lines: the $n mutants of torture/mutants/6.12/ have their header, each boots one flavour, and apply to the 6.12 torture tree" ||
	fail "lines: 6.12 mutants ($n):${bad:- none found}"
end_of_group
