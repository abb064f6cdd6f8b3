#!/bin/sh
# Build one kernel flavour out of tree, with ccache.
# usage: vm/build-kernel.sh [-e PATCH]... [-O NAME] FLAVOUR [TARGET...]
#   FLAVOUR  a file vm/flavours/FLAVOUR.conf (vm/flavours/LINE/ for another
#            kernel line than 6.1, LAB_LINE): EXCLUDE (patches left out),
#            EXTRA (patches applied after the series), FRAGMENTS (configs),
#            MAKEVARS (make variables for every make of the tree: per-file
#            instrumentation such as GCOV_PROFILE_six.o=y)
#   -e       one more patch after EXTRA (a path from the lab's root), e.g.
#            a torture mutant
#   -O       output name (default FLAVOUR): build/out/NAME
#   TARGET   make targets instead of the kernel image (e.g. fs/inode.o)
# Output: build/out/NAME/ (build/out-LINE/NAME/ for another line) with arch/x86/boot/bzImage, modules under
# modroot/, build.log, and lab-build.env describing the build.  The .config is
# regenerated only when a fragment or the tree changed, so an unchanged
# flavour rebuilds in seconds.
#
# Work is shared between builds.  Every tree is compiled at one path,
# build/at/src with its output at build/at/out, bind-mounted in a private
# mount namespace, so ccache hits across trees and a build directory stays
# valid when its tree changes: a new output directory starts as a copy of a
# built flavour with the same fragments, and only what differs between the
# two trees is compiled (a torture mutant: one object and the link).
. "$(dirname "$0")/../lib/functions.sh"

extra_cli= name=
while getopts e:O: opt; do
	case $opt in
	e) [ -r "$LAB_ROOT/$OPTARG" ] || die "no patch $OPTARG"
	   extra_cli="$extra_cli $OPTARG" ;;
	O) name=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { usage_from_header; exit 2; }
flavour=$1
name=${name:-$flavour}
shift
conf=$LAB_FLAVOURS/$flavour.conf
[ -r "$conf" ] || die "unknown kernel flavour '$flavour' of line $LAB_LINE (have: $(cd "$LAB_FLAVOURS" && ls *.conf | sed 's/\.conf$//' | paste -sd' ' -))"
EXCLUDE=
EXTRA=
FRAGMENTS=
MAKEVARS=
. "$conf"

need_cmd gcc gcc
need_cmd make make
need_cmd ccache ccache
need_cmd flex flex
need_cmd bison bison
need_cmd bc bc
need_pkg libelf-dev libssl-dev

out=$LAB_OUT/$name
mkdir -p "$out"
need_space "$out" 2000
# One build of an output directory at a time, tree included: a second waits
# instead of racing it.
exec 9>"$out/.lock"
flock 9
tree=$("$LAB_ROOT/vm/tree.sh" $(for p in $EXTRA $extra_cli; do printf -- '-p %s ' "$p"; done) $EXCLUDE) || exit 1

frags=
for f in $FRAGMENTS; do
	frags="$frags $(line_path "$LAB_ROOT/vm/kconfig" "$f.config")"
done
# Relative paths let the flavours that share a tree share cache entries.
# Depend mode: ccache keys on the source and the headers gcc's dependency
# file names (the kernel passes -Wp,-MMD), so a miss runs only the compiler,
# not the preprocessor first as well.
export CCACHE_BASEDIR=$LAB_BUILD CCACHE_NOHASHDIR=1 CCACHE_DEPEND=1
at=$LAB_BUILD/at
mkdir -p "$at/src" "$at/out"
# The fixed path needs a private mount namespace (root, or a kernel that
# lets unshare map the user); without it each tree builds where it lies.
if [ -z "${LAB_NO_FIXED_PATH:-}" ] &&
	unshare -m --propagation private mount --bind "$at/src" "$at/out" 2>/dev/null; then
	fixed=1
else
	fixed=
	progress build "$name: no private mount namespace here; building at the tree's own path (no sharing between trees)"
fi
kmake() {
	if [ -n "$fixed" ]; then
		unshare -m --propagation private sh -c '
			mount --bind "$1" "$3/src" && mount --bind "$2" "$3/out" || exit 97
			at=$3
			shift 3
			exec make -C "$at/src" O="$at/out" "$@"' \
			kmake "$tree" "$out" "$at" ARCH=x86_64 CC="$LAB_ROOT/vm/ccache-gcc" HOSTCC="ccache gcc" \
			-j"$(nproc)" $MAKEVARS "$@"
	else
		make -C "$tree" O="$out" ARCH=x86_64 CC="$LAB_ROOT/vm/ccache-gcc" HOSTCC="ccache gcc" \
			-j"$(nproc)" $MAKEVARS "$@"
	fi
}
# The path make sees for a file of the output directory.
at_out() {
	if [ -n "$fixed" ]; then echo "$at/out/$1"; else echo "$out/$1"; fi
}

# patch_files TREE: the files that TREE's patches change; every other file
# of a tree is the pristine one.
patch_files() {
	[ -r "$1/.lab-patches" ] || return 0
	(cd "$LAB_PATCHES" && sed -n -e 's|^+++ b/||p' -e 's|^--- a/||p' $(cat "$1/.lab-patches") /dev/null) |
		sort -u
}

# sync_mtimes OLD_TREE: make the file times of this tree tell make what
# changed since OLD_TREE (the tree this output directory was built from).
# A file that differs gets a file of its own with the current time, so that
# make recompiles what depends on it; a patched file with the same content
# as in OLD_TREE gets OLD_TREE's time, so that it is not taken as new just
# because its tree was made later.  Files shared with the pristine tree (hard
# links) are never written.
sync_mtimes() {
	{ patch_files "$1"; patch_files "$tree"; } | sort -u | while read -r f; do
		[ -e "$tree/$f" ] || continue
		if cmp -s "$1/$f" "$tree/$f" 2>/dev/null; then
			[ "$(stat -c %h "$tree/$f")" = 1 ] && touch -r "$1/$f" "$tree/$f"
			continue
		fi
		cp "$tree/$f" "$tree/$f.lab-refresh" && mv "$tree/$f.lab-refresh" "$tree/$f" ||
			die "could not refresh $tree/$f"
	done
}

# Start a new output directory from a built flavour with the same fragments.
if [ -n "$fixed" ] && [ ! -r "$out/lab-build.env" ] && [ ! -r "$out/.config" ]; then
	for f in "$LAB_FLAVOURS"/*.conf; do
		seed=$(basename "$f" .conf)
		[ "$seed" != "$name" ] && [ -r "$LAB_OUT/$seed/lab-build.env" ] || continue
		[ "$(. "$f"; echo $FRAGMENTS)" = "$(echo $FRAGMENTS)" ] || continue
		grep -q '^fixed_path=1$' "$LAB_OUT/$seed/lab-build.env" || continue
		seedtree=$(sed -n 's/^tree=//p' "$LAB_OUT/$seed/lab-build.env")
		[ -r "$seedtree/.lab-stamp" ] || continue
		progress build "$name: starting from the build of $seed (same fragments; only what differs is compiled)"
		# The seed's own lock: it must not change while it is copied.
		(flock 8; cp -a --reflink=auto "$LAB_OUT/$seed/." "$out/") 8>"$LAB_OUT/$seed/.lock" ||
			die "could not copy $LAB_OUT/$seed to $out"
		rm -f "$out/lab-build.env"
		echo "$seedtree" >"$out/.lab-tree"
		break
	done
fi
# The tree changed under this output directory (a mutant after another, a
# seed): make must see what differs as new.
last=$(cat "$out/.lab-tree" 2>/dev/null)
if [ -n "$fixed" ] && [ -n "$last" ] && [ "$last" != "$tree" ]; then
	if [ -r "$last/.lab-stamp" ]; then
		sync_mtimes "$last"
	else
		# The old tree is gone: everything a patch touches counts as changed.
		rm -f "$out/.lab-config-stamp"
		sync_mtimes /nonexistent
	fi
fi
echo "$tree" >"$out/.lab-tree"

# The configuration depends on the fragments and on the Kconfig files: a
# tree whose patches change no Kconfig file (a mutant of six.c) keeps the
# .config of the last one, without the half minute of configuring.
kconfig_files=$(patch_files "$tree" | grep -E '(^|/)Kconfig[^/]*$')
cfgstamp=$({ cat "$tree/.lab-debian-version" $frags; for f in $kconfig_files; do cat "$tree/$f"; done; } |
	sha256sum | cut -c1-16)
if [ "$(cat "$out/.lab-config-stamp" 2>/dev/null)" != "$cfgstamp" ] || [ ! -r "$out/.config" ]; then
	progress build "$name: configuring (tinyconfig + $(echo $FRAGMENTS | sed "s/ / + /g"))"
	rm -f "$out/.lab-config-stamp"
	{
		kmake tinyconfig &&
		KCONFIG_CONFIG="$out/.config" "$tree/scripts/kconfig/merge_config.sh" \
			-m -O "$out" "$out/.config" $frags &&
		kmake olddefconfig
	} >"$out/config.log" 2>&1 || die "configuring $name failed; see $out/config.log"
	"$LAB_ROOT/vm/check-config.sh" "$out/.config" $frags || exit 1
	echo "$cfgstamp" >"$out/.lab-config-stamp"
fi

# With explicit targets (check-series), build just those.
if [ $# -gt 0 ]; then
	kmake "$@"
	exit
fi

targets=bzImage
grep -q '^CONFIG_MODULES=y' "$out/.config" && targets="$targets modules"

# A build that finished wrote .lab-built: what it was made of (tree, series,
# config, make variables, compiler) and every file it left in the output
# directory (name, size, time).  With all of that unchanged and no file of
# the tree newer, make would compile nothing, and walking the tree takes it
# some 13 s; the suite and every run rebuild their kernels many times.
# LAB_BUILD_MAKE=1 runs make anyway.
build_key() {
	{
		echo "$tree $(cat "$tree/.lab-stamp") $cfgstamp $targets $MAKEVARS"
		gcc --version | head -n 1
		(cd "$out" && find . \( -path ./modroot -o -name '.lab-*' -o -name .lock -o -name build.log \
			-o -name config.log -o -name lab-build.env \) -prune -o -type f -printf '%p %s %T@\n' | LC_ALL=C sort)
	} | sha256sum | cut -c1-64
}
if [ "${LAB_BUILD_MAKE:-0}" != 1 ] && [ -r "$out/.lab-built" ] && [ -r "$out/lab-build.env" ] &&
	[ -z "$(find "$tree" -newer "$out/.lab-built" -print -quit)" ] &&
	[ "$(build_key)" = "$(cat "$out/.lab-built")" ]; then
	progress build "$name: done (0 objects compiled) -> $out/arch/x86/boot/bzImage (up to date: nothing changed since its build)"
	exit 0
fi
rm -f "$out/.lab-built"
# What is left: out of the last full build's object count, when there was one.
total=$(cat "$out/.lab-objcount" 2>/dev/null)
of=" objects (first build, total unknown)"
[ -n "$total" ] && of=" of ~$total objects"
progress build "$name: make $targets in $tree (O=$out)"
kmake $targets >"$out/build.log" 2>&1 &
mpid=$!
# Progress every 30 s: objects compiled so far, out of the last full build's count.
while kill -0 $mpid 2>/dev/null; do
	i=0
	while [ $i -lt 30 ] && kill -0 $mpid 2>/dev/null; do
		sleep 1
		i=$((i + 1))
	done
	kill -0 $mpid 2>/dev/null || break
	done_n=$(grep -c '^  CC ' "$out/build.log")
	progress build "$name: compiled $done_n$of, now $(tail -n 1 "$out/build.log" | sed 's/^ *//' | cut -c1-60)"
done
wait $mpid || {
	grep -E 'error|Error' "$out/build.log" | head -n 20 >&2
	die "building $name failed; see $out/build.log"
}
n=$(grep -c '^  CC ' "$out/build.log")
[ "$n" -gt 100 ] && echo "$n" >"$out/.lab-objcount"
# The image must hold the kernel just linked, not one a cache handed back
# (vm/ccache-gcc says how that happened).
c=$out/arch/x86/boot/compressed
if [ -r "$c/piggy.o" ] && [ -r "$c/vmlinux.bin.gz" ]; then
	objcopy -O binary --only-section=.rodata..compressed "$c/piggy.o" "$c/piggy.lab-check" &&
		cmp -s "$c/piggy.lab-check" "$c/vmlinux.bin.gz" ||
		die "$name: bzImage does not hold the kernel just built ($c/piggy.o is stale); remove it and build again"
	rm -f "$c/piggy.lab-check"
fi

if [ -n "${targets#bzImage}" ]; then
	rm -rf "$out/modroot"
	kmake INSTALL_MOD_PATH="$(at_out modroot)" modules_install >>"$out/build.log" 2>&1 ||
		die "modules_install for $name failed; see $out/build.log"
fi

{
	echo "flavour=$flavour"
	echo "line=$LAB_LINE"
	echo "name=$name"
	echo "extra_patches=$(echo $EXTRA $extra_cli)"
	echo "fixed_path=${fixed:-0}"
	echo "debian_source_version=$(cat "$tree/.lab-debian-version")"
	echo "tree=$tree"
	echo "patches=$(wc -l <"$tree/.lab-patches")"
	echo "patches_excluded=${EXCLUDE:-none}"
	echo "fragments=$FRAGMENTS"
	echo "makevars=$(echo $MAKEVARS)"
	echo "kernelrelease=$(kmake -s kernelrelease 2>/dev/null)"
	echo "config_sha256=$(sha256sum <"$out/.config" | cut -c1-64)"
	echo "series_stamp=$(cat "$tree/.lab-stamp")"
	echo "compiler=$(gcc --version | head -n 1)"
} | write_atomic "$out/lab-build.env"
build_key | write_atomic "$out/.lab-built"
progress build "$name: done ($n objects compiled) -> $out/arch/x86/boot/bzImage"
