/*
 * cpuset.c: create, change and remove cpusets through libcgroup, on
 * cgroup v1 and v2.  Names are paths below the cpuset hierarchy's root,
 * e.g. "libdl/partition0".
 *
 * libcgroup 2.0.2's pitfalls, handled here (FACTS.md): creating over an
 * existing directory reports success, so existence is checked first; a
 * value that fails to write leaves the new cgroup behind, so it is
 * removed; values are written one at a time in the order they were added;
 * cgroup_get_cgroup() reads every controller, so changes go through a
 * fresh struct that holds only the values to write.
 *
 * Reading goes straight to the cgroup files: libcgroup would read every
 * value of every controller to get one.
 */
#include <dirent.h>
#include <errno.h>
#include <libcgroup.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cg.h"

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

/* Depth first, in readdir order: a child, then (DL_CS_DESCEND) its own. */
static int walk(const char *name, int depth, dl_cs_visit *fn, void *arg)
{
	char path[4096], child[4200];
	struct dirent *de;
	DIR *d;
	int ret = DL_CS_NEXT;

	if (dl_cs_path(name, NULL, path, sizeof(path)) < 0 || !(d = opendir(path)))
		return DL_CS_NEXT; /* removed meanwhile */
	while (ret == DL_CS_NEXT && (de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
		    dl_pathf(child, sizeof(child), "%s%s%s", name, *name ? "/" : "", de->d_name) < 0)
			continue;
		ret = fn(child, depth, arg);
		if (ret == DL_CS_DESCEND)
			ret = walk(child, depth + 1, fn, arg);
	}
	closedir(d);
	return ret;
}

int dl_cs_walk(const char *name, dl_cs_visit *fn, void *arg)
{
	int ret = walk(name ? name : "", 0, fn, arg);

	return ret == DL_CS_STOP ? 0 : ret;
}

struct cgroup *dl_cs_cg(const char *name, const struct dl_kv *kv, size_t n)
{
	struct cgroup_controller *ctl;
	struct cgroup *cg;

	cg = cgroup_new_cgroup(name && *name ? name : "/");
	if (!cg)
		return NULL;
	ctl = cgroup_add_controller(cg, "cpuset");
	if (!ctl)
		goto err;
	for (size_t i = 0; i < n; i++)
		if (cgroup_add_value_string(ctl, kv[i].key, kv[i].value))
			goto err;
	return cg;
err:
	cgroup_free(&cg);
	return NULL;
}

int dl_cs_create(const char *name, const struct dl_kv *kv, size_t n)
{
	struct cgroup *cg;
	int ret, err;

	err = dl_cg_init();
	if (err)
		return err;
	if (dl_cs_exists(name))
		return -EEXIST;
	if ((err = dl_fault("create a cgroup")))
		return err;
	cg = dl_cs_cg(name, kv, n);
	if (!cg)
		return -ENOMEM;
	ret = cgroup_create_cgroup(cg, 0);
	err = dl_cg_errno(ret);
	if (err && dl_cs_exists(name)) {
		/* Made, then a value failed: do not leave it half-made. */
		struct cgroup *bare = dl_cs_cg(name, NULL, 0);

		if (bare) {
			cgroup_delete_cgroup(bare, 0);
			cgroup_free(&bare);
		}
	}
	cgroup_free(&cg);
	return err;
}

int dl_cs_write(const char *name, const char *key, const char *value)
{
	struct dl_kv kv = { key, value };
	struct cgroup *cg;
	int err;

	err = dl_cg_init();
	if (!err)
		err = dl_fault(key);
	if (err)
		return err;
	cg = dl_cs_cg(name, &kv, 1);
	if (!cg)
		return -ENOMEM;
	err = dl_cg_errno(cgroup_modify_cgroup(cg));
	cgroup_free(&cg);
	return err;
}

/* libcgroup 2.0.2 does not enable a controller in the root cgroup's own
 * cgroup.subtree_control (FACTS.md): the one file written by hand. */
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
	size_t n = strlen(ctrl);

	if (dl_cs_read("", "cgroup.subtree_control", buf, sizeof(buf)) < 0)
		return -EIO;
	/* Space-separated names: match a whole word. */
	for (const char *p = buf; (p = strstr(p, ctrl)); p += n)
		if ((p == buf || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return 1;
	return 0;
}

int dl_cs_remove(const char *name)
{
	struct cgroup *cg;
	int err;

	err = dl_cg_init();
	if (err)
		return err;
	if (!dl_cs_exists(name))
		return -ENOENT;
	if ((err = dl_fault("remove a cgroup")))
		return err;
	cg = dl_cs_cg(name, NULL, 0);
	if (!cg)
		return -ENOMEM;
	err = dl_cg_errno(cgroup_delete_cgroup(cg, 0));
	cgroup_free(&cg);
	return err;
}
