/*
 * cpuset.c: create, read, change and remove cpusets, on cgroup v1 and
 * v2: read through their files, changed through libcgroup.  Names are
 * paths below the cpuset hierarchy's root, e.g. "libdl/partition0".
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup/cg-lib.h"

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
 * Every change goes through libcgroup: a cpuset made with its values
 * (cgroup_create_cgroup, which writes them in the order given: the
 * kernel wants cpus and mems before cpu_exclusive), a value changed
 * (cgroup_modify_cgroup), a cpuset removed (cgroup_delete_cgroup_ext).
 * Each is a failure site of the tests' fault injection (dl_fault).
 *
 * Left to itself libcgroup gives what it makes to the caller's real uid
 * (cgroup_create_cgroup chowns to NO_UID_GID, which it reads as
 * getuid()): a set-uid or capability-bearing caller would hand the
 * cpuset to its user.  So everything is made root's explicitly, tasks and
 * control files alike, the folder 0755 as the kernel makes it; the files
 * keep the modes the kernel gives them (some are read-only).
 */
struct cgroup *dl_cs_lcg(const char *name, struct cgroup_controller **ctrl)
{
	struct cgroup *cg = dl_cg.cgroup_new_cgroup(name && *name ? name : "/");
	struct cgroup_controller *c = cg ? dl_cg.cgroup_add_controller(cg, "cpuset") : NULL;

	if (!c) {
		if (cg)
			dl_cg.cgroup_free(&cg);
		return NULL;
	}
	if (dl_cg.cgroup_set_uid_gid(cg, 0, 0, 0, 0) != 0) {
		dl_cg.cgroup_free(&cg);
		return NULL;
	}
	dl_cg.cgroup_set_permissions(cg, 0755, NO_PERMS, NO_PERMS);
	if (ctrl)
		*ctrl = c;
	return cg;
}

/* A cgroup of the cpuset controller with the values kv[] to write: the
 * struct libcgroup acts on.  -ENOMEM, or what libcgroup refused. */
static int lcg_with(const char *name, const struct dl_kv *kv, size_t n, struct cgroup **out)
{
	struct cgroup_controller *c;
	struct cgroup *cg = dl_cs_lcg(name, &c);

	*out = NULL;
	if (!cg)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		int ret = dl_cg.cgroup_add_value_string(c, kv[i].key, kv[i].value);

		if (ret) {
			dl_cg.cgroup_free(&cg);
			return dl_cg_errno(ret);
		}
	}
	*out = cg;
	return 0;
}

static int remove_cg(struct cgroup *cg)
{
	/* Empty only: libcgroup would otherwise move the tasks to the
	 * parent itself, and the callers put each back where it came from. */
	return dl_cg_errno(dl_cg.cgroup_delete_cgroup_ext(cg, CGFLAG_DELETE_EMPTY_ONLY));
}

int dl_cs_create(const char *name, const struct dl_kv *kv, size_t n)
{
	struct cgroup *cg;
	int err = dl_cg_init();

	if (err)
		return err;
	/* libcgroup takes an existing folder for one it made. */
	if (dl_cs_exists(name))
		return -EEXIST;
	if ((err = dl_fault("create a cgroup")) || (err = lcg_with(name, kv, n, &cg)))
		return err;
	err = dl_cg_errno(dl_cg.cgroup_create_cgroup(cg, 0));
	/* A value the kernel refuses after the folder was made: libcgroup 3
	 * removes the folder, 2.0.2 leaves it.  The tests make that happen
	 * on purpose here too. */
	if (!err)
		err = dl_fault("a value of the cgroup made");
	if (err && dl_cs_exists(name))
		remove_cg(cg);
	dl_cg.cgroup_free(&cg);
	return err;
}

int dl_cs_write(const char *name, const char *key, const char *value)
{
	const struct dl_kv kv = { key, value };
	struct cgroup *cg;
	int err = dl_cg_init();

	if (err || (err = dl_fault(key)) || (err = lcg_with(name, &kv, 1, &cg)))
		return err;
	err = dl_cg_errno(dl_cg.cgroup_modify_cgroup(cg));
	dl_cg.cgroup_free(&cg);
	return err;
}

/* v2: "+cpuset" or "-cpuset" into the root cgroup's subtree_control,
 * one more value libcgroup writes (the file is the root's, of no
 * controller; libcgroup builds its path from the cpuset hierarchy's). */
int dl_cs_root_subtree(const char *change)
{
	return dl_cs_write("", "cgroup.subtree_control", change);
}

/* v2: write the partition type and read back what the kernel made of
 * it: an invalid partition is a successful write. */
int dl_cs_make_partition(const char *name, const char *type)
{
	char state[256];
	int err = dl_cs_write(name, "cpuset.cpus.partition", type);

	if (err)
		return dl_fail(err, "cannot make /%s a %s partition: %s", name, type, dl_cg_why(err));
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
	struct cgroup *cg;
	int err = dl_cg_init();

	if (err || (err = dl_fault("remove a cgroup")) || (err = lcg_with(name, NULL, 0, &cg)))
		return err;
	err = remove_cg(cg);
	dl_cg.cgroup_free(&cg);
	return err;
}
