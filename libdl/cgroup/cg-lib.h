/*
 * cg-lib.h: libcgroup's calls, loaded at run time by dl_cg_init()
 * (libcgroup.c says why): every change libdeadline makes to the cgroup
 * tree goes through them (cpuset.c, members.c, layout/move.c).  Internal.
 */
#ifndef LIBDL_CG_LIB_H
#define LIBDL_CG_LIB_H

#include <libcgroup.h>

#include "cgroup/cg.h"

#define DL_CG_SYMBOLS(X) \
	X(cgroup_init) \
	X(cgroup_set_logger) \
	X(cgroup_get_last_errno) \
	X(cgroup_new_cgroup) \
	X(cgroup_add_controller) \
	X(cgroup_add_value_string) \
	X(cgroup_set_uid_gid) \
	X(cgroup_set_permissions) \
	X(cgroup_create_cgroup) \
	X(cgroup_modify_cgroup) \
	X(cgroup_delete_cgroup_ext) \
	X(cgroup_attach_task_pid) \
	X(cgroup_free)

/* Each call, typed by libcgroup.h; set once dl_cg_init() returned 0. */
struct dl_cg_lib {
#define DL_CG_FIELD(name) __typeof__(name) *name;
	DL_CG_SYMBOLS(DL_CG_FIELD)
#undef DL_CG_FIELD
};
extern struct dl_cg_lib dl_cg;

/* cpuset.c: a libcgroup cgroup of the cpuset controller ("" or NULL: the
 * root), owned by root, its controller in *ctrl when ctrl is given; NULL
 * when out of memory.  dl_cg_init() first. */
struct cgroup *dl_cs_lcg(const char *name, struct cgroup_controller **ctrl);

#endif
