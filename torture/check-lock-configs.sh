#!/bin/sh
# Check upstream-form lock-torture scenarios without booting them.
# usage: torture/check-lock-configs.sh TREE [CONFIG_DIR]
#   TREE        a kernel tree with the series (build/src/full)
#   CONFIG_DIR  scenarios in the form of upstream's rcutorture configs
#               (default TREE/tools/testing/selftests/rcutorture/configs/lock)
# kvm.sh --torture lock boots them with -enable-kvm, which this host cannot
# run, so each is checked instead: every CFLIST entry has its fragment,
# every CONFIG_ option of the fragments and CFcommon exists in the tree's
# Kconfig files, and every locktorture.PARAM= of a .boot file is a
# parameter of kernel/locking/locktorture.c, with a torture_type it has.
# Prints each problem; exit status 1 when there is one.
. "$(dirname "$0")/functions.sh"

[ $# -ge 1 ] && [ $# -le 2 ] || { usage_from_header; exit 2; }
tree=$1
dir=${2:-$tree/tools/testing/selftests/rcutorture/configs/lock}
lt=$tree/kernel/locking/locktorture.c
[ -r "$lt" ] || die "no kernel/locking/locktorture.c in $tree"
[ -r "$dir/CFLIST" ] || die "no CFLIST in $dir"
symbols=$(find "$tree" -name 'Kconfig*' -not -path '*/tools/*' -exec \
	sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Za-z0-9_]\{1,\}\).*/\2/p' {} + | sort -u)
params=$(sed -n 's/^torture_param([^,]*, *\([a-z_]*\),.*/\1/p; s/^module_param(\([a-z_]*\),.*/\1/p' "$lt" | sort -u)
types=$(sed -n 's/.*\.name[[:space:]]*=[[:space:]]*"\([a-z_]*\)".*/\1/p; s/.*SIX_[A-Z]*_OPS(\([a-z_]*\)).*/\1/p' "$lt" | sort -u)
bad=0
problem() { echo "$*"; bad=1; }
for s in $(grep -v '^#' "$dir/CFLIST"); do
	[ -r "$dir/$s" ] || problem "$s: in CFLIST but no fragment $dir/$s"
done
for f in "$dir"/*; do
	case $f in *.boot | */CFLIST | */ver_functions.sh) continue ;; esac
	for o in $(sed -n 's/^\(# \)\{0,1\}CONFIG_\([A-Za-z0-9_]*\)[= ].*/\2/p' "$f"); do
		echo "$symbols" | grep -qx "$o" || problem "$(basename "$f"): CONFIG_$o is no Kconfig option of $tree"
	done
done
for b in "$dir"/*.boot; do
	for a in $(cat "$b"); do
		case $a in locktorture.*=*) ;; *) continue ;; esac
		p=${a#locktorture.}
		v=${p#*=}
		p=${p%%=*}
		echo "$params" | grep -qx "$p" || problem "$(basename "$b"): locktorture.$p is no parameter of locktorture.c"
		[ "$p" != torture_type ] || echo "$types" | grep -qx "$v" ||
			problem "$(basename "$b"): locktorture.c has no torture_type $v"
	done
done
exit $bad
