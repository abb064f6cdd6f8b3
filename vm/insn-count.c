// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * insn-count: a QEMU TCG plugin that counts the guest instructions each vCPU
 * executes and, whenever the guest executes a marker, writes every vCPU's
 * count so far.  The guest brackets what it measures with two markers.
 *
 * Why a plugin: -icount makes guest time equal instructions only with one
 * vCPU (QEMU 7.2 hangs SMP guests under -icount, see README), so guests
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
 * usage: qemu-system-x86_64 -plugin insn-count.so,out=FILE ...
 * FILE gets one line per marker executed:
 *     mark ID VCPU TOTAL PAUSES COUNT0 COUNT1 ...
 * (TOTAL, PAUSES: sums over the vCPUs; COUNTn: vCPU n's instructions), and
 * at exit "exit - - TOTAL PAUSES COUNT0 ...".
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARK_MAGIC	0x4c41u

/* One cache line per vCPU: each is written by its own vCPU thread only. */
struct vcpu_count {
	uint64_t insns;
	uint64_t pauses;
	char pad[48];
};

static struct vcpu_count *counts;
static int nvcpus;
static FILE *out;
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

static void mark_exec(unsigned int vcpu, void *udata)
{
	write_counts("mark", (long)(uintptr_t)udata, vcpu);
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

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;

	qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
					     (void *)(uintptr_t)n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		long mark = marker_id(insn);

		if (mark >= 0)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark_exec,
				QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)mark);
		else if (is_pause(insn))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, pause_exec,
				QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	write_counts("exit", -1, -1);
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL;
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
	if (!info->system_emulation || !path) {
		fprintf(stderr, "insn-count: system emulation and out=FILE needed\n");
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	nvcpus = info->system.max_vcpus;
	counts = calloc(nvcpus, sizeof(*counts));
	if (!counts)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
