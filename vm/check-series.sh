#!/bin/sh
# Prove that the ported series compiles: build every .c file it touches, and
# every file in the tree that uses an interface it reworks, one object each.
# usage: vm/check-series.sh [RESULTS_FILE [FILE.c...]]
#   FILE.c  check these files instead (paths in the tree)
# Prints one line per file, "PASS path", "FAIL path" or "SKIP path: reason",
# also written to RESULTS_FILE (default build/out/check/check-series.txt),
# with the compiler's output beside it (RESULTS_FILE less .txt, plus .log).
# Exits non-zero if any file fails.
. "$(dirname "$0")/../lib/functions.sh"

results=${1:-$LAB_OUT/check/check-series.txt}
[ $# -gt 0 ] && shift
tree=$("$LAB_ROOT/vm/tree.sh") || exit 1

# Files the patches touch (new names after renames).
touched=$(cd "$LAB_PATCHES" && sed -n 's|^+++ b/\(.*\.c\)$|\1|p' $(grep -v '^#' series) | sort -u)
# Users of what the series reworks, found in the patched tree, so that a
# user the posted diff never saw cannot hide.  On 6.1, the iterators of
# patches 12 and 13 (a 6.1-only user the 6.3 diff never saw); on 6.12,
# which has no port of those, the inode hash of patch 22 (a user of
# inode_fake_hash(), inode_unhashed() or i_hash itself).
case $LAB_LINE in
6.1) used='bio_for_each_segment_all|bio_for_each_folio_all|bvec_iter_all|folio_iter\b' ;;
*) used='inode_fake_hash|inode_unhashed|i_hash\.pprev|hlist_add_fake\(&[a-z_>.-]*i_hash' ;;
esac
users=$(cd "$tree" && grep -rlE --include='*.c' "$used" block drivers fs mm lib kernel | sort -u)
files=$(printf '%s\n%s\n' "$touched" "$users" | sort -u)
[ $# -gt 0 ] && files=$*

# Files that cannot be built for x86_64, with the reason.
skip_reason() {
	case $1 in
	mm/nommu.c) echo "only for kernels without an MMU; x86_64 always has one" ;;
	esac
}

objs=
for f in $files; do
	[ -n "$(skip_reason "$f")" ] || objs="$objs ${f%.c}.o"
done
n=$(echo $objs | wc -w)
progress check-series "compiling $n objects ($(echo "$touched" | wc -l) touched by the series, the rest users of what it reworks; line $LAB_LINE)"
log=${results%.txt}.log
mkdir -p "$LAB_OUT/check"
# -k: one failing file must not hide the others.  A failed object is named in
# make's "*** [...: file.o] Error" line; an object that exists and is not
# named there was compiled from the sources as they are now.
"$LAB_ROOT/vm/build-kernel.sh" check -k $objs >"$log" 2>&1
out=$LAB_OUT/check
fails=0
for f in $files; do
	why=$(skip_reason "$f")
	o=${f%.c}.o
	if [ -n "$why" ]; then
		echo "SKIP $f: $why"
	elif grep -q "\[[^]]*: $o\] Error" "$log" || [ ! -f "$out/$o" ]; then
		echo "FAIL $f"
		fails=$((fails + 1))
	else
		echo "PASS $f"
	fi
done | tee "$results.tmp"
mv "$results.tmp" "$results"
fails=$(grep -c '^FAIL' "$results")
[ "$fails" = 0 ] || {
	grep -E 'error:' "$log" | head -n 20 >&2
	die "$fails files of the series do not compile; see $log"
}
