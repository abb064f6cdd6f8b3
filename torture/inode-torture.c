// SPDX-License-Identifier: GPL-2.0
/*
 * inode-torture: torture the inode cache from user space, as locktorture
 * tortures a lock: many threads drive the paths that patches 20-22 of the
 * series ("vfs: inode cache conversion to hash-bl") change, and every
 * result is checked against what the torture itself did.
 *
 * Each DIR is the top of one file system.  It holds FILES name slots
 * (d0/f00000 ... d7/fNNNNN).  Threads pick slots at random and:
 *
 *   create   a new file (ext4: insert_inode_locked; overlayfs: iget5)
 *   unlink   (unhash, eviction), sometimes with the file held open
 *            across the unlink and an eviction, then read through it
 *   link     a second name for a file (i_nlink)
 *   rename   onto an empty or a taken name
 *   stat     a lookup by name: after an eviction, iget_locked/find_inode
 *   touch    open, take an OFD write lock, read the file's record and
 *            write it back with its counter raised
 *   handle   open_by_handle_at() of the file's handle: a lookup by
 *            inode number and generation (ext4_iget, tmpfs's ilookup5)
 *   stale    the handle of a file that was unlinked must give ESTALE
 *   hold     keep the file open across an eviction, then read it
 *
 * while one more thread evicts the caches (drop_caches) every EVICT_MS, and
 * another makes memory pressure with anonymous memory, so that the
 * shrinkers' eviction runs too.  A slot's name operations take its write
 * lock (a pthread rwlock), lookups its read lock: what the slot holds is
 * then known, and lookups of one slot run concurrently (cold lookups of one
 * inode race in iget).
 *
 * The checks:
 *   - every lookup returns the inode that was created: inode number, and
 *     the generation where the file system tells it (FS_IOC_GETVERSION);
 *   - no two live inodes stand for one file: two threads are never inside
 *     the OFD lock of one file at once (file locks hang off the inode), and
 *     the counter read is the last one written (one page cache);
 *   - a file held open across an eviction, even unlinked, reads its data;
 *   - a handle of an unlinked file opens nothing (ESTALE);
 *   - at the end, single-threaded: every slot's name, inode number, link
 *     count, record and handle, and the names in each directory, agree with
 *     the torture's own books.
 *
 * A failed check prints "inode-torture: !!! inode check failed: ..." on
 * stderr and the kernel log; the last line is "inode-torture: Ops: ..."
 * and the exit status 1 when any check failed (2: usage or set-up).
 *
 * usage: inode-torture [-t THREADS] [-d SECONDS] [-n FILES] [-e EVICT_MS (0: none)]
 *                      [-p PRESSURE_PCT (0: none)] [-B] DIR...
 *   -B  busted: files vanish and records change behind the torture's books
 *       now and then (the negative control of its checks)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NDIRS 8
#define RECORD 64
#define MAX_LINKS 4
#define MAX_REPORTS 20

struct handle {
	struct file_handle fh;
	unsigned char bytes[MAX_HANDLE_SZ];
};

/* A file the torture made: what every lookup of it must find. */
struct obj {
	uint64_t id;
	ino_t ino;
	unsigned int gen;
	atomic_int nlink;		/* names the torture gave it */
	atomic_uint counter;		/* last counter written to its record */
	atomic_int inside;		/* threads inside its OFD lock */
	int has_handle;
	struct handle h;
};

struct slot {
	pthread_rwlock_t lock;
	struct obj *obj;		/* NULL: the name does not exist */
	int has_dead;			/* the handle of its last unlinked file */
	uint64_t dead_id;
	struct handle dead;
};

struct fs {
	const char *dir;
	int dirfd;
	int has_gen, has_handles;	/* learnt at the first create */
	struct slot *slots;
};

enum op { CREATE, UNLINK, LINK, RENAME, STAT, TOUCH, HANDLE, STALE, HOLD, NOPS };
static const char *const op_name[NOPS] = {
	"create", "unlink", "link", "rename", "stat", "touch", "handle", "stale", "hold",
};
static const int op_weight[NOPS] = { 12, 8, 5, 5, 30, 20, 10, 5, 3 };

static struct fs *fss;
static int nfs, nfiles = 256, nthreads = 4, seconds = 10, evict_ms = 200, pressure_pct = 25;
static atomic_int stop;
static atomic_uint evictions;
static atomic_ulong ops[NOPS];
static atomic_int failures;
static atomic_uint_least64_t next_id = 1;
static int kmsg = -1;

static void say(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	fprintf(stderr, "%s\n", buf);
	if (kmsg >= 0 && write(kmsg, buf, n) < 0)
		kmsg = -1;
}

#define fail(f, s, fmt, ...) do {						\
	if (atomic_fetch_add(&failures, 1) < MAX_REPORTS)			\
		say("inode-torture: !!! inode check failed: " fmt " (%s slot %d)", \
		    ##__VA_ARGS__, (f)->dir, (s));				\
} while (0)

static void slot_name(int s, char *buf, size_t len)
{
	snprintf(buf, len, "d%d/f%05d", s % NDIRS, s);
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void write_record(int fd, uint64_t id, unsigned int ctr)
{
	char rec[RECORD];

	memset(rec, ' ', sizeof(rec));
	snprintf(rec, sizeof(rec), "inode-torture id=%016" PRIx64 " ctr=%010u", id, ctr);
	rec[RECORD - 1] = '\n';
	if (pwrite(fd, rec, RECORD, 0) != RECORD)
		say("inode-torture: write: %s", strerror(errno));
}

/* The record of an open file: 0, or -1 when it is not one of ours. */
static int read_record(int fd, uint64_t *id, unsigned int *ctr)
{
	char rec[RECORD + 1];

	if (pread(fd, rec, RECORD, 0) != RECORD)
		return -1;
	rec[RECORD] = 0;
	return sscanf(rec, "inode-torture id=%" SCNx64 " ctr=%u", id, ctr) == 2 ? 0 : -1;
}

/* Is the open file the object's inode?  Inode number and generation. */
static void check_identity(struct fs *f, int s, int fd, struct obj *o, const char *how)
{
	struct stat st;
	unsigned int gen;
	uint64_t id;
	unsigned int ctr;

	if (fstat(fd, &st) < 0) {
		fail(f, s, "%s: fstat: %s", how, strerror(errno));
		return;
	}
	if (st.st_ino != o->ino)
		fail(f, s, "%s found inode %lu, not the %lu it created", how,
		     (unsigned long)st.st_ino, (unsigned long)o->ino);
	if (f->has_gen && ioctl(fd, FS_IOC_GETVERSION, &gen) == 0 && gen != o->gen)
		fail(f, s, "%s found inode %lu generation %u, not %u", how,
		     (unsigned long)st.st_ino, gen, o->gen);
	if (read_record(fd, &id, &ctr) < 0 || id != o->id)
		fail(f, s, "%s read another file's record (inode %lu)", how,
		     (unsigned long)st.st_ino);
}

static void wait_eviction(void)
{
	unsigned int e = atomic_load(&evictions);
	int i;

	for (i = 0; i < 4 * evict_ms / 5 && atomic_load(&evictions) == e && !atomic_load(&stop); i++)
		usleep(5000);
}

static void do_create(struct fs *f, int s, struct slot *sl)
{
	char name[32];
	struct obj *o;
	struct stat st;
	int fd, mnt;

	slot_name(s, name, sizeof(name));
	fd = openat(f->dirfd, name, O_CREAT | O_EXCL | O_RDWR, 0600);
	if (fd < 0) {
		fail(f, s, "create %s: %s", name, strerror(errno));
		return;
	}
	o = calloc(1, sizeof(*o));
	o->id = atomic_fetch_add(&next_id, 1);
	write_record(fd, o->id, 0);
	fstat(fd, &st);
	o->ino = st.st_ino;
	atomic_init(&o->nlink, 1);
	if (f->has_gen && ioctl(fd, FS_IOC_GETVERSION, &o->gen) < 0)
		f->has_gen = 0;
	if (f->has_handles) {
		o->h.fh.handle_bytes = MAX_HANDLE_SZ;
		if (name_to_handle_at(f->dirfd, name, &o->h.fh, &mnt, 0) == 0)
			o->has_handle = 1;
		else if (errno == EOPNOTSUPP)
			f->has_handles = 0;
	}
	close(fd);
	sl->obj = o;
}

/* The slot lost its name: the object loses a link, and is gone at none. */
static void drop_name(struct slot *sl)
{
	struct obj *o = sl->obj;

	sl->obj = NULL;
	if (atomic_fetch_sub(&o->nlink, 1) > 1)
		return;
	sl->has_dead = o->has_handle;
	sl->dead_id = o->id;
	sl->dead = o->h;
	free(o);
}

static void do_unlink(struct fs *f, int s, struct slot *sl, uint64_t *x)
{
	char name[32];
	struct stat st;
	struct obj *o = sl->obj;
	uint64_t id = o->id, rid;
	unsigned int ctr;
	int fd = -1;

	slot_name(s, name, sizeof(name));
	/* Now and then the file stays open across its unlink and an eviction. */
	if (rnd(x) % 4 == 0)
		fd = openat(f->dirfd, name, O_RDONLY);
	if (unlinkat(f->dirfd, name, 0) < 0) {
		fail(f, s, "unlink %s: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	drop_name(sl);
	if (fstatat(f->dirfd, name, &st, 0) == 0 || errno != ENOENT)
		fail(f, s, "%s is still there after its unlink", name);
	if (fd >= 0) {
		wait_eviction();
		if (read_record(fd, &rid, &ctr) < 0 || rid != id)
			fail(f, s, "a file held open across unlink and eviction lost its record");
		close(fd);
	}
}

static void do_link(struct fs *f, int s, struct slot *sl, int t, struct slot *tl)
{
	char from[32], to[32];
	struct stat st;
	struct obj *o = sl->obj;

	if (atomic_load(&o->nlink) >= MAX_LINKS)
		return;
	slot_name(s, from, sizeof(from));
	slot_name(t, to, sizeof(to));
	if (linkat(f->dirfd, from, f->dirfd, to, 0) < 0) {
		fail(f, s, "link %s %s: %s", from, to, strerror(errno));
		return;
	}
	atomic_fetch_add(&o->nlink, 1);
	tl->obj = o;
	if (fstatat(f->dirfd, to, &st, 0) < 0 || st.st_ino != o->ino)
		fail(f, t, "the new link %s is not inode %lu", to, (unsigned long)o->ino);
}

static void do_rename(struct fs *f, int s, struct slot *sl, int t, struct slot *tl)
{
	char from[32], to[32];
	struct stat st;
	struct obj *o = sl->obj;

	if (tl->obj == o)	/* two names of one file: rename does nothing */
		return;
	slot_name(s, from, sizeof(from));
	slot_name(t, to, sizeof(to));
	if (renameat(f->dirfd, from, f->dirfd, to) < 0) {
		fail(f, s, "rename %s %s: %s", from, to, strerror(errno));
		return;
	}
	if (tl->obj)
		drop_name(tl);
	tl->obj = o;
	sl->obj = NULL;
	if (fstatat(f->dirfd, to, &st, 0) < 0 || st.st_ino != o->ino)
		fail(f, t, "renamed %s is not inode %lu", to, (unsigned long)o->ino);
	if (fstatat(f->dirfd, from, &st, 0) == 0 || errno != ENOENT)
		fail(f, s, "%s is still there after its rename", from);
}

static void do_stat(struct fs *f, int s, struct obj *o)
{
	char name[32];
	struct stat st;

	slot_name(s, name, sizeof(name));
	if (fstatat(f->dirfd, name, &st, 0) < 0)
		fail(f, s, "stat %s: %s", name, strerror(errno));
	else if (st.st_ino != o->ino)
		fail(f, s, "stat %s found inode %lu, not the %lu it created", name,
		     (unsigned long)st.st_ino, (unsigned long)o->ino);
}

static void do_touch(struct fs *f, int s, struct obj *o)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char name[32];
	uint64_t id;
	unsigned int ctr, want;
	int fd;

	slot_name(s, name, sizeof(name));
	fd = openat(f->dirfd, name, O_RDWR);
	if (fd < 0) {
		fail(f, s, "open %s: %s", name, strerror(errno));
		return;
	}
	check_identity(f, s, fd, o, "open by name");
	if (fcntl(fd, F_OFD_SETLKW, &fl) < 0) {
		fail(f, s, "OFD lock %s: %s", name, strerror(errno));
		close(fd);
		return;
	}
	if (atomic_fetch_add(&o->inside, 1) != 0)
		fail(f, s, "two threads inside the file lock of inode %lu: two inodes for one file",
		     (unsigned long)o->ino);
	want = atomic_load(&o->counter);
	if (read_record(fd, &id, &ctr) < 0 || id != o->id)
		fail(f, s, "touch read another file's record");
	else if (ctr != want)
		fail(f, s, "touch read counter %u of inode %lu, the last written was %u: two inodes for one file?",
		     ctr, (unsigned long)o->ino, want);
	write_record(fd, o->id, want + 1);
	atomic_store(&o->counter, want + 1);
	atomic_fetch_sub(&o->inside, 1);
	fl.l_type = F_UNLCK;
	fcntl(fd, F_OFD_SETLK, &fl);
	close(fd);
}

static void do_handle(struct fs *f, int s, struct obj *o)
{
	int fd;

	if (!o->has_handle)
		return;
	fd = open_by_handle_at(f->dirfd, &o->h.fh, O_RDONLY);
	if (fd < 0) {
		fail(f, s, "open_by_handle_at of a live file (inode %lu): %s",
		     (unsigned long)o->ino, strerror(errno));
		return;
	}
	check_identity(f, s, fd, o, "open by handle");
	close(fd);
}

static void do_stale(struct fs *f, int s, struct slot *sl)
{
	struct stat st;
	int fd;

	if (!sl->has_dead)
		return;
	fd = open_by_handle_at(f->dirfd, &sl->dead.fh, O_RDONLY);
	if (fd >= 0) {
		fstat(fd, &st);
		fail(f, s, "the handle of unlinked file %" PRIx64 " opened inode %lu",
		     sl->dead_id, (unsigned long)st.st_ino);
		close(fd);
	} else if (errno != ESTALE && errno != ENOMEM) {
		/*
		 * ENOMEM is ext4's answer when the inode number is being
		 * reused by a create at that moment: find_inode_fast() sees
		 * it I_CREATING, iget_locked() returns NULL, and
		 * __ext4_iget() reports that as ENOMEM.
		 */
		fail(f, s, "the handle of an unlinked file: %s, not ESTALE", strerror(errno));
	}
}

static void do_hold(struct fs *f, int s, struct obj *o)
{
	char name[32];
	uint64_t id;
	unsigned int ctr;
	int fd;

	slot_name(s, name, sizeof(name));
	fd = openat(f->dirfd, name, O_RDONLY);
	if (fd < 0) {
		fail(f, s, "open %s: %s", name, strerror(errno));
		return;
	}
	wait_eviction();
	if (read_record(fd, &id, &ctr) < 0 || id != o->id)
		fail(f, s, "a file held open across an eviction lost its record");
	close(fd);
}

static enum op pick(uint64_t *x)
{
	int total = 0, r, i;

	for (i = 0; i < NOPS; i++)
		total += op_weight[i];
	r = rnd(x) % total;
	for (i = 0; i < NOPS; i++) {
		r -= op_weight[i];
		if (r < 0)
			break;
	}
	return i;
}

static void one_op(struct fs *f, uint64_t *x)
{
	int s = rnd(x) % nfiles, t = rnd(x) % nfiles;
	struct slot *sl = &f->slots[s], *tl = &f->slots[t];
	enum op op = pick(x);
	int two = (op == LINK || op == RENAME);

	if (two && s == t)
		return;
	if (op <= RENAME) {
		/* Name operations: the slots' write locks, lower index first. */
		pthread_rwlock_wrlock(two && t < s ? &tl->lock : &sl->lock);
		if (two)
			pthread_rwlock_wrlock(t < s ? &sl->lock : &tl->lock);
		if (op == CREATE && !sl->obj)
			do_create(f, s, sl);
		else if (op == UNLINK && sl->obj)
			do_unlink(f, s, sl, x);
		else if (op == LINK && sl->obj && !tl->obj)
			do_link(f, s, sl, t, tl);
		else if (op == RENAME && sl->obj)
			do_rename(f, s, sl, t, tl);
		else
			op = NOPS;
		if (two)
			pthread_rwlock_unlock(&tl->lock);
		pthread_rwlock_unlock(&sl->lock);
	} else {
		pthread_rwlock_rdlock(&sl->lock);
		if (op == STALE)
			do_stale(f, s, sl);
		else if (!sl->obj)
			op = NOPS;
		else if (op == STAT)
			do_stat(f, s, sl->obj);
		else if (op == TOUCH)
			do_touch(f, s, sl->obj);
		else if (op == HANDLE)
			do_handle(f, s, sl->obj);
		else
			do_hold(f, s, sl->obj);
		pthread_rwlock_unlock(&sl->lock);
	}
	if (op < NOPS)
		atomic_fetch_add(&ops[op], 1);
}

/*
 * -B, the negative control of the checks: now and then a file is unlinked,
 * or its record rewritten, behind the torture's books, as a broken inode
 * cache would lose or mix up a file.  The checks must see it.
 */
static void sabotage(struct fs *f, uint64_t *x)
{
	int s = rnd(x) % nfiles;
	struct slot *sl = &f->slots[s];
	char name[32];
	int fd;

	slot_name(s, name, sizeof(name));
	pthread_rwlock_wrlock(&sl->lock);
	if (sl->obj && rnd(x) % 2) {
		unlinkat(f->dirfd, name, 0);
	} else if (sl->obj) {
		fd = openat(f->dirfd, name, O_RDWR);
		if (fd >= 0) {
			write_record(fd, sl->obj->id, atomic_load(&sl->obj->counter) + 7);
			close(fd);
		}
	}
	pthread_rwlock_unlock(&sl->lock);
}

static int busted;

static void *worker(void *arg)
{
	long i = (long)arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (i + 1);
	unsigned long n = 0;

	while (!atomic_load(&stop)) {
		one_op(&fss[i % nfs], &x);
		if (busted && i == 0 && ++n % 200 == 0)
			sabotage(&fss[i % nfs], &x);
	}
	return NULL;
}

/* Eviction: every EVICT_MS, the dentry and inode caches (the shrinkers). */
static void *evictor(void *arg)
{
	int fd, i;

	(void)arg;
	while (!atomic_load(&stop)) {
		for (i = 0; i < evict_ms && !atomic_load(&stop); i += 5)
			usleep(5000);
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		/* 2: dentries and inodes; 4: without a kernel message each time */
		if (fd < 0 || write(fd, "6", 1) != 1)
			say("inode-torture: drop_caches: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		atomic_fetch_add(&evictions, 1);
	}
	return NULL;
}

/* Memory pressure: touch PRESSURE_PCT of the available memory, let it go. */
static void *presser(void *arg)
{
	unsigned long kb = 0;
	char line[128];
	FILE *mi;
	size_t len;
	char *p;

	(void)arg;
	while (!atomic_load(&stop)) {
		mi = fopen("/proc/meminfo", "r");
		while (mi && fgets(line, sizeof(line), mi))
			if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
				break;
		if (mi)
			fclose(mi);
		len = kb * 1024 / 100 * pressure_pct;
		p = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
		if (p != MAP_FAILED) {
			memset(p, 1, len);
			munmap(p, len);
		}
		usleep(1000 * 1000);
	}
	return NULL;
}

/* At the end, alone: the file systems against the torture's books. */
static void final_check(struct fs *f)
{
	int s, names = 0, present = 0, d;
	struct dirent *de;
	struct stat st;
	char name[32];
	DIR *dir;

	for (s = 0; s < nfiles; s++) {
		struct obj *o = f->slots[s].obj;
		int fd;

		slot_name(s, name, sizeof(name));
		if (!o) {
			if (fstatat(f->dirfd, name, &st, 0) == 0 || errno != ENOENT)
				fail(f, s, "at the end %s exists, but the torture removed it", name);
			do_stale(f, s, &f->slots[s]);
			continue;
		}
		present++;
		fd = openat(f->dirfd, name, O_RDONLY);
		if (fd < 0) {
			fail(f, s, "at the end %s: %s", name, strerror(errno));
			continue;
		}
		check_identity(f, s, fd, o, "at the end, open by name");
		if (fstat(fd, &st) == 0 && st.st_nlink != (nlink_t)atomic_load(&o->nlink))
			fail(f, s, "at the end inode %lu has %lu links, the torture made %d",
			     (unsigned long)o->ino, (unsigned long)st.st_nlink, atomic_load(&o->nlink));
		close(fd);
		do_handle(f, s, o);
	}
	for (d = 0; d < NDIRS; d++) {
		int fd;

		snprintf(name, sizeof(name), "d%d", d);
		fd = openat(f->dirfd, name, O_RDONLY | O_DIRECTORY);
		dir = fd >= 0 ? fdopendir(fd) : NULL;
		if (!dir) {
			fail(f, -1, "at the end directory %s: %s", name, strerror(errno));
			continue;
		}
		while ((de = readdir(dir)))
			if (de->d_name[0] == 'f')
				names++;
		closedir(dir);
	}
	if (names != present)
		fail(f, -1, "at the end the directories hold %d names, the torture made %d", names, present);
}

static void usage(void)
{
	fprintf(stderr, "usage: inode-torture [-t THREADS] [-d SECONDS] [-n FILES] [-e EVICT_MS] [-p PRESSURE_PCT] [-B] DIR...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t *th, ev, pr;
	char name[32];
	int c, i, s, d;
	long t;

	while ((c = getopt(argc, argv, "t:d:n:e:p:B")) != -1) {
		switch (c) {
		case 'B': busted = 1; break;
		case 't': nthreads = atoi(optarg); break;
		case 'd': seconds = atoi(optarg); break;
		case 'n': nfiles = atoi(optarg); break;
		case 'e': evict_ms = atoi(optarg); break;
		case 'p': pressure_pct = atoi(optarg); break;
		default: usage();
		}
	}
	nfs = argc - optind;
	if (nfs < 1 || nthreads < 1 || seconds < 1 || nfiles < 2 || nfiles > 99999 ||
	    evict_ms < 0 || pressure_pct < 0 || pressure_pct > 80)
		usage();
	kmsg = open("/dev/kmsg", O_WRONLY);
	fss = calloc(nfs, sizeof(*fss));
	for (i = 0; i < nfs; i++) {
		struct fs *f = &fss[i];

		f->dir = argv[optind + i];
		f->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY);
		if (f->dirfd < 0) {
			fprintf(stderr, "inode-torture: %s: %s\n", f->dir, strerror(errno));
			return 2;
		}
		for (d = 0; d < NDIRS; d++) {
			snprintf(name, sizeof(name), "d%d", d);
			if (mkdirat(f->dirfd, name, 0700) < 0 && errno != EEXIST) {
				fprintf(stderr, "inode-torture: %s/%s: %s\n", f->dir, name, strerror(errno));
				return 2;
			}
		}
		f->has_gen = f->has_handles = 1;
		f->slots = calloc(nfiles, sizeof(*f->slots));
		for (s = 0; s < nfiles; s++)
			pthread_rwlock_init(&f->slots[s].lock, NULL);
	}
	say("inode-torture: %d threads, %d s, %d files, eviction every %d ms, pressure %d%%, on %d file systems",
	    nthreads, seconds, nfiles, evict_ms, pressure_pct, nfs);
	th = calloc(nthreads, sizeof(*th));
	for (t = 0; t < nthreads; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	if (evict_ms)
		pthread_create(&ev, NULL, evictor, NULL);
	if (pressure_pct)
		pthread_create(&pr, NULL, presser, NULL);
	sleep(seconds);
	atomic_store(&stop, 1);
	for (t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	if (evict_ms)
		pthread_join(ev, NULL);
	if (pressure_pct)
		pthread_join(pr, NULL);
	for (i = 0; i < nfs; i++) {
		say("inode-torture: %s: generations %s, handles %s", fss[i].dir,
		    fss[i].has_gen ? "checked" : "not told", fss[i].has_handles ? "checked" : "not supported");
		final_check(&fss[i]);
	}
	{
		char line[512];
		int n = 0;

		for (i = 0; i < NOPS; i++)
			n += snprintf(line + n, sizeof(line) - n, " %s=%lu", op_name[i], atomic_load(&ops[i]));
		say("inode-torture: Ops:%s evictions=%u failures=%d", line, atomic_load(&evictions),
		    atomic_load(&failures));
	}
	return atomic_load(&failures) ? 1 : 0;
}
