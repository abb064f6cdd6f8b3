#!/bin/sh
# Boot one stored torture scenario again and judge it (like upstream's
# kvm-again.sh): same boot arguments, vCPUs, duration and kernel.
# usage: torture/again.sh [-o DIR] RUN SCENARIO
#   RUN       a torture run (a name in results/torture, or a directory); a
#             mutant's run works too (results/mutants/GATE/MUTANT)
#   SCENARIO  one of its scenario directories, e.g. SIX-4 or SIX-4.2
#   -o        where the new boot goes (default build/again/RUN-SCENARIO)
# The kernel is the one the scenario booted: the lab's current build when its
# configuration and series checksums match the stored ones; otherwise the
# lab is checked out at the stored revision (with the run's own patch, for a
# mutant) and that kernel is built, which is said first.  Prints both
# judgements; exit status 0 when the new one agrees with the stored one.
. "$(dirname "$0")/functions.sh"

out=
while getopts o:h opt; do
	case $opt in
	o) out=$OPTARG ;;
	*) usage_from_header; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { usage_from_header; exit 2; }
run=$1 scen=$2
[ -d "$run" ] || run=$LAB_ROOT/results/torture/$1
[ -d "$run" ] || die_usage "no torture run '$1' (runs: $(ls "$LAB_ROOT/results/torture" 2>/dev/null | paste -sd' ' -))"
case $run in *.partial | *.partial/) die_usage "run '$1' is incomplete (.partial): nothing to boot again" ;; esac
old=$run/$scen
[ -r "$old/boot" ] && [ -r "$old/env" ] ||
	die_usage "no stored scenario '$scen' in $run (have: $(cd "$run" && ls -d */ 2>/dev/null | grep -v provenance | tr -d / | paste -sd' ' -))"
out=${out:-$LAB_BUILD/again/$(basename "$run")-$scen}
field() { sed -n "s/^$1=//p" "$old/env" | head -n 1; }

# Which kernel: the current build if it is the stored one, else the stored
# revision's.
flavour=$(field kernel_flavour)
[ -n "$flavour" ] || die "$old/env does not name its kernel flavour: cannot tell which kernel to boot"
patch=
[ -r "$run/provenance/extra.patch" ] && patch=$(realpath --relative-to="$LAB_ROOT" "$run/provenance/extra.patch")
kname=${flavour}${patch:+-mutant}
lab=$LAB_ROOT lab_build=$LAB_BUILD
if [ -n "$patch" ]; then
	# A mutant, built with the run's own copy of its patch; the build
	# directory is shared with the mutant gate, so hold it as that does.
	mkdir -p "$LAB_OUT"
	exec 7>"$LAB_OUT/$kname.use"
	flock -n 7 || { progress again "waiting for another run using build/out/$kname"; flock 7; }
	"$LAB_ROOT/vm/build-kernel.sh" -e "$patch" -O "$kname" "$flavour" >&2 || exit 1
else
	"$LAB_ROOT/vm/build-kernel.sh" "$flavour" >&2 || exit 1
fi
benv=$LAB_OUT/$kname/lab-build.env
want=$(field kernel_config_sha256)/$(field kernel_series_stamp)
have=$(sed -n 's/^config_sha256=//p' "$benv")/$(sed -n 's/^series_stamp=//p' "$benv")
if [ "$want" != "$have" ]; then
	rev=$(field lab_git_rev)
	progress again "the stored kernel (config/series $want) is not today's build ($have):" \
		"building it from lab revision $rev in build/again/lab-$rev"
	lab=$LAB_BUILD/again/lab-$rev lab_build=$LAB_BUILD/again/lab-$rev/build
	if [ ! -d "$lab" ]; then
		mkdir -p "$lab.tmp"
		git -C "$LAB_ROOT" archive "$rev" | tar -C "$lab.tmp" -x ||
			die "lab revision $rev is not in this clone's history: cannot rebuild the stored kernel"
		# A run made from a modified checkout kept its diff: apply it too.
		if [ -s "$run/provenance/git-diff" ]; then
			(cd "$lab.tmp" && git apply "$run/provenance/git-diff") ||
				die "could not apply $run/provenance/git-diff to revision $rev"
		fi
		[ -z "$patch" ] || cp "$run/provenance/extra.patch" "$lab.tmp/again-extra.patch"
		mv "$lab.tmp" "$lab"
	fi
	# That revision's scripts, on its own paths (ours are exported).
	LAB_ROOT=$lab LAB_BUILD=$lab_build "$lab/vm/build-kernel.sh" ${patch:+-e again-extra.patch} -O "$kname" "$flavour" >&2 ||
		exit 1
	have=$(sed -n 's/^config_sha256=//p' "$lab_build/out/$kname/lab-build.env")/$(sed -n 's/^series_stamp=//p' "$lab_build/out/$kname/lab-build.env")
	[ "$want" = "$have" ] || warn "revision $rev builds config/series $have, not the stored $want: the run's tree was changed outside git"
fi
kout=$lab_build/out/$kname

rm -rf "$out"
mkdir -p "$out"
for f in boot expect config-fragment; do
	cp "$old/$f" "$out/$f" 2>/dev/null
done
vcpus=$(field vcpus)
duration=$(sed -n 's/.*lab\.duration=\([0-9]*\).*/\1/p' "$old/boot")
progress again "$scen of $(basename "$run"): $vcpus vCPUs, ${duration}s, kernel $kout"
LAB_ROOT=$lab LAB_BUILD=$lab_build "$lab/vm/run.sh" -k "$kout/arch/x86/boot/bzImage" -M "$kout/modroot" -o "$out" -c "$vcpus" \
	-t $((120 + 5 * vcpus + ${duration:-30} + 60)) -p "$lab/torture/payload" -a "$(cat "$old/boot")" \
	2>"$out/run.log"
"$LAB_ROOT/torture/judge.sh" "$out"
echo "stored: $(cat "$old/judgement")"
echo "again:  $(cat "$out/judgement")"
# Agreement is on the outcome (PASS or FAIL), not on the wording.
[ "$(cut -d: -f1 <"$old/judgement")" = "$(cut -d: -f1 <"$out/judgement")" ]
