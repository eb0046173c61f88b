/*
 * state-dir.c: the library's state folder, /run/libdl: the layout's
 * state and lock (layout/state.c), and what a rebuild records before a
 * change that it undoes itself (bw/rebuild.c).
 *
 * The folder and its files belong to root alone: the lock and the state
 * are mode 0600, so that no other user can hold a lock on them (which
 * would block every create and destroy) or write a layout for destroy
 * to act on.  Nothing is followed through a symbolic link, and nothing
 * in the caller's environment moves the folder.
 */
#include <errno.h>
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
