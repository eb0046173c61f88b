/*
 * systemd.h: a layout made of systemd units, on a host whose PID 1 is
 * systemd on cgroup v2 (internal; backend-systemd.c).
 */
#ifndef LIBDL_CG_SYSTEMD_H
#define LIBDL_CG_SYSTEMD_H

#include "layout/layout.h"

/* The slices: DL_SD_PARENT.slice, and DL_SD_PARENT-NAME.slice in it. */
#define DL_SD_PARENT "libdl"

/* systemd is PID 1 (as sd_booted(3) tells), cpusets are v2, and this
 * library was built with libsystemd: layouts go through systemd. */
bool dl_sd_host(void);
/* A member's cgroup: NULL the parent slice, DL_CLUSTER the root. */
int dl_sd_cgroup(const char *member, char *buf, size_t len);
/* What the direct path checks otherwise: names, the cluster, leftovers. */
int dl_sd_check(const struct dl_layout *l);
int dl_sd_create(struct dl_layout *l, struct dl_layout_result *res);
int dl_sd_destroy(const struct dl_layout *l, struct dl_layout_result *res);
/* Process pid into a transient scope of the member's slice. */
int dl_sd_attach(const char *member, pid_t pid);
/* Threads in a cgroup and every cgroup below it. */
int dl_sd_count(const char *cg, uint64_t *threads, uint64_t *deadline);

#endif
