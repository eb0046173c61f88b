/*
 * cpuset.c: create, read, change and remove cpusets, on cgroup v1 and
 * v2, through their files.  Names are paths below the cpuset hierarchy's
 * root, e.g. "libdl/partition0".
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cg.h"

int dl_cs_path(const char *name, const char *file, char *buf, size_t len)
{
	char mnt[4096];
	int err = dl_cpuset_mount(mnt, sizeof(mnt));

	if (err)
		return err;
	return dl_pathf(buf, len, "%s%s%s%s%s", mnt, name && *name ? "/" : "",
			name ? name : "", file ? "/" : "", file ? file : "");
}

bool dl_cs_exists(const char *name)
{
	char path[4096];
	struct stat st;

	return dl_cs_path(name, NULL, path, sizeof(path)) == 0 &&
	       stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int dl_cs_read(const char *name, const char *file, char *buf, size_t len)
{
	char path[4096];
	int err = dl_cs_path(name, file, path, sizeof(path));

	return err ? err : dl_read_file(path, buf, len);
}

int dl_cs_cpus(const char *name, const char *file, dl_cpus_t *set)
{
	char path[4096];
	int err = dl_cs_path(name, file, path, sizeof(path));

	return err ? err : dl_read_cpus(path, set);
}

int dl_cs_effective(const char *name, dl_cpus_t *set)
{
	const struct dl_cg_files *f = dl_cg_files();

	return f ? dl_cs_cpus(name, f->effective, set) : dl_cpuset_version();
}

bool dl_cs_flag(const char *name, const char *file)
{
	char buf[16];

	return dl_cs_read(name, file, buf, sizeof(buf)) == 0 && strcmp(buf, "1") == 0;
}

/*
 * The walk keeps its place on the heap, not the stack: each level it goes
 * down holds the names of one cgroup's children, read whole and closed
 * (so neither the stack nor the open descriptors grow with the depth).
 * A user with a delegated subtree can nest cgroups as deep as they like,
 * and root's tools walk the whole tree: below DL_CS_MAX_DEPTH levels, or
 * past what a path can hold, the walk stops and says where.
 */
struct level {
	char *name;  /* this cgroup, below the hierarchy's root ("" the root) */
	char **kids; /* its child cgroups' names, in directory order */
	size_t n, next;
};

static void level_free(struct level *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->kids[i]);
	free(l->kids);
	free(l->name);
}

/* The child cgroups of name; none when it was removed meanwhile. */
static int level_read(struct level *l)
{
	char path[4096];
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	if (dl_cs_path(l->name, NULL, path, sizeof(path)) < 0 || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (l->n == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			char **v = realloc(l->kids, ncap * sizeof(*v));

			if (!v)
				break;
			l->kids = v;
			cap = ncap;
		}
		if (!(l->kids[l->n] = strdup(de->d_name)))
			break;
		l->n++;
	}
	closedir(d);
	return de ? dl_fail(-ENOMEM, "out of memory") : 0;
}

/* A cgroup path as a message shows it: escaped (users name their
 * delegated cgroups), and its middle cut when long. */
static const char *shown(const char *name, char *buf, size_t len)
{
	char head[64], tail[64], h[200], t[200];
	size_t n = strlen(name);

	if (n < 120)
		return dl_str_escape(name, buf, len);
	snprintf(head, sizeof(head), "%.48s", name);
	snprintf(tail, sizeof(tail), "%s", name + n - 48);
	snprintf(buf, len, "%s/.../%s (%zu characters)", dl_str_escape(head, h, sizeof(h)),
		 dl_str_escape(tail, t, sizeof(t)), n);
	return buf;
}

/* Depth first, in readdir order: a child, then (DL_CS_DESCEND) its own. */
int dl_cs_walk(const char *name, dl_cs_visit *fn, void *arg)
{
	struct level *stack = calloc(DL_CS_MAX_DEPTH, sizeof(*stack));
	char path[4096], where[400];
	int depth = 0, ret = DL_CS_NEXT;

	if (!stack)
		return dl_fail(-ENOMEM, "out of memory");
	if (!(stack[0].name = strdup(name ? name : "")))
		ret = dl_fail(-ENOMEM, "out of memory");
	else
		ret = level_read(&stack[0]);
	while (ret == DL_CS_NEXT && depth >= 0) {
		struct level *l = &stack[depth];
		char *child;
		size_t len;

		if (l->next == l->n) {
			level_free(l);
			memset(l, 0, sizeof(*l));
			depth--;
			continue;
		}
		len = strlen(l->name) + 1 + strlen(l->kids[l->next]) + 1;
		if (!(child = malloc(len))) {
			ret = dl_fail(-ENOMEM, "out of memory");
			break;
		}
		snprintf(child, len, "%s%s%s", l->name, *l->name ? "/" : "", l->kids[l->next++]);
		if (dl_cs_path(child, NULL, path, sizeof(path)) == -ENAMETOOLONG) {
			ret = dl_fail(-ENAMETOOLONG, "cgroup /%s, %d levels down, has a path longer than %d characters: libdl does not follow it, and cannot tell the root domains or the cpusets that conflict with a layout; remove or flatten that subtree",
				      shown(child, where, sizeof(where)), depth + 1, (int)sizeof(path) - 1);
			free(child);
			break;
		}
		ret = fn(child, depth, arg);
		if (ret != DL_CS_DESCEND) {
			free(child);
			continue;
		}
		if (depth + 1 == DL_CS_MAX_DEPTH) {
			ret = dl_fail(-ELOOP, "the cgroup tree is deeper than %d levels at /%s: libdl does not follow it, and cannot tell the root domains or the cpusets that conflict with a layout; remove or flatten that subtree",
				      DL_CS_MAX_DEPTH, shown(child, where, sizeof(where)));
			free(child);
			break;
		}
		stack[++depth].name = child;
		ret = level_read(&stack[depth]);
	}
	for (; depth >= 0; depth--)
		level_free(&stack[depth]);
	free(stack);
	return ret == DL_CS_STOP ? 0 : ret;
}

/*
 * Made, written and removed straight through the cgroup files, as the
 * kernel documents them (cgroup-v1/cpusets.rst, cgroup-v2.rst): mkdir,
 * one write a value, rmdir.  Through libcgroup each
 * process paid cgroup_init() and every create chowned each new file to
 * the caller's real uid, work the kernel had done already (a cgroup's
 * files belong to its creator's fsuid) and, for a set-uid caller, a
 * hand-over of the cpuset to the user.  Its pitfalls go with it: mkdir
 * says EEXIST, a value that fails is the kernel's own errno.
 */
int dl_cs_create(const char *name, const struct dl_kv *kv, size_t n)
{
	char path[4096], file[4200];
	int err = dl_cs_path(name, NULL, path, sizeof(path));

	if (!err)
		err = dl_fault("create a cgroup");
	if (err)
		return err;
	if (mkdir(path, 0755) < 0)
		return -errno;
	/* In the order given (the kernel wants cpus and mems before
	 * cpu_exclusive); a value refused leaves nothing half-made. */
	for (size_t i = 0; i < n && !err; i++)
		if (!(err = dl_pathf(file, sizeof(file), "%s/%s", path, kv[i].key)) &&
		    !(err = dl_fault(kv[i].key)))
			err = dl_write_file(file, kv[i].value);
	if (err)
		rmdir(path);
	return err;
}

int dl_cs_write(const char *name, const char *key, const char *value)
{
	char path[4096];
	int err = dl_cs_path(name, key, path, sizeof(path));

	if (!err)
		err = dl_fault(key);
	return err ? err : dl_write_file(path, value);
}

/* libcgroup 2.0.2 does not enable a controller in the root cgroup's own
 * cgroup.subtree_control (docs/kernel-notes.md, "libcgroup 2.0.2"): the
 * one file written by hand. */
int dl_cs_root_subtree(const char *change)
{
	char path[4096];
	int err = dl_cs_path("", "cgroup.subtree_control", path, sizeof(path));

	if (!err)
		err = dl_fault("cgroup.subtree_control");
	return err ? err : dl_write_file(path, change);
}

/* v2: write the partition type and read back what the kernel made of
 * it: an invalid partition is a successful write. */
int dl_cs_make_partition(const char *name, const char *type)
{
	char state[256];
	int err = dl_cs_write(name, "cpuset.cpus.partition", type);

	if (err)
		return dl_fail(err, "cannot make /%s a %s partition: %s", name, type, strerror(-err));
	err = dl_cs_read(name, "cpuset.cpus.partition", state, sizeof(state));
	if (err)
		return dl_fail(err, "cannot read back /%s's cpuset.cpus.partition", name);
	if (strcmp(state, type) != 0)
		return dl_fail(-EINVAL, "the kernel made /%s an invalid partition: it reads \"%s\"", name, state);
	return 0;
}

int dl_cs_root_subtree_has(const char *ctrl)
{
	char buf[1024];

	if (dl_cs_read("", "cgroup.subtree_control", buf, sizeof(buf)) < 0)
		return -EIO;
	return dl_cg_lists(buf, ctrl);
}

/* EBUSY while tasks or child cgroups are in it: the caller moves them. */
int dl_cs_remove(const char *name)
{
	char path[4096];
	int err = dl_cs_path(name, NULL, path, sizeof(path));

	if (!err)
		err = dl_fault("remove a cgroup");
	if (err)
		return err;
	return rmdir(path) < 0 ? -errno : 0;
}
