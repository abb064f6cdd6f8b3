#!/bin/sh
# Build one kernel flavour out of tree, with ccache.
# usage: vm/build-kernel.sh FLAVOUR [TARGET...]
#   FLAVOUR  a file vm/flavours/FLAVOUR.conf: EXCLUDE (patches left out),
#            EXTRA (patches applied after the series), FRAGMENTS (configs)
#   TARGET   make targets instead of the kernel image (e.g. fs/inode.o)
# Output: build/out/FLAVOUR/ with arch/x86/boot/bzImage, modules under
# modroot/, build.log, and lab-build.env describing the build.  The .config is
# regenerated only when a fragment or the tree changed, so an unchanged
# flavour rebuilds in seconds.
. "$(dirname "$0")/functions.sh"

[ $# -ge 1 ] || { usage_from_header; exit 2; }
flavour=$1
shift
conf=$LAB_ROOT/vm/flavours/$flavour.conf
[ -r "$conf" ] || die "unknown kernel flavour '$flavour' (have: $(cd "$LAB_ROOT/vm/flavours" && ls | sed 's/\.conf$//' | paste -sd' ' -))"
EXCLUDE=
EXTRA=
FRAGMENTS=
. "$conf"

need_cmd gcc gcc
need_cmd make make
need_cmd ccache ccache
need_cmd flex flex
need_cmd bison bison
need_cmd bc bc
need_pkg libelf-dev libssl-dev

tree=$("$LAB_ROOT/vm/tree.sh" $(for p in $EXTRA; do printf -- '-p %s ' "$p"; done) $EXCLUDE) || exit 1
out=$LAB_BUILD/out/$flavour
mkdir -p "$out"
need_space "$out" 2000
# One build of a flavour at a time: a second waits instead of racing it.
exec 9>"$out/.lock"
flock 9

frags=
for f in $FRAGMENTS; do
	frags="$frags $LAB_ROOT/vm/kconfig/$f.config"
done
# ccache keys on the preprocessed source; relative paths let the flavours
# that share a tree share cache entries.
export CCACHE_BASEDIR=$LAB_BUILD CCACHE_NOHASHDIR=1
kmake() {
	make -C "$tree" O="$out" ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		-j"$(nproc)" "$@"
}

cfgstamp=$(cat "$tree/.lab-stamp" $frags | sha256sum | cut -c1-16)
if [ "$(cat "$out/.lab-config-stamp" 2>/dev/null)" != "$cfgstamp" ] || [ ! -r "$out/.config" ]; then
	progress build "$flavour: configuring (tinyconfig + $(echo $FRAGMENTS | sed "s/ / + /g"))"
	rm -f "$out/.lab-config-stamp"
	{
		kmake tinyconfig &&
		KCONFIG_CONFIG="$out/.config" "$tree/scripts/kconfig/merge_config.sh" \
			-m -O "$out" "$out/.config" $frags &&
		kmake olddefconfig
	} >"$out/config.log" 2>&1 || die "configuring $flavour failed; see $out/config.log"
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
# What is left: out of the last full build's object count, when there was one.
total=$(cat "$out/.lab-objcount" 2>/dev/null)
of=" objects (first build, total unknown)"
[ -n "$total" ] && of=" of ~$total objects"
progress build "$flavour: make $targets in $tree (O=$out)"
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
	progress build "$flavour: compiled $done_n$of, now $(tail -n 1 "$out/build.log" | sed 's/^ *//' | cut -c1-60)"
done
wait $mpid || {
	grep -E 'error|Error' "$out/build.log" | head -n 20 >&2
	die "building $flavour failed; see $out/build.log"
}
n=$(grep -c '^  CC ' "$out/build.log")
[ "$n" -gt 100 ] && echo "$n" >"$out/.lab-objcount"

if [ -n "${targets#bzImage}" ]; then
	rm -rf "$out/modroot"
	kmake INSTALL_MOD_PATH="$out/modroot" modules_install >>"$out/build.log" 2>&1 ||
		die "modules_install for $flavour failed; see $out/build.log"
fi

{
	echo "flavour=$flavour"
	echo "debian_source_version=$(cat "$tree/.lab-debian-version")"
	echo "tree=$tree"
	echo "patches=$(wc -l <"$tree/.lab-patches")"
	echo "patches_excluded=${EXCLUDE:-none}"
	echo "fragments=$FRAGMENTS"
	echo "kernelrelease=$(kmake -s kernelrelease 2>/dev/null)"
	echo "config_sha256=$(sha256sum <"$out/.config" | cut -c1-64)"
	echo "series_stamp=$(cat "$tree/.lab-stamp")"
	echo "compiler=$(gcc --version | head -n 1)"
} | write_atomic "$out/lab-build.env"
progress build "$flavour: done ($n objects compiled) -> $out/arch/x86/boot/bzImage"
