/*
 * state-dir.c: the library's state folder, /run/libdl: the layout's
 * state and lock (layout/state.c), the containers' records and their
 * lock (policy/container.c), and what a rebuild records before a
 * change that it undoes itself (bw/rebuild.c).
 *
 * The folder and its files belong to root alone: the lock and the state
 * are mode 0600, so that no other user can hold a lock on them (which
 * would block every create and destroy) or write a layout for destroy
 * to act on.  Nothing is followed through a symbolic link, and nothing
 * in the caller's environment moves the folder.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sys.h"

const char *dl_state_dir(void)
{
	return dl_test_hooks && dl_test_hooks->state_dir ? dl_test_hooks->state_dir : DL_STATE_DIR;
}

int dl_state_path(char *buf, size_t len, const char *file)
{
	return dl_pathf(buf, len, "%s/%s", dl_state_dir(), file);
}

int dl_state_trusted_mode(const struct stat *st, const char *path, mode_t type, mode_t others)
{
	if ((st->st_mode & S_IFMT) != type)
		return dl_fail(-EPERM, "%s is not a %s: remove it (libdeadline keeps its layout state there)",
			       path, type == S_IFDIR ? "folder" : "regular file");
	if (st->st_uid != geteuid() || (st->st_mode & others))
		return dl_fail(-EPERM, "%s is owned by uid %u with mode %04o: it must be root's and %s by root alone; remove it",
			       path, (unsigned)st->st_uid, (unsigned)(st->st_mode & 07777),
			       others & (S_IRGRP | S_IROTH) ? "usable" : "writable");
	return 0;
}

int dl_state_trusted(const struct stat *st, const char *path, mode_t type)
{
	return dl_state_trusted_mode(st, path, type, S_IWGRP | S_IWOTH);
}

int dl_state_dir_make(void)
{
	const char *dir = dl_state_dir();
	struct stat st;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return dl_fail(-errno, "cannot create %s: %s", dir, strerror(errno));
	if (lstat(dir, &st) < 0)
		return dl_fail(-errno, "cannot look at %s: %s", dir, strerror(errno));
	return dl_state_trusted(&st, dir, S_IFDIR);
}

/*
 * A lock of the state folder: an open file description lock
 * (F_OFD_SETLK) on its file `file`, which only root can open.  The
 * holder writes its pid into the file, so that a refusal can name it
 * (OFD locks have no owning process).  Waits up to wait_ms for the
 * holder, then fails with -EBUSY, busy and the holder's pid; returns the
 * fd to close.
 */
int dl_state_lock(const char *file, unsigned int wait_ms, const char *busy)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	uint64_t until = dl_now_ns() + (uint64_t)wait_ms * 1000000ULL;
	char path[4096], holder[32] = "";
	struct stat st;
	int fd, err;

	if ((err = dl_state_dir_make()))
		return err;
	if (dl_state_path(path, sizeof(path), file))
		return dl_fail(-ENAMETOOLONG, "the lock path %s is too long", file);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0 && fstat(fd, &st) == 0 &&
	    dl_state_trusted_mode(&st, path, S_IFREG, S_IRWXG | S_IRWXO) < 0) {
		/* An older or foreign lock file that others may have open:
		 * replace it with a new one that is ours alone. */
		close(fd);
		if (unlink(path) < 0)
			return dl_fail(-errno, "cannot replace the lock %s: %s", path, strerror(errno));
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return dl_fail(-errno, "cannot open the lock %s: %s", path, strerror(errno));
	while (fcntl(fd, F_OFD_SETLK, &fl) < 0) {
		int e = errno;

		if (e != EAGAIN && e != EACCES) {
			close(fd);
			return dl_fail(-e, "cannot lock %s: %s", path, strerror(e));
		}
		if (dl_now_ns() >= until) {
			ssize_t n = pread(fd, holder, sizeof(holder) - 1, 0);
			const char *pid = holder;

			holder[n > 0 ? n : 0] = '\0';
			holder[strcspn(holder, "\n")] = '\0';
			pid += strspn(pid, " ");
			close(fd);
			return dl_fail(-EBUSY, "%s (pid %s): wait for it", busy, pid[0] ? pid : "unknown");
		}
		dl_sleep_ns(20000000);
	}
	/* The pid is only for messages: a failure to write it is no error.
	 * Always 11 bytes, so that it overwrites the last holder's without
	 * an ftruncate (half a millisecond on a tmpfs of the project's VM). */
	snprintf(holder, sizeof(holder), "%10d\n", (int)getpid());
	(void)!pwrite(fd, holder, strlen(holder), 0);
	return fd;
}
