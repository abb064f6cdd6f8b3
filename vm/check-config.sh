#!/bin/sh
# Check that a kernel .config has every option its fragments ask for.
# usage: vm/check-config.sh DOTCONFIG FRAGMENT...
# Kconfig silently drops an option whose dependencies are not met; this makes
# that an error naming the option, instead of a kernel that lacks a feature.
. "$(dirname "$0")/../lib/functions.sh"

[ $# -ge 2 ] || { usage_from_header; exit 2; }
config=$1
shift
[ -r "$config" ] || die "no .config at $config"
awk '
	FNR == NR { have[$0] = 1; next }
	# Later fragments override earlier ones, as in merge_config.sh.
	/^CONFIG_[A-Za-z0-9_]+=/ || /^# CONFIG_[A-Za-z0-9_]+ is not set/ {
		opt = $0
		sub(/^# /, "", opt)
		sub(/[= ].*/, "", opt)
		if (!(opt in want)) order[n++] = opt
		want[opt] = $0
		where[opt] = FILENAME ":" FNR
	}
	END {
		for (i = 0; i < n; i++) {
			opt = order[i]
			if (want[opt] in have) continue
			# "is not set" is also met by an option that is absent.
			if (want[opt] ~ /is not set$/ && !((opt "=y") in have) && !((opt "=m") in have))
				continue
			printf "%s asks for \"%s\", the .config does not have it\n", where[opt], want[opt]
			bad = 1
		}
		exit bad
	}' "$config" "$@" >&2 ||
	die "$config lacks options its fragments ask for (unmet dependencies?)"
