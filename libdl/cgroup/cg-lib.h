/*
 * cg-lib.h: libcgroup's calls, loaded at run time by dl_cg_init()
 * (libcgroup.c says why), for the files that move tasks.  Internal.
 */
#ifndef LIBDL_CG_LIB_H
#define LIBDL_CG_LIB_H

#include <libcgroup.h>

#include "cgroup/cg.h"

#define DL_CG_SYMBOLS(X) \
	X(cgroup_init) \
	X(cgroup_get_last_errno) \
	X(cgroup_new_cgroup) \
	X(cgroup_add_controller) \
	X(cgroup_attach_task_pid) \
	X(cgroup_free)

/* Each call, typed by libcgroup.h; set once dl_cg_init() returned 0. */
struct dl_cg_lib {
#define DL_CG_FIELD(name) __typeof__(name) *name;
	DL_CG_SYMBOLS(DL_CG_FIELD)
#undef DL_CG_FIELD
};
extern struct dl_cg_lib dl_cg;

/* members.c: a libcgroup cgroup of the cpuset controller ("" or NULL: the
 * root), to move tasks into; NULL when out of memory.  dl_cg_init()
 * first. */
struct cgroup *dl_cs_lcg(const char *name);

#endif
