#!/bin/sh
# Build vm/insn-count.c, the instruction-counting TCG plugin, and print the
# path of the shared object.  The plugin declares the part of QEMU 7.2's
# plugin API (version 1) it calls itself (Debian packages no QEMU plugin
# headers); QEMU refuses a plugin whose API version it does not support.
# usage: vm/build-plugin.sh
. "$(dirname "$0")/../lib/functions.sh"

[ $# -eq 0 ] || { usage_from_header; exit 2; }
need_cmd gcc gcc
src=$LAB_ROOT/vm/insn-count.c
so=$LAB_BUILD/insn-count.so
if [ ! -e "$so" ] || [ "$src" -nt "$so" ]; then
	mkdir -p "$LAB_BUILD"
	gcc -O2 -Wall -shared -fPIC "$src" -o "$so.$$" ||
		{ rm -f "$so.$$"; die "cannot build the TCG plugin $src"; }
	mv -f "$so.$$" "$so"
fi
echo "$so"
