/*
 * mount.c: where the cpuset hierarchy is mounted, which cgroup version
 * it is, and the files the two versions name differently.
 */
#include <errno.h>
#include <mntent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "cgroup/cg.h"

/*
 * Where the cpuset controller is mounted: the first cgroup v1 mount with
 * the cpuset option, or the first cgroup2 mount whose cgroup.controllers
 * lists cpuset (a controller bound to v1 is missing there), the same
 * choice libcgroup's mount table makes.  Read here rather than through
 * cgroup_init(), which costs a process 1.4 ms on the project's VM (it
 * clears an 800 KiB table) while making or removing a cpuset
 * needs only this path: libcgroup is set up only to move tasks
 * (members.c).  Read once, like libcgroup's table: mounts do not move
 * under a running process.
 */
static pthread_once_t mount_once = PTHREAD_ONCE_INIT;
static char mount_path[4096];
static int mount_ret;

bool dl_cg_lists(const char *list, const char *ctrl)
{
	size_t n = strlen(ctrl);

	/* Space-separated names: match a whole word. */
	for (const char *p = list; (p = strstr(p, ctrl)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
			return true;
	return false;
}

static bool lists_cpuset(const char *dir)
{
	char path[4200], buf[1024];

	return dl_pathf(path, sizeof(path), "%s/cgroup.controllers", dir) == 0 &&
	       dl_read_file(path, buf, sizeof(buf)) == 0 && dl_cg_lists(buf, "cpuset");
}

static void find_mount(void)
{
	struct mntent ent, *e;
	char buf[8192];
	FILE *f = setmntent("/proc/self/mounts", "re");

	mount_ret = -ENODEV;
	if (!f) {
		mount_ret = -errno;
		return;
	}
	while ((e = getmntent_r(f, &ent, buf, sizeof(buf)))) {
		if ((strcmp(e->mnt_type, "cgroup") == 0 && hasmntopt(e, "cpuset")) ||
		    (strcmp(e->mnt_type, "cgroup2") == 0 && lists_cpuset(e->mnt_dir))) {
			mount_ret = dl_pathf(mount_path, sizeof(mount_path), "%s", e->mnt_dir);
			break;
		}
	}
	endmntent(f);
}

int dl_cpuset_mount(char *buf, size_t len)
{
	pthread_once(&mount_once, find_mount);
	if (mount_ret)
		return mount_ret;
	return dl_pathf(buf, len, "%s", mount_path);
}

/*
 * 1 when cpuset is a cgroup v1 controller, 2 when it is on the unified
 * hierarchy.  libcgroup 2.0.2 exports cgroup_get_controller_version() but
 * does not declare it, so the filesystem type of its mount point decides.
 */
int dl_cpuset_version(void)
{
	/* Like the mount point, read once. */
	static int version; /* atomic: several threads may ask at once */
	char mnt[4096];
	struct statfs sf;
	int err, v = __atomic_load_n(&version, __ATOMIC_ACQUIRE);

	if (v)
		return v;
	err = dl_cpuset_mount(mnt, sizeof(mnt));
	if (err)
		return err;
	if (statfs(mnt, &sf) < 0)
		return -errno;
	v = sf.f_type == CGROUP2_SUPER_MAGIC ? 2 : 1;
	__atomic_store_n(&version, v, __ATOMIC_RELEASE);
	return v;
}

static const struct dl_cg_files files_v1 = {
	.version = 1,
	.effective = "cpuset.effective_cpus",
	.threads = "tasks",
	.procs = "tasks",
};

static const struct dl_cg_files files_v2 = {
	.version = 2,
	.effective = "cpuset.cpus.effective",
	.threads = "cgroup.threads",
	.procs = "cgroup.procs",
};

const struct dl_cg_files *dl_cg_files(void)
{
	int v = dl_cpuset_version();

	return v == 2 ? &files_v2 : v == 1 ? &files_v1 : NULL;
}
