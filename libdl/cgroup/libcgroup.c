/*
 * libcgroup.c: libcgroup, loaded and set up once, and its error codes
 * turned into negative errno at the library's boundary.
 *
 * libcgroup 2.0.2 (Debian 12) returns positive codes from 50000;
 * cgroup_strerror() crashes on some of them and names others wrongly, so
 * they never reach users: callers say what failed in their own words.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgroup/cg-lib.h"

/*
 * libcgroup makes, changes and removes every cgroup libdeadline changes,
 * and moves tasks (cpuset.c, members.c, layout/move.c), but most programs
 * that use libdeadline never call it: a launch (dl-run without
 * --partition) or a status read changes no cgroup.  So it is not linked
 * but loaded (dlopen) by the first change: mapping it and the libpthread
 * it needs at every start cost each program 0.3 ms on the project's VM,
 * 8% of a dl-run launch (bench/README, experiment 3), and its
 * cgroup_init() another 1.4 ms (it clears an 800 KiB table).  It is
 * opened by the soname of the libcgroup configure built against (2 or
 * 3); its header still types every call (a call through dl_cg.x has x's
 * prototype).  The ELF note below declares the dependency to the tools
 * that read run-time loads (the dlopen metadata of
 * https://systemd.io/ELF_DLOPEN_METADATA/), as libdeadline.pc's
 * Requires.private does to pkg-config.
 */
DL_ELF_NOTE_DLOPEN(libcgroup, "[{\"feature\":\"cgroup\",\"description\":\"cpuset partitions and "
			      "clusters: making, changing and removing cgroups, moving tasks\","
			      "\"priority\":\"recommended\",\"soname\":[\"" LIBCGROUP_SONAME "\"]}]");

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

static void quiet(void *userdata, int level, const char *fmt, va_list ap)
{
	(void)userdata;
	(void)level;
	(void)fmt;
	(void)ap;
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
	/* Before cgroup_init(), which otherwise installs a logger that reads
	 * CGROUP_LOGLEVEL from the environment (the caller's, in a
	 * capability-bearing tool) and prints to standard output, into a
	 * tool's results: libdeadline says what failed in its own words. */
	dl_cg.cgroup_set_logger(quiet, CGROUP_LOG_ERROR, NULL);
	cg_init_ret = dl_cg.cgroup_init();
}

/* Why libcgroup is missing, and what to install. */
static const char *missing(char *buf, size_t len)
{
	snprintf(buf, len, "changing cgroups needs libcgroup, but " LIBCGROUP_SONAME " could not be loaded (%s): install the Debian package " LIBCGROUP_PACKAGE,
		 cg_error);
	return buf;
}

/* libcgroup loaded and set up; it reads the mount table once, and later
 * mounts are not seen (nor does libdeadline, cgroup/mount.c).  ELIBACC
 * (and why) when it cannot be loaded: no cgroup write gives that errno,
 * so callers can keep this message (dl_cg_why). */
int dl_cg_init(void)
{
	char why[1024];

	pthread_once(&cg_once, cg_do_init);
	if (cg_error[0])
		return dl_fail(-ELIBACC, "%s", missing(why, sizeof(why)));
	return cg_init_ret ? dl_cg_errno(cg_init_ret) : 0;
}

const char *dl_cg_why(int err)
{
	static __thread char why[1024];

	return err == -ELIBACC && cg_error[0] ? missing(why, sizeof(why)) : strerror(-err);
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

