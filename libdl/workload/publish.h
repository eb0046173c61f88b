/*
 * publish.h: the record a periodic loop publishes its counters in
 * (internal).  publish.c writes it, counts.c reads it (dl_counts_list).
 *
 * Where: one record per thread, named by its tid.  Root's go in
 * /run/libdl/tasks (DL_PUB_ROOT_SUB of the state folder, root's alone:
 * no other user can make that folder first).  Another user's go in
 * BASE/UID, where BASE is /run/libdl-tasks when it is a file system of
 * its own (the package's run-libdl\x2dtasks.mount: a tmpfs of a few MiB
 * and inodes, mode 1777 like /tmp), else the user's own
 * /run/user/UID/libdl-tasks (logind's directory, the user's alone, its
 * size limited per user).  A sticky folder that all may write to on
 * /run's own file system is never written to by users: any user could
 * fill /run with it.  In the mount anyone may make the folder named by
 * another's uid, which only its maker can remove: the user whose uid it
 * names then publishes in the runtime folder instead.  UID's directory
 * is the user's, mode 0700: nobody else can put a record there, nor read
 * one but root.  A loop run with LIBDL_PUBLISH_GROUP=GROUP (in
 * /run/libdl-tasks, or root's) gives the directory to GROUP, mode 0750,
 * and its record too, mode 0640: GROUP's members read it, and never
 * write; for root's, the state folder lets others pass (0711).
 *
 * Names are canonical (a uid or tid in decimal, no leading zero), so
 * that a thread has one name and a user one folder per BASE; a reader
 * reads at most DL_PUB_RECORDS_MAX records of a folder and looks at no
 * more than DL_PUB_SCAN_MAX of its entries, and keeps one record per
 * thread: a user's folder full of names or junk costs its own records,
 * never another user's.
 *
 * The record is untrusted input to every reader: a fixed size, a magic
 * and a version, every count checked against the others, the thread it
 * names checked alive, the same (its start time) and the owner's.
 *
 * One writer, the loop's thread, under a sequence count: odd while it
 * writes.  A reader copies the record with pread(2) (a file its owner may
 * truncate is never mapped by a reader: that would be SIGBUS) between
 * two reads of the count, and keeps the copy only when both are the
 * same even number.
 */
#ifndef LIBDL_PUBLISH_H
#define LIBDL_PUBLISH_H

#include "sys/sys.h"

#define DL_PUB_DIR "/run/libdl-tasks" /* the users' (the package's mount) */
#define DL_PUB_ROOT_SUB "tasks"       /* root's, in the state folder: /run/libdl/tasks */
#define DL_PUB_USER_BASE "/run/user" /* logind's, a folder per uid */
#define DL_PUB_USER_DIR "libdl-tasks" /* under /run/user/UID */
#define DL_PUB_GROUP_ENV "LIBDL_PUBLISH_GROUP" /* the group that may read */
#define DL_PUB_MAGIC "libdl-tc"
#define DL_PUB_VERSION 1
#define DL_PUB_SIZE 512
#define DL_PUB_RECORDS_MAX 4096 /* records read per folder */
#define DL_PUB_SCAN_MAX 16384   /* entries looked at per folder */

struct dl_pubrec {
	char magic[8];        /* DL_PUB_MAGIC, not terminated */
	uint32_t version;     /* DL_PUB_VERSION */
	uint32_t size;        /* DL_PUB_SIZE */
	int32_t pid, tid;     /* the thread; the file is named by tid */
	uint32_t uid;         /* the owner: its directory's and file's */
	uint32_t nbuckets;    /* DL_COUNTS_BUCKETS */
	uint64_t start_time;  /* the thread's, /proc/TID/stat field 22 */
	char comm[16];        /* terminated */
	uint64_t runtime, deadline, period, flags;
	uint32_t seq;         /* odd while the writer writes */
	uint32_t pad;
	uint64_t jobs, misses, overruns, response_max, response_sum;
	uint64_t buckets[DL_COUNTS_BUCKETS];
	uint8_t spare[DL_PUB_SIZE - 8 - 6 * 4 - 8 - 16 - 4 * 8 - 8 - 5 * 8 - DL_COUNTS_BUCKETS * 8];
};

/* The bucket of a response of ns nanoseconds. */
static inline unsigned dl_pub_bucket(uint64_t ns)
{
	unsigned b;

	if (ns <= DL_COUNTS_LE_NS(0))
		return 0;
	b = (unsigned)(64 - __builtin_clzll(ns - 1)) - 10;
	return b < DL_COUNTS_BUCKETS - 1 ? b : DL_COUNTS_BUCKETS - 1;
}

/* The users' base directory, and their runtime folders (the test hooks
 * may move them; root's folder moves with the state folder). */
const char *dl_pub_base(void);
const char *dl_pub_user_base(void);

/* publish.c: the calling thread's record, made at the loop's start and
 * removed at its end; one job into it (memory writes only). */
struct dl_pub {
	struct dl_pubrec *rec; /* shared, mapped */
	char path[256];
};
int dl_pub_open(struct dl_pub *pub, const struct dl_params *p);
void dl_pub_job(struct dl_pub *pub, uint64_t response, bool missed, uint32_t overruns);
void dl_pub_close(struct dl_pub *pub);

/* counts.c: record name in the directory dirfd (of user uid), checked
 * and copied: 0, or -EINVAL (not a record of this version: corrupt,
 * truncated, foreign-owned), -ESRCH (its thread is gone or is another:
 * stale), -EPERM (the thread is not uid's), -EBUSY (its writer never
 * left a stable copy in a few tries). */
int dl_pub_read(int dirfd, const char *name, uid_t uid, struct dl_task_counts *out);
/* The checks on a copy alone (no file, no thread). */
int dl_pub_valid(const struct dl_pubrec *r, uid_t uid, pid_t tid);
/* The thread it names is alive, the same one, and uid's: 0 or -ESRCH,
 * -EPERM. */
int dl_pub_live(const struct dl_pubrec *r, uid_t uid);

#endif
