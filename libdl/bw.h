/*
 * bw.h: root domains and their deadline bandwidth (libdl/README): which
 * root domains the cpusets make, the kernel's figures, what is admitted,
 * expected (fair servers + live tasks), free and drifted; the kernel's
 * admission rule; why a request was refused; the drift repair.  Above
 * cg.h; below the layouts and the analysis.  Internal.
 */
#ifndef LIBDL_BW_H
#define LIBDL_BW_H

#include "cg.h"

/* explain.c: dl_explain's text as the failure message of err. */
int dl_explain_set_failure(int err, pid_t tid, const struct dl_params *p);

/* rd.c: the root domains, as spans of CPUs (def_root_domain last). */
int dl_rd_spans(dl_cpus_t **spans, size_t *count);
/* A root domain's figures, in words. */
char *dl_rd_text(const struct dl_rd *rd, char *buf, size_t len);

/* bw.c: the kernel's figures and the accounting of a root domain. */
int dl_kernel_bw(int cpu, uint64_t *bw, int64_t *total_bw);
int dl_kernel_bw_all(int64_t *kbw, int64_t *ktotal, int ncpus);
void dl_rd_fill(struct dl_rd *rd, const dl_cpus_t *span, const struct dl_task *tasks,
		size_t ntasks, const int64_t *kbw, const int64_t *ktotal);
int64_t *dl_kernel_bw_read(void); /* 2 x DL_CPUS_MAX: bw, then total_bw; NULL */
int dl_debugfs_path(char *buf, size_t len);
int dl_fair_server_bw(int cpu, uint64_t *bw);
int dl_rt_bw(uint64_t *bw, bool *unlimited);

/* drift.c: wait until no exited deadline task still holds bandwidth;
 * rebuild the root domains (the caller holds the layout lock). */
int dl_wait_quiet(unsigned int timeout_ms);
int dl_rd_rebuild_locked(void);

#endif
