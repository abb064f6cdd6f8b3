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
 *   stale    the handle of a file being unlinked, or unlinked, opens that
 *            file or nothing (ESTALE), never another
 *   hold     keep the file open across an eviction, then read it
 *
 * After each eviction every thread opens one file at once (the herd), and
 * half the stats and opens by handle go to 8 hot slots, so that threads
 * look up one inode at once, just after its eviction: by handle above all, since lookups of
 * one name wait for each other in the dcache (d_alloc_parallel()), while
 * open_by_handle_at() goes straight to iget.  Meanwhile one more thread evicts the
 * caches (drop_caches) every EVICT_MS, and
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
 *   - the handle of a file being unlinked, or unlinked, opens that file or
 *     nothing (ESTALE): never another (a stale generation let through);
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
#include <sched.h>
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
#define HOT 8

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
};

/*
 * The handles of files that lost their last name, kept apart from the
 * slots so that lookups race with the unlink and its eviction: DYING from
 * just before the last unlink (a lookup may still find the file), DEAD once
 * it returned (a lookup must find nothing).
 */
#define GRAVES 32
enum grave { EMPTY, DYING, DEAD };
struct tomb {
	enum grave state;
	uint64_t id;
	struct handle h;
};

struct fs {
	const char *dir;
	int dirfd;
	int has_gen, has_handles;	/* learnt at the first create */
	struct slot *slots;
	pthread_mutex_t graves_lock;
	struct tomb graves[GRAVES];
	unsigned int next_grave;
};

enum op { CREATE, UNLINK, LINK, RENAME, STAT, TOUCH, HANDLE, STALE, HOLD, HERD, NOPS };
static const char *const op_name[NOPS] = {
	"create", "unlink", "link", "rename", "stat", "touch", "handle", "stale", "hold", "herd",
};
static const int op_weight[NOPS] = { 12, 8, 5, 5, 25, 15, 20, 5, 3, 0 };

static struct fs *fss;
static int nfs, nfiles = 256, nthreads = 4, seconds = 10, evict_ms = 200, pressure_pct = 25;
static atomic_int stop;
static atomic_uint evictions;
/* The herd: after each eviction, every thread opens one cold file at once. */
static atomic_uint herd_gen;
static atomic_int herd_go, herd_ready, herd_fs, herd_slot;
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

/* Its last name is about to go: a grave for its handle, DYING; or -1. */
static int dig(struct fs *f, struct obj *o)
{
	int g;

	if (!o || !o->has_handle || atomic_load(&o->nlink) != 1)
		return -1;
	pthread_mutex_lock(&f->graves_lock);
	g = f->next_grave++ % GRAVES;
	f->graves[g].state = DYING;
	f->graves[g].id = o->id;
	f->graves[g].h = o->h;
	pthread_mutex_unlock(&f->graves_lock);
	return g;
}

/* The unlink returned: DEAD (gone), or EMPTY (it failed). */
static void bury(struct fs *f, int g, uint64_t id, enum grave state)
{
	if (g < 0)
		return;
	pthread_mutex_lock(&f->graves_lock);
	if (f->graves[g].id == id)
		f->graves[g].state = state;
	pthread_mutex_unlock(&f->graves_lock);
}

/* The slot lost its name: the object loses a link, and is gone at none. */
static void drop_name(struct slot *sl)
{
	struct obj *o = sl->obj;

	sl->obj = NULL;
	if (atomic_fetch_sub(&o->nlink, 1) == 1)
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

	int g;

	slot_name(s, name, sizeof(name));
	/* Now and then the file stays open across its unlink and an eviction. */
	if (rnd(x) % 4 == 0)
		fd = openat(f->dirfd, name, O_RDONLY);
	g = dig(f, o);
	if (unlinkat(f->dirfd, name, 0) < 0) {
		fail(f, s, "unlink %s: %s", name, strerror(errno));
		bury(f, g, id, EMPTY);
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Held open, it is not gone yet: its handle may still open it. */
	if (fd < 0)
		bury(f, g, id, DEAD);
	drop_name(sl);
	if (fstatat(f->dirfd, name, &st, 0) == 0 || errno != ENOENT)
		fail(f, s, "%s is still there after its unlink", name);
	if (fd >= 0) {
		wait_eviction();
		if (read_record(fd, &rid, &ctr) < 0 || rid != id)
			fail(f, s, "a file held open across unlink and eviction lost its record");
		close(fd);
		bury(f, g, id, DEAD);
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
	uint64_t gone = tl->obj ? tl->obj->id : 0;
	int g = dig(f, tl->obj);

	slot_name(s, from, sizeof(from));
	slot_name(t, to, sizeof(to));
	if (renameat(f->dirfd, from, f->dirfd, to) < 0) {
		fail(f, s, "rename %s %s: %s", from, to, strerror(errno));
		bury(f, g, gone, EMPTY);
		return;
	}
	bury(f, g, gone, DEAD);
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

/*
 * One touch through an open file: take its OFD write lock, read the record,
 * check it is the last one written, write it back with the counter raised.
 * File locks and the page cache hang off the inode: two inodes for one
 * file let two threads in at once, or one read a counter another overwrote.
 */
static void touch_fd(struct fs *f, int s, struct obj *o, int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	uint64_t id;
	unsigned int ctr, want;

	if (fcntl(fd, F_OFD_SETLKW, &fl) < 0) {
		fail(f, s, "OFD lock: %s", strerror(errno));
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
}

/* Open by name, or by handle (BY_HANDLE and the object has one): ROUNDS touches. */
static void do_touch(struct fs *f, int s, struct obj *o, int by_handle, int rounds)
{
	char name[32];
	int fd;

	slot_name(s, name, sizeof(name));
	by_handle = by_handle && o->has_handle;
	fd = by_handle ? open_by_handle_at(f->dirfd, &o->h.fh, O_RDWR) : openat(f->dirfd, name, O_RDWR);
	if (fd < 0) {
		fail(f, s, "open %s%s: %s", name, by_handle ? " by handle" : "", strerror(errno));
		return;
	}
	check_identity(f, s, fd, o, by_handle ? "open by handle" : "open by name");
	while (rounds-- > 0) {
		touch_fd(f, s, o, fd);
		if (rounds)
			sched_yield();
	}
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

/*
 * A grave's handle, the newest half the time, opens that file or nothing:
 * never another file.  (Even once unlinked it may open it: a dentry that
 * an earlier open by handle made, or an open file, keeps the inode cached.)
 */
static void do_stale(struct fs *f, uint64_t *x)
{
	struct tomb t;
	struct stat st;
	uint64_t id = 0;
	unsigned int ctr;
	int fd, g;

	pthread_mutex_lock(&f->graves_lock);
	g = (f->next_grave - 1 - (rnd(x) % 2 ? 0 : rnd(x) % GRAVES)) % GRAVES;
	t = f->graves[g];
	pthread_mutex_unlock(&f->graves_lock);
	if (t.state == EMPTY)
		return;
	fd = open_by_handle_at(f->dirfd, &t.h.fh, O_RDONLY);
	if (fd >= 0) {
		if (read_record(fd, &id, &ctr) < 0 || id != t.id) {
			fstat(fd, &st);
			fail(f, -1, "the handle of %s file %" PRIx64 " opened another file: inode %lu, record %" PRIx64,
			     t.state == DEAD ? "unlinked" : "dying", t.id, (unsigned long)st.st_ino, id);
		}
		close(fd);
	} else if (errno != ESTALE && errno != ENOMEM) {
		/*
		 * ENOMEM is ext4's answer when the inode number is being
		 * reused by a create at that moment: find_inode_fast() sees
		 * it I_CREATING, iget_locked() returns NULL, and
		 * __ext4_iget() reports that as ENOMEM.
		 */
		fail(f, -1, "the handle of %s file %" PRIx64 ": %s, not ESTALE",
		     t.state == DEAD ? "unlinked" : "dying", t.id, strerror(errno));
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
	enum op op = pick(x);
	/*
	 * Half the lookups that write nothing go to the first HOT slots:
	 * several threads then look up one inode just evicted at once, and
	 * race in iget_locked() (two allocate, one inserts) and with the
	 * inode's eviction.  (A touch dirties its file, which keeps it from
	 * eviction until written back.)
	 */
	int hot = (op == STAT || op == HANDLE) && rnd(x) % 2;
	int s = rnd(x) % (hot ? HOT : nfiles), t = rnd(x) % nfiles;
	struct slot *sl = &f->slots[s], *tl = &f->slots[t];
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
	} else if (op == STALE) {
		do_stale(f, x);
	} else {
		pthread_rwlock_rdlock(&sl->lock);
		if (!sl->obj)
			op = NOPS;
		else if (op == STAT)
			do_stat(f, s, sl->obj);
		else if (op == TOUCH)
			do_touch(f, s, sl->obj, 0, 1);
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

/*
 * Join the herd the evictor called: wait for its start, then touch the one
 * file it names, opened by handle (by name where there are no handles), all
 * threads at once: cold lookups of one inode race in iget_locked() (two
 * allocate, one inserts, the other must find it and drop its own), and two
 * inodes for the file would let two threads into its OFD lock.
 */
static void herd(void)
{
	struct fs *f = &fss[atomic_load(&herd_fs)];
	int s = atomic_load(&herd_slot);
	struct slot *sl = &f->slots[s];

	atomic_fetch_add(&herd_ready, 1);
	while (!atomic_load(&herd_go) && !atomic_load(&stop))
		sched_yield();
	pthread_rwlock_rdlock(&sl->lock);
	/* Three touches each, so that two inodes' holders interleave. */
	if (sl->obj)
		do_touch(f, s, sl->obj, 1, 3);
	pthread_rwlock_unlock(&sl->lock);
	atomic_fetch_add(&ops[HERD], 1);
}

static void *worker(void *arg)
{
	long i = (long)arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (i + 1);
	unsigned long n = 0;
	unsigned int herd_seen = 0;

	while (!atomic_load(&stop)) {
		if (atomic_load(&herd_gen) != herd_seen) {
			herd_seen = atomic_load(&herd_gen);
			herd();
		}
		one_op(&fss[i % nfs], &x);
		if (busted && i == 0 && ++n % 200 == 0)
			sabotage(&fss[i % nfs], &x);
	}
	return NULL;
}

/* Write VALUE to drop_caches: 0, or -1, a failure (no eviction, no torture). */
static int drop_caches(const char *value)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY), ok;

	ok = fd >= 0 && write(fd, value, 1) == 1;
	if (!ok) {
		atomic_fetch_add(&failures, 1);
		say("inode-torture: !!! inode check failed: cannot evict: drop_caches %s: %s", value, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	return ok ? 0 : -1;
}

/*
 * Eviction: every EVICT_MS, write back, then the dentry and inode caches
 * (the shrinkers).
 * Writing 4 once first keeps the kernel from logging every drop.
 */
static void *evictor(void *arg)
{
	int i;

	uint64_t x = 0x2545f4914f6cdd1dULL;

	(void)arg;
	drop_caches("4");
	while (!atomic_load(&stop)) {
		for (i = 0; i < evict_ms && !atomic_load(&stop); i += 5)
			usleep(5000);
		/*
		 * Write back first: a file written since its last write-back
		 * (every create and touch writes one) is dirty, and a dirty
		 * inode is not evicted.  Without this most files stayed cached
		 * through a 30 s run and few lookups were cold.
		 */
		sync();
		if (drop_caches("2") < 0)
			break;
		atomic_fetch_add(&evictions, 1);
		/*
		 * Call the herd to a slot at random, most likely a file this
		 * eviction dropped (the hot ones are always in use, and files
		 * touched since their last write-back are dirty, so kept), and let
		 * it go once every thread is waiting (each finishes its
		 * operation first), or 200 ms.
		 */
		atomic_store(&herd_go, 0);
		atomic_store(&herd_ready, 0);
		atomic_store(&herd_fs, rnd(&x) % nfs);
		atomic_store(&herd_slot, rnd(&x) % nfiles);
		atomic_fetch_add(&herd_gen, 1);
		for (i = 0; i < 200 && atomic_load(&herd_ready) < nthreads && !atomic_load(&stop); i++)
			usleep(1000);
		atomic_store(&herd_go, 1);
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
	for (s = 0; s < GRAVES; s++) {
		uint64_t x = s + 1;

		f->next_grave = s + 1;	/* do_stale() takes the newest */
		do_stale(f, &x);
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
	if (nfs < 1 || nthreads < 1 || seconds < 1 || nfiles < HOT || nfiles > 99999 ||
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
		pthread_mutex_init(&f->graves_lock, NULL);
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
