// SPDX-License-Identifier: GPL-2.0
/*
 * inode-create: concurrent empty-file creation, lookup and unlink, the
 * experiment behind "vfs: inode cache conversion to hash-bl" (patch 22).
 *
 * Each of THREADS threads works in a directory of its own directly in DIR
 * (the top of a file system, where ext4 spreads directories over block
 * groups), or all in one shared directory, on a fixed number of files each:
 *
 *   create  create FILES empty files
 *   lookup  drop the caches, then stat() each of them (cold inode cache)
 *   unlink  unlink them
 *
 * With -w walk, each thread first makes a tree of FILES files in 16
 * subdirectories (not timed), the caches are dropped, and one timed phase
 * walks it: readdir() every subdirectory and fstatat() every entry, the
 * shape of a cold "find | stat" (Guzik's RCU iget measurement); the tree is
 * then removed, not timed.
 *
 * Work is fixed, not time: every kernel does the same operations, so rates
 * and instruction counts compare like with like.  Before each timed phase
 * the guest settles (see settle()); threads start the phase together at a
 * barrier.  One line per phase, for the host's parser:
 *
 *   BENCH phase=create threads=4 ops=12345 elapsed_s=3.001 ops_per_s=4113.6
 *         min_thread_ops=3000 max_thread_ops=3200
 *
 * (phase names take the prefix "shared-" with -s.)
 *
 * Each timed phase is bracketed by two markers (mark_start(), mark_end()) that
 * the host's instruction counter (vm/insn-count.c) sees; -m runs one marker
 * alone, for the payload to bracket another program (fs_mark).
 *
 * usage: inode-create -t THREADS -n FILES [-s] [-w create|walk] [-P PREFIX] DIR
 *        inode-create -m start|end
 *   -s         one shared directory instead of one per thread
 *   -w         workload: create (create, lookup, unlink; default) or walk
 *   -P PREFIX  prefix of the directories made in DIR (default "t")
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum phase { CREATE, LOOKUP, UNLINK, MKTREE, WALK, RMTREE, NR_PHASES };
static const char * const phase_names[NR_PHASES] = {
	"create", "lookup", "unlink", "mktree", "walk", "rmtree"
};
/* The phases of each workload, in order; only the timed ones are reported. */
static const enum phase create_phases[] = { CREATE, LOOKUP, UNLINK };
static const enum phase walk_phases[] = { MKTREE, WALK, RMTREE };
#define NSUB 16		/* subdirectories of a walk tree */

struct worker {
	pthread_t thread;
	int id;
	char dir[PATH_MAX];
	unsigned long ops;	/* operations in the current phase */
	int error;
};

static int nthreads;
static unsigned long nfiles;
static int shared_dir;
static enum phase current;
static pthread_barrier_t start_barrier, end_barrier;
static const enum phase *phases;
static int nphases;

/*
 * The markers of vm/insn-count.c, the TCG plugin that counts instructions
 * per vCPU (make bench METRIC=insns with more than one vCPU): the no-ops
 * "nopl 0x4c410001(%rax)" (start) and "nopl 0x4c410002(%rax)" (end), which
 * the plugin knows by their encoding.
 */
static void mark_start(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x4c410001" : : : "memory");
}

static void mark_end(void)
{
	asm volatile(".byte 0x0f, 0x1f, 0x80; .long 0x4c410002" : : : "memory");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The i-th file of a thread: in its directory, or in subdirectory i % NSUB of its tree. */
static void file_name(struct worker *w, unsigned long i, char *buf, size_t len)
{
	if (current >= MKTREE)
		snprintf(buf, len, "%s/d%02lu/t%03d-%08lu", w->dir, i % NSUB, w->id, i);
	else
		snprintf(buf, len, "%s/t%03d-%08lu", w->dir, w->id, i);
}

/* readdir() one subdirectory of the tree and fstatat() every entry. */
static int walk_dir(struct worker *w, unsigned long sub)
{
	char name[PATH_MAX + 8];
	struct dirent *de;
	struct stat st;
	DIR *d;

	snprintf(name, sizeof(name), "%s/d%02lu", w->dir, sub);
	d = opendir(name);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			closedir(d);
			return -1;
		}
		w->ops++;
	}
	closedir(d);
	return 0;
}

/* One phase of one thread. */
static void run_phase(struct worker *w)
{
	char name[PATH_MAX + 32];
	struct stat st;
	unsigned long i;
	int fd;

	w->ops = 0;
	if (current == WALK) {
		for (i = 0; i < NSUB; i++)
			if (walk_dir(w, i))
				goto fail;
		return;
	}
	if (current == MKTREE)
		for (i = 0; i < NSUB; i++) {
			snprintf(name, sizeof(name), "%s/d%02lu", w->dir, i);
			if (mkdir(name, 0755))
				goto fail;
		}
	for (i = 0; i < nfiles; i++) {
		file_name(w, i, name, sizeof(name));
		switch (current) {
		case CREATE:
		case MKTREE:
			fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd < 0)
				goto fail;
			close(fd);
			break;
		case LOOKUP:
			if (stat(name, &st))
				goto fail;
			break;
		case UNLINK:
		case RMTREE:
			if (unlink(name))
				goto fail;
			break;
		default:
			break;
		}
		w->ops++;
	}
	if (current == RMTREE)
		for (i = 0; i < NSUB; i++) {
			snprintf(name, sizeof(name), "%s/d%02lu", w->dir, i);
			if (rmdir(name))
				goto fail;
		}
	return;
fail:
	w->error = errno;
	fprintf(stderr, "inode-create: %s %s: %s\n", phase_names[current], name,
		strerror(errno));
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int p;

	for (p = 0; p < nphases; p++) {
		pthread_barrier_wait(&start_barrier);
		run_phase(w);
		pthread_barrier_wait(&end_barrier);
	}
	return NULL;
}

/*
 * Before a timed phase: write back, drop the caches if the phase wants them
 * cold, then idle a while.  The work deferred by what came before (the RCU
 * callbacks that free the dropped or evicted inodes and dentries, the
 * journal) then runs before the clock starts.  Without the pause it lands in
 * the phase or after it depending on where the tick falls, which moves an
 * instruction count (METRIC=insns) by several percent between boots.
 */
#define SETTLE_US 500000

static void settle(int drop)
{
	int fd;

	sync();
	if (drop) {
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd < 0 || write(fd, "3\n", 2) != 2)
			fprintf(stderr, "inode-create: cannot drop caches: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	usleep(SETTLE_US);
}

static void usage(void)
{
	fprintf(stderr, "usage: inode-create -t THREADS -n FILES [-s] [-w create|walk] [-P PREFIX] DIR\n"
			"       inode-create -m start|end\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *top, *prefix = "t";
	struct worker *workers;
	int opt, i, p;

	phases = create_phases;
	nphases = 3;
	while ((opt = getopt(argc, argv, "t:n:sw:P:m:")) != -1) {
		switch (opt) {
		case 'm':
			if (!strcmp(optarg, "start"))
				mark_start();
			else if (!strcmp(optarg, "end"))
				mark_end();
			else
				usage();
			return 0;
		case 't':
			nthreads = atoi(optarg);
			break;
		case 'n':
			nfiles = strtoul(optarg, NULL, 10);
			break;
		case 's':
			shared_dir = 1;
			break;
		case 'w':
			if (!strcmp(optarg, "walk"))
				phases = walk_phases;
			else if (strcmp(optarg, "create"))
				usage();
			break;
		case 'P':
			prefix = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || nthreads < 1 || nfiles < 1 ||
	    (shared_dir && phases == walk_phases))
		usage();
	top = argv[optind];

	workers = calloc(nthreads, sizeof(*workers));
	if (!workers)
		return 1;
	for (i = 0; i < nthreads; i++) {
		workers[i].id = i;
		if (shared_dir)
			snprintf(workers[i].dir, sizeof(workers[i].dir), "%s/%sshared", top, prefix);
		else
			snprintf(workers[i].dir, sizeof(workers[i].dir), "%s/%s%03d", top, prefix, i);
		if (mkdir(workers[i].dir, 0755) && errno != EEXIST) {
			perror(workers[i].dir);
			return 1;
		}
	}
	pthread_barrier_init(&start_barrier, NULL, nthreads + 1);
	pthread_barrier_init(&end_barrier, NULL, nthreads + 1);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i])) {
			perror("pthread_create");
			return 1;
		}

	for (p = 0; p < nphases; p++) {
		unsigned long total = 0, min = ULONG_MAX, max = 0;
		double t0, t1;
		int timed;

		current = phases[p];
		timed = current != MKTREE && current != RMTREE;
		if (timed) {
			settle(current == LOOKUP || current == WALK);
			mark_start();
		}
		t0 = now();
		pthread_barrier_wait(&start_barrier);
		pthread_barrier_wait(&end_barrier);
		t1 = now();
		if (timed)
			mark_end();
		for (i = 0; i < nthreads; i++) {
			unsigned long ops = workers[i].ops;

			total += ops;
			min = ops < min ? ops : min;
			max = ops > max ? ops : max;
			if (workers[i].error)
				return 1;
		}
		if (!timed)
			continue;
		printf("BENCH phase=%s%s threads=%d ops=%lu elapsed_s=%.3f ops_per_s=%.1f min_thread_ops=%lu max_thread_ops=%lu\n",
		       shared_dir ? "shared-" : "", phase_names[current], nthreads,
		       total, t1 - t0, total / (t1 - t0), min, max);
		fflush(stdout);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(workers[i].thread, NULL);
	return 0;
}
