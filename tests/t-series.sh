#!/bin/sh
# Test group "series": the 2023 series is complete, keeps its authorship,
# applies to Debian's tree, and a patch that no longer applies is named.
. "$(dirname "$0")/../lib/functions.sh"
. "$LAB_ROOT/tests/lib.sh"

P=$LAB_ROOT/patches
SHARED=${LAB_SHARED:-$LAB_ROOT/../shared}

if [ "$(ls "$P" | grep '\.patch$')" = "$(grep -v '^#' "$P/series")" ]; then
	pass "patches/series lists every patch in patches/, in order"
else
	fail "patches/series and the files in patches/ differ"
fi

# The original postings, by series number: the 10 seeds and the other 22.
original() {
	f=$(ls "$SHARED/series-2023/$1"-*.patch 2>/dev/null | head -n 1)
	[ -n "$f" ] || f=$(grep -l "^Subject: \[PATCH $1/32\]" "$SHARED"/seeds/*.patch 2>/dev/null | head -n 1)
	echo "$f"
}
# The author: the in-body From: when there is one, else the mail's.
author() {
	git mailinfo /dev/null /dev/null <"$1" | sed -n 's/^Author: //p;s/^Email: //p' | paste -sd' ' -
}

if [ ! -d "$SHARED/seeds" ]; then
	skip "the 32 patches against their postings: no shared/ beside the lab"
else
	for n in $(seq -w 1 32); do
		orig=$(original "$n")
		ours=$P/00$n-*.patch
		ours=$(echo $ours)
		if [ -z "$orig" ] || [ ! -r "$ours" ]; then
			fail "patch $n: posting or port missing"
			continue
		fi
		subj=$(git mailinfo /dev/null /dev/null <"$orig" | sed -n 's/^Subject: //p')
		oursubj=$(git mailinfo /dev/null /dev/null <"$ours" | sed -n 's/^Subject: //p')
		[ "$subj" = "$oursubj" ] || { fail "patch $n: subject '$oursubj' is not the posting's '$subj'"; continue; }
		[ "$(author "$orig")" = "$(author "$ours")" ] || { fail "patch $n: author changed"; continue; }
		missing=$(grep '^Signed-off-by:' "$orig" | while read -r l; do grep -qxF "$l" "$ours" || echo "$l"; done)
		[ -z "$missing" ] || { fail "patch $n: sign-off lost: $missing"; continue; }
		grep -q '^\[lab: port to Debian linux-source-6.1' "$ours" ||
			{ fail "patch $n: no line saying what the port changed"; continue; }
		pass "patch $n ($subj): subject, author, sign-offs and port note"
	done
	# Patches that are empty on 6.1 must really be in 6.1 already: the
	# posting reverses cleanly on the pristine tree.
	tree=$("$LAB_ROOT/vm/tree.sh" all 2>/dev/null)
	for n in 25 26; do
		if patch -d "$tree" -p1 -R -F0 --dry-run -s <"$(original $n)" >/dev/null 2>&1; then
			pass "patch $n is already in Debian's 6.1 (its posting reverses cleanly)"
		else
			fail "patch $n is said to be in 6.1 already, but its posting does not reverse"
		fi
	done
	if grep -q 'define __flatten' "$tree/include/linux/compiler_attributes.h"; then
		pass "patch 01 is already in Debian's 6.1 (__flatten is defined)"
	else
		fail "patch 01 is said to be in 6.1 already, but __flatten is not defined"
	fi
fi

# The whole series applies, every patch in it.
if tree=$("$LAB_ROOT/vm/tree.sh" 2>"$TEST_OUT/series-apply.log"); then
	pass "the series applies to $LAB_SRC_PACKAGE $(debian_source_version)"
	[ "$(wc -l <"$tree/.lab-patches")" = "$(grep -c . "$P/series")" ] &&
		pass "every patch in patches/series went into the full tree" ||
		fail "the full tree lacks patches: $(wc -l <"$tree/.lab-patches") of $(grep -c . "$P/series")"
else
	fail "the series does not apply; see $TEST_OUT/series-apply.log"
fi

# The trees the bench compares differ in just the inode cache's hash table.
global=$("$LAB_ROOT/vm/tree.sh" 0020 0021 0022 2>/dev/null)
if grep -q 'hlist_bl_lock' "$tree/fs/inode.c" && ! grep -q 'DEFINE_SPINLOCK(inode_hash_lock)' "$tree/fs/inode.c"; then
	pass "full tree: the inode cache uses hash-bl, no inode_hash_lock"
else
	fail "full tree: fs/inode.c is not the hash-bl version"
fi
if grep -q 'DEFINE_SPINLOCK(inode_hash_lock)' "$global/fs/inode.c"; then
	pass "series without 20-22: the inode cache keeps the global inode_hash_lock"
else
	fail "series without 20-22: no global inode_hash_lock in fs/inode.c"
fi

# Negative control: a tree whose context moved must stop the series with the
# name of the patch, the file and the hunk.  (Files are copied, not linked:
# the scratch tree is edited in place.)
scratch=$TEST_OUT/scratch-tree
rm -rf "$scratch"
vanilla=$("$LAB_ROOT/vm/tree.sh" all 2>/dev/null)
p9=$(cd "$P" && ls 0009-*.patch)
for f in $(sed -n 's|^+++ b/||p' "$P/$p9"); do
	mkdir -p "$scratch/$(dirname "$f")"
	cp "$vanilla/$f" "$scratch/$f"
done
cp -r "$scratch" "$scratch.ok"
expect_exit 0 "control: $p9 applies to an unchanged copy of its files" \
	sh -c "cd '$P' && '$LAB_ROOT/vm/apply-series.sh' '$scratch.ok' $p9"
sed -i 's/blk_sync_queue - cancel any pending callbacks on a queue/blk_sync_queue - (context changed by the test)/' "$scratch/block/blk-core.c"
(cd "$P" && "$LAB_ROOT/vm/apply-series.sh" "$scratch" "$p9") >"$TEST_OUT/series-broken.log" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q "patch $p9 does not apply: block/blk-core.c: Hunk #1 FAILED" "$TEST_OUT/series-broken.log"; then
	pass "negative control: a patch that no longer applies is named with its file and hunk"
else
	fail "negative control: broken context not reported (exit $rc); see $TEST_OUT/series-broken.log"
fi
rm -rf "$scratch" "$scratch.ok"

# A mutant written with plain diff -u (no "diff --git" line) is applied, not
# skipped as "empty": the run would otherwise torture the unmodified lock and
# call the mutant missed.  A patch with no hunk that does not say it is empty
# is refused.  (Both failed before: such a patch was "skipped".)
full=$("$LAB_ROOT/vm/tree.sh" 2>/dev/null)
plain=$TEST_OUT/plain-tree
rm -rf "$plain"

# Patch 0036's six scenarios in upstream's form, for kvm.sh --torture lock.
# kvm.sh forces -enable-kvm, which this host lacks: they are checked, not
# booted.  A misspelled parameter or option must fail the check.
lockcfg=$full/tools/testing/selftests/rcutorture/configs/lock
if grep -qx LOCK12 "$lockcfg/CFLIST" && [ -r "$lockcfg/SIXBUSTED.boot" ]; then
	check "configs/lock: LOCK08-LOCK12 and SIXBUSTED name real Kconfig options, locktorture parameters and torture types" \
		"$LAB_ROOT/torture/check-lock-configs.sh" "$full"
else
	fail "configs/lock: patch 0036 adds no six scenarios (LOCK08-LOCK12, SIXBUSTED) for kvm.sh"
fi
rm -rf "$TEST_OUT/lockcfg"
cp -r "$lockcfg" "$TEST_OUT/lockcfg"
sed -i 's/quiet_secs/quiet_sec/' "$TEST_OUT/lockcfg/LOCK08.boot"
echo CONFIG_SIXLOCK=y >>"$TEST_OUT/lockcfg/LOCK09"
"$LAB_ROOT/torture/check-lock-configs.sh" "$full" "$TEST_OUT/lockcfg" >"$TEST_OUT/lockcfg.log" 2>&1
if [ $? = 1 ] && grep -q 'LOCK08.boot: locktorture.quiet_sec is no parameter' "$TEST_OUT/lockcfg.log" &&
	grep -q 'LOCK09: CONFIG_SIXLOCK is no Kconfig option' "$TEST_OUT/lockcfg.log"; then
	pass "negative control: a misspelled locktorture parameter and Kconfig option in configs/lock are named"
else
	fail "negative control: misspelled configs/lock entries not named; see $TEST_OUT/lockcfg.log"
fi
mkdir -p "$plain/a/kernel/locking" "$plain/tree/kernel/locking"
cp "$full/kernel/locking/six.c" "$plain/a/kernel/locking/six.c"
cp "$full/kernel/locking/six.c" "$plain/tree/kernel/locking/six.c"
mkdir -p "$plain/b/kernel/locking"
sed 's/smp_mb();/barrier();/' "$full/kernel/locking/six.c" >"$plain/b/kernel/locking/six.c"
(cd "$plain" && diff -u a/kernel/locking/six.c b/kernel/locking/six.c) >"$plain/mutant.patch"
"$LAB_ROOT/vm/apply-series.sh" "$plain/tree" "$plain/mutant.patch" >"$TEST_OUT/plain-diff.log" 2>&1
rc=$?
if [ $rc = 0 ] && ! grep -q '^diff --git' "$plain/mutant.patch" &&
	cmp -s "$plain/tree/kernel/locking/six.c" "$plain/b/kernel/locking/six.c"; then
	pass "a mutant made with plain diff -u is applied, not skipped as empty"
else
	fail "a plain diff -u mutant was not applied (exit $rc); see $TEST_OUT/plain-diff.log"
fi
printf 'Subject: [PATCH] no hunks at all\n\nJust words.\n' >"$plain/words.patch"
expect_exit 1 "negative control: a patch with no hunk that does not say it is empty is refused" \
	"$LAB_ROOT/vm/apply-series.sh" "$plain/tree" "$plain/words.patch"
rm -rf "$plain"

# A truncated source tarball: a clear error that names the file, and no
# tree is taken from it (the partial unpack stays a .tmp, redone next time).
t=$TEST_OUT/truncated
rm -rf "$t"
mkdir -p "$t/build"
head -c 4000000 "$LAB_SRC_TARBALL" >"$t/linux-source-6.1.tar.xz"
LAB_BUILD=$t/build LAB_SRC_TARBALL=$t/linux-source-6.1.tar.xz "$LAB_ROOT/vm/tree.sh" >"$t/out" 2>"$t/err"
rc=$?
[ "$rc" = 1 ] && grep -q "could not unpack $t/linux-source-6.1.tar.xz" "$t/err" &&
	[ -z "$(ls -d "$t"/build/src/pristine-* 2>/dev/null | grep -v '\.tmp$')" ] && [ ! -s "$t/out" ] &&
	pass "a truncated source tarball is a clear error naming the file; no tree is made from it" ||
	fail "a truncated source tarball: exit $rc, see $t/err"
rm -rf "$t"

# A made tree edited afterwards (here a torture mutant applied by hand, as
# once happened to build/src/full) is never built as it is: the next
# tree.sh keeps it aside and makes the tree again.  The tree without patch
# 01 (empty on 6.1) is the series, under a name no build uses.
mutant=$LAB_ROOT/torture/mutants/relock-ignores-seq.patch
t=$("$LAB_ROOT/vm/tree.sh" 0001 2>/dev/null)
rm -rf "$t".edited-*
"$LAB_ROOT/vm/tree.sh" 0001 >/dev/null 2>"$TEST_OUT/tree-unedited.log"
[ -n "$t" ] && ! grep -q 'making' "$TEST_OUT/tree-unedited.log" &&
	pass "control: an unedited tree is reused, not made again" ||
	fail "an unedited tree was made again; see $TEST_OUT/tree-unedited.log"
patch -d "$t" -p1 -s <"$mutant"
t2=$("$LAB_ROOT/vm/tree.sh" 0001 2>"$TEST_OUT/tree-edited.log")
aside=$(ls -d "$t".edited-* 2>/dev/null | head -n 1)
[ "$t2" = "$t" ] && grep -q "kernel/locking/six.c changed since the tree was made" "$TEST_OUT/tree-edited.log" &&
	patch -d "$t" -p1 -F0 -s --dry-run <"$mutant" >/dev/null 2>&1 &&
	patch -d "$aside" -p1 -R -F0 -s --dry-run <"$mutant" >/dev/null 2>&1 &&
	pass "negative control: a tree with a mutant applied by hand is named, kept aside and made again" ||
	fail "a tree edited by hand was not caught; see $TEST_OUT/tree-edited.log"
rm -rf "$t".edited-*
end_of_group
