#!/bin/sh
# Apply mail-form patches to a tree, in order, each checked before it is applied.
# usage: vm/apply-series.sh TREE PATCH...
# Stops at the first patch that does not apply, naming the patch, the file and
# the hunk.  A patch without a diff (already in this tree, kept in the series
# for the record) is reported and skipped.  No fuzz is allowed: the series is
# ported to one exact tree, and a patch that needs fuzz needs a refresh.
. "$(dirname "$0")/../lib/functions.sh"

[ $# -ge 2 ] || { usage_from_header; exit 2; }
tree=$1
shift
[ -d "$tree" ] || die "no tree at $tree"
n=0
for p in "$@"; do
	n=$((n + 1))
	[ -r "$p" ] || die "cannot read patch $p"
	if ! grep -q '^diff --git ' "$p"; then
		echo "  [$n/$#] $p: empty on this tree (already applied upstream), skipped"
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
