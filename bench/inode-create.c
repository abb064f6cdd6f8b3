// SPDX-License-Identifier: GPL-2.0
/*
 * inode-create: concurrent empty-file creation, lookup and unlink, the
 * experiment behind "vfs: inode cache conversion to hash-bl" (patch 22).
 *
 * Each of THREADS threads works in a directory of its own (or all in one
 * shared directory) under DIR, through three time-bounded phases:
 *
 *   create  create empty files until DURATION seconds have passed
 *   lookup  drop the caches, then stat() the files created (cold inode cache)
 *   unlink  unlink the files created
 *
 * A phase's length is bounded by time, not by a count, so that a run's length
 * is predictable whatever the kernel's speed; lookup and unlink also end when
 * every file has been visited.  Threads start each phase together at a
 * barrier.  One line per phase, for the host's parser:
 *
 *   BENCH phase=create threads=4 ops=12345 elapsed_s=3.001 ops_per_s=4113.6
 *         min_thread_ops=3000 max_thread_ops=3200
 *
 * usage: inode-create -t THREADS -d DURATION_S [-s] [-p PHASES] DIR
 *   -s         one shared directory instead of one per thread
 *   -p PHASES  comma-separated subset of create,lookup,unlink (default all)
 */
#define _GNU_SOURCE
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

enum phase { CREATE, LOOKUP, UNLINK, NR_PHASES };
static const char * const phase_names[NR_PHASES] = { "create", "lookup", "unlink" };

struct worker {
	pthread_t thread;
	int id;
	char dir[PATH_MAX];
	unsigned long created;	/* files this thread made: lookup and unlink visit them */
	unsigned long ops;	/* operations in the current phase */
	int error;
};

static int nthreads;
static double duration;
static int shared_dir;
static enum phase current;
static pthread_barrier_t start_barrier, end_barrier;
static double phase_deadline;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void file_name(struct worker *w, unsigned long i, char *buf, size_t len)
{
	snprintf(buf, len, "%s/t%03d-%08lu", w->dir, w->id, i);
}

/* One phase of one thread; checks the clock every 64 operations. */
static void run_phase(struct worker *w)
{
	char name[PATH_MAX + 32];
	struct stat st;
	unsigned long i;
	int fd;

	w->ops = 0;
	for (i = 0;; i++) {
		if (!(i & 63) && now() >= phase_deadline)
			break;
		if (current != CREATE && i >= w->created)
			break;
		file_name(w, i, name, sizeof(name));
		switch (current) {
		case CREATE:
			fd = open(name, O_CREAT | O_EXCL | O_WRONLY, 0644);
			if (fd < 0)
				goto fail;
			close(fd);
			w->created++;
			break;
		case LOOKUP:
			if (stat(name, &st))
				goto fail;
			break;
		case UNLINK:
			if (unlink(name))
				goto fail;
			break;
		default:
			break;
		}
		w->ops++;
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

	for (p = 0; p < NR_PHASES; p++) {
		pthread_barrier_wait(&start_barrier);
		run_phase(w);
		pthread_barrier_wait(&end_barrier);
	}
	return NULL;
}

static void drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		fprintf(stderr, "inode-create: cannot drop caches: %s\n", strerror(errno));
	if (fd >= 0)
		close(fd);
}

static void usage(void)
{
	fprintf(stderr, "usage: inode-create -t THREADS -d DURATION_S [-s] [-p PHASES] DIR\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int want[NR_PHASES] = { 1, 1, 1 };
	struct worker *workers;
	const char *top;
	int opt, i, p;

	while ((opt = getopt(argc, argv, "t:d:sp:")) != -1) {
		switch (opt) {
		case 't':
			nthreads = atoi(optarg);
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 's':
			shared_dir = 1;
			break;
		case 'p':
			for (p = 0; p < NR_PHASES; p++)
				want[p] = strstr(optarg, phase_names[p]) != NULL;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || nthreads < 1 || duration <= 0)
		usage();
	top = argv[optind];

	workers = calloc(nthreads, sizeof(*workers));
	if (!workers)
		return 1;
	for (i = 0; i < nthreads; i++) {
		workers[i].id = i;
		if (shared_dir)
			snprintf(workers[i].dir, sizeof(workers[i].dir), "%s/shared", top);
		else
			snprintf(workers[i].dir, sizeof(workers[i].dir), "%s/t%03d", top, i);
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

	for (p = 0; p < NR_PHASES; p++) {
		unsigned long total = 0, min = ULONG_MAX, max = 0;
		double t0, t1;

		current = p;
		if (p == LOOKUP)
			drop_caches();
		/* A phase that is not wanted runs with a deadline already past. */
		t0 = now();
		phase_deadline = want[p] ? t0 + duration : 0;
		pthread_barrier_wait(&start_barrier);
		pthread_barrier_wait(&end_barrier);
		t1 = now();
		if (!want[p])
			continue;
		for (i = 0; i < nthreads; i++) {
			unsigned long ops = workers[i].ops;

			total += ops;
			min = ops < min ? ops : min;
			max = ops > max ? ops : max;
			if (workers[i].error)
				return 1;
		}
		printf("BENCH phase=%s threads=%d ops=%lu elapsed_s=%.3f ops_per_s=%.1f min_thread_ops=%lu max_thread_ops=%lu\n",
		       phase_names[p], nthreads, total, t1 - t0, total / (t1 - t0),
		       min, max);
		fflush(stdout);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(workers[i].thread, NULL);
	return 0;
}
