# The lock-torture and benchmark lab: make help lists the targets.
# Everything runs in QEMU guests; nothing is loaded into this machine's kernel.

SHELL := /bin/sh
FLAVOURS ?= torture bench-global bench-hashbl vanilla inode-global inode-hashbl
VCPUS ?=
RUN ?= $(shell date -u +%Y%m%d-%H%M%S)
# The kernel line: Debian's linux-source-6.1 (the lab's first) or -6.12,
# each with its own series (patches/, patches/6.12/) and builds; the scripts
# read it as LAB_LINE (lib/functions.sh refuses any other).
LINE ?= 6.1
export LAB_LINE := $(LINE)
OUT := build/out$(if $(filter-out 6.1,$(LINE)),-$(LINE))
# Options passed on only when given: each script has its own defaults.
given = $(filter command line environment,$(origin $(1)))
opt = $(if $(call given,$(1)),$(2) "$($(1))")

.PHONY: help all setup kernel check-series kunit boot torture torture-recheck torture-again torture-mutants torture-coverage bench bench-recheck report test clean

help:
	@echo 'The lock-torture and benchmark lab (patched Debian linux-source-6.1 or -6.12 in QEMU)'
	@echo
	@echo '  LINE=6.1|6.12         the kernel line of every target below (default 6.1)'
	@echo '  make all              set up, every kernel flavour, check-series, kunit, torture, mutants'
	@echo '  make test             the test suite; ends with "N passed, N failed"'
	@echo '  make setup            install the Debian packages the lab uses'
	@echo '  make kernel           build kernel flavours [FLAVOURS="$(FLAVOURS)"]'
	@echo '  make check-series     compile every file the series touches'
	@echo '  make kunit            run the series KUnit suite in a guest [VCPUS=2]'
	@echo '  make boot             boot the torture kernel, console on the terminal [VCPUS=2]'
	@echo '  make torture          lock and inode-cache torture scenarios, judged [SCENARIOS= DURATION=30 VCPUS= CPUS=]'
	@echo '                        CPUS=N: scenarios packed so that their vCPUs fit N host CPUs (default: all)'
	@echo '                        HOSTS=FILE: scenarios booted on ssh hosts through GNU parallel (one sshlogin a line)'
	@echo '  make bench VCPUS=N    inode-create benchmark, global inode_hash_lock vs hash-bl: on a host'
	@echo '                        without N CPUs and KVM (this one: about 12 min at VCPUS=32), counts'
	@echo '                        every lock'"'"'s critical sections and projects them to 1-64 CPUs, then'
	@echo '                        a short labelled overcommitted side run; with them, measures rates'
	@echo '                        [THREADS="1 2 4 ..." REPEATS=5 FILES=4000 WORKLOADS=create (or shared walk fsmark)'
	@echo '                         KERNELS="bench-global bench-hashbl" METRIC=rate|insns|locks PLAN=1]'
	@echo '                        METRIC=insns: guest instructions per operation (-icount), not time'
	@echo '                        METRIC=locks: critical sections per lock (TCG plugin, -icount), projected'
	@echo '                        PLAN=1: print what would boot and about how long, and stop'
	@echo '                        PRECISION=3 [MAXMIN=120]: more repeats until every ratio is known to +-3%'
	@echo '                        HOSTS=FILE: each repeat booted whole on one ssh host; compared per host'
	@echo '  make bench-recheck    results.csv and summary.txt again from the stored boots RUN=<run>'
	@echo '  make report           REPORT.md and plots/ from every complete run in results/'
	@echo '                        [RUN="run ..."] or run to run [BASE=<run> NEW=<run>]; every kernel'
	@echo '                        line side by side, or LINE=6.12: that line'"'"'s runs alone'
	@echo '  make torture-recheck  re-judge a stored torture run without booting RUN=<run>'
	@echo '  make torture-again    boot one stored scenario again and judge it RUN=<run> SCENARIO=<name>'
	@echo '  make torture-mutants  the mutant gate: does the torture catch broken six locks and a broken'
	@echo '                        inode cache? [MUTANTS="name ..." (MUTANTS='"'"'inode-*'"'"': the inode half)]'
	@echo '                        [FAST=1] [DURATION=12]'
	@echo '  make torture-coverage six.c line, branch and function coverage under the six'
	@echo '                        scenarios (gcov counters of the torture kernel) [SCENARIOS= DURATION=10]'
	@echo '  make clean            remove build output (kernel trees, objects, guests)'
	@echo
	@echo 'Flow: patches/ -> vm/ (build, boot) -> torture/ | bench/ -> results/ -> report/; lib/ is shared.'
	@echo 'Results go to results/<kind>/<run>/; build output to build/.'

all: setup kernel check-series kunit torture torture-mutants  # each ends with make report

setup:
	@. lib/functions.sh; need_pkg linux-source-$(LINE) qemu-system-x86 busybox-static ccache \
		gcc make flex bison bc libelf-dev libssl-dev cpio xz-utils kmod patch \
		linux-perf trace-cmd e2fsprogs fsmark python3 python3-numpy python3-scipy \
		python3-matplotlib gawk util-linux parallel rsync openssh-client

kernel: setup
	@for f in $(FLAVOURS); do vm/build-kernel.sh $$f || exit 1; done

check-series: setup
	vm/check-series.sh

kunit: setup
	@vm/check-vcpus.sh $(or $(VCPUS),2)
	vm/build-kernel.sh torture
	vm/kunit.sh results/kunit/$(RUN) $(or $(VCPUS),2) torture

boot: setup
	@vm/check-vcpus.sh $(or $(VCPUS),2)
	vm/build-kernel.sh torture
	vm/run.sh -v -k $(OUT)/torture/arch/x86/boot/bzImage -o results/boot/$(RUN) -c $(or $(VCPUS),2)

# make torture and make bench end by remaking the report from every
# complete run, their own included, whether or not every scenario passed.
# (The script, not $(MAKE) report: make -n runs any line naming $(MAKE).)
REPORT_ALL = /usr/bin/python3 report/report.py

# Not after refused input (2) or an interrupt (130): nothing new to report.
torture: setup
	torture/run.sh -r $(RUN) $(call opt,SCENARIOS,-s) $(call opt,DURATION,-d) $(call opt,VCPUS,-c) $(call opt,CPUS,-j) $(call opt,HOSTS,-H); \
		rc=$$?; case $$rc in 2|130) ;; *) $(REPORT_ALL) ;; esac; exit $$rc

# METRIC=insns counts guest instructions per operation (-icount) instead of
# timing, METRIC=locks counts critical sections; without METRIC the run
# chooses (bench/run.sh -A): rates where VCPUS real CPUs and KVM are there,
# else counted critical sections, projected, and a short overcommitted side run.
metric_opt = $(if $(METRIC),$(if $(filter insns,$(METRIC)),-i,$(if $(filter locks,$(METRIC)),-L)),-A)
bench: setup
	@test -n "$(VCPUS)" || { echo 'usage: make bench VCPUS=N [THREADS= REPEATS= FILES= WORKLOADS= KERNELS= METRIC=rate|insns|locks PRECISION= MAXMIN= HOSTS= PLAN=1]'; exit 2; }
	@case "$(or $(METRIC),rate)" in rate|insns|locks) ;; *) echo "make bench: METRIC must be rate, insns or locks, not '$(METRIC)'"; exit 2 ;; esac
	bench/run.sh -c "$(VCPUS)" -r $(RUN) $(call opt,THREADS,-t) $(call opt,REPEATS,-n) \
		$(call opt,FILES,-f) $(call opt,WORKLOADS,-w) $(call opt,KERNELS,-k) $(metric_opt) \
		$(call opt,PRECISION,-W) $(call opt,MAXMIN,-B) $(call opt,HOSTS,-H) $(if $(PLAN),-D) && \
		{ test -n "$(PLAN)" || $(REPORT_ALL); }

bench-recheck:
	@test "$(origin RUN)" != file || { echo "usage: make bench-recheck RUN=<run in results/bench>"; exit 2; }
	bench/recheck.sh $(RUN)

report:
	@test -z "$(BASE)$(NEW)" || test -n "$(BASE)" -a -n "$(NEW)" || \
		{ echo 'usage: make report [RUN="run ..."] or make report BASE=<run> NEW=<run>'; exit 2; }
	/usr/bin/python3 report/report.py $(if $(call given,RUN),$(RUN)) \
		$(if $(BASE),--base "$(BASE)" --new "$(NEW)") $(if $(call given,LINE),--line "$(LINE)")

torture-mutants: setup
	torture/mutants.sh -r $(RUN) $(call opt,MUTANTS,-m) $(call opt,DURATION,-d) $(call opt,CPUS,-j) $(call opt,HOSTS,-H) $(if $(FAST),-F); \
		rc=$$?; case $$rc in 2|130) ;; *) $(REPORT_ALL) ;; esac; exit $$rc

torture-coverage: setup
	torture/coverage.sh -r $(RUN) $(call opt,SCENARIOS,-s) $(call opt,DURATION,-d); \
		rc=$$?; case $$rc in 2|130) ;; *) $(REPORT_ALL) ;; esac; exit $$rc

torture-again:
	@test "$(origin RUN)" != file -a -n "$(SCENARIO)" || { echo "usage: make torture-again RUN=<run> SCENARIO=<scenario>"; exit 2; }
	torture/again.sh $(RUN) $(SCENARIO)

torture-recheck:
	@test "$(origin RUN)" != file || { echo "usage: make torture-recheck RUN=<run in results/torture>"; exit 2; }
	torture/recheck.sh $(RUN)

test: setup
	tests/run.sh

clean:
	rm -rf build
