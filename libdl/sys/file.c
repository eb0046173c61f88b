/*
 * file.c: small kernel and state files read and written whole, and the
 * paths that name them (snprintf that refuses to truncate).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sys.h"

int dl_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool dl_path_within(const char *path, const char *base)
{
	size_t n = strlen(base);

	if (n == 0 || (n == 1 && base[0] == '/'))
		return false;
	return !strncmp(path, base, n) && (path[n] == '\0' || path[n] == '/');
}

/* Drop the trailing newline the kernel adds (and blanks): got is the
 * length of buf's text. */
static void trim_end(char *buf, size_t got)
{
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		buf[--got] = '\0';
}

int dl_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	size_t got = 0;
	int fd, err = 0;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	trim_end(buf, got);
	return err;
}

/* A kernel attribute of one value (a sysctl, a sysfs or debugfs file):
 * the kernel hands the whole value to the first read(2), so one read
 * takes it, without the second that would only find its end. */
static int read_attr(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	buf[n] = '\0';
	trim_end(buf, (size_t)n);
	return 0;
}

/* A number as the kernel writes one in a file: decimal, optionally
 * signed, then nothing but white space. */
int dl_parse_s64(const char *text, int64_t *val)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || (*end && !isspace((unsigned char)*end)))
		return -EINVAL;
	*val = v;
	return 0;
}

int dl_read_s64(const char *path, int64_t *val)
{
	char buf[64];
	int err;

	err = read_attr(path, buf, sizeof(buf));
	return err ? err : dl_parse_s64(buf, val);
}

int dl_read_u64(const char *path, uint64_t *val)
{
	int64_t v;
	int err = dl_read_s64(path, &v);

	if (err)
		return err;
	if (v < 0)
		return -ERANGE;
	*val = (uint64_t)v;
	return 0;
}

/* One write of the whole text: 0, -errno, or -EIO when it was cut short
 * (a short write sets no errno). */
static int write_whole(int fd, const char *text, size_t len)
{
	ssize_t n = write(fd, text, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int dl_write_file(const char *path, const char *text)
{
	int fd, err;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = write_whole(fd, text, strlen(text));
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

/*
 * Public (dl_file_replace(3)): the tools write what other programs read
 * (dl-stat's metrics for node_exporter) through it too.  The temporary
 * file is made with O_CREAT | O_EXCL (mkostemp), which never follows a
 * link and never opens a file someone else made there; O_NOFOLLOW says
 * so once more.  rename(2) then replaces path itself, a symbolic link at
 * path included, never what the link points to.  The mode is set with
 * fchmod, so the caller's umask does not change it.
 */
DL_EXPORT int dl_file_replace(const char *path, const char *text, size_t len, mode_t mode, bool durable)
{
	char tmp[4200];
	int fd, err;

	if (!path || !*path || (!text && len))
		return dl_fail(-EINVAL, "no file name or no text to write");
	if (mode & ~(mode_t)07777)
		return dl_fail(-EINVAL, "mode %o is not a file mode (at most 07777)", (unsigned)mode);
	if ((err = dl_pathf(tmp, sizeof(tmp), "%s.XXXXXX", path)))
		return dl_fail(err, "the file name %s is too long", path);
	/* A name nobody else has, 0600 until the write is whole. */
	fd = mkostemp(tmp, O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		err = -errno;
		return dl_fail(err, "cannot create a temporary file next to %s: %s", path, strerror(-err));
	}
	err = write_whole(fd, text ? text : "", len);
	if (!err && fchmod(fd, mode) < 0)
		err = -errno;
	if (!err && durable && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		return dl_fail(err, "cannot write %s: %s", path, strerror(-err));
	}
	return 0;
}
