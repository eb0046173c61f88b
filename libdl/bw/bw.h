/*
 * bw.h: root domains and their deadline bandwidth (libdl/README): which
 * root domains the cpusets make, the kernel's figures, what is admitted,
 * expected (fair servers + live tasks), free and drifted; the kernel's
 * admission rule; why a request was refused; the drift repair.  Above
 * cg.h; below the layouts and the analysis.  Internal.
 */
#ifndef LIBDL_BW_H
#define LIBDL_BW_H

#include "cgroup/cg.h"

#define DL_DEBUGFS "/sys/kernel/debug"
/* A deadline server's default: 50 ms every 1000 ms (sched_init_dl_servers(),
 * kernel/sched/deadline.c). */
#define DL_SERVER_RUNTIME_DEFAULT 50000000ULL
#define DL_SERVER_PERIOD_DEFAULT 1000000000ULL

/* set.c: threads held from their check to their rollback, each by a
 * descriptor of its /proc directory (a thread's id goes to another thread
 * once it exits; the descriptor does not).  dl_held_open: 0, or -ESRCH
 * (gone) or -EMFILE; with DL_PROC_OWNED a thread that is not the caller's
 * is marked foreign.  dl_held_set: p on it, its old attributes kept,
 * the thread asked for right before and after (set.c).
 * dl_held_result: 0, or the failure of one thread's dl_held_set,
 * explained.  dl_held_restore: every one set put back, newest first,
 * when it is still alive and (DL_PROC_OWNED) still the caller's.
 * dl_held_finish:
 * the status list, and on a failure the first one explained and (without
 * DL_PROC_PARTIAL) the rest restored: the count of live threads or the
 * negative errno.  dl_held_close: the descriptors, and h itself. */
struct dl_held {
	pid_t tid;
	int fd;
	unsigned long long start; /* its start time: the thread, not its id */
	int err;      /* 0, or why it was not set */
	bool foreign; /* refused: not the caller's */
	bool set;     /* changed: restore it on rollback */
	bool gone;    /* exited meanwhile: not reported */
	struct dl_sched_attr old;
};
int dl_held_open(pid_t pid, pid_t tid, unsigned int flags, struct dl_held *h);
void dl_held_set(struct dl_held *h, const struct dl_params *p, unsigned int flags);
int dl_held_result(const struct dl_held *h, const struct dl_params *p);
void dl_held_restore(struct dl_held *h, size_t n, unsigned int flags);
int dl_held_finish(pid_t pid, struct dl_held *h, size_t n, const struct dl_params *p, unsigned int flags,
		   struct dl_thread_status **status, size_t *count);
void dl_held_close(struct dl_held *h, size_t n);

/* explain.c: dl_explain's text as the failure message of err. */
int dl_explain_set_failure(int err, pid_t tid, const struct dl_params *p);

/* rootdomains.c: the root domains, as spans of CPUs (def_root_domain last). */
int dl_rd_spans(dl_cpus_t **spans, size_t *count);
/* The root domains from one read of sched/debug, without the scan of
 * /proc: 0 when that read lists no deadline thread and every root
 * domain counts exactly its fair servers (the scan would find nothing to
 * add: *out is what dl_rd_list gives); 1 when it cannot tell, *out NULL:
 * scan.  Or a negative errno. */
int dl_rd_idle(struct dl_rd **out, size_t *count);
/* A root domain's figures, in words. */
char *dl_rd_text(const struct dl_rd *rd, char *buf, size_t len);

/* sched-debug.c: the kernel's per-CPU figures from the text of
 * sched/debug (kbw[cpu], ktotal[cpu]: -2 where it says nothing of a
 * CPU) and, with ndeadline, how many threads it lists at deadline
 * priority (-1: unknown).  0, or -ENOENT when it holds no dl_rq block. */
int dl_sched_debug_parse(FILE *f, int64_t *kbw, int64_t *ktotal, int ncpus, int *ndeadline);

/* kernel.c: the kernel's figures, read. */
int dl_kernel_bw(int cpu, uint64_t *bw, int64_t *total_bw);
int dl_kernel_bw_all(int64_t *kbw, int64_t *ktotal, int ncpus, int *ndeadline);
int64_t *dl_kernel_bw_read(void); /* 2 x DL_CPUS_MAX: bw, then total_bw; NULL */
/* The same, and how many threads that read lists at deadline priority
 * (-1: unknown). */
int64_t *dl_kernel_bw_census(int *ndeadline);
int dl_debugfs_path(char *buf, size_t len);
/* The deadline servers the kernel counts on a CPU: its fair server, and
 * on 7.x its ext server while a BPF scheduler is attached. */
int dl_fair_server_bw(int cpu, uint64_t *bw);
/* Which servers the kernel has attached now: the fair one unless a BPF
 * scheduler took every task, the ext one while a BPF scheduler runs. */
void dl_servers_attached(bool *fair, bool *ext);
/* Whether this kernel's rebuilds may leave the fair servers out of a
 * root domain's total_bw (6.12, 6.13), and the rule by release. */
bool dl_fair_droppable(void);
bool dl_fair_droppable_release(int major, int minor);
int dl_rt_bw(uint64_t *bw, bool *unlimited);
/* sched_rt_runtime_us and sched_rt_period_us as a CPU's capacity. */
void dl_rt_ratio(int64_t runtime_us, int64_t period_us, uint64_t *bw, bool *unlimited);

/* server.c: a server kind's name in words ("fair server"); which of a
 * server's two files to write first on the way from one setting to
 * another (the order whose pair in between the kernel takes). */
const char *dl_server_name(int kind);
/* A server's runtime and period as the kernel holds them, read (its
 * files must answer: lockdown and a missing debugfs said). */
int dl_server_read(int cpu, int kind, uint64_t *runtime, uint64_t *period);
bool dl_server_runtime_first(uint64_t old_runtime, uint64_t old_period, uint64_t runtime, uint64_t period);

/* account.c: the accounting of a root domain. */
uint32_t dl_cpu_capacity(int cpu);
/* The capacity a CPU needs to run p in time (dl_task_fits_capacity()). */
uint32_t dl_cap_need(const struct dl_params *p);
void dl_cpus_fitting(const dl_cpus_t *span, uint32_t need, dl_cpus_t *fit);
void dl_rd_fill(struct dl_rd *rd, const dl_cpus_t *span, const struct dl_task *tasks,
		size_t ntasks, const int64_t *kbw, const int64_t *ktotal);
/* Which of rd's fair servers the kernel's total_bw holds: fair_bw those
 * it counts, uncounted_fair_bw the rest (droppable: dl_fair_droppable). */
void dl_rd_fair_counted(struct dl_rd *rd, bool droppable);
/* The drift verdict (DL_DRIFT_*) once a high count had its time to
 * settle, or not yet; the one rule behind dl_rd_drift and dl_drift_check. */
int dl_bw_verdict(const struct dl_rd *rd, bool settled);
/* capacity - total_bw (INT64_MAX: unlimited): the room left. */
int64_t dl_bw_free(const struct dl_rd *rd);
/* The kernel's __dl_overflow(): true when a request of new_bw, replacing
 * old, does not fit rd. */
bool dl_bw_overflow(const struct dl_rd *rd, uint64_t old, uint64_t new_bw);

/* admit.c: the kernel's admission of a request, in __sched_setscheduler()'s
 * order, and what it found on the way (explain.c and dl_predict render it). */
enum dl_admit_step {
	DL_ADMIT_OK,       /* admitted (or no bandwidth test: unlimited) */
	DL_ADMIT_NO_CAP,   /* EPERM: no CAP_SYS_NICE */
	DL_ADMIT_AFFINITY, /* EPERM: the affinity does not cover the root domain */
	DL_ADMIT_NO_BW,    /* EPERM: the root domain has no deadline bandwidth */
	DL_ADMIT_OVERFLOW, /* EBUSY: sched_dl_overflow() */
};
struct dl_admission {
	enum dl_admit_step step;
	int cpu;             /* the CPU the thread is on */
	struct dl_rd rd;     /* that CPU's root domain */
	dl_cpus_t affinity;
	bool have_affinity;
	uint64_t need, old;  /* the request, and what it replaces */
	uint32_t cap_need;   /* the CPU capacity each thread needs (dl_cap_need()); 0: not known */
};
/* 0 with the verdict in a, or a negative errno when the thread or its
 * root domain cannot be found (after the capability test). */
int dl_admit(pid_t tid, uint64_t need, uint64_t old, struct dl_admission *a);
/* The rule on a->rd, a->affinity (when a->have_affinity), a->need and
 * a->old, as filled in: the step in a->step. */
void dl_admit_decide(struct dl_admission *a);

/* explain.c: the threads a request covers (all: every thread of pid)
 * and the bandwidth they hold now; and a verdict as dl_predict_verdict(3)
 * gives it, from the admission a of n threads of pid (1 admitted, 0
 * refused). */
int dl_threads_bw(pid_t pid, bool all, uint64_t *n, uint64_t *old);
/* A verdict's start: v zeroed, p normalized into norm; 1 to go on, or 0
 * with v->step DL_VERDICT_INVALID and why said (why must not be NULL). */
int dl_verdict_begin(struct dl_verdict *v, const struct dl_params *p, struct dl_params *norm, char *why,
		     size_t len);
int dl_verdict_render(pid_t pid, uint64_t n, const struct dl_admission *a, struct dl_verdict *v,
		      char *why, size_t len);

/* drift.c: wait until no exited deadline task still holds bandwidth. */
int dl_wait_quiet(unsigned int timeout_ms);

/* rebuild.c: rebuild the root domains (the caller holds the layout
 * lock), with SIGINT, SIGTERM, SIGHUP and SIGQUIT held back until its
 * probe is gone; remove the probes of repairs killed with SIGKILL
 * (their pid gone), how many. */
int dl_rd_rebuild_locked(void);
/* rebuild.c: a rebuild that makes CPU cpu's root domain again (the
 * caller holds the layout lock). */
int dl_rd_remake_locked(int cpu);
int dl_rd_sweep_probes(void);

#endif
