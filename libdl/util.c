/*
 * util.c: reading and writing small kernel files, clocks, CPU sets.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys.h"

int dl_pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
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
	/* Drop the trailing newline the kernel adds. */
	while (got > 0 && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		buf[--got] = '\0';
	return err;
}

int dl_read_s64(const char *path, int64_t *val)
{
	char buf[64], *end;
	long long v;
	int err;

	err = dl_read_file(path, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf || (*end && !isspace((unsigned char)*end)))
		return -EINVAL;
	*val = v;
	return 0;
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

int dl_file_replace(const char *path, const char *text, size_t len, mode_t mode, bool durable)
{
	char tmp[4200];
	int fd, err;

	if ((err = dl_pathf(tmp, sizeof(tmp), "%s.XXXXXX", path)))
		return err;
	/* mkostemp: a name nobody else has, O_EXCL (no link followed), 0600
	 * until the write is whole. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = write_whole(fd, text, len);
	if (!err && fchmod(fd, mode) < 0)
		err = -errno;
	if (!err && durable && fsync(fd) < 0)
		err = -errno;
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int dl_task_stat_field(pid_t tid, int n, unsigned long long *val)
{
	char path[64], buf[1024], *p;
	int field = 2;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	if (dl_read_file(path, buf, sizeof(buf)) < 0)
		return -ESRCH;
	/* The command (field 2) may hold spaces and parentheses. */
	p = strrchr(buf, ')');
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

int dl_read_cpus(const char *path, dl_cpus_t *set)
{
	char buf[4096];
	int err = dl_read_file(path, buf, sizeof(buf));

	return err ? err : dl_cpus_parse(buf, set);
}

uint64_t dl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void dl_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ULL),
		.tv_nsec = (long)(ns % 1000000000ULL),
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

DL_EXPORT char *dl_bw_format(int64_t bw, char *buf, size_t len)
{
	/* Four decimals, rounded: enough to tell 0.9000 from 0.9100.  The
	 * magnitude in unsigned arithmetic: -INT64_MIN does not exist. */
	uint64_t abs = bw < 0 ? 0 - (uint64_t)bw : (uint64_t)bw;
	unsigned __int128 scaled = ((unsigned __int128)abs * 10000 + DL_BW_UNIT / 2) >> DL_BW_SHIFT;

	if (bw == INT64_MAX) {
		/* The free bandwidth of a root domain without admission test
		 * (sched_rt_runtime_us = -1). */
		snprintf(buf, len, "unlimited");
		return buf;
	}
	snprintf(buf, len, "%s%" PRIu64 ".%04" PRIu64, bw < 0 ? "-" : "",
		 (uint64_t)(scaled / 10000), (uint64_t)(scaled % 10000));
	return buf;
}

DL_EXPORT int dl_cpus_count(const dl_cpus_t *s)
{
	int n = 0;

	for (unsigned i = 0; i < ARRAY_SIZE(s->bits); i++)
		n += __builtin_popcountll(s->bits[i]);
	return n;
}

DL_EXPORT bool dl_cpus_equal(const dl_cpus_t *a, const dl_cpus_t *b)
{
	return memcmp(a->bits, b->bits, sizeof(a->bits)) == 0;
}

DL_EXPORT bool dl_cpus_subset(const dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}

DL_EXPORT bool dl_cpus_intersects(const dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

void dl_cpus_and(dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		a->bits[i] &= b->bits[i];
}

void dl_cpus_or(dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		a->bits[i] |= b->bits[i];
}

void dl_cpus_andnot(dl_cpus_t *a, const dl_cpus_t *b)
{
	for (unsigned i = 0; i < ARRAY_SIZE(a->bits); i++)
		a->bits[i] &= ~b->bits[i];
}

int dl_reserved_check(const void *reserved, size_t len, const char *what)
{
	const unsigned char *b = reserved;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return dl_fail(-EINVAL, "%s has non-zero bytes in its reserved space: "
				       "initialise the whole struct (= { .field = ... } or memset) before filling it in",
				       what);
	return 0;
}

int dl_cpus_first(const dl_cpus_t *s)
{
	for (unsigned i = 0; i < ARRAY_SIZE(s->bits); i++)
		if (s->bits[i])
			return (int)(i * 64) + __builtin_ctzll(s->bits[i]);
	return -1;
}

static int parse_cpu(const char **p, long *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno)
		return -ERANGE;
	*p = end;
	*out = v;
	return 0;
}

/* The kernel's list format (Documentation/admin-guide/cgroup-v1/cpusets.rst):
 * comma-separated CPUs and ranges, "0-3,8"; an empty string is the empty set. */
DL_EXPORT int dl_cpus_parse(const char *text, dl_cpus_t *set)
{
	const char *p = text;

	dl_cpus_zero(set);
	if (!text)
		return dl_fail(-EINVAL, "no CPU list given");
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '\0')
		return 0;
	for (;;) {
		long a, b;
		const char *item = p;

		if (parse_cpu(&p, &a) < 0)
			return dl_fail(-EINVAL, "invalid CPU list \"%s\": expected a CPU number at \"%s\" (use the kernel's format, e.g. 0,2-3)",
				       text, item);
		b = a;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &b) < 0)
				return dl_fail(-EINVAL, "invalid CPU list \"%s\": range \"%.*s\" has no end",
					       text, (int)(p - item), item);
			if (b < a)
				return dl_fail(-EINVAL, "invalid CPU list \"%s\": range %ld-%ld runs backwards",
					       text, a, b);
		}
		if (b >= DL_CPUS_MAX)
			return dl_fail(-ERANGE, "invalid CPU list \"%s\": CPU %ld is beyond the %d CPUs libdeadline handles",
				       text, b, DL_CPUS_MAX);
		for (long c = a; c <= b; c++)
			dl_cpus_set(set, (int)c);
		while (isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			return 0;
		if (*p != ',')
			return dl_fail(-EINVAL, "invalid CPU list \"%s\": unexpected \"%s\" (use the kernel's format, e.g. 0,2-3)",
				       text, p);
		p++;
	}
}

DL_EXPORT char *dl_cpus_format(const dl_cpus_t *set, char *buf, size_t len)
{
	size_t used = 0;
	int cpu = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	while (cpu < DL_CPUS_MAX) {
		int start;

		if (!dl_cpus_isset(set, cpu)) {
			cpu++;
			continue;
		}
		start = cpu;
		while (cpu + 1 < DL_CPUS_MAX && dl_cpus_isset(set, cpu + 1))
			cpu++;
		if (used < len) {
			int n = start == cpu
				? snprintf(buf + used, len - used, "%s%d", used ? "," : "", start)
				: snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", start, cpu);
			used += n > 0 ? (size_t)n : 0;
		}
		cpu++;
	}
	return buf;
}

DL_EXPORT int dl_cpus_online(dl_cpus_t *set)
{
	char buf[4096];
	int err = dl_read_file("/sys/devices/system/cpu/online", buf, sizeof(buf));

	if (err)
		return dl_fail(err, "cannot read /sys/devices/system/cpu/online: %s", strerror(-err));
	return dl_cpus_parse(buf, set);
}

/* A /proc directory name or a user's argument as a pid: digits only,
 * 1..INT_MAX; -1 otherwise.  The one pid parser of the library. */
pid_t dl_parse_pid(const char *s)
{
	unsigned long long v = 0;

	if (!s || !*s)
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

DL_EXPORT char *dl_str_escape(const char *in, char *out, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!out || len == 0)
		return out;
	for (const unsigned char *p = (const unsigned char *)(in ? in : ""); *p; p++) {
		char e[4];
		size_t k = 0;

		if (*p == '\\') {
			e[k++] = '\\';
			e[k++] = '\\';
		} else if (*p >= 0x20 && *p < 0x7f) {
			e[k++] = (char)*p;
		} else {
			if (o + 4 >= len)
				break;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
			continue;
		}
		if (o + k >= len)
			break;
		memcpy(out + o, e, k);
		o += k;
	}
	out[o] = '\0';
	return out;
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

/* libsystemd (cg-systemd.c) and libcgroup (cgroup.c): loaded by the
 * first call that needs them.  RTLD_NODELETE: never unmapped, since what
 * they made (buses with per-thread state, cgroup structs) outlives any
 * one call. */
void *dl_lib_load(const char *soname, const char *const *names, void **syms, size_t n,
		  char *err, size_t errlen)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);

	if (!h) {
		snprintf(err, errlen, "%s", dlerror());
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(syms[i] = dlsym(h, names[i]))) {
			snprintf(err, errlen, "%s has no %s", soname, names[i]);
			dlclose(h);
			return NULL;
		}
	}
	return h;
}
