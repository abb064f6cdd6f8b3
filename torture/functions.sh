# Helpers of the torture scripts.  Source it after nothing else: it sources
# the lab's common functions.
. "$(dirname "$0")/../lib/functions.sh"

# scenario_vcpus FRAGMENT: a scenario's vCPU count, its CONFIG_NR_CPUS.
scenario_vcpus() {
	sed -n 's/^CONFIG_NR_CPUS=//p' "$1" | tail -n 1 | grep . || echo 2
}

# expand_scenarios LIST: kvm.sh's "N*NAME" repeats, as instances NAME,
# NAME.2 ... NAME.N (numbered across the list, so "A 2*A" is A A.2 A.3),
# interleaved by round (A B A.2 B.2 ...) so that slow drift of the host
# touches every scenario alike.
expand_scenarios() {
	echo $* | tr ' ' '\n' | awk '
		/\*/ { n = $0; sub(/\*.*/, "", n); name = $0; sub(/^[^*]*\*/, "", name) }
		!/\*/ { n = 1; name = $0 }
		n !~ /^[0-9]+$/ || n < 1 { print "BAD-REPEAT:" $0; next }
		{ want[++k] = name; reps[k] = n; if (n > max) max = n }
		END {
			for (r = 1; r <= max; r++)
				for (i = 1; i <= k; i++)
					if (r <= reps[i] && ++seen[want[i]])
						print (seen[want[i]] == 1 ? want[i] : want[i] "." seen[want[i]])
		}'
}

# scenario_file NAME: a file of torture/configs/ (a scenario, NAME.boot,
# CFLIST...), or this kernel line's own in torture/configs/LINE/.
scenario_file() {
	line_path "$LAB_ROOT/torture/configs" "$1"
}

# scenario_base INSTANCE: the scenario an instance runs (SIX-4.2 -> SIX-4).
scenario_base() {
	echo "${1%.[0-9]*}"
}

# scenario_flavour INSTANCE [FLAVOUR]: the kernel flavour that boots it:
# FLAVOUR when given, else its configs/NAME.flavour, else torture.
scenario_flavour() {
	[ -z "$2" ] || { echo "$2"; return; }
	cat "$(scenario_file "$(scenario_base "$1").flavour")" 2>/dev/null || echo torture
}

# pack_batches CPUS: scenarios packed onto CPUS host CPUs, as kvm.sh's
# --cpus does.  Reads "INSTANCE VCPUS" lines; prints "BATCH INSTANCE VCPUS"
# lines.  Each batch starts with the first scenario not yet run (so an
# unpacked run keeps its order), then takes the largest others that still
# fit beside it; a scenario wider than CPUS runs alone.  The scenarios of a
# batch boot together; the next batch starts when all of them have ended.
pack_batches() {
	awk -v cpus="$1" '
		{ name[NR] = $1; c[NR] = $2 }
		END {
			# Candidates for filling, widest first (stable).
			for (i = 1; i <= NR; i++) order[i] = i
			for (i = 2; i <= NR; i++)
				for (j = i; j > 1 && c[order[j]] > c[order[j - 1]]; j--) {
					t = order[j]; order[j] = order[j - 1]; order[j - 1] = t
				}
			b = 0
			for (lead = 1; lead <= NR; lead++) {
				if (done[lead]) continue
				b++
				done[lead] = 1
				free = cpus - c[lead]
				print b, name[lead], c[lead]
				for (k = 1; k <= NR; k++) {
					i = order[k]
					if (!done[i] && c[i] <= free) {
						done[i] = 1
						free -= c[i]
						print b, name[i], c[i]
					}
				}
			}
		}'
}

# mutant_field PATCH KEY: a field of a mutant's header ("Key: value" lines
# before the first blank line).
mutant_field() {
	sed -n "/^\$/q; s/^$2: *//p" "$1"
}

# mutant_flavour PATCH: the kernel flavour a mutant is built on, which all
# the scenarios of its Scenarios: header boot; fails, saying which flavours
# they name, when they are not one.
mutant_flavour() {
	_fl=$(for _s in $(mutant_field "$1" Scenarios); do scenario_flavour "$_s"; done | sort -u)
	[ "$(echo "$_fl" | grep -c .)" = 1 ] || {
		echo "$(basename "$1" .patch): its scenarios boot $(echo "$_fl" | grep -c .) kernel flavours ($(echo $_fl)), not one" >&2
		return 1
	}
	echo "$_fl"
}

# mutant_outcome PATCH MUTANT_RUN RC SECONDS: key=value lines on one
# mutant's run: outcome (caught, missed, survived, control-failed or
# error), the detectors that fired, and one "scenario_NAME=" result each.
mutant_outcome() {
	expect=$(mutant_field "$1" Expect)
	echo "mutant=$(basename "$1" .patch)"
	echo "expect=$expect"
	echo "fixed_by=$(mutant_field "$1" Fixed-by)"
	echo "seconds=$4"
	echo "build_seconds=$(cat "$2/provenance/build-seconds" 2>/dev/null)"
	if [ ! -d "$2" ]; then
		echo "outcome=error"
		echo "detectors=none"
		echo "why=the torture run did not complete (exit $3); see $(basename "$2").log"
		return
	fi
	caught=
	for s in $(mutant_field "$1" Scenarios); do
		sum=$2/$s/summary
		j=$(sed -n 's/^judgement=//p' "$sum" 2>/dev/null)
		det=$(sed -n 's/^detectors=//p' "$sum" 2>/dev/null)
		chk=$(sed -n 's/^check=//p' "$sum" 2>/dev/null)
		case $j in
		PASS*) [ "$expect" = survives ] && r=passed || r=missed ;;
		FAIL*)
			# A negative control that stayed silent: its expectation caught it.
			[ "$det" = none ] && det=expect:$(cat "$2/$s/expect" 2>/dev/null)
			r=$det
			[ -n "$chk" ] && r="$r ($chk)"
			caught="$caught,$det" ;;
		*) r="error: no judgement" ;;
		esac
		echo "scenario_$s=$r"
	done
	det=$(echo "${caught#,}" | tr ',' '\n' | awk 'NF && !seen[$0]++' | paste -sd, -)
	case $expect:${caught:+caught} in
	survives:) echo "outcome=survived" ;;
	survives:caught) echo "outcome=control-failed" ;;
	*:caught) echo "outcome=caught" ;;
	*) echo "outcome=missed" ;;
	esac
	echo "detectors=${det:-none}"
}

# mutant_matrix RUN MUTANT...: the kill matrix, a line per mutant and scenario.
mutant_matrix() {
	r=$1
	shift
	printf '%-40s %-9s %-19s %s\n' mutant expect scenario result
	for m in "$@"; do
		grep '^scenario_' "$r/$m.outcome" | while IFS= read -r line; do
			s=${line%%=*}
			printf '%-40s %-9s %-19s %s\n' "$m" "$(sed -n 's/^expect=//p' "$r/$m.outcome")" \
				"${s#scenario_}" "${line#*=}"
		done
		grep -q '^scenario_' "$r/$m.outcome" ||
			printf '%-40s %-9s %-19s %s\n' "$m" "$(sed -n 's/^expect=//p' "$r/$m.outcome")" - \
				"error: $(sed -n 's/^why=//p' "$r/$m.outcome")"
	done
}

# mutant_score RUN MUTANT...: key=value: the mutation score over the mutants
# (controls apart), what was missed, and the gate's verdict.
mutant_score() {
	r=$1
	shift
	for m in "$@"; do
		printf '%s %s %s\n' "$m" "$(sed -n 's/^expect=//p' "$r/$m.outcome")" \
			"$(sed -n 's/^outcome=//p' "$r/$m.outcome")"
	done | awk '
		$2 == "survives" { controls++; if ($3 == "survived") controls_ok++; else bad = bad " " $1; next }
		{ n++ }
		$3 == "caught" { caught++; next }
		$3 == "missed" { missed = missed " " $1; if ($2 == "caught") bad = bad " " $1; next }
		{ errors = errors " " $1; bad = bad " " $1 }
		END {
			printf "mutants=%d\ncaught=%d\nscore_pct=%.1f\n", n, caught, n ? 100 * caught / n : 0
			printf "missed=%s\nerrors=%s\n", substr(missed, 2), substr(errors, 2)
			printf "controls=%d\ncontrols_passed=%d\n", controls, controls_ok
			printf "gate=%s\n", bad == "" ? "PASS" : "FAIL"
			if (bad != "") printf "gate_failed_by=%s\n", substr(bad, 2)
		}'
}
