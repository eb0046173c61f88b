/*
 * cg.h: the cgroup layer of libdeadline (libdl/README): the cpuset
 * hierarchy of either cgroup version, cpusets by name; libcgroup, set up
 * once, to move tasks.
 * Above sys.h; below the root domains (bw.h).  Internal.
 */
#ifndef LIBDL_CG_H
#define LIBDL_CG_H

#include "sys/sys.h"

/* The cgroups libdl makes are named DL_LAYOUT_PARENT and below it. */
#define DL_LAYOUT_PARENT "libdl"

/* libcgroup.c: libcgroup, loaded and initialised once (by the moves
 * only), its codes mapped to -errno. */
int dl_cg_init(void);
int dl_cg_errno(int ret);
/* What a cgroup change's err says, for a message: strerror(), or, when
 * libcgroup could not be loaded, why and what to install. */
const char *dl_cg_why(int err);

/* mount.c: the hierarchy. */
int dl_cpuset_version(void); /* 1, 2, or a negative errno */
int dl_cpuset_mount(char *buf, size_t len);
/* Whether a space-separated list of controllers names ctrl. */
bool dl_cg_lists(const char *list, const char *ctrl);
/* What the two versions name differently, chosen once with the version;
 * NULL when no cpuset controller is mounted. */
struct dl_cg_files {
	int version;
	const char *effective; /* a cpuset's effective CPUs */
	const char *threads;   /* its threads */
	const char *procs;     /* its processes (v1: its threads) */
};
const struct dl_cg_files *dl_cg_files(void);

/* cpuset.c: cpusets by name below the hierarchy's root ("" is the root). */
struct dl_kv {
	const char *key;
	const char *value;
};
int dl_cs_path(const char *name, const char *file, char *buf, size_t len);
bool dl_cs_exists(const char *name);
int dl_cs_read(const char *name, const char *file, char *buf, size_t len);
/* A CPU list file of the cpuset; its effective CPUs (either version). */
int dl_cs_cpus(const char *name, const char *file, dl_cpus_t *set);
int dl_cs_effective(const char *name, dl_cpus_t *set);
/* The one walker of the cpuset tree: fn sees every child cpuset below
 * name ("" the root), by name, depth first in directory order, with its
 * depth (0: name's own children), and answers DL_CS_NEXT to go on to the
 * next sibling, DL_CS_DESCEND to visit the child's children first,
 * DL_CS_STOP to end the walk, or a negative errno to end it with that.
 * dl_cs_walk returns 0 or that errno; -ELOOP (or -ENAMETOOLONG), with a
 * message naming the place, for a tree deeper than DL_CS_MAX_DEPTH levels
 * below name (or one whose path is too long to open), which it does not
 * follow.  It keeps its place on the heap: no depth costs stack. */
enum { DL_CS_NEXT, DL_CS_DESCEND, DL_CS_STOP };
#define DL_CS_MAX_DEPTH 256
typedef int dl_cs_visit(const char *name, int depth, void *arg);
int dl_cs_walk(const char *name, dl_cs_visit *fn, void *arg);
/* A flag file (cpu_exclusive, sched_load_balance) that reads "1". */
bool dl_cs_flag(const char *name, const char *file);
int dl_cs_create(const char *name, const struct dl_kv *kv, size_t n);
int dl_cs_write(const char *name, const char *key, const char *value);
int dl_cs_remove(const char *name);
/* v2: "+cpuset" or "-cpuset" into the root cgroup's subtree_control. */
int dl_cs_root_subtree(const char *change);
/* v2: a partition of type ("root", "isolated", "member"), read back. */
int dl_cs_make_partition(const char *name, const char *type);
/* v2: 1 when the root cgroup's subtree_control lists ctrl, 0 if not. */
int dl_cs_root_subtree_has(const char *ctrl);

/* members.c: the TIDs (v1, or threads) or PIDs (v2) a cpuset lists, read
 * whole; its threads and how many are deadline threads; one task (v1: a
 * thread, v2: its process) moved into it. */
int dl_cs_tasks(const char *name, bool threads, pid_t **out, size_t *n);
int dl_cs_count_threads(const char *name, uint64_t *threads, uint64_t *deadline);
int dl_cs_attach(const char *name, pid_t tid);

#endif
