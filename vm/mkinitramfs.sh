#!/bin/sh
# Make a guest initramfs: busybox-static, the lab's static programs, /init and a payload.
# usage: vm/mkinitramfs.sh PAYLOAD_DIR OUTPUT.cpio.gz [MODROOT]
# Also writes OUTPUT.manifest: what the initramfs was built from (busybox's
# package version, the compiler, and a sha256 of every file in it).
#   PAYLOAD_DIR  a directory with an executable script "run"; copied to /payload;
#                its optional file "programs" names C sources to build into /bin
#   MODROOT      a modules_install tree (lib/modules/...) to include
. "$(dirname "$0")/../lib/functions.sh"

[ $# -ge 2 ] || { usage_from_header; exit 2; }
payload=$1 output=$2 modroot=${3:-}
[ -r "$payload/run" ] || die "payload $payload has no 'run' script"
need_pkg busybox-static
need_cmd cpio cpio
need_cmd gzip gzip

# The guest programs, built static so that the initramfs needs no libc:
# the runner's own (vm/guest/*.c) and those the payload names in its file
# "programs" (paths from the lab's root), so that each stage brings its own.
# Guests boot concurrently (packed torture): each compiler output has a
# name of its own until it is renamed into place.
bindir=$LAB_BUILD/guest
mkdir -p "$bindir"
bins=
srcs="$LAB_ROOT/vm/guest/*.c"
if [ -r "$payload/programs" ]; then
	for p in $(sed 's/#.*//' "$payload/programs"); do
		[ -r "$LAB_ROOT/$p" ] || die "payload $payload names a program $p that does not exist"
		srcs="$srcs $LAB_ROOT/$p"
	done
fi
# shellcheck disable=SC2086
for src in $srcs; do
	bin=$bindir/$(basename "$src" .c)
	if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
		gcc -static -O2 -Wall -Werror -pthread -o "$bin.tmp.$$" "$src" && mv "$bin.tmp.$$" "$bin" ||
			{ rm -f "$bin.tmp.$$"; die "could not build $src"; }
	fi
	bins="$bins $bin"
done

stage=$(mktemp -d "${TMPDIR:-/tmp}/lab-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/sbin" "$stage/usr/bin" "$stage/usr/sbin" \
	"$stage/proc" "$stage/sys" "$stage/dev" "$stage/etc"
cp /bin/busybox "$stage/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ -e "$stage/bin/$applet" ] || ln -s busybox "$stage/bin/$applet"
done
cp $bins "$stage/bin/"
cp "$LAB_ROOT/vm/guest/init" "$stage/init"
chmod +x "$stage/init"
cp -r "$payload" "$stage/payload"
[ -n "$modroot" ] && [ -d "$modroot/lib" ] && cp -r "$modroot/lib" "$stage/lib"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$output.tmp" &&
	mv "$output.tmp" "$output" || die "could not write $output"
{
	echo "# what $(basename "$output") was built from (vm/mkinitramfs.sh)"
	echo "busybox=$(dpkg-query -W -f='${Version}' busybox-static 2>/dev/null || echo unknown)"
	echo "compiler=$(gcc --version | head -n 1)"
	echo "lab_git_rev=$(git -C "$LAB_ROOT" rev-parse HEAD 2>/dev/null || echo none)"
	(cd "$stage" && find . -type f ! -path ./bin/busybox ! -path './lib/*' | sort | xargs sha256sum)
	[ -z "$modroot" ] || [ ! -d "$modroot/lib" ] ||
		echo "modules=$(cd "$stage" && find lib -type f | sort | xargs cat | sha256sum | cut -c1-64)"
} | write_atomic "$output.manifest"
