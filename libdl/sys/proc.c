/*
 * proc.c: what /proc says of a thread: a field of its stat file, the ids
 * of its status file, its process; the one pid parser; the pids in a
 * folder.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sys.h"

/* Field n of a stat file's text (the command, field 2, may hold spaces
 * and parentheses). */
static int stat_field(char *buf, int n, unsigned long long *val)
{
	char *p = strrchr(buf, ')');
	int field = 2;

	if (!p)
		return -EINVAL;
	for (p++; *p; p++) {
		if (*p == ' ' && ++field == n) {
			*val = strtoull(p + 1, NULL, 10);
			return 0;
		}
	}
	return -EINVAL;
}

int dl_task_stat_field(pid_t tid, int n, unsigned long long *val)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if (dl_read_file(path, buf, sizeof(buf)) < 0)
		return -ESRCH;
	return stat_field(buf, n, val);
}

int dl_stat_field_at(int dirfd, int n, unsigned long long *val)
{
	char buf[1024];
	ssize_t got;
	int fd = openat(dirfd, "stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -ESRCH;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return -ESRCH;
	buf[got] = '\0';
	return stat_field(buf, n, val);
}

/* A /proc directory name or a user's argument as a pid: digits only,
 * 1..INT_MAX, written as the kernel writes it (no leading zero, so that
 * a thread has one name in a folder of names); -1 otherwise.  The one
 * pid parser of the library. */
pid_t dl_parse_pid(const char *s)
{
	unsigned long long v = 0;

	if (!s || !*s || *s == '0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
		if (v > 0x7fffffff)
			return -1;
	}
	return v ? (pid_t)v : -1;
}

/* A line "Name:\tv1\tv2..." of /proc/TID/status (relative to dirfd, a
 * /proc/TID folder, or AT_FDCWD with a full path): its first n numbers. */
int dl_status_ids(int dirfd, const char *file, const char *name, unsigned long long *v, int n)
{
	char buf[4096], *p;
	size_t len = strlen(name);
	ssize_t got;
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC), k = 0;

	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got < 0)
		return -errno;
	buf[got] = '\0';
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, len) != 0 || p[len] != ':')
			continue;
		p += len + 1;
		for (; k < n; k++) {
			char *end;

			v[k] = strtoull(p, &end, 10);
			if (end == p)
				break;
			p = end;
		}
		return k == n ? 0 : -EINVAL;
	}
	return -EINVAL;
}

pid_t dl_task_tgid(pid_t tid)
{
	char path[64];
	unsigned long long v;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	return dl_status_ids(AT_FDCWD, path, "Tgid", &v, 1) == 0 ? (pid_t)v : tid;
}

size_t dl_count_dir(const char *path)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(path);

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += dl_parse_pid(de->d_name) > 0;
	closedir(d);
	return n;
}

#define PF_NO_SETAFFINITY 0x04000000UL

/* A kernel thread no cpuset may take (PF_NO_SETAFFINITY in field 9 of
 * /proc/TID/stat, its flags): moving it fails with EINVAL. */
bool dl_task_pinned(pid_t tid)
{
	unsigned long long flags;

	return dl_task_stat_field(tid, 9, &flags) == 0 && (flags & PF_NO_SETAFFINITY);
}
