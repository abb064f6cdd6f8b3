#!/bin/sh
# Apply mail-form patches to a tree, in order, each checked before it is applied.
# usage: vm/apply-series.sh TREE PATCH...
# Stops at the first patch that does not apply, naming the patch, the file and
# the hunk.  Any unified diff applies, with or without git's "diff --git"
# lines (a mutant made with plain diff -u too).  A patch is skipped only when
# it has no hunk and says so ("kept in the series as an empty patch": already
# in this tree, kept for the record); one with neither is refused, never taken
# for empty.  No fuzz is allowed: the series is ported to one exact tree, and
# a patch that needs fuzz needs a refresh.
. "$(dirname "$0")/../lib/functions.sh"

[ $# -ge 2 ] || { usage_from_header; exit 2; }
tree=$1
shift
[ -d "$tree" ] || die "no tree at $tree"
n=0
for p in "$@"; do
	n=$((n + 1))
	[ -r "$p" ] || die "cannot read patch $p"
	if ! grep -q '^@@ ' "$p"; then
		# Mail-form text may wrap the marker across lines.
		tr '\n' ' ' <"$p" | grep -q 'kept in the series as an empty patch' ||
			die "patch $p has no hunk (no '@@' line) and does not say it is empty ('kept in the series as an empty patch'): refusing it rather than skipping it"
		echo "  [$n/$#] $p: empty on this tree (already applied upstream, as it says), skipped"
		continue
	fi
	if ! out=$(patch -d "$tree" -p1 -F0 -N --dry-run <"$p" 2>&1); then
		echo "$out" | awk -v p="$p" '
			/^checking file /   { file = $3 }
			/FAILED|ignored|Reversed/ {
				printf "patch %s does not apply: %s: %s\n", p, file, $0; bad = 1 }
			END { if (!bad) printf "patch %s does not apply\n", p }' >&2
		exit 1
	fi
	patch -d "$tree" -p1 -F0 -N -s --no-backup-if-mismatch <"$p" ||
		die "patch $p failed although its dry run passed"
	echo "  [$n/$#] $p: applied"
done
