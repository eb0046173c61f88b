/*
 * libdeadline: make Linux's SCHED_DEADLINE practical.
 *
 * A function that can fail returns 0 or a count, or a negative errno; or
 * (constructors, formatters, accessors of a pointer) a pointer, or NULL
 * with errno set; or (predicates: dl_predict, dl_predict_verdict,
 * dl_policy_check, dl_have_cap_sys_nice) 1, 0, or a negative errno.
 * When a call fails, dl_errmsg() returns a sentence that says why and
 * what to do, for the calling thread, until the next failure.  Outputs
 * are cleared on entry.  An object with parts has its dl_*_free(); a
 * result that is one block (an array, a test's result) is free()d whole.
 * Times are nanoseconds, bandwidths int64_t.
 *
 * See libdeadline(3).
 *
 * ABI (libdl/ABI): structs the caller allocates, or that the library
 * returns in arrays, end in reserved space that later releases turn
 * into fields without changing their size.  The library zeroes the
 * reserved space of what it returns; what the caller passes in must be
 * all zeros there (initialise the whole struct: `= { .runtime = ... }`
 * or memset), or the call fails with EINVAL.  Structs the library
 * allocates alone and returns by pointer grow at the end.
 */
#ifndef LIBDEADLINE_H
#define LIBDEADLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel's policy number (glibc's <sched.h> may not define it). */
#define DL_SCHED_DEADLINE 6

/* Flags of struct dl_params: the kernel's SCHED_FLAG_* values. */
#define DL_FLAG_RESET_ON_FORK  0x01 /* children start as SCHED_OTHER */
#define DL_FLAG_RECLAIM        0x02 /* GRUB: reclaim unused bandwidth */
#define DL_FLAG_DL_OVERRUN     0x04 /* SIGXCPU when the runtime overruns */
#define DL_FLAG_UTIL_CLAMP_MIN 0x20 /* util_min is set */
#define DL_FLAG_UTIL_CLAMP_MAX 0x40 /* util_max is set */
#define DL_FLAGS_ALL (DL_FLAG_RESET_ON_FORK | DL_FLAG_RECLAIM | \
		      DL_FLAG_DL_OVERRUN | DL_FLAG_UTIL_CLAMP_MIN | \
		      DL_FLAG_UTIL_CLAMP_MAX)

/* The largest utilization clamp value (the kernel's SCHED_CAPACITY_SCALE). */
#define DL_UTIL_MAX 1024

/* Bandwidths are fixed point with 20 fractional bits, as in the kernel:
 * DL_BW_UNIT is 1.0, a whole CPU.  Every bandwidth in the API is an
 * int64_t (a free bandwidth can be negative). */
#define DL_BW_SHIFT 20
#define DL_BW_UNIT (1ULL << DL_BW_SHIFT)

/* A set of CPUs (a bitmap of DL_CPUS_MAX bits, like glibc's cpu_set_t,
 * without needing _GNU_SOURCE). */
#define DL_CPUS_MAX 1024
typedef struct {
	uint64_t bits[DL_CPUS_MAX / 64];
} dl_cpus_t;

static inline void dl_cpus_zero(dl_cpus_t *s)
{
	for (unsigned i = 0; i < DL_CPUS_MAX / 64; i++)
		s->bits[i] = 0;
}
static inline void dl_cpus_set(dl_cpus_t *s, int cpu)
{
	if (cpu >= 0 && cpu < DL_CPUS_MAX)
		s->bits[cpu / 64] |= 1ULL << (cpu % 64);
}
static inline void dl_cpus_clr(dl_cpus_t *s, int cpu)
{
	if (cpu >= 0 && cpu < DL_CPUS_MAX)
		s->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}
static inline bool dl_cpus_isset(const dl_cpus_t *s, int cpu)
{
	return cpu >= 0 && cpu < DL_CPUS_MAX &&
	       (s->bits[cpu / 64] >> (cpu % 64)) & 1;
}
int dl_cpus_count(const dl_cpus_t *s);
bool dl_cpus_equal(const dl_cpus_t *a, const dl_cpus_t *b);
bool dl_cpus_subset(const dl_cpus_t *a, const dl_cpus_t *b); /* a within b */
bool dl_cpus_intersects(const dl_cpus_t *a, const dl_cpus_t *b);
/* Kernel CPU-list format: "0", "1-7", "0,2-3". */
int dl_cpus_parse(const char *text, dl_cpus_t *set);
/* The longest list of DL_CPUS_MAX CPUs ("0-1,3-4,6-7,...", 2673
 * characters) and its NUL, with room. */
#define DL_CPUS_STRLEN 2688
char *dl_cpus_format(const dl_cpus_t *set, char *buf, size_t len);
int dl_cpus_online(dl_cpus_t *set);

/* A deadline reservation. */
struct dl_params {
	uint64_t runtime;  /* ns of CPU time per period */
	uint64_t deadline; /* ns from the period's start; 0: the period */
	uint64_t period;   /* ns; 0: the deadline */
	uint64_t flags;    /* DL_FLAG_* */
	uint32_t util_min; /* 0..DL_UTIL_MAX, with DL_FLAG_UTIL_CLAMP_MIN */
	uint32_t util_max; /* 0..DL_UTIL_MAX, with DL_FLAG_UTIL_CLAMP_MAX */
	uint64_t reserved[2]; /* must be zero */
};

/* Errors: the explanation of this thread's last failure. */
const char *dl_errmsg(void);

/* A name from the system (a thread's, a cgroup's) made safe to print:
 * bytes outside printable ASCII as \xNN, a backslash as \\; cut to fit
 * len.  Returns out. */
char *dl_str_escape(const char *in, char *out, size_t len);

/* A file replaced whole or not at all (dl_file_replace(3)): a temporary
 * file of a new name beside it, written, given mode, fsync'd when
 * durable, renamed over path.  For files other programs read while they
 * change (a metrics file, a state file). */
int dl_file_replace(const char *path, const char *text, size_t len, mode_t mode, bool durable);

/* Times: "200ms", "1.5ms", "500us", "750ns", "1s"; a bare integer is ns. */
int dl_time_parse(const char *text, uint64_t *ns);
/* Room for any time ("18446744073.709551615s" and its NUL) and any
 * bandwidth ("-8796093022208.0000"): either buffer serves both.  The
 * formatters return buf, or NULL with errno ERANGE when len is too
 * small for the value (buf is then ""). */
#define DL_TIME_STRLEN 32
#define DL_BW_STRLEN 32
char *dl_time_format(uint64_t ns, char *buf, size_t len);

/* Parameters: fill in the defaults and check them as the kernel would. */
int dl_params_normalize(const struct dl_params *in, struct dl_params *out);
int64_t dl_params_bw(const struct dl_params *p);
/* A bandwidth as a fraction of one CPU, four decimals: "0.4125". */
char *dl_bw_format(int64_t bw, char *buf, size_t len);
int dl_period_limits(uint64_t *min_ns, uint64_t *max_ns);

/* The syscall layer.  tid 0 is the calling thread. */
int dl_set(pid_t tid, const struct dl_params *p);
/* dl_set() for a caller that holds CAP_SYS_NICE on behalf of a user: it
 * refuses a thread that is not the caller's by the kernel's own rule for
 * callers without the capability (dl_set_owned(3)). */
int dl_set_owned(pid_t tid, const struct dl_params *p);
int dl_get(pid_t tid, struct dl_params *p);
int dl_clear(pid_t tid);

/* The budget a deadline thread's current job has left, as the kernel's
 * CBS holds it now (dl_get_budget(3)): Linux 7.1 and later; elsewhere
 * ENOTSUP, found once per process. */
struct dl_budget {          /* the caller's: its size is fixed */
	int64_t runtime;    /* ns of this period's runtime left; <= 0 once used up
			     * (below 0 by what the job overran, until replenished) */
	uint64_t deadline;  /* the current absolute deadline, CLOCK_MONOTONIC ns */
	uint64_t reserved[6];
};
int dl_get_budget(pid_t tid, struct dl_budget *b);

struct dl_thread_status {
	pid_t tid;
	int err; /* 0, or the negative errno this thread failed with */
	uint32_t reserved[2];
};
#define DL_PROC_PARTIAL 0x1 /* keep the threads that were set when others fail */
#define DL_PROC_OWNED   0x2 /* refuse threads that are not the caller's (dl_set_owned) */
int dl_set_process(pid_t pid, const struct dl_params *p, unsigned int flags,
		   struct dl_thread_status **status, size_t *count);

/* Who may reserve how much through a program that holds CAP_SYS_NICE
 * for its users (dl-run.conf(5), dl_policy_read(3)).  A missing file is
 * the built-in default.  dl_policy_check(): 1 allowed, 0 refused, why
 * says why; for the calling process's user, for pid (0: the calling
 * thread) or every thread of it.  dl_policy_set(): the check and the
 * change as one step of the user's (1 set, 0 refused, or a negative
 * errno with nothing changed), on the threads it checked. */
struct dl_policy;
int dl_policy_read(const char *path, struct dl_policy **pol);
int dl_policy_parse(const char *text, size_t len, const char *origin, struct dl_policy **pol);
int dl_policy_check(const struct dl_policy *pol, pid_t pid, bool all_threads,
		    const struct dl_params *p, char *why, size_t len);
int dl_policy_set(const struct dl_policy *pol, pid_t pid, bool all_threads, const struct dl_params *p,
		  struct dl_thread_status **status, size_t *count, char *why, size_t len);
void dl_policy_free(struct dl_policy *pol);
/* A container an engine starts, judged by the same file's rules for
 * containers (dl-run.conf(5), CONTAINERS; dl_policy_container_check(3)):
 * a Kubernetes pod's by its namespace's rule (none: refused, root's
 * engine included), any other by an "engine podman" rule when there is
 * one.  dl_policy_container_set(): the check, the kernel's change of
 * c->pid and the record of whose it is, as one step of the node's: 1
 * set, 0 refused (why), or a negative errno (the kernel's, as dl_set's,
 * or the system's), nothing changed. */
struct dl_container {
	const char *ns;     /* the pod's Kubernetes namespace; NULL: no pod's (podman's) */
	const char *pod;    /* the pod's name, or NULL */
	const char *name;   /* the container's name, or NULL */
	const char *member; /* the layout member it starts in (a partition, DL_CLUSTER), or NULL */
	pid_t pid;          /* its process: dl_policy_container_set */
	uint64_t reserved[4];
};
int dl_policy_container_check(const struct dl_policy *pol, const struct dl_container *c,
			      const struct dl_params *p, char *why, size_t len);
int dl_policy_container_set(const struct dl_policy *pol, const struct dl_container *c,
			    const struct dl_params *p, char *why, size_t len);
/* A container whose annotations ask for a reservation and whose process
 * holds none (created while the engine's plugin was not running:
 * libdl-nri(8)), recorded for dl-stat while its process lives
 * (dl_container_unreserved_add(3)): 1 recorded, 0 not (it holds one), or
 * a negative errno.  _list(): the recorded ones that still live without
 * a reservation, an array to free(). */
struct dl_container_unreserved {
	pid_t pid;
	char ns[65];   /* the pod's namespace */
	char pod[254]; /* the pod's name */
	char name[64]; /* the container's name */
	uint64_t reserved[4];
};
int dl_container_unreserved_add(const struct dl_container *c);
int dl_container_unreserved_list(struct dl_container_unreserved **list, size_t *count);

/* Explanations: why a request failed, from the system as it is now. */
int dl_explain(int err, pid_t tid, const struct dl_params *p,
	       char *buf, size_t len);
int dl_have_cap_sys_nice(void);
/* Clear every capability set before running another program (not for
 * root): what a setcap'd program holds is not handed on. */
int dl_caps_drop(void);
/* Would the kernel admit p for pid (0: the calling thread), or for every
 * thread of pid, now?  1 yes, 0 no; why says why.  Changes nothing. */
int dl_predict(pid_t pid, bool all_threads, const struct dl_params *p,
	       char *why, size_t len);

/* Periodic tasks (dl_periodic_start(3)): a loop of jobs, each measured.
 *
 *	dl_periodic_start(&pt, &params, DL_PERIODIC_SLEEP, 0);
 *	for (;;) {
 *		do_the_computation();
 *		dl_periodic_next(pt, &job);   (job: the one just done)
 *	}
 *
 * DL_PERIODIC_YIELD: the article's pattern; sched_yield() ends a job and
 * the kernel's next replenishment releases the next: releases follow the
 * kernel's own period grid, and the CBS moving that grid later is
 * reported (dl_job.reanchor), not counted as every later job late.
 * DL_PERIODIC_SLEEP: releases on an absolute grid, first_release + i x
 * period, slept to with clock_nanosleep(TIMER_ABSTIME), as sporadic
 * tasks, rt-app and cyclicdeadline do. */
int dl_yield(void);

#define DL_PERIODIC_YIELD 0
#define DL_PERIODIC_SLEEP 1
/* Or'd into the mode: the same releases and measurements with no
 * reservation (no sched_setattr, no CAP_SYS_NICE), for tests. */
#define DL_PERIODIC_NO_RESERVATION 0x100
/* Or'd into the mode: publish the loop's counters (jobs, misses,
 * overruns, responses) for dl-stat(1) to read, in a record of the
 * thread's own under /run (dl_counts_list(3)); each job writes memory
 * only: no system call, no allocation, no lock. */
#define DL_PERIODIC_PUBLISH 0x200
/* Or'd into DL_PERIODIC_SLEEP: what follows a job that ends at or after
 * the next release, rt-app's timer modes (its doc/tutorial.txt).
 * Neither: the releases that have passed are skipped but the latest, and
 * the next job is that one's (dl_job.skipped counts the others).
 * DL_PERIODIC_RELATIVE: the grid restarts at the late job's end; the next
 * job is released there and the ones after it a period apart
 * (dl_job.reanchor says by how much the grid moved; rt-app's default).
 * DL_PERIODIC_ABSOLUTE: the grid stays; every release that passed is a
 * job, run at once one after the other until they catch up. */
#define DL_PERIODIC_RELATIVE 0x400
#define DL_PERIODIC_ABSOLUTE 0x800

struct dl_periodic; /* opaque */

/* Memory made ready for real-time jobs (dl_prefault(3)), before the
 * first: the process's memory locked (mlockall(MCL_CURRENT |
 * MCL_FUTURE)), stack_bytes of the calling thread's stack and heap_bytes
 * of heap touched and kept, so that no job takes a page fault. */
#define DL_PREFAULT_NO_LOCK 0x1 /* touch the pages, lock nothing */
int dl_prefault(size_t stack_bytes, size_t heap_bytes, unsigned int flags);

struct dl_job {            /* the library's, in arrays (dl_load_task.jobs): its size is fixed */
	uint64_t index;    /* its period's number, from 0 (skipped periods count) */
	uint64_t release;  /* CLOCK_MONOTONIC ns: when it was released (see the mode) */
	uint64_t deadline; /* absolute: release + the relative deadline */
	uint64_t start;    /* when it began to run */
	uint64_t end;      /* when it ended (dl_periodic_next() was called) */
	uint64_t response; /* end - release */
	uint64_t tardiness;/* end - deadline when late, else 0 */
	uint64_t skipped;  /* periods with no job just before this one */
	uint64_t reanchor; /* yield: ns the kernel moved its grid later just before it */
	uint64_t cpu;      /* its thread's CPU time since the job before ended */
	uint32_t overruns; /* SIGXCPU (DL_FLAG_DL_OVERRUN) received during it */
	bool met;          /* end <= deadline */
	uint32_t minflt;   /* page faults its thread took since the job before ended: */
	uint32_t majflt;   /* minor (no I/O) and major (read from disk); an older library leaves 0 */
	uint64_t reserved[3];
};

struct dl_periodic_stats { /* allocated by the library: fields may be added at the end */
	uint64_t jobs, misses, skipped, overruns;
	uint64_t reanchors, reanchor_ns;   /* the kernel's grid moves, and their sum */
	/* min and max exact; a percentile from a fixed histogram: never
	 * below the exact nearest-rank value, less than 1/128 above it */
	uint64_t response_min, response_p50, response_p90, response_p99, response_max;
	uint64_t tardiness_max;
	uint64_t minflt, majflt;           /* page faults over every job (dl_job.minflt, majflt) */
	uint64_t faulted;                  /* jobs after the first that took a page fault */
};

int dl_periodic_start(struct dl_periodic **pt, const struct dl_params *p, int mode,
		      uint64_t first_release);
int dl_periodic_next(struct dl_periodic *pt, const struct dl_job **done);
const struct dl_periodic_stats *dl_periodic_stats(struct dl_periodic *pt);
/* dl_get_budget(3) of the loop's thread: what its job has left. */
int dl_periodic_budget(struct dl_periodic *pt, struct dl_budget *b);
void dl_periodic_free(struct dl_periodic *pt);

/* The counters the periodic loops started with DL_PERIODIC_PUBLISH
 * publish (dl_counts_list(3)), one per live thread: a record that did
 * not pass every check (its owner, its thread alive and the owner's,
 * its format) is not listed.  Response times in buckets of powers of
 * two: bucket i < DL_COUNTS_BUCKETS - 1 counts the jobs whose response
 * was at most DL_COUNTS_LE_NS(i) and more than the bucket before's; the
 * last one, the rest. */
#define DL_COUNTS_BUCKETS 24
#define DL_COUNTS_LE_NS(i) (UINT64_C(1024) << (i))
struct dl_task_counts {              /* the library's, in arrays: its size is fixed */
	pid_t pid;
	pid_t tid;
	uid_t uid;                   /* whose record (and thread) it is */
	char comm[17];               /* the thread's name when it began publishing */
	struct dl_params params;     /* its reservation then */
	uint64_t jobs;               /* jobs ended */
	uint64_t misses;             /* of them, ended after their deadline */
	uint64_t overruns;           /* SIGXCPU received by the thread (DL_FLAG_DL_OVERRUN) */
	uint64_t response_max;       /* ns */
	uint64_t response_sum;       /* ns, of every job's response */
	uint64_t buckets[DL_COUNTS_BUCKETS];
	uint64_t reserved[8];
};
int dl_counts_list(struct dl_task_counts **counts, size_t *count);

/* Task sets (the format of libdl-taskset(5)): one task per line. */
struct dl_taskset;                 /* opaque */
struct dl_taskspec {               /* allocated by the library only: fields may be added at the end */
	const char *name;          /* "heavy"; count=N copies are "light.1".."light.N" */
	struct dl_params params;   /* normalized: deadline and period filled in */
	uint64_t work;             /* CPU ns burned per job by dl-load; default 90% of runtime */
	uint64_t offset;           /* ns: first release after the common start */
	const char *place;         /* NULL: anywhere; DL_CLUSTER; or a partition name */
	char *const *argv;         /* NULL-terminated COMMAND ARG..., or NULL */
	int line;                  /* line in the file it came from (0 when added by API) */
	uint64_t spin;             /* ns of wall-clock time spun per job after its work: time
				    * preempted counts (rt-app's runtime event); default 0 */
	/* Added in LIBDEADLINE_0.4 (an older library's sets leave them 0). */
	int timer;                 /* what follows a late job in sleep mode: 0 (skip the
				    * releases passed), DL_PERIODIC_RELATIVE or
				    * DL_PERIODIC_ABSOLUTE (rt-app's timer modes) */
	uint64_t jobs;             /* the task ends after this many jobs; 0: it runs as long
				    * as the load (rt-app's loop) */
	size_t nphases;            /* 0; or the phases its jobs go through in turn, again
				    * and again (rt-app's phases): work and spin above are
				    * the first's */
	const struct dl_taskphase *phases;
};
struct dl_taskphase {              /* the library's, in arrays: its size is fixed */
	uint64_t work, spin;       /* each job's, as dl_taskspec's */
	uint64_t jobs;             /* the phase's jobs in a row (rt-app's phase loop), 1 or more */
	uint64_t reserved[2];
};
struct dl_taskset *dl_taskset_new(void);
int dl_taskset_add(struct dl_taskset *ts, const char *name, const struct dl_params *p); /* work 90%, offset 0, no place */
int dl_taskset_read(const char *path, struct dl_taskset **ts);          /* "-" = stdin */
int dl_taskset_parse(const char *text, size_t len, const char *origin, struct dl_taskset **ts);
size_t dl_taskset_count(const struct dl_taskset *ts);
const struct dl_taskspec *dl_taskset_task(const struct dl_taskset *ts, size_t i);
void dl_taskset_free(struct dl_taskset *ts);
/* How long the file asks the set to run (an rt-app file's global
 * duration), in ns; 0: it does not say. */
uint64_t dl_taskset_duration(const struct dl_taskset *ts);
/* Where task i runs (DL_CLUSTER, a partition's name, or NULL: anywhere),
 * e.g. as a plan places it. */
int dl_taskset_set_place(struct dl_taskset *ts, size_t i, const char *place);
/* Whether every task that is measured (no command) ends after its own
 * jobs (dl_taskspec.jobs): a load of the set then ends by itself. */
bool dl_taskset_ends(const struct dl_taskset *ts);
/* Task i's timer mode (dl_taskspec.timer): 0, DL_PERIODIC_RELATIVE or
 * DL_PERIODIC_ABSOLUTE. */
int dl_taskset_set_timer(struct dl_taskset *ts, size_t i, int timer);
/* The work and spin of task t's job k (from 0), of its phase; returns
 * the phase's index (0 for a task without phases). */
size_t dl_taskspec_job(const struct dl_taskspec *t, uint64_t k, uint64_t *work, uint64_t *spin);

/* Running a task set (dl_load_run(3), dl-load(1)): one process per task,
 * each placed and admitted before all are released from one common
 * start, each job burning the task's work of CPU time, then spinning
 * for its spin of wall-clock time. */
#define DL_LOAD_KEEP_JOBS    0x1 /* keep every job's record */
#define DL_LOAD_IGNORE_PLACE 0x2 /* run every task where the caller is */
#define DL_LOAD_NO_PUBLISH   0x4 /* the tasks publish no counters (DL_PERIODIC_PUBLISH) */
#define DL_LOAD_NO_MLOCK     0x8 /* the tasks lock no memory (their pages are touched all the same) */
#define DL_LOAD_PROCESSES    0x10 /* every task in a process of its own, not a thread */
struct dl_load; /* opaque */
struct dl_load_task {                    /* allocated by the library: fields may be added at the end */
	const struct dl_taskspec *spec;  /* the task (the set's) */
	pid_t pid;                       /* the thread that ran it (a process's own for a place or a command) */
	int err;                         /* 0, or how its run failed (negative errno) */
	const char *errmsg;              /* why, when err */
	int status;                      /* its process's wait status */
	const struct dl_periodic_stats *stats;
	const struct dl_job *jobs;       /* with DL_LOAD_KEEP_JOBS; else NULL */
	size_t njobs;
};
int dl_load_run(const struct dl_taskset *ts, int mode, uint64_t duration, uint64_t jobs,
		unsigned int flags, struct dl_load **out);
size_t dl_load_count(const struct dl_load *l);
const struct dl_load_task *dl_load_task(const struct dl_load *l, size_t i);
uint64_t dl_load_start(const struct dl_load *l); /* the common start, CLOCK_MONOTONIC ns */
void dl_load_free(struct dl_load *l);

/* Root domains and their deadline bandwidth. */
struct dl_rd {
	dl_cpus_t cpus;      /* the root domain's CPUs */
	int ncpus;
	int64_t cpu_bw;      /* rt_runtime/rt_period per CPU, DL_BW units; 0 if unlimited */
	int64_t capacity;    /* cpu_bw x ncpus, each CPU counted at its cpu_capacity
			      * (1024: one CPU): cpu_bw x cap_sum / 1024 */
	int64_t fair_bw;     /* the fair servers' reservation the kernel counts (6.12+) */
	int64_t tasks_bw;    /* sum of the live deadline tasks' bandwidth */
	uint64_t ntasks;     /* live deadline threads */
	int64_t total_bw;    /* admitted: the kernel's total_bw, or computed */
	int64_t free_bw;     /* capacity - total_bw: what the next task may take */
	bool from_kernel;    /* total_bw and cpu_bw read from debugfs */
	bool unlimited;      /* sched_rt_runtime_us = -1: no admission test */
	int64_t uncounted_fair_bw; /* fair servers that run but are not counted now (6.12, 6.13) */
	uint32_t cap_min;    /* the smallest and the largest cpu_capacity of its CPUs: */
	uint32_t cap_max;    /*  1024 each where every CPU is alike (not big.LITTLE) */
	uint64_t cap_sum;    /* their sum, what the kernel scales cpu_bw by (dl_bw_capacity()) */
	uint64_t reserved[5];
};
int dl_rd_list(struct dl_rd **rds, size_t *count);
int dl_rd_of_cpu(int cpu, struct dl_rd *rd);

/* The kernel's deadline servers (dl_server_get(3)).  From Linux 6.12
 * each CPU runs a fair server, a deadline reservation that gives normal
 * tasks time under real-time load (50 ms every 1 s by default) and takes
 * admission bandwidth; kernels with sched_ext add an ext server beside
 * it.  runtime 0: the server is off. */
#define DL_SERVER_FAIR 0 /* debugfs sched/fair_server/cpuN */
#define DL_SERVER_EXT  1 /* debugfs sched/ext_server/cpuN */
struct dl_server {
	uint64_t runtime; /* ns each period; 0: off */
	uint64_t period;  /* ns */
	bool present;     /* this kernel has the server */
	bool known;       /* read from the kernel; false: its files could not be
			   * read (debugfs not mounted, kernel lockdown) and
			   * runtime and period are the kernel's default */
	uint64_t reserved[4];
};
int dl_server_get(int cpu, int kind, struct dl_server *s);
/* Root; period 0: the server's period as it is.  Checked back. */
int dl_server_set(int cpu, int kind, uint64_t runtime, uint64_t period);

/* dl_predict()'s verdict as figures (dl_predict(3)): which rule decided
 * it, the root domain that judged it, what the request needs and what it
 * replaces.  step is the first rule that refuses, in the kernel's order,
 * or DL_VERDICT_ADMITTED. */
enum {
	DL_VERDICT_ADMITTED, /* the kernel would admit it */
	DL_VERDICT_INVALID,  /* EINVAL: the parameters break one of its rules */
	DL_VERDICT_NO_CAP,   /* EPERM: no CAP_SYS_NICE */
	DL_VERDICT_AFFINITY, /* EPERM: the CPU affinity does not cover the root domain */
	DL_VERDICT_NO_BW,    /* EPERM: the root domain has no deadline bandwidth */
	DL_VERDICT_OVERFLOW, /* EBUSY: more than the root domain has free */
};
struct dl_verdict {
	int admitted;      /* 1: admitted; 0: refused */
	int step;          /* DL_VERDICT_* */
	int cpu;           /* the CPU whose root domain judges it; -1 when not known */
	uint32_t threads;  /* threads the request covers */
	int64_t need;      /* their bandwidth asked, DL_BW units */
	int64_t old;       /* the bandwidth they hold now, which it replaces */
	int drift;         /* DL_DRIFT_* of rd (dl_rd_drift(3)) */
	uint32_t cap_need; /* the cpu_capacity a CPU needs to run it in time: runtime /
			    * deadline x 1024 (the kernel places it only on such CPUs) */
	struct dl_rd rd;   /* the root domain (zero before DL_VERDICT_AFFINITY) */
	uint64_t reserved[8];
};
int dl_predict_verdict(pid_t pid, bool all_threads, const struct dl_params *p,
		       struct dl_verdict *v, char *why, size_t len);

/* Every SCHED_DEADLINE thread (dl_tasks_list(3)). */
struct dl_task {
	pid_t pid;
	pid_t tid;
	char comm[17];         /* the thread's name */
	struct dl_params params;
	int64_t bw;            /* runtime / period, DL_BW_UNIT = 1.0 */
	int cpu;               /* the CPU it last ran on */
	int rd;                /* its root domain: an index into dl_snapshot()'s rds */
	dl_cpus_t rd_cpus;     /* that root domain's CPUs */
	char cpuset[256];      /* its cpuset ("/libdl/partition0"); "" if unknown */
	uint64_t exec_ns;      /* CPU time used so far (schedstat) */
	uint64_t when_ns;      /* CLOCK_MONOTONIC when exec_ns was read */
	uint64_t reserved[8];
};
int dl_tasks_list(pid_t pid, struct dl_task **tasks, size_t *count);
int dl_snapshot(pid_t pid, struct dl_task **tasks, size_t *ntasks,
		struct dl_rd **rds, size_t *nrds);
uint64_t dl_task_used_per_period(const struct dl_task *before, const struct dl_task *now);

/* Kernel accounting drift (see libdeadline(3), BUGS). */
struct dl_drift {
	dl_cpus_t cpus;       /* the root domain */
	int64_t kernel_bw;    /* the kernel's total_bw */
	int64_t expected_bw;  /* fair servers + live deadline tasks */
	uint64_t reserved[4];
};
int dl_drift_check(unsigned int settle_ms, struct dl_drift **drifts, size_t *count);
int dl_rd_rebuild(void);
/* What a rebuild killed with SIGKILL left behind (its probe cgroups; on
 * cgroup v2, cpuset enabled in the root's subtree_control), one line
 * each into buf; how many.  The next rebuild, create or destroy removes
 * them (dl_rd_leftovers(3)). */
int dl_rd_leftovers(char *buf, size_t len);
/* Mount debugfs if it is not, so that the kernel's figures can be read
 * (root); queries never mount it themselves. */
int dl_debugfs_mount(void);
/* One verdict for a root domain's count (dl_rd_drift(3)): below what its
 * fair servers and live tasks hold (dl_rd_expected()) it has drifted;
 * above, only once that has lasted DL_DRIFT_SETTLE_MS, as an exited task
 * keeps its bandwidth until its 0-lag time.  high_ns: how long it has
 * been above (0: not known to have been). */
#define DL_DRIFT_SETTLE_MS 2000
enum { DL_DRIFT_NONE, DL_DRIFT_SETTLING, DL_DRIFT_YES };
int64_t dl_rd_expected(const struct dl_rd *rd);
int dl_rd_drift(const struct dl_rd *rd, uint64_t high_ns);
/* Whether the kernel counts CPU cpu's server of kind in the total_bw of
 * rd, that CPU's root domain, now: 1, 0, or a negative errno
 * (dl_server_counted(3)). */
int dl_server_counted(const struct dl_rd *rd, int cpu, int kind);

/*
 * Cpuset layouts: partitions (sets of CPUs, each a root domain of its
 * own, for heavy deadline tasks) and one cluster (the remaining CPUs, one
 * root domain, globally scheduled), on cgroup v1 or v2.  See
 * dl_layout_create(3).
 */
struct dl_layout;

#define DL_LAYOUT_ISOLATED 0x1 /* v2: "isolated" partitions, not "root" */
#define DL_LAYOUT_NO_MOVE  0x2 /* v1: leave the root cpuset's tasks there */
#define DL_LAYOUT_LEAVE_BUSY 0x4 /* destroy: leave the partitions that hold tasks in place */
#define DL_LAYOUT_SERVER_OFF 0x8 /* create: a server may be set off where normal tasks run (the cluster) */
#define DL_LAYOUT_NAME_MAX 32
#define DL_CLUSTER "cluster" /* the cluster's name */

struct dl_layout *dl_layout_new(void);
void dl_layout_free(struct dl_layout *l);
int dl_layout_add_partition(struct dl_layout *l, const char *name, const dl_cpus_t *cpus);
int dl_layout_set_cluster(struct dl_layout *l, const dl_cpus_t *cpus);
int dl_layout_set_mems(struct dl_layout *l, const char *nodes);
int dl_layout_set_flags(struct dl_layout *l, unsigned int flags);
/* A deadline server of a member's CPUs (a partition's name, or
 * DL_CLUSTER), set by create and put back as found by destroy
 * (dl_layout_set_server(3)); runtime 0: off.  dl_layout_server(): 1 and
 * the setting in s when the layout has one, 0 when it leaves the
 * server as it is. */
int dl_layout_set_server(struct dl_layout *l, const char *member, int kind,
			 uint64_t runtime, uint64_t period);
int dl_layout_server(const struct dl_layout *l, const char *member, int kind,
		     struct dl_server *s);

struct dl_layout_result {
	uint64_t moved;   /* tasks moved (into the cluster, or back to the root) */
	uint64_t skipped; /* kernel threads that cannot move (PF_NO_SETAFFINITY) */
	uint64_t gone;    /* tasks that exited while being moved */
	int steps;        /* steps done */
	bool repaired;    /* the kernel's accounting drifted and was rebuilt */
	uint64_t absent;  /* destroy: partitions whose cgroup was gone already */
	uint64_t left;    /* destroy, DL_LAYOUT_LEAVE_BUSY: partitions left in place */
	uint64_t reserved[2];
};
int dl_layout_create(struct dl_layout *l, struct dl_layout_result *res);
int dl_layout_destroy(const struct dl_layout *l, struct dl_layout_result *res);
int dl_layout_load(struct dl_layout **l);

/* Reading a layout: partition i (0..count-1), or the cluster (i = -1). */
int dl_layout_count(const struct dl_layout *l);
const char *dl_layout_member(const struct dl_layout *l, int i, dl_cpus_t *cpus);
int dl_layout_version(const struct dl_layout *l); /* cgroup version, 1 or 2 */
unsigned int dl_layout_flags(const struct dl_layout *l);

/* One cpuset of the layout in place, as it is now. */
struct dl_part_info {
	char name[DL_LAYOUT_NAME_MAX + 1]; /* a partition's, or DL_CLUSTER */
	char cgroup[256];       /* its path below the cpuset hierarchy */
	dl_cpus_t cpus;         /* its effective CPUs */
	bool partition;
	char state[128];        /* v2: cpuset.cpus.partition; v1: "exclusive" */
	uint64_t nthreads;      /* threads in it */
	uint64_t ndeadline;     /* of them, deadline threads */
	struct dl_rd rd;        /* its root domain, with its bandwidth */
	uint64_t servers_changed; /* its CPUs' deadline servers that are not the layout's setting */
	uint64_t reserved[7];
};
int dl_layout_report(struct dl_part_info **info, size_t *count);
/* What runs in partition name that destroy would stop or could not move:
 * the cgroups below its own that hold tasks (a container, a unit), named
 * into buf; how many (dl_part_occupants(3)). */
int dl_part_occupants(const char *name, char *buf, size_t len);

/* Would the kernel admit p for a task that starts in layout member
 * `member` (a partition's name, or DL_CLUSTER), or outside every member
 * (NULL: the root cgroup's root domain)?  1 yes, 0 no; v and why as
 * dl_predict_verdict()'s.  For what a container runtime is about to
 * start there (dl_predict_member(3)). */
int dl_predict_member(const char *member, const struct dl_params *p, struct dl_verdict *v, char *why, size_t len);

/* A container's OCI runtime configuration (dl_oci_read(3)): its
 * process.scheduler as a reservation, and the member of the layout its
 * linux.cgroupsPath puts it in. */
struct dl_oci {                  /* allocated by the library: fields may be added at the end */
	const char *config;      /* the config.json read */
	struct dl_params params; /* process.scheduler's runtime, deadline, period (ns), flags */
	const char *cgroup;      /* linux.cgroupsPath as written; NULL: none */
	const char *member;      /* the partition it starts in; NULL: outside the partitions */
	const char *where;       /* how linux.cgroupsPath was read, in words */
	const char *note;        /* what else it should know (no reset-on-fork...), or NULL */
	pid_t pid;               /* DL_OCI_STATE: the container's process; else 0 */
	const char *bundle;      /* DL_OCI_STATE: its bundle's folder; else NULL */
	const char *ns;          /* dl_oci_parse: its Kubernetes pod's namespace, or NULL */
	const char *pod;         /* dl_oci_parse: the pod's name, or NULL */
	const char *container;   /* dl_oci_parse: the container's name in the pod, or NULL */
};
int dl_oci_read(const char *path, struct dl_oci **oci); /* path: the file, or the bundle's folder */
void dl_oci_free(struct dl_oci *oci);
/* A container that asks for a reservation by its annotations
 * (libdl-oci-hook(8), dl_oci_parse(3)): deadline.libdl.io/runtime,
 * deadline, period, flags and partition, read from the runtime
 * configuration a precreate hook is given, or from the container's state
 * a createRuntime hook is given (DL_OCI_STATE), its process's cgroup
 * read from the kernel.  -ENODATA: no such annotation, nothing asked.
 * dl_oci_write(): the configuration with, for a partition,
 * linux.cgroupsPath moved into it, and with DL_OCI_SCHEDULER
 * process.scheduler written. */
#define DL_OCI_STATE     0x1
#define DL_OCI_SCHEDULER 0x2
int dl_oci_parse(const char *text, size_t len, const char *origin, unsigned int flags, struct dl_oci **oci);
int dl_oci_write(const struct dl_oci *oci, unsigned int flags, char **text, size_t *len);

/* Placing tasks: into a partition or the cluster (DL_CLUSTER).  tid 0 is
 * the calling thread; DL_ATTACH_PROCESS moves every thread of tid's
 * process.  dl_part_set() joins the cpuset first, then sets the
 * reservation: the order the kernel's admission needs. */
#define DL_ATTACH_PROCESS 0x1
int dl_part_attach(const char *name, pid_t tid, unsigned int flags);
int dl_part_set(const char *name, pid_t tid, const struct dl_params *p);
/* Every thread of pid into the member, then dl_set_process(); on failure
 * (without DL_PROC_PARTIAL) the threads go back to the cpusets they were
 * in. */
int dl_part_set_process(const char *name, pid_t pid, const struct dl_params *p,
			unsigned int flags, struct dl_thread_status **status, size_t *count);
/* dl_predict_verdict() for pid placed in member name first, as
 * dl_part_set() places it: judged in that member's root domain. */
int dl_part_predict(const char *name, pid_t pid, bool all_threads, const struct dl_params *p,
		    struct dl_verdict *v, char *why, size_t len);

/*
 * Schedulability analysis (dl_edf_test(3), dl_global_test(3)) and partition
 * plans (dl_plan_compute(3)).  Times are exact integer nanoseconds;
 * results are allocated by the library: release them with free() or
 * dl_plan_free().
 */
#define DL_SCHEDULABLE     1  /* proven to meet every deadline */
#define DL_NOT_GUARANTEED  0  /* no sufficient test accepted: a deadline may be missed */
#define DL_INFEASIBLE    (-1) /* proven that no schedule meets every deadline */

/* A CPU of the machine's biggest kind has capacity 1024 (the kernel's
 * SCHED_CAPACITY_SCALE); a smaller one, its share of that. */
#define DL_CAPACITY_SCALE 1024
#if defined(__GNUC__) && !defined(__cplusplus)
#define DL_EXTENSION __extension__
#else
#define DL_EXTENSION
#endif

/* What the analysis assumes of the machine (dl_platform_get(3)): the
 * caller's struct, filled in from this host (dl_platform_get) or with
 * the kernel's defaults for a machine of ncpus CPUs (dl_platform_init),
 * or by hand. */
struct dl_platform {
	int ncpus;               /* CPUs to plan for */
	dl_cpus_t cpus;          /* which: the online ones, or 0..ncpus-1 */
	int64_t cpu_bw;          /* the admission cap per CPU, DL_BW units */
	bool unlimited;          /* sched_rt_runtime_us = -1: no admission test */
	struct dl_params server; /* the fair server on each CPU; runtime 0: none */
	uint64_t period_min;     /* ns: the kernel's period limits there; */
	uint64_t period_max;     /*  0: the kernel's defaults (100us, 4.194304s) */
	/* Each CPU's capacity (the kernel's cpu_capacity, 1 to
	 * DL_CAPACITY_SCALE), indexed by CPU number, for every CPU of cpus;
	 * NULL: every CPU of the biggest kind.  The caller's array, or for
	 * dl_platform_get() the library's, which lasts the process. */
	DL_EXTENSION union {
		const uint32_t *capacity;
		uint64_t reserved0;
	};
	uint64_t reserved[1];    /* a caller may fill one in: zero it */
};
int dl_platform_get(struct dl_platform *pf, int ncpus);
int dl_platform_init(struct dl_platform *pf, int ncpus);

/* One CPU, exact: the processor demand criterion with QPA. */
struct dl_edf_result {  /* allocated by the library: fields may be added at the end */
	int verdict;          /* DL_SCHEDULABLE or DL_INFEASIBLE (or DL_NOT_GUARANTEED, see the page) */
	int64_t util;         /* tasks and server, DL_BW units, rounded up */
	uint64_t bound;       /* ns: the deadlines checked, up to min(busy period, La*) */
	uint64_t fail_t;      /* infeasible: a deadline t with demand(t) > t */
	uint64_t fail_demand; /* the demand at fail_t */
	ssize_t limiting;     /* the task due at fail_t, or the first to fail as runtimes grow; -1 */
	int64_t scaling;      /* critical scaling factor, DL_BW units (1.0 = DL_BW_UNIT) */
	uint64_t steps;       /* demand evaluations */
};
int dl_edf_test(const struct dl_params *tasks, size_t n, const struct dl_params *server,
		struct dl_edf_result **res);

/* Global EDF on ncpus CPUs: sufficient tests, cheapest first. */
#define DL_TEST_NM   0 /* n <= m */
#define DL_TEST_GFB  1 /* Goossens, Funk, Baruah, density form */
#define DL_TEST_BAK  2 /* Baker */
#define DL_TEST_BCL  3 /* Bertogna, Cirinei, Lipari 2005 */
#define DL_TEST_RTA  4 /* Bertogna, Cirinei 2007 response times */
#define DL_TEST_QPA  5 /* one CPU: the exact test */
#define DL_TEST_EXACT 6 /* m CPUs: every sporadic arrival sequence searched (dl_exact_test(3)) */
#define DL_TEST_COUNT 7
const char *dl_test_name(int test);

struct dl_global_result { /* allocated by the library: fields may be added at the end */
	int verdict;
	int ncpus;
	int accepted_by;       /* the cheapest test that accepted, or -1 */
	int result[8];         /* per DL_TEST_*: 1 accepted, 0 refused, -1 not run */
	ssize_t limiting;      /* the task that limits the verdict, or -1 */
	int64_t margin;        /* GFB: bound - density sum, DL_BW units */
	int64_t util;          /* tasks and servers, DL_BW units, rounded up */
	int64_t scaling;       /* critical scaling factor of the tests, DL_BW units */
	char why[256];         /* the verdict in a sentence */
	size_t ntasks;
	uint64_t *response;    /* RTA: each task's response-time bound (ns), 0 = none */
	uint64_t miss_at;      /* not guaranteed: a deadline the simulated schedule misses, 0 none */
};
int dl_global_test(const struct dl_params *tasks, size_t n, int ncpus,
		   const struct dl_params *server, struct dl_global_result **res);
/* The same for a task set on a platform's CPUs and fair servers (NULL:
 * this host's), its periods checked against the platform's limits. */
int dl_global_test_taskset(const struct dl_taskset *set, const struct dl_platform *pf,
			   struct dl_global_result **res);

/* Global EDF on ncpus CPUs, exactly (dl_exact_test(3)): every sporadic
 * arrival sequence on the grid of the parameters' greatest common
 * divisor searched, within a budget.  The verdict holds for every order
 * among equal deadlines, or with DL_EXACT_TIES_INDEX for the lower index
 * first.  Not schedulable: the arrivals that make task `task` miss its
 * deadline at miss_at, replayed in the library's simulator; during each
 * tie's [from, to) the tasks of its mask ran ahead of others with the
 * same deadline.  Undecided within the budget: DL_NOT_GUARANTEED. */
#define DL_UNSCHEDULABLE (-2)    /* proven: global EDF misses a deadline (a witness shows how) */
#define DL_EXACT_TIES_INDEX 0x1  /* equal deadlines run in task order, not in any order */
#define DL_EXACT_OUT_OF_TIME   1 /* budget_spent: the time */
#define DL_EXACT_OUT_OF_STATES 2 /* budget_spent: the states */
struct dl_exact_opts {    /* the caller's: zero it */
	uint64_t max_states;  /* states the search may keep; 0: 2097152 (2n + 50 bytes each) */
	uint64_t max_ns;      /* its time; 0: 5 s */
	unsigned int flags;   /* DL_EXACT_TIES_INDEX */
	unsigned int reserved0;
	uint64_t reserved[3];
};
struct dl_arrival {
	size_t task;          /* index: the tasks, then the fair servers' copies */
	uint64_t release;     /* ns from the start */
};
struct dl_tie {
	uint64_t from, to;    /* ns */
	uint64_t ahead;       /* bit i: task i ran ahead of others with its deadline */
};
struct dl_exact_result {  /* allocated by the library: fields may be added at the end */
	int verdict;          /* DL_SCHEDULABLE, DL_UNSCHEDULABLE, DL_INFEASIBLE or DL_NOT_GUARANTEED */
	int ncpus;
	unsigned int flags;   /* as given */
	int budget_spent;     /* undecided: DL_EXACT_OUT_OF_TIME or DL_EXACT_OUT_OF_STATES, else 0 */
	uint64_t unit;        /* ns: the grid */
	uint64_t states;      /* states kept */
	uint64_t expanded;    /* states whose successors were made */
	uint64_t elapsed_ns;
	ssize_t task;         /* not schedulable: the task that misses, else -1 */
	uint64_t miss_at;     /* ns: the deadline it misses */
	size_t ntasks;        /* the caller's tasks; indices past them are fair-server copies */
	size_t ntotal;        /* tasks and fair-server copies */
	size_t narrivals;
	struct dl_arrival *arrivals; /* by release time */
	size_t nties;
	struct dl_tie *ties;
	char why[320];        /* the verdict in a sentence */
};
int dl_exact_test(const struct dl_params *tasks, size_t n, int ncpus, const struct dl_params *server,
		  const struct dl_exact_opts *opts, struct dl_exact_result **res);
void dl_exact_free(struct dl_exact_result *res);
/* The witness in libdl-taskset(5)'s line form: a line per job, named
 * after names[task] (NULL: "task<i>"; "server<k>" past ntasks), each
 * job's period long enough that none repeats before the miss. */
int dl_exact_witness(const struct dl_exact_result *res, const struct dl_params *tasks,
		     const char *const *names, char **text);

/* A plan: one-CPU partitions and a cluster that the kernel admits and
 * the tests accept. */
#define DL_PLAN_GLOBAL  0 /* every task in the cluster, on every CPU */
#define DL_PLAN_EDFK    1 /* the k densest tasks alone on a CPU each */
#define DL_PLAN_EDFK_PACKED 2 /* the same, light tasks packed beside them */
#define DL_PLAN_FFD     3 /* fully partitioned, first-fit decreasing */
#define DL_PLAN_BFD     4 /* best-fit decreasing */
#define DL_PLAN_WFD     5 /* worst-fit decreasing */
const char *dl_plan_method_name(int method);

struct dl_plan_part {  /* allocated by the library: fields may be added at the end */
	char name[DL_LAYOUT_NAME_MAX + 1]; /* "cpuN", or DL_CLUSTER */
	dl_cpus_t cpus;
	int ncpus;
	size_t ntasks;
	size_t *tasks;     /* indices into the caller's tasks */
	int64_t load;      /* its tasks and fair servers, DL_BW units */
	int64_t free_bw;   /* what the kernel's admission leaves */
	int test;          /* DL_TEST_* that accepted; -1 for an empty cluster */
	int64_t scaling;   /* critical scaling factor under that test */
	uint32_t cap_min;  /* its CPUs' smallest capacity (the tests count */
	uint32_t cap_max;  /*  every CPU at that speed) and their biggest */
};

struct dl_plan {       /* allocated by the library: fields may be added at the end */
	bool feasible;
	int method;                  /* DL_PLAN_* */
	int k;                       /* EDF(k): tasks isolated */
	size_t nparts;
	struct dl_plan_part **parts; /* the one-CPU partitions */
	struct dl_plan_part *cluster;
	int64_t margin;              /* the smallest free_bw of its root domains */
	struct dl_global_result *global; /* every task on every CPU */
	ssize_t unplaced;            /* no plan: the task that cannot be placed */
	char why[512];               /* no plan: why */
	size_t ntasks;
	uint32_t *cap_need;          /* per task: the CPU capacity its runtime/deadline needs */
	uint32_t cap_min;            /* the platform's smallest CPU capacity and */
	uint32_t cap_max;            /*  its biggest (DL_CAPACITY_SCALE each: CPUs alike) */
};
int dl_plan_compute(const struct dl_params *tasks, size_t n, const struct dl_platform *pf,
		    struct dl_plan **plan);
void dl_plan_free(struct dl_plan *plan);
/* The same for a task set's tasks (task i of the plan is the set's i),
 * their periods checked against the platform's limits; pf NULL: this
 * host's (dl_platform_get()). */
int dl_plan_taskset(const struct dl_taskset *set, const struct dl_platform *pf,
		    struct dl_plan **plan);
/* The layout that makes a feasible plan with partitions real, for
 * dl_layout_create(). */
int dl_plan_layout(const struct dl_plan *plan, struct dl_layout **layout);

#ifdef __cplusplus
}
#endif

#endif /* LIBDEADLINE_H */
