/*
 * publish.c: a periodic loop's counters, written where dl-stat reads
 * them (the record and where it lives: publish.h).
 *
 * Everything that costs is done once, at the loop's start: the
 * directories checked or made, the file made and mapped, its page
 * written.  A job then costs a few stores into that page under the
 * sequence count; the loop's thread is the only writer.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload/publish.h"

_Static_assert(sizeof(struct dl_pubrec) == DL_PUB_SIZE, "the record's size is its format's");

const char *dl_pub_base(void)
{
	return dl_test_hooks && dl_test_hooks->tasks_dir ? dl_test_hooks->tasks_dir : DL_PUB_DIR;
}

const char *dl_pub_user_base(void)
{
	return dl_test_hooks && dl_test_hooks->user_run_dir ? dl_test_hooks->user_run_dir : DL_PUB_USER_BASE;
}

/* The group that may read the loop's record, from LIBDL_PUBLISH_GROUP
 * (a group's name or number; secure_getenv: a program that runs with
 * more privileges than its caller ignores it): 0 with *gid (gid_t)-1
 * when unset or empty, else 0 with the group, or -EINVAL naming it. */
static int publish_group(gid_t *gid)
{
	const char *name = secure_getenv(DL_PUB_GROUP_ENV);
	char shown[96], buf[4096];
	struct group gr, *found = NULL;
	char *end;
	unsigned long n;
	int err;

	*gid = (gid_t)-1;
	if (!name || !*name)
		return 0;
	dl_str_escape(name, shown, sizeof(shown));
	if (!name[strspn(name, "0123456789")]) {
		errno = 0;
		n = strtoul(name, &end, 10);
		if (*end || errno || n >= (gid_t)-1)
			return dl_fail(-EINVAL, "%s=%s is not a group: give a group's name or its number (getent group)",
				       DL_PUB_GROUP_ENV, shown);
		*gid = (gid_t)n;
		return 0;
	}
	err = getgrnam_r(name, &gr, buf, sizeof(buf), &found);
	if (err || !found)
		return dl_fail(-EINVAL, "%s=%s: no such group%s%s: name one getent group lists, or unset it",
			       DL_PUB_GROUP_ENV, shown, err ? ": " : "", err ? strerror(err) : "");
	*gid = gr.gr_gid;
	return 0;
}

/* A directory only its owner (root, or uid) may put entries in, or one
 * writable by all that is sticky (/tmp's rule): 0, or -EPERM. */
static int dir_trusted(int fd, const char *path, uid_t uid)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return dl_fail(-errno, "cannot look at %s: %s", path, strerror(errno));
	if (st.st_uid != 0 && st.st_uid != uid)
		return dl_fail(-EPERM, "%s belongs to uid %u, not to root nor to uid %u: remove it (%s is the package's mount, root's)",
			       path, (unsigned)st.st_uid, (unsigned)uid, DL_PUB_DIR);
	if ((st.st_mode & 022) && !(st.st_mode & S_ISVTX))
		return dl_fail(-EPERM, "%s is writable by others and not sticky: make it mode 1777 or 0755", path);
	return 0;
}

/* Whether the directory fd is a file system of its own (a mount point:
 * its parent is on another device), so that what users put in it counts
 * against its limits and never against /run's. */
static bool own_fs(int fd)
{
	struct stat st, up;

	return fstat(fd, &st) == 0 && fstatat(fd, "..", &up, 0) == 0 && st.st_dev != up.st_dev;
}

/* Whether uid may put a record in the users' base fd: the base's owner
 * (a test's own folder) always; another user when the base is root's,
 * sticky, writable by all and a file system of its own (the package's
 * size-limited tmpfs, run-libdl\x2dtasks.mount), never in a folder of
 * /run's own file system that all may write to: any user could fill
 * /run, where logind, udev and every PID file live.  0, or -EACCES with
 * the reason in why. */
static int base_open_to(int fd, const char *path, uid_t uid, char *why, size_t len)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_uid == uid)
		return 0;
	if ((st.st_mode & 01777) != 01777) {
		snprintf(why, len, "%s is root's alone (mode %04o)", path, (unsigned)(st.st_mode & 07777));
		return -EACCES;
	}
	if (!own_fs(fd)) {
		snprintf(why, len, "%s is writable by all but not a file system of its own: any user could fill /run with it", path);
		return -EACCES;
	}
	return 0;
}

/* The folder name in the folder parentfd (path parent), uid's: made mode
 * 0700 when missing, else one uid owns and nobody else can write to or
 * look into.  Another owner is refused, naming it, with *squatter that
 * owner; else *squatter is (uid_t)-1.  Its group may list and read it
 * (mode 0750): the group a loop chose (gid, not (gid_t)-1) is given it,
 * or was by an earlier loop of the user's; each record's own mode says
 * whether the group may read that one. */
static int open_own_dir(int parentfd, const char *parent, const char *name, uid_t uid, gid_t gid, char *path,
			size_t len, uid_t *squatter)
{
	struct stat st;
	int fd, err;

	*squatter = (uid_t)-1;
	snprintf(path, len, "%s/%s", parent, name);
	if (mkdirat(parentfd, name, 0700) < 0 && errno != EEXIST)
		return dl_fail(-errno, "cannot create %s: %s", path, strerror(errno));
	/* Whoever made it, link or folder: in a sticky folder only they
	 * may remove it. */
	if (fstatat(parentfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return dl_fail(-errno, "cannot look at %s: %s", path, strerror(errno));
	if (st.st_uid != uid) {
		*squatter = st.st_uid;
		return dl_fail(-EPERM, "%s was made by uid %u, not by uid %u", path, (unsigned)st.st_uid, (unsigned)uid);
	}
	fd = openat(parentfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return dl_fail(-errno, "cannot open %s: %s (is it a link? remove it)", path, strerror(errno));
	if (fstat(fd, &st) < 0 || st.st_uid != uid || (st.st_mode & 027)) {
		close(fd);
		return dl_fail(-EPERM, "%s is not uid %u's alone (owner %u, mode %04o: only its owner may write, only its group look in): remove it, the next loop makes it again",
			       path, (unsigned)uid, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	}
	if (gid == (gid_t)-1)
		return fd;
	/* The group first, then its access: never a moment when another
	 * group may look in. */
	if (st.st_gid != gid && fchown(fd, (uid_t)-1, gid) < 0) {
		err = errno == EPERM ? dl_fail(-EPERM, "cannot give %s to group %u (%s): uid %u is not in that group; add the user to it or unset %s",
					       path, (unsigned)gid, DL_PUB_GROUP_ENV, (unsigned)uid, DL_PUB_GROUP_ENV)
				     : dl_fail(-errno, "cannot give %s to group %u: %s", path, (unsigned)gid, strerror(errno));
		close(fd);
		return err;
	}
	if ((st.st_mode & 07777) != 0750 && fchmod(fd, 0750) < 0) {
		err = dl_fail(-errno, "cannot make %s mode 0750: %s", path, strerror(errno));
		close(fd);
		return err;
	}
	return fd;
}

/* Root's records: DL_PUB_ROOT_SUB in the state folder (/run/libdl,
 * root's alone: state-dir.c), where no other user can make a folder
 * first and so keep root's loops from publishing, as anyone can in the
 * users' mount.  For a group (gid), others may pass through the state
 * folder (0711: never list it; every file of the layout's there is
 * root's alone, mode 0600), so that the group reaches the records. */
static int open_root_dir(gid_t gid, char *path, size_t len)
{
	const char *state = dl_state_dir();
	struct stat st;
	uid_t squatter;
	int statefd, fd, err;

	if ((err = dl_state_dir_make()))
		return err;
	statefd = open(state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (statefd < 0)
		return dl_fail(-errno, "cannot open %s: %s", state, strerror(errno));
	if (fstat(statefd, &st) < 0 || (err = dl_state_trusted(&st, state, S_IFDIR))) {
		err = err ? err : dl_fail(-errno, "cannot look at %s: %s", state, strerror(errno));
		close(statefd);
		return err;
	}
	if (gid != (gid_t)-1 && (st.st_mode & 0011) != 0011 && fchmod(statefd, (st.st_mode & 07777) | 0011) < 0) {
		err = dl_fail(-errno, "cannot let group %u pass through %s (mode 0711): %s", (unsigned)gid, state, strerror(errno));
		close(statefd);
		return err;
	}
	fd = open_own_dir(statefd, state, DL_PUB_ROOT_SUB, 0, gid, path, len, &squatter);
	close(statefd);
	return fd;
}

/* The user's runtime folder's DL_PUB_USER_DIR, made mode 0700: logind's
 * /run/user/UID, the user's alone, its size limited per user.  why says
 * why the record is not in the users' base; no group reaches it. */
static int open_runtime_dir(uid_t uid, gid_t gid, const char *why, const char *fix, char *path, size_t len)
{
	char user[232];
	int fd, ufd, err;

	snprintf(user, sizeof(user), "%s/%u", dl_pub_user_base(), (unsigned)uid);
	if (gid != (gid_t)-1)
		return dl_fail(-EPERM, "%s asks for a group, but %s, and the other place for uid %u's records, %s, only its user may enter: %s (dl-stat(1), FILES)",
			       DL_PUB_GROUP_ENV, why, (unsigned)uid, user, fix);
	ufd = open(user, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (ufd < 0)
		return dl_fail(-ENOENT, "%s and %s does not exist: %s, or give the user a runtime folder (loginctl enable-linger)",
			       why, user, fix);
	if ((err = dir_trusted(ufd, user, uid))) {
		close(ufd);
		return err;
	}
	if (mkdirat(ufd, DL_PUB_USER_DIR, 0700) < 0 && errno != EEXIST) {
		err = dl_fail(-errno, "cannot create %s/%s: %s", user, DL_PUB_USER_DIR, strerror(errno));
		close(ufd);
		return err;
	}
	fd = openat(ufd, DL_PUB_USER_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	close(ufd);
	snprintf(path, len, "%s/%s", user, DL_PUB_USER_DIR);
	/* In the user's own directory: no UID level below. */
	if (fd >= 0 && (err = dir_trusted(fd, path, uid))) {
		close(fd);
		return err;
	}
	return fd >= 0 ? fd : dl_fail(-errno, "cannot open %s: %s", path, strerror(errno));
}

/* A user's records (not root's): in the users' base, /run/libdl-tasks,
 * when it is the package's mount and the user's folder there is the
 * user's; else in the user's runtime folder.  A folder another user made
 * there first (anyone may, and only its maker may remove it) never stops
 * the loop: its records go to the runtime folder, and a loop that cannot
 * (no runtime folder, or a group asked for) is refused naming the folder,
 * its maker and the fix. */
static int open_user_place(uid_t uid, gid_t gid, char *path, size_t len)
{
	const char *base = dl_pub_base();
	char why[320], fix[320], name[16];
	uid_t squatter;
	int basefd, fd, err;

	snprintf(why, sizeof(why), "%s is missing", base);
	snprintf(fix, sizeof(fix), "as root, start the size-limited mount the package ships (systemctl enable --now 'run-libdl\\x2dtasks.mount'; without systemd, dl-stat(1) FILES gives its mount(8) line)");
	basefd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (basefd < 0 && errno != ENOENT)
		return dl_fail(-errno, "cannot open %s: %s", base, strerror(errno));
	if (basefd >= 0) {
		if ((err = dir_trusted(basefd, base, uid))) {
			close(basefd);
			return err;
		}
		if (base_open_to(basefd, base, uid, why, sizeof(why)) == 0) {
			snprintf(name, sizeof(name), "%u", (unsigned)uid);
			fd = open_own_dir(basefd, base, name, uid, gid, path, len, &squatter);
			close(basefd);
			if (fd >= 0 || squatter == (uid_t)-1)
				return fd;
			snprintf(why, sizeof(why), "%s/%s was made by uid %u, not by uid %u (anyone may make a folder there, and only its maker remove it)",
				 base, name, (unsigned)squatter, (unsigned)uid);
			snprintf(fix, sizeof(fix), "as root, remove it (rm -r %s/%s; the user's next loop makes its own)", base, name);
		} else {
			close(basefd);
		}
	}
	return open_runtime_dir(uid, gid, why, fix, path, len);
}

/* The records this user left behind (a loop killed before its end). */
static void remove_stale(int dirfd, uid_t uid)
{
	struct dl_task_counts c;
	struct dirent *d;
	int fd = dup(dirfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((d = readdir(dir)))
		if (dl_parse_pid(d->d_name) > 0 && dl_pub_read(dirfd, d->d_name, uid, &c) == -ESRCH)
			unlinkat(dirfd, d->d_name, 0);
	closedir(dir);
}

int dl_pub_open(struct dl_pub *pub, const struct dl_params *p)
{
	struct dl_pubrec *r;
	char dir[232], name[16];
	unsigned long long start;
	uid_t uid = geteuid();
	pid_t tid = gettid();
	gid_t gid;
	int dirfd, fd, err;

	memset(pub, 0, sizeof(*pub));
	err = dl_task_stat_field(tid, 22, &start);
	if (err)
		return dl_fail(err, "cannot read this thread's start time in /proc/%d/stat: is /proc mounted?", (int)tid);
	if ((err = publish_group(&gid)))
		return err;
	dirfd = uid == 0 ? open_root_dir(gid, dir, sizeof(dir)) : open_user_place(uid, gid, dir, sizeof(dir));
	if (dirfd < 0)
		return dirfd;
	remove_stale(dirfd, uid);
	snprintf(name, sizeof(name), "%d", (int)tid);
	snprintf(pub->path, sizeof(pub->path), "%s/%s", dir, name);
	/* A record of an ended thread whose id this one took is replaced. */
	unlinkat(dirfd, name, 0);
	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	close(dirfd);
	if (fd < 0)
		return dl_fail(-errno, "cannot create %s: %s", pub->path, strerror(errno));
	/* Made 0600 at most (the umask may take more away); the group's
	 * first, and only then 0640, whatever the umask. */
	if (gid != (gid_t)-1 && (fchown(fd, (uid_t)-1, gid) < 0 || fchmod(fd, 0640) < 0)) {
		err = dl_fail(-errno, "cannot make %s readable by group %u: %s", pub->path, (unsigned)gid, strerror(errno));
		goto fail;
	}
	if (ftruncate(fd, DL_PUB_SIZE) < 0) {
		err = dl_fail(-errno, "cannot size %s: %s", pub->path, strerror(errno));
		goto fail;
	}
	r = mmap(NULL, DL_PUB_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED) {
		err = dl_fail(-errno, "cannot map %s: %s", pub->path, strerror(errno));
		goto fail;
	}
	close(fd);
	/* Written whole now, so that no job faults the page in; the magic
	 * last, when the rest is there. */
	memset(r, 0, DL_PUB_SIZE);
	r->version = DL_PUB_VERSION;
	r->size = DL_PUB_SIZE;
	r->pid = getpid();
	r->tid = tid;
	r->uid = uid;
	r->nbuckets = DL_COUNTS_BUCKETS;
	r->start_time = start;
	prctl(PR_GET_NAME, r->comm);
	r->comm[sizeof(r->comm) - 1] = 0;
	r->runtime = p->runtime;
	r->deadline = p->deadline;
	r->period = p->period;
	r->flags = p->flags;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(r->magic, DL_PUB_MAGIC, sizeof(r->magic));
	pub->rec = r;
	return 0;
fail:
	close(fd);
	unlink(pub->path);
	pub->path[0] = 0;
	return err;
}

/* The sequence count's writer side: odd, the stores, even.  The release
 * fence keeps the stores after the odd count; the release store of the
 * even count keeps them before it. */
void dl_pub_job(struct dl_pub *pub, uint64_t response, bool missed, uint32_t overruns)
{
	struct dl_pubrec *r = pub->rec;
	uint32_t seq = r->seq;
	unsigned b = dl_pub_bucket(response);

	__atomic_store_n(&r->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&r->jobs, r->jobs + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&r->misses, r->misses + missed, __ATOMIC_RELAXED);
	__atomic_store_n(&r->overruns, r->overruns + overruns, __ATOMIC_RELAXED);
	if (response > r->response_max)
		__atomic_store_n(&r->response_max, response, __ATOMIC_RELAXED);
	__atomic_store_n(&r->response_sum, r->response_sum + response, __ATOMIC_RELAXED);
	__atomic_store_n(&r->buckets[b], r->buckets[b] + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&r->seq, seq + 2, __ATOMIC_RELEASE);
}

void dl_pub_close(struct dl_pub *pub)
{
	if (pub->rec)
		munmap(pub->rec, DL_PUB_SIZE);
	if (pub->path[0])
		unlink(pub->path);
	memset(pub, 0, sizeof(*pub));
}
