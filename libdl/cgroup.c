/*
 * cgroup.c: where the cpuset hierarchy is mounted and which version it
 * is; libcgroup (which moves tasks, migrate.c), set up once, and its
 * error codes turned into negative errno at the library's boundary.
 *
 * libcgroup 2.0.2 (Debian 12) returns positive codes from 50000;
 * cgroup_strerror() crashes on some of them and names others wrongly, so
 * they never reach users: callers say what failed in their own words.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <mntent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "cg-lib.h"

/*
 * libcgroup moves tasks (migrate.c) and nothing else, so it is not
 * linked but loaded (dlopen) by the first task to move: mapping it and
 * the libpthread it needs at every start cost each program 0.3 ms on the
 * project's VM, 8% of a dl-run launch (issue 13, bench experiment 3),
 * for a call that a launch without --partition never makes.  It is
 * opened by the soname configure found in the libcgroup it built
 * against; its header still types every call (a call through dl_cg.x
 * has x's prototype).
 */
#ifndef LIBCGROUP_SONAME
#define LIBCGROUP_SONAME "libcgroup.so.2"
#endif

struct dl_cg_lib dl_cg;

static pthread_once_t cg_once = PTHREAD_ONCE_INIT;
static int cg_init_ret;
static char cg_error[512]; /* why libcgroup could not be loaded */

/*
 * cgroup_init() starts by clearing libcgroup's mount table,
 * cg_mount_table: 800 KiB of its bss, 200 pages that fault in one at a
 * time.  On the project's VM a fault costs about 10 us.  One
 * madvise(MADV_POPULATE_WRITE) (Linux 5.14) maps the same pages in one
 * call, which halves it; they are pages cgroup_init() writes anyway, so
 * nothing more is used.  Where the symbol, its size or the call is
 * missing (another libcgroup, an older kernel), cgroup_init() faults
 * them in itself, as before.
 */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static void prefault_mount_table(void *h)
{
	void *table = dlsym(h, "cg_mount_table");
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end;
	const ElfW(Sym) *sym = NULL;
	Dl_info info;

	if (!table || !dladdr1(table, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size)
		return;
	start = (uintptr_t)table & ~(page - 1);
	end = ((uintptr_t)table + sym->st_size + page - 1) & ~(page - 1);
	(void)madvise((void *)start, end - start, MADV_POPULATE_WRITE);
}

static void cg_do_init(void)
{
	const char *soname = dl_test_hooks && dl_test_hooks->libcgroup ? dl_test_hooks->libcgroup
								       : LIBCGROUP_SONAME;
#define CG_NAME(name) #name,
	static const char *const names[] = { DL_CG_SYMBOLS(CG_NAME) };
#undef CG_NAME
	void *syms[ARRAY_SIZE(names)], *h;
	size_t i = 0;

	/* Never closed: the cgroups made from it live on, and its mount
	 * table with them. */
	h = dl_lib_load(soname, names, syms, ARRAY_SIZE(names), cg_error, sizeof(cg_error));
	if (!h)
		return;
#define CG_SET(name) memcpy(&dl_cg.name, &syms[i++], sizeof(void *));
	DL_CG_SYMBOLS(CG_SET)
#undef CG_SET
	prefault_mount_table(h);
	cg_init_ret = dl_cg.cgroup_init();
}

/* libcgroup loaded and set up; it reads the mount table once, and later
 * mounts are not seen.  ELIBACC (and why) when it cannot be loaded: no
 * cgroup write gives that errno, so callers can keep this message. */
int dl_cg_init(void)
{
	pthread_once(&cg_once, cg_do_init);
	if (cg_error[0])
		return dl_fail(-ELIBACC, "moving a task needs libcgroup, but " LIBCGROUP_SONAME " could not be loaded (%s): install the Debian package libcgroup2",
			       cg_error);
	return cg_init_ret ? dl_cg_errno(cg_init_ret) : 0;
}

int dl_cg_errno(int ret)
{
	int e;

	if (ret == 0)
		return 0;
	if (ret < 50000)
		return ret < 0 ? ret : -ret;
	switch (ret) {
	case ECGOTHER:
		e = dl_cg.cgroup_get_last_errno ? dl_cg.cgroup_get_last_errno() : 0;
		return e > 0 ? -e : -EIO;
	case ECGROUPNOTCOMPILED:
	case ECGROUPNOTMOUNTED:
	case ECGROUPSUBSYSNOTMOUNTED:
		return -ENODEV;
	case ECGROUPNOTEXIST:
	case ECGROUPVALUENOTEXIST:
		return -ENOENT;
	case ECGROUPNOTOWNER:
	case ECGROUPNOTALLOWED:
		return -EPERM;
	case ECGINVAL:
		return -EINVAL;
	case ECGNONEMPTY:
		return -EBUSY;
	case ECGCANTSETVALUE:
		e = dl_cg.cgroup_get_last_errno ? dl_cg.cgroup_get_last_errno() : 0;
		return e > 0 ? -e : -EIO;
	case ECGROUPUNSUPP:
		return -EOPNOTSUPP;
	default:
		return -EIO;
	}
}

/*
 * Where the cpuset controller is mounted: the first cgroup v1 mount with
 * the cpuset option, or the first cgroup2 mount whose cgroup.controllers
 * lists cpuset (a controller bound to v1 is missing there), the same
 * choice libcgroup's mount table makes.  Read here rather than through
 * cgroup_init(), which costs a process 1.4 ms on the project's VM (it
 * clears an 800 KiB table; issue 13) while making or removing a cpuset
 * needs only this path: libcgroup is set up only to move tasks
 * (migrate.c).  Read once, like libcgroup's table: mounts do not move
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
