// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insn-count: a QEMU TCG plugin that counts the guest instructions each vCPU
 * executes and, whenever the guest executes a marker, writes every vCPU's
 * count so far.  The guest brackets what it measures with two markers.
 *
 * Why a plugin: -icount makes guest time equal instructions only with one
 * vCPU (QEMU 7.2 hangs SMP guests under -icount, see docs/bench.md), so guests
 * with more vCPUs count here, under the usual multi-threaded TCG.
 *
 * The marker is "nopl MARK(%rax)" (0f 1f 80, then MARK as disp32) whose
 * upper 16 bits are 0x4c41 ("LA"): a no-op on any x86, so the guest program
 * runs the same without the plugin.  The lower 16 bits are the marker's id.
 *
 * Counts are per translation block, added when the block starts: a block
 * left early (a fault, an interrupt) counts in full, a small overcount that
 * the same work repeats.
 *
 * It also counts the PAUSE instructions executed (cpu_relax(): one per turn
 * of a kernel spin-wait loop), so that spinning shows apart from work.
 *
 * With locks=TRACE it also traces, between a start and an end marker, what
 * lock acquisitions and releases are made of on x86, for the host to
 * pair into critical sections (make bench METRIC=locks):
 *  - every atomic read-modify-write (LOCK prefix, or the DS prefix a
 *    one-CPU kernel patches it into, or XCHG with memory): a
 *    spinlock's cmpxchg, a bit lock's bts, a mutex's or rwsem's cmpxchg or
 *    xadd, and every other atomic, which the host tells apart by the
 *    function the instruction is in;
 *  - the plain stores that release a lock (movb/movl $imm, and, btr to
 *    memory: queued_spin_unlock() and __bit_spin_unlock()), only to an
 *    address this vCPU reached with an atomic (a hash set of SEEN slots, a
 *    newer address taking an older one's slot), so that the millions of
 *    other stores cost a look-up and no record;
 *  - the markers, so that the host knows the phases.
 * Each record (struct lock_event) has the vCPU's instruction count at that
 * instruction, exact within its block; its opcode, ModRM reg field and last
 * byte (an 8-bit immediate: the bit of a bts or btr, the mask of an and);
 * the return addresses of the two innermost calls this vCPU made and has
 * not returned from (a shadow stack kept from every call and ret), which
 * name a lock function's caller; and the kernel stack the last kernel call
 * pushed to (its address over THREAD_SIZE, 16 KiB), which names the task
 * (or interrupt stack) that took a lock: a lock two stacks take is shared.
 * The guest's own instructions only: no PMU, no timing, so two boots of one
 * kernel give the same critical sections.
 *
 * usage: qemu-system-x86_64 -plugin insn-count.so,out=FILE[,locks=TRACE] ...
 * FILE gets one line per marker executed:
 *     mark ID VCPU TOTAL PAUSES COUNT0 COUNT1 ...
 * (TOTAL, PAUSES: sums over the vCPUs; COUNTn: vCPU n's instructions), and
 * at exit "exit - - TOTAL PAUSES COUNT0 ...".
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The part of QEMU's TCG plugin API (version 1, QEMU 7.2: the functions
 * docs/devel/tcg-plugins.rst lists) that this plugin calls, declared here
 * so that the lab builds it without QEMU's header, which Debian does not
 * package.  The installed QEMU checks the version when it loads the plugin
 * and refuses another (the runner group tests that a refusal is an ERROR).
 */
#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define QEMU_PLUGIN_VERSION 1
typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min, cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
				      void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_MAGIC	0x4c41u
#define MARK_START	1
#define MARK_END	2
#define SEEN		1024	/* addresses of atomics remembered per vCPU */
#define STACK		256	/* shadow call stack per vCPU (wraps) */
#define KERNEL_SPACE	0xffff800000000000ull

/* Written by its own vCPU thread only. */
struct vcpu_count {
	uint64_t insns;
	uint64_t pauses;
	uint64_t seen[SEEN];	/* addresses of this vCPU's atomics, hashed */
	unsigned int depth;	/* shadow call stack: calls less returns */
	uint64_t kstack;	/* where the last kernel call pushed, >> 14 */
	uint64_t stack[STACK];
};

/* What the host reads from TRACE; kind is one of EV_*. */
struct lock_event {
	uint64_t insns;		/* this vCPU's instructions, this one included */
	uint64_t pc;
	uint64_t addr;		/* the memory operand; a marker's id */
	uint64_t ret0, ret1;	/* innermost return addresses */
	uint64_t kstack;	/* the kernel stack in use (its address >> 14) */
	uint8_t vcpu, kind, op, reg, imm, pad[3];
};
enum { EV_ATOMIC = 1, EV_STORE, EV_MARK };

/* What the translator found out about one instrumented instruction. */
struct insn_info {
	uint64_t pc, next;	/* next: the return address of a call */
	uint32_t index, count;	/* its place in its block, the block's length */
	uint8_t op, reg, imm;	/* opcode byte (after 0x0f, if any); ModRM reg; last byte */
};

static struct vcpu_count *counts;
static int nvcpus;
static FILE *out, *trace;
static int tracing;	/* between a start and an end marker */
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static void tb_exec(unsigned int vcpu, void *udata)
{
	uint64_t *c = &counts[vcpu].insns;

	__atomic_store_n(c, *c + (uintptr_t)udata, __ATOMIC_RELAXED);
}

static void pause_exec(unsigned int vcpu, void *udata)
{
	uint64_t *c = &counts[vcpu].pauses;

	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
}

static void write_counts(const char *what, long id, long vcpu)
{
	uint64_t total = 0, pauses = 0;
	int i;

	pthread_mutex_lock(&out_lock);
	for (i = 0; i < nvcpus; i++) {
		total += __atomic_load_n(&counts[i].insns, __ATOMIC_RELAXED);
		pauses += __atomic_load_n(&counts[i].pauses, __ATOMIC_RELAXED);
	}
	if (id < 0)
		fprintf(out, "%s - - %" PRIu64 " %" PRIu64, what, total, pauses);
	else
		fprintf(out, "%s %ld %ld %" PRIu64 " %" PRIu64, what, id, vcpu, total, pauses);
	for (i = 0; i < nvcpus; i++)
		fprintf(out, " %" PRIu64,
			__atomic_load_n(&counts[i].insns, __ATOMIC_RELAXED));
	fputc('\n', out);
	fflush(out);
	pthread_mutex_unlock(&out_lock);
}

/* This vCPU's count at the instruction INFO describes, exact in its block. */
static uint64_t insns_at(unsigned int vcpu, const struct insn_info *info)
{
	return counts[vcpu].insns - info->count + info->index + 1;
}

static void emit(unsigned int vcpu, const struct insn_info *info, int kind, uint64_t addr)
{
	struct vcpu_count *c = &counts[vcpu];
	struct lock_event ev = {
		.insns = insns_at(vcpu, info), .pc = info->pc, .addr = addr,
		.ret0 = c->depth ? c->stack[(c->depth - 1) % STACK] : 0,
		.ret1 = c->depth > 1 ? c->stack[(c->depth - 2) % STACK] : 0,
		.kstack = c->kstack,
		.vcpu = vcpu, .kind = kind, .op = info->op, .reg = info->reg, .imm = info->imm,
	};

	pthread_mutex_lock(&out_lock);
	fwrite(&ev, sizeof(ev), 1, trace);
	pthread_mutex_unlock(&out_lock);
}

static void mark_exec(unsigned int vcpu, void *udata)
{
	const struct insn_info *info = udata;
	long id = (long)info->next;

	write_counts("mark", id, vcpu);
	if (!trace)
		return;
	if (id == MARK_START)
		__atomic_store_n(&tracing, 1, __ATOMIC_RELAXED);
	emit(vcpu, info, EV_MARK, id);
	if (id == MARK_END)
		__atomic_store_n(&tracing, 0, __ATOMIC_RELAXED);
}

/* A call's push: the shadow stack grows, and a kernel one names the stack. */
static void call_push(unsigned int vcpu, qemu_plugin_meminfo_t mem, uint64_t addr, void *udata)
{
	struct vcpu_count *c = &counts[vcpu];

	c->stack[c->depth++ % STACK] = ((struct insn_info *)udata)->next;
	if (addr >= KERNEL_SPACE)
		c->kstack = addr >> 14;
}

static void ret_exec(unsigned int vcpu, void *udata)
{
	struct vcpu_count *c = &counts[vcpu];

	if (c->depth)
		c->depth--;
}

static uint64_t *seen_slot(unsigned int vcpu, uint64_t addr)
{
	return &counts[vcpu].seen[(addr * 0x9e3779b97f4a7c15ull) >> 54];	/* 10 bits: SEEN */
}

static void atomic_exec(unsigned int vcpu, qemu_plugin_meminfo_t mem, uint64_t addr, void *udata)
{
	if (!__atomic_load_n(&tracing, __ATOMIC_RELAXED))
		return;
	*seen_slot(vcpu, addr) = addr;
	emit(vcpu, udata, EV_ATOMIC, addr);
}

static void store_exec(unsigned int vcpu, qemu_plugin_meminfo_t mem, uint64_t addr, void *udata)
{
	if (qemu_plugin_mem_is_store(mem) && __atomic_load_n(&tracing, __ATOMIC_RELAXED) &&
	    *seen_slot(vcpu, addr) == addr)
		emit(vcpu, udata, EV_STORE, addr);
}

static int is_pause(struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);

	return qemu_plugin_insn_size(insn) == 2 && b[0] == 0xf3 && b[1] == 0x90;
}

/* The marker's id, or -1 if INSN is not a marker. */
static long marker_id(struct qemu_plugin_insn *insn)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != 7 ||
	    b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
		return -1;
	memcpy(&disp, b + 3, sizeof(disp));
	return disp >> 16 == MARK_MAGIC ? (long)(disp & 0xffff) : -1;
}

/*
 * What INSN is, for the lock trace: I_ATOMIC, I_STORE (a store that may
 * release a lock), I_CALL, I_RET or 0; *op gets its opcode byte (the one
 * after 0x0f, if any) and *modrm_reg its ModRM reg field.  Only the
 * encodings the kernel's lock code uses need to be right: the host checks
 * that every acquisition it pairs has its release.
 */
enum { I_ATOMIC = 1, I_STORE, I_CALL, I_RET };
static int classify(struct qemu_plugin_insn *insn, uint8_t *op, uint8_t *modrm_reg)
{
	const unsigned char *b = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn), i = 0;
	int locked = 0, twobyte = 0, reg, mem;

	/*
	 * Legacy prefixes.  A kernel booted on one CPU has its LOCK prefixes
	 * patched into DS prefixes (SMP alternatives "switching to UP code"),
	 * a no-op that marks the same instructions.
	 */
	for (; i < n; i++) {
		if (b[i] == 0xf0 || b[i] == 0x3e)
			locked = 1;
		else if (!b[i] || !memchr("\xf2\xf3\x2e\x36\x26\x64\x65\x66\x67", b[i], 9))
			break;
	}
	if (i < n && (b[i] & 0xf0) == 0x40)	/* REX */
		i++;
	if (i < n && b[i] == 0x0f) {
		twobyte = 1;
		i++;
	}
	if (i >= n)
		return 0;
	*op = b[i];
	if (!twobyte && b[i] == 0xe8)
		return I_CALL;
	if (!twobyte && (b[i] == 0xc3 || b[i] == 0xc2))
		return I_RET;
	if (i + 1 >= n)
		return 0;
	reg = (b[i + 1] >> 3) & 7;	/* ModRM */
	*modrm_reg = reg;
	mem = (b[i + 1] >> 6) != 3;
	if (twobyte)	/* btr r, m; btr $imm, m */
		return locked ? I_ATOMIC :
			mem && (b[i] == 0xb3 || (b[i] == 0xba && reg == 6)) ? I_STORE : 0;
	if (b[i] == 0xff && reg == 2)	/* call *r/m */
		return I_CALL;
	if (locked || ((b[i] == 0x86 || b[i] == 0x87) && mem))
		return I_ATOMIC;
	if (!mem)
		return 0;
	switch (b[i]) {
	case 0xc6: case 0xc7:			/* mov $imm, m */
		return reg == 0 ? I_STORE : 0;
	case 0x80: case 0x81: case 0x83:	/* and $imm, m */
		return reg == 4 ? I_STORE : 0;
	case 0x20: case 0x21:			/* and r, m */
		return I_STORE;
	}
	return 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		long mark = marker_id(insn);
		struct insn_info *info;
		uint8_t op = 0, reg = 0;
		int what = 0;

		if (is_pause(insn)) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, pause_exec,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
			continue;
		}
		if (trace)
			what = classify(insn, &op, &reg);
		if (mark < 0 && !what)
			continue;
		/* Kept for the block's life; QEMU gives a plugin no free hook. */
		info = malloc(sizeof(*info));
		if (!info)
			abort();
		*info = (struct insn_info){
			.pc = qemu_plugin_insn_vaddr(insn),
			.next = mark >= 0 ? (uint64_t)mark :
				qemu_plugin_insn_vaddr(insn) + qemu_plugin_insn_size(insn),
			.index = i, .count = n, .op = op, .reg = reg,
			.imm = ((const uint8_t *)qemu_plugin_insn_data(insn))[qemu_plugin_insn_size(insn) - 1],
		};
		if (mark >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
				QEMU_PLUGIN_CB_NO_REGS, info);
		else if (what == I_CALL)
			qemu_plugin_register_vcpu_mem_cb(insn, call_push,
				QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W, info);
		else if (what == I_RET)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, ret_exec,
				QEMU_PLUGIN_CB_NO_REGS, info);
		else
			qemu_plugin_register_vcpu_mem_cb(insn, what == I_ATOMIC ? atomic_exec : store_exec,
				QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_W, info);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	write_counts("exit", -1, -1);
	fclose(out);
	if (trace && fclose(trace))
		perror("insn-count: lock trace");
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL, *locks = NULL;
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else if (!strncmp(argv[i], "locks=", 6))
			locks = argv[i] + 6;
	if (!info->system_emulation || !path) {
		fprintf(stderr, "insn-count: system emulation and out=FILE needed\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	if (locks) {
		trace = fopen(locks, "w");
		if (!trace) {
			perror(locks);
			return -1;
		}
		setvbuf(trace, NULL, _IOFBF, 1 << 20);
	}
	nvcpus = info->system.max_vcpus;
	counts = calloc(nvcpus, sizeof(*counts));
	if (!counts)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
