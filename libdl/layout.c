/*
 * layout.c: a layout of partitions and a cluster, checked before anything
 * is touched, and its state file.
 *
 * The state file (/run/libdl/layout) is written before the first change
 * and updated as create goes, so that a fresh process can undo a create
 * that was killed at any point: it records what the root's settings were
 * and which cpusets the layout owns.  /run is a tmpfs: like the cpusets
 * it describes, it does not survive a reboot.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "layout.h"
#include "cg-systemd.h"

DL_EXPORT struct dl_layout *dl_layout_new(void)
{
	struct dl_layout *l = calloc(1, sizeof(*l));

	if (!l)
		dl_fail(-ENOMEM, "out of memory");
	if (l)
		l->root_lb = -1;
	return l;
}

DL_EXPORT void dl_layout_free(struct dl_layout *l)
{
	if (!l)
		return;
	free(l->parts);
	free(l);
}

static bool valid_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > DL_LAYOUT_NAME_MAX)
		return false;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return false;
	return true;
}

DL_EXPORT int dl_layout_add_partition(struct dl_layout *l, const char *name, const dl_cpus_t *cpus)
{
	char defname[DL_LAYOUT_NAME_MAX + 1];
	struct dl_layout_part *np;

	if (!l || !cpus)
		return dl_fail(-EINVAL, "no layout or no CPUs");
	if (!name || !*name) {
		snprintf(defname, sizeof(defname), "partition%zu", l->nparts);
		name = defname;
	}
	if (!valid_name(name))
		return dl_fail(-EINVAL, "invalid partition name \"%s\": use up to %d letters, digits, '-' and '_'",
			       name, DL_LAYOUT_NAME_MAX);
	if (strcmp(name, DL_CLUSTER) == 0)
		return dl_fail(-EINVAL, "\"%s\" is the cluster's name: give the partition another", name);
	for (size_t i = 0; i < l->nparts; i++)
		if (strcmp(l->parts[i].name, name) == 0)
			return dl_fail(-EEXIST, "two partitions are named \"%s\"", name);
	np = realloc(l->parts, (l->nparts + 1) * sizeof(*np));
	if (!np)
		return dl_fail(-ENOMEM, "out of memory");
	l->parts = np;
	memset(&np[l->nparts], 0, sizeof(*np));
	snprintf(np[l->nparts].name, sizeof(np->name), "%s", name);
	np[l->nparts].cpus = *cpus;
	l->nparts++;
	return 0;
}

DL_EXPORT int dl_layout_set_cluster(struct dl_layout *l, const dl_cpus_t *cpus)
{
	if (!l || !cpus)
		return dl_fail(-EINVAL, "no layout or no CPUs");
	l->cluster = *cpus;
	l->cluster_set = true;
	return 0;
}

DL_EXPORT int dl_layout_set_mems(struct dl_layout *l, const char *nodes)
{
	dl_cpus_t set;

	if (!l || !nodes)
		return dl_fail(-EINVAL, "no layout or no memory nodes");
	if (dl_cpus_parse(nodes, &set) < 0)
		return dl_fail(-EINVAL, "invalid memory node list \"%s\" (use the kernel's format, e.g. 0 or 0-1)", nodes);
	l->mems = set;
	l->mems_set = true;
	return 0;
}

DL_EXPORT int dl_layout_set_flags(struct dl_layout *l, unsigned int flags)
{
	if (!l || (flags & ~(unsigned int)(DL_LAYOUT_ISOLATED | DL_LAYOUT_NO_MOVE)))
		return dl_fail(-EINVAL, "unknown layout flags 0x%x", flags);
	l->flags = flags;
	return 0;
}

DL_EXPORT int dl_layout_count(const struct dl_layout *l)
{
	return l ? (int)l->nparts : 0;
}

DL_EXPORT const char *dl_layout_member(const struct dl_layout *l, int i, dl_cpus_t *cpus)
{
	if (!l || i < -1 || i >= (int)l->nparts)
		return NULL;
	if (i == -1) {
		if (cpus)
			*cpus = l->cluster;
		return DL_CLUSTER;
	}
	if (cpus)
		*cpus = l->parts[i].cpus;
	return l->parts[i].name;
}

DL_EXPORT int dl_layout_version(const struct dl_layout *l)
{
	return l ? l->version : 0;
}

DL_EXPORT unsigned int dl_layout_flags(const struct dl_layout *l)
{
	return l ? l->flags : 0;
}

/* The cgroup of a member, below the cpuset hierarchy's root.  On v1 the
 * layout's cpusets sit in one parent; on v2 a partition's parent must be
 * a partition root, so they are children of the root cgroup. */
int dl_layout_cgroup(const struct dl_layout *l, const char *member, char *buf, size_t len)
{
	if (l->systemd)
		return dl_sd_cgroup(member, buf, len);
	if (!member)
		return dl_pathf(buf, len, "%s", l->version == 2 ? "" : DL_LAYOUT_PARENT);
	if (l->version == 2)
		return dl_pathf(buf, len, DL_LAYOUT_PARENT "-%s", member);
	return dl_pathf(buf, len, DL_LAYOUT_PARENT "/%s", member);
}

/* Online memory nodes; "0" on kernels without NUMA information. */
static int online_nodes(dl_cpus_t *set)
{
	char buf[1024];

	if (dl_read_file("/sys/devices/system/node/online", buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "0");
	return dl_cpus_parse(buf, set);
}

static int possible_cpus(dl_cpus_t *set)
{
	char buf[4096];

	if (dl_read_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)) < 0)
		return dl_cpus_online(set);
	return dl_cpus_parse(buf, set);
}

/* Every CPU exists and is online, or say which is not. */
static int check_cpus(const char *what, const dl_cpus_t *cpus, const dl_cpus_t *online,
		      const dl_cpus_t *possible)
{
	char a[256], b[256];

	if (dl_cpus_count(cpus) == 0)
		return dl_fail(-EINVAL, "%s has no CPU", what);
	for (int c = 0; c < DL_CPUS_MAX; c++) {
		if (!dl_cpus_isset(cpus, c))
			continue;
		if (!dl_cpus_isset(possible, c))
			return dl_fail(-EINVAL, "%s: CPU %d does not exist (this machine has CPUs %s)",
				       what, c, dl_cpus_format(possible, a, sizeof(a)));
		if (!dl_cpus_isset(online, c))
			return dl_fail(-EINVAL, "%s: CPU %d is offline (online: %s): bring it online or leave it out",
				       what, c, dl_cpus_format(online, b, sizeof(b)));
	}
	return 0;
}

/*
 * Complete the layout (the cluster defaults to every online CPU no
 * partition has, the memory nodes to every online node) and check it.
 */
int dl_layout_validate(struct dl_layout *l)
{
	dl_cpus_t online, possible, used, nodes;
	char what[64], a[256], b[256];
	int err;

	if (l->nparts == 0)
		return dl_fail(-EINVAL, "no partition: give at least one (e.g. --partition 0)");
	err = dl_cpus_online(&online);
	if (!err)
		err = possible_cpus(&possible);
	if (err)
		return err;
	dl_cpus_zero(&used);
	for (size_t i = 0; i < l->nparts; i++) {
		snprintf(what, sizeof(what), "partition %s", l->parts[i].name);
		err = check_cpus(what, &l->parts[i].cpus, &online, &possible);
		if (err)
			return err;
		for (size_t j = 0; j < i; j++) {
			dl_cpus_t both = l->parts[i].cpus;

			dl_cpus_and(&both, &l->parts[j].cpus);
			if (dl_cpus_count(&both))
				return dl_fail(-EINVAL, "partitions %s (CPUs %s) and %s (CPUs %s) overlap at CPUs %s: a CPU belongs to one partition",
					       l->parts[j].name, dl_cpus_format(&l->parts[j].cpus, a, sizeof(a)),
					       l->parts[i].name, dl_cpus_format(&l->parts[i].cpus, b, sizeof(b)),
					       dl_cpus_format(&both, what, sizeof(what)));
		}
		dl_cpus_or(&used, &l->parts[i].cpus);
	}
	if (!l->cluster_set) {
		l->cluster = online;
		dl_cpus_andnot(&l->cluster, &used);
		if (dl_cpus_count(&l->cluster) == 0)
			return dl_fail(-EINVAL, "no CPU left for the cluster: the partitions take every online CPU (%s); leave at least one out, for the system's other tasks",
				       dl_cpus_format(&online, a, sizeof(a)));
	} else {
		err = check_cpus("the cluster", &l->cluster, &online, &possible);
		if (err)
			return err;
		if (dl_cpus_intersects(&l->cluster, &used))
			return dl_fail(-EINVAL, "the cluster (CPUs %s) overlaps the partitions (CPUs %s): give it other CPUs",
				       dl_cpus_format(&l->cluster, a, sizeof(a)), dl_cpus_format(&used, b, sizeof(b)));
	}
	err = online_nodes(&nodes);
	if (err)
		return err;
	if (!l->mems_set) {
		l->mems = nodes;
	} else if (dl_cpus_count(&l->mems) == 0 || !dl_cpus_subset(&l->mems, &nodes)) {
		return dl_fail(-EINVAL, "memory nodes %s are not all online (online: %s)",
			       dl_cpus_format(&l->mems, a, sizeof(a)), dl_cpus_format(&nodes, b, sizeof(b)));
	}
	return 0;
}

/* ---------------------------------------------------------------- state */

static int state_path(char *buf, size_t len, const char *file)
{
	const char *dir = getenv("LIBDL_STATE_DIR");

	return dl_pathf(buf, len, "%s/%s", dir && *dir ? dir : DL_STATE_DIR, file);
}

int dl_layout_save(const struct dl_layout *l)
{
	char path[4096], tmp[4200], a[4096];
	FILE *f;
	int err = 0;

	if (state_path(path, sizeof(path), "") == 0)
		mkdir(path, 0755);
	if ((err = state_path(path, sizeof(path), "layout")) ||
	    (err = dl_pathf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid())))
		return err;
	f = fopen(tmp, "we");
	if (!f)
		return dl_fail(-errno, "cannot write the layout's state %s: %s", tmp, strerror(errno));
	fprintf(f, "# libdl layout: what dl-part destroy undoes.  Do not edit.\n");
	fprintf(f, "phase %s\n", l->phase);
	fprintf(f, "cgroup %d\n", l->version);
	fprintf(f, "creator %d\n", (int)l->creator);
	fprintf(f, "created %lld\n", (long long)l->created);
	fprintf(f, "flags %u\n", l->flags);
	fprintf(f, "root_lb %d\n", l->root_lb);
	fprintf(f, "enabled_subtree %d\n", l->enabled_subtree);
	fprintf(f, "cluster_partition %d\n", l->cluster_partition);
	fprintf(f, "systemd %d\n", l->systemd);
	fprintf(f, "mems %s\n", dl_cpus_format(&l->mems, a, sizeof(a)));
	fprintf(f, "cluster %s\n", dl_cpus_format(&l->cluster, a, sizeof(a)));
	for (size_t i = 0; i < l->nparts; i++)
		fprintf(f, "partition %s %s\n", l->parts[i].name, dl_cpus_format(&l->parts[i].cpus, a, sizeof(a)));
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		err = -errno;
	if (fclose(f) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		return dl_fail(err, "cannot write the layout's state %s: %s", path, strerror(-err));
	}
	return 0;
}

int dl_layout_forget(void)
{
	char path[4096];

	if (state_path(path, sizeof(path), "layout") == 0 && unlink(path) < 0 && errno != ENOENT)
		return dl_fail(-errno, "cannot remove %s: %s", path, strerror(errno));
	return 0;
}

DL_EXPORT int dl_layout_load(struct dl_layout **out)
{
	char path[4096], line[4200];
	struct dl_layout *l;
	FILE *f;
	int err = 0;

	*out = NULL;
	if ((err = state_path(path, sizeof(path), "layout")))
		return err;
	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT)
			return dl_fail(-ENOENT, "no layout: create one with dl-part create");
		return dl_fail(-errno, "cannot read %s: %s", path, strerror(errno));
	}
	l = dl_layout_new();
	if (!l) {
		fclose(f);
		return -ENOMEM;
	}
	while (!err && fgets(line, sizeof(line), f)) {
		char key[32], v1[DL_LAYOUT_NAME_MAX + 2], v2[4096];
		long long n;
		int k;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		k = sscanf(line, "%31s %33s %4095s", key, v1, v2);
		if (k < 1) {
			err = -EINVAL;
			break;
		}
		n = k >= 2 ? atoll(v1) : 0;
		if (strcmp(key, "phase") == 0 && k >= 2)
			snprintf(l->phase, sizeof(l->phase), "%s", v1);
		else if (strcmp(key, "cgroup") == 0)
			l->version = (int)n;
		else if (strcmp(key, "creator") == 0)
			l->creator = (pid_t)n;
		else if (strcmp(key, "created") == 0)
			l->created = (time_t)n;
		else if (strcmp(key, "flags") == 0)
			l->flags = (unsigned int)n;
		else if (strcmp(key, "root_lb") == 0)
			l->root_lb = (int)n;
		else if (strcmp(key, "enabled_subtree") == 0)
			l->enabled_subtree = n != 0;
		else if (strcmp(key, "cluster_partition") == 0)
			l->cluster_partition = n != 0;
		else if (strcmp(key, "systemd") == 0)
			l->systemd = n != 0;
		else if (strcmp(key, "mems") == 0 && k >= 2) {
			err = dl_cpus_parse(v1, &l->mems);
			l->mems_set = true;
		} else if (strcmp(key, "cluster") == 0 && k >= 2) {
			err = dl_cpus_parse(v1, &l->cluster);
			l->cluster_set = true;
		} else if (strcmp(key, "partition") == 0 && k == 3) {
			dl_cpus_t c;

			err = dl_cpus_parse(v2, &c);
			if (!err)
				err = dl_layout_add_partition(l, v1, &c);
		}
	}
	fclose(f);
	if (err || (l->version != 1 && l->version != 2)) {
		dl_layout_free(l);
		return dl_fail(-EINVAL, "%s is damaged: remove the layout's cpusets (%s) by hand, then the file",
			       path, "libdl*");
	}
	*out = l;
	return 0;
}

/*
 * One create or destroy at a time: a POSIX record lock on a file in the
 * state folder (F_GETLK names the holder).  Returns the fd to close.
 */
int dl_layout_lock(void)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	char path[4096];
	int fd;

	if (state_path(path, sizeof(path), "") == 0)
		mkdir(path, 0755);
	if (state_path(path, sizeof(path), "lock"))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return dl_fail(-errno, "cannot open the layout lock %s: %s", path, strerror(errno));
	if (fcntl(fd, F_SETLK, &fl) < 0) {
		int e = errno;
		struct flock who = { .l_type = F_WRLCK, .l_whence = SEEK_SET };

		if (fcntl(fd, F_GETLK, &who) < 0 || who.l_type == F_UNLCK)
			who.l_pid = 0;
		close(fd);
		if (e == EAGAIN || e == EACCES)
			return dl_fail(-EBUSY, "another dl-part create or destroy is running (pid %d): wait for it",
				       (int)who.l_pid);
		return dl_fail(-e, "cannot lock %s: %s", path, strerror(e));
	}
	return fd;
}

/* "partition0=0 partition1=2-3 cluster=1,4-7": for messages. */
char *dl_layout_text(const struct dl_layout *l, char *buf, size_t len)
{
	size_t used = 0;
	char c[256];

	buf[0] = '\0';
	for (int i = 0; i < (int)l->nparts && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", l->parts[i].name,
				 dl_cpus_format(&l->parts[i].cpus, c, sizeof(c)));
		used += n > 0 ? (size_t)n : 0;
	}
	if (used < len)
		snprintf(buf + used, len - used, "%scluster=%s", used ? " " : "",
			 dl_cpus_format(&l->cluster, c, sizeof(c)));
	return buf;
}
