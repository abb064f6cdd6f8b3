#!/bin/sh
# Prepare a kernel source tree: Debian's linux-source-LINE plus the lab's series for it.
# usage: vm/tree.sh [-p EXTRA_PATCH]... [EXCLUDE...]
#   EXCLUDE  numbers of patches to leave out (e.g. 0020 0021 0022), or "all"
#            for the vanilla tree.  Prints the tree's path on stdout.
#   -p       a patch outside the series, applied after it (a path from the
#            lab's root, e.g. a deliberately broken lock for a negative test)
# Trees live in build/src/ (build/src-LINE/ for another line than 6.1) and share unchanged files with the pristine
# unpacked tarball through hard links (GNU patch replaces the files it
# patches, so the pristine copy is never written).  A tree is made again only
# when the package version or a patch it uses has changed, or when a file a
# patch wrote was edited since (the edited tree is kept aside, renamed).
. "$(dirname "$0")/../lib/functions.sh"

extra=
while getopts p: opt; do
	case $opt in
	p) [ -r "$LAB_ROOT/$OPTARG" ] || die "no patch $OPTARG"
	   extra="$extra $LAB_ROOT/$OPTARG" ;;
	*) usage_from_header; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

case " $* " in
*" all "*) name=vanilla ;;
"  ") name=full ;;
*) name=without-$(echo "$@" | tr ' ' '\n' | sort | paste -sd- -) ;;
esac

need_cmd patch patch
need_cmd xz xz-utils
[ -r "$LAB_SRC_TARBALL" ] || need_pkg "$LAB_SRC_PACKAGE"
[ -r "$LAB_SRC_TARBALL" ] || die "$LAB_SRC_TARBALL is missing although $LAB_SRC_PACKAGE is installed"
debver=$(debian_source_version)
src=$LAB_SRCDIR
pristine=$src/pristine-$debver
mkdir -p "$src"
# One tree.sh at a time: two builds started together (make test builds in
# the background while its groups run) must not unpack or patch over each
# other.
exec 8>"$src/.lock"
flock 8

if [ ! -d "$pristine" ]; then
	need_space "$src" 3000
	progress tree "unpacking $LAB_SRC_TARBALL ($LAB_SRC_PACKAGE $debver)"
	rm -rf "$pristine.tmp"
	mkdir -p "$pristine.tmp"
	tar -C "$pristine.tmp" --strip-components=1 -xf "$LAB_SRC_TARBALL" ||
		die "could not unpack $LAB_SRC_TARBALL"
	mv "$pristine.tmp" "$pristine"
fi

# The patches this tree gets, in series order.
patches=
while read -r p; do
	case "$p" in '' | '#'*) continue ;; esac
	num=${p%%-*}
	case " $* " in *" all "* | *" $num "*) continue ;; esac
	[ -r "$LAB_PATCHES/$p" ] || die "${LAB_PATCHES#$LAB_ROOT/}/series names $p, which is not in ${LAB_PATCHES#$LAB_ROOT/}/"
	patches="$patches $p"
done <"$LAB_PATCHES/series"
for p in $extra; do
	name=$name+$(basename "$p" .patch)
	patches="$patches $p"
done

stamp=$( (echo "$debver"; cd "$LAB_PATCHES" && cat $patches /dev/null) | sha256sum | cut -c1-16)
tree=$src/$name
old=$tree
# A made tree is reused only while every file its patches wrote is as they
# wrote it (.lab-sums): a hand edit, say a mutant applied to build/src/full,
# would otherwise enter every later build of the flavours that use it.  The
# edited tree is kept aside, and the tree made again.
if [ "$(cat "$tree/.lab-stamp" 2>/dev/null)" = "$stamp" ]; then
	edited=$(cd "$tree" && sha256sum --quiet -c .lab-sums 2>/dev/null | sed -n 's/: FAILED.*$//p' | paste -sd' ' -)
	if [ -r "$tree/.lab-sums" ] && [ -z "$edited" ]; then
		echo "$tree"
		exit 0
	fi
	if [ -n "$edited" ]; then
		old=$tree.edited-$(date +%Y%m%d-%H%M%S)
		mv "$tree" "$old"
		warn "$tree: $edited changed since the tree was made; kept as $old, making it again"
	fi
fi

progress tree "making $name tree: $(echo $patches | wc -w) patches on $LAB_SRC_PACKAGE $debver"
rm -rf "$tree.tmp"
cp -al "$pristine" "$tree.tmp"
if [ -n "$patches" ]; then
	(cd "$LAB_PATCHES" && "$LAB_ROOT/vm/apply-series.sh" "$tree.tmp" $patches) >&2 || {
		rm -rf "$tree.tmp"
		die "the series does not apply to $LAB_SRC_PACKAGE $debver (see above)"
	}
fi
# Patched files whose content did not change keep the old tree's mtime, so
# that editing one patch rebuilds only what that patch affects.
written=$( (cd "$LAB_PATCHES" && sed -n 's|^+++ b/||p' $patches /dev/null) | sort -u)
if [ -d "$old" ]; then
	for f in $written; do
		cmp -s "$old/$f" "$tree.tmp/$f" && touch -r "$old/$f" "$tree.tmp/$f"
	done
fi
(cd "$tree.tmp" && for f in $written; do [ ! -e "$f" ] || sha256sum "$f"; done) >"$tree.tmp/.lab-sums"
printf '%s\n' $patches >"$tree.tmp/.lab-patches"
echo "$debver" >"$tree.tmp/.lab-debian-version"
echo "$stamp" >"$tree.tmp/.lab-stamp"
rm -rf "$tree"
mv "$tree.tmp" "$tree"
echo "$tree"
