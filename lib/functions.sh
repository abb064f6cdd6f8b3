# Shared helpers for the lab's scripts: paths, messages, progress, atomic writes.
# Source it; it defines functions and variables only.

LAB_ROOT=${LAB_ROOT:-$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)}
LAB_BUILD=${LAB_BUILD:-$LAB_ROOT/build}
LAB_START=${LAB_START:-$(date +%s)}
# The kernel line: which Debian linux-source package the lab patches, builds
# and boots (make LINE=6.12 ..., which sets LAB_LINE).  6.1 keeps the lab's
# first paths; another line has its own series (patches/LINE/), flavours
# (vm/flavours/LINE/), trees (build/src-LINE) and builds (build/out-LINE);
# a Kconfig fragment, torture scenario or CFLIST of its own (DIR/LINE/NAME)
# replaces the shared one (line_path).
LAB_LINE=${LAB_LINE:-6.1}
case $LAB_LINE in
6.1) LAB_LINE_DIR= LAB_LINE_SUFFIX= ;;
6.12) LAB_LINE_DIR=/$LAB_LINE LAB_LINE_SUFFIX=-$LAB_LINE ;;
*) printf 'ERROR: LINE must be 6.1 or 6.12 (the kernel lines the lab has a series for), not '\''%s'\''\n' "$LAB_LINE" >&2
   exit 2 ;;
esac
LAB_SRC_PACKAGE=linux-source-$LAB_LINE
LAB_SRC_TARBALL=${LAB_SRC_TARBALL:-/usr/src/$LAB_SRC_PACKAGE.tar.xz}
LAB_PATCHES=$LAB_ROOT/patches$LAB_LINE_DIR
LAB_FLAVOURS=$LAB_ROOT/vm/flavours$LAB_LINE_DIR
LAB_OUT=$LAB_BUILD/out$LAB_LINE_SUFFIX
LAB_SRCDIR=$LAB_BUILD/src$LAB_LINE_SUFFIX
export LAB_ROOT LAB_BUILD LAB_START LAB_LINE

# line_path DIR NAME: DIR/LINE/NAME where this line has a file of its own,
# else the shared DIR/NAME.
line_path() {
	if [ -n "$LAB_LINE_DIR" ] && [ -e "$1$LAB_LINE_DIR/$2" ]; then
		echo "$1$LAB_LINE_DIR/$2"
	else
		echo "$1/$2"
	fi
}

# Elapsed time since the top-level command started, as h:mm:ss.
lab_elapsed() {
	s=$(( $(date +%s) - LAB_START ))
	printf '%d:%02d:%02d' $((s / 3600)) $((s % 3600 / 60)) $((s % 60))
}

# progress STAGE MESSAGE...: one line of progress on stderr.
progress() {
	stage=$1
	shift
	printf '[lab %s] %s: %s\n' "$(lab_elapsed)" "$stage" "$*" >&2
}

warn() {
	printf 'WARNING: %s\n' "$*" >&2
}

die() {
	printf 'ERROR: %s\n' "$*" >&2
	exit 1
}

# die_usage MESSAGE: refuse bad input (exit status 2, as for every usage
# error); nothing has been started or written.
die_usage() {
	printf 'ERROR: %s\n' "$*" >&2
	exit 2
}

# usage_from_header: print the comment block at the top of the calling script.
usage_from_header() {
	sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"
}

# Every script answers -h with its header.
case "${1:-}" in -h|--help) usage_from_header; exit 0 ;; esac

# need_cmd CMD PACKAGE: install a Debian package when its command is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 && return 0
	need_pkg "$2"
	command -v "$1" >/dev/null 2>&1 || die "'$1' is still missing after installing '$2'"
}

# need_pkg PACKAGE...: apt-get install what dpkg does not list as installed.
need_pkg() {
	missing=
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	[ "$(id -u)" = 0 ] || die "missing Debian packages:$missing (run: sudo apt-get install$missing)"
	progress setup "installing Debian packages:$missing"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing \
		>"${TMPDIR:-/tmp}/lab-apt.log" 2>&1; then
		apt-get update -q >/dev/null 2>&1
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing \
			>"${TMPDIR:-/tmp}/lab-apt.log" 2>&1 ||
			die "apt-get install$missing failed; see ${TMPDIR:-/tmp}/lab-apt.log"
	fi
}

# need_space DIR MIB: stop early, with a clear message, when DIR's disk is too full.
need_space() {
	mkdir -p "$1"
	avail=$(df -Pm "$1" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge "$2" ] ||
		die "only ${avail} MiB free under $1, need ${2} MiB; free some space (make clean removes build/)"
}

# write_atomic FILE: copy stdin to FILE through a temporary file and a rename,
# so that a reader never sees half a file.
write_atomic() {
	tmp="$1.tmp.$$"
	cat >"$tmp" && mv -f "$tmp" "$1"
}

# is_uint VALUE: a decimal integer without sign.
is_uint() {
	case "$1" in '' | *[!0-9]*) return 1 ;; esac
}

# hosts_in FILE: the sshlogins of a HOSTS file (GNU parallel's
# --sshloginfile), one a line, without comments and blank lines.
hosts_in() {
	grep -v '^[[:space:]]*\(#\|$\)' "$1"
}

# check_hosts_file FILE: a usage error unless FILE names at least one host.
check_hosts_file() {
	hosts_in "$1" 2>/dev/null | grep -q . ||
		die_usage "HOSTS=$1: no such file, or it names no host (one sshlogin a line)"
}

# boot_sshlogin BOOT_DIR: the host a boot was made on, as the HOSTS file
# names it (vm/boot-job.sh's sshlogin, without parallel's "N/" CPU count).
boot_sshlogin() {
	sed 's|^[0-9]*/||' "$1/sshlogin"
}

# kernel_build_dir BZIMAGE: the out-of-tree build directory of a kernel image
# (build/out/FLAVOUR for build/out/FLAVOUR/arch/x86/boot/bzImage).
kernel_build_dir() {
	(cd "$(dirname "$1")/../../.." && pwd)
}

# debian_source_version: the exact Debian version of the kernel source package.
debian_source_version() {
	dpkg-query -W -f='${Version}' "$LAB_SRC_PACKAGE" 2>/dev/null || echo unknown
}

# record_provenance DIR: what a run was made from, in DIR/provenance/: the
# lab's git revision, status and diff, a checksum per patch of the series,
# the kernel source package version, the host and QEMU.
record_provenance() {
	p=$1/provenance
	mkdir -p "$p"
	git -C "$LAB_ROOT" rev-parse HEAD >"$p/git-rev" 2>/dev/null || echo none >"$p/git-rev"
	git -C "$LAB_ROOT" status --porcelain >"$p/git-status" 2>/dev/null
	git -C "$LAB_ROOT" diff HEAD >"$p/git-diff" 2>/dev/null
	(cd "$LAB_PATCHES" && sha256sum $(grep -v '^#' series)) >"$p/patches.sha256"
	echo "$LAB_LINE" >"$p/line"
	debian_source_version >"$p/debian-source-version"
	host_env >"$p/host"
}

# host_env: key=value lines on this host, its QEMU and the KVM probe's
# finding, for provenance and for every boot's env.
host_env() {
	sh "$LAB_ROOT/vm/host-env.sh"
	echo "accel_probe=$(sed -n 2p "$LAB_BUILD/accel.probe" 2>/dev/null)"
}

# The life of a run directory, shared by make torture, make bench and the
# mutant gate: run_create makes DIR/RUN.partial atomically (an existing RUN
# or RUN.partial is refused, never overwritten), run_child runs a long step
# so that a signal can stop it, and run_finish renames the directory to RUN
# once complete.  INT, TERM or HUP stop the running step (the boot runner
# then stops its guest), leave DIR/RUN.partial/interrupted, and exit 130.
run_dir= run_child_pids=
run_create() {
	mkdir -p "$1" 2>/dev/null && [ -w "$1" ] ||
		die "cannot write results under $1 (read-only or not a directory?); nothing was run"
	reap_stale_runs "$1"
	[ ! -e "$1/$2" ] || die_usage "run $1/$2 exists already; choose another RUN="
	# make report finds runs by name across results/<kind>/: a name one
	# kind holds would hide a run of another kind of the same name.
	# (ls, not a glob: callers may have globbing off.)
	if [ "$(basename "$(dirname "$1")")" = results ]; then
		for _k in $(ls "$(dirname "$1")"); do
			[ ! -e "$(dirname "$1")/$_k/$2" ] || [ "$_k" = "$(basename "$1")" ] ||
				die_usage "run name $2 is taken by $(dirname "$1")/$_k/$2 (make report reads runs by name across results/); choose another RUN="
		done
	fi
	mkdir "$1/$2.partial" 2>/dev/null ||
		die_usage "$1/$2.partial exists: a run of that name is going on or was interrupted; remove it or choose another RUN="
	run_dir=$1/$2.partial
	echo $$ >"$run_dir/runner.pid"
	trap run_interrupt INT TERM HUP
}

# host_lock shared|exclusive: a benchmark must have the host to itself.
# make bench holds build/host.lock exclusively, torture runs hold it shared:
# torture runs may share the host with each other, never with a benchmark.
# The lock is on descriptor 9, so it lasts as long as the run and the
# guests it started.
host_lock() {
	mkdir -p "$LAB_BUILD"
	exec 9>"$LAB_BUILD/host.lock"
	if [ "$1" = exclusive ]; then
		flock -n -x 9 || die "another lab run (torture, mutants or bench) is using this host, and a benchmark must have it to itself: wait for that run to end"
	else
		flock -n -s 9 || { progress lock "waiting for a benchmark to end: torture does not share the host with one"; flock -s 9; }
	fi
}

# reap_stale_runs DIR: a runner killed by SIGKILL could not stop its guest
# or mark its run.  Every DIR/*.partial whose runner (runner.pid) is gone
# has its still-running QEMUs stopped (by their own pid files) and is marked
# interrupted.  Build locks need no cleaning: they are flock()s, released
# when their holder dies.
reap_stale_runs() {
	for p in "$1"/*.partial; do
		[ -d "$p" ] || continue
		r=$(cat "$p/runner.pid" 2>/dev/null)
		[ -n "$r" ] && kill -0 "$r" 2>/dev/null && continue
		for q in $(find "$p" -name qemu.pid 2>/dev/null); do
			g=$(cat "$q" 2>/dev/null)
			[ -n "$g" ] && grep -q qemu-system "/proc/$g/cmdline" 2>/dev/null || continue
			kill -TERM "$g" 2>/dev/null && warn "stopped guest $g of $p, left running by a killed runner"
			i=0
			while kill -0 "$g" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
			grep -q qemu-system "/proc/$g/cmdline" 2>/dev/null && kill -KILL "$g"
		done
		[ -e "$p/interrupted" ] ||
			echo "its runner (pid ${r:-unknown}) was gone when found at $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$p/interrupted"
	done
}
# run_spawn CMD...: start a step in the background, in a process group of
# its own (setsid in a background job keeps the pid), so that an interrupt
# stops the step and all it started: make and the compilers, or the boot
# runner and its QEMU.  run_wait waits for every spawned step and returns
# the last non-zero status; run_child CMD... is one step, waited for.
run_spawn() {
	setsid "$@" &
	run_child_pids="$run_child_pids $!"
}
run_wait() {
	run_wait_rc=0
	for run_wait_pid in $run_child_pids; do
		wait "$run_wait_pid" || run_wait_rc=$?
	done
	run_child_pids=
	return "$run_wait_rc"
}
run_child() {
	run_spawn "$@"
	run_wait
}
run_interrupt() {  # (dash's kill takes no "--": a group is "-PGID" after the signal)
	trap '' INT TERM HUP
	for run_wait_pid in $run_child_pids; do
		kill -TERM "-$run_wait_pid" 2>/dev/null || kill -TERM "$run_wait_pid" 2>/dev/null
	done
	for run_wait_pid in $run_child_pids; do
		wait "$run_wait_pid" 2>/dev/null
	done
	echo "interrupted by a signal at $(date -u +%Y-%m-%dT%H:%M:%SZ) after $(lab_elapsed)" >"$run_dir/interrupted"
	echo >&2
	warn "interrupted: $run_dir is incomplete and is not a result"
	exit 130
}
run_finish() {
	mv "$run_dir" "${run_dir%.partial}" || die "could not rename $run_dir"
	trap - INT TERM HUP
	run_dir=${run_dir%.partial}
}
