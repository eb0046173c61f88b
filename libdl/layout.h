/*
 * layout.h: the layout object and the steps that make and unmake it
 * (internal).
 */
#ifndef LIBDL_LAYOUT_H
#define LIBDL_LAYOUT_H

#include <time.h>

#include "internal.h"

#define DL_STATE_DIR "/run/libdl"
#define DL_LAYOUT_PARENT "libdl"

struct dl_layout_part {
	char name[DL_LAYOUT_NAME_MAX + 1];
	dl_cpus_t cpus;
};

struct dl_layout {
	/* What was asked (and, once checked, completed). */
	struct dl_layout_part *parts;
	size_t nparts;
	dl_cpus_t cluster;
	bool cluster_set;
	dl_cpus_t mems;
	bool mems_set;
	unsigned int flags;
	/* What create changed, for destroy (the state file). */
	int version;            /* cgroup version of the cpuset controller */
	char phase[16];         /* "creating", "complete", "destroying" */
	pid_t creator;
	time_t created;
	int root_lb;            /* v1: the root's sched_load_balance before; -1 unknown */
	bool enabled_subtree;   /* v2: create wrote +cpuset into the root's subtree_control */
	bool cluster_partition; /* v2: the cluster is a root partition of its own */
	bool systemd;           /* v2 under systemd: made of its units (cg-systemd.c) */
};

/* layout.c */
int dl_layout_validate(struct dl_layout *l);
int dl_layout_cgroup(const struct dl_layout *l, const char *member, char *buf, size_t len);
int dl_layout_save(const struct dl_layout *l);
int dl_layout_forget(void);
int dl_layout_lock(void);
char *dl_layout_text(const struct dl_layout *l, char *buf, size_t len);

/* partition.c: the steps, and fault injection for the tests. */
int dl_step(struct dl_layout_result *res, const char *what);

/* tasks between cpusets */
int dl_cs_move_all(const char *from, const char *to, bool threads, struct dl_layout_result *res);
int dl_cs_count_threads(const char *name, uint64_t *threads, uint64_t *deadline);

/* drift.c: wait until no exited deadline task still holds bandwidth. */
int dl_wait_quiet(unsigned int timeout_ms);

#endif
