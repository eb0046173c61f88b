/*
 * kcount.h: dl-stat --kernel, every SCHED_DEADLINE thread's jobs, deadline
 * misses and throttles counted by a BPF program on the scheduler's
 * tracepoints (kcount.bpf.c) while dl-stat runs.  It lives beside the tool
 * rather than in libdeadline so that the library does not depend on
 * libbpf; configure --enable-bpf builds it (without, kcount_start says
 * so).  Its programs are attached through file descriptors only, nothing
 * pinned: when dl-stat ends, however it ends (SIGKILL too), the kernel
 * detaches and frees them.
 */
#ifndef LIBDL_TOOLS_KCOUNT_H
#define LIBDL_TOOLS_KCOUNT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "libdeadline.h"

struct kcount;

/* Attach the counter; needs root, or CAP_BPF and CAP_PERFMON.  On failure
 * a negative errno, and why, as a sentence that names the fix, in why. */
int kcount_start(struct kcount **k, char *why, size_t len);
/* The counts of every thread now, as kcount_get gives them: read from the
 * kernel once a refresh (the BPF task iterator: a walk of every task).
 * The number of threads with a record, or a negative errno and why. */
int kcount_read(struct kcount *k, char *why, size_t len);
/* Thread tid's counts since kcount_start, as kcount_read last read them: jobs, misses, throttles (in
 * .overruns) and responses, as the published counters have them; in
 * inferred, its throttles as the switch-out shows them (kcount.bpf.c),
 * which .overruns is too where the kernel has no throttle tracepoint. */
void kcount_get(struct kcount *k, pid_t tid, struct dl_task_counts *out, uint64_t *inferred);
/* What counted the throttles (.overruns): the kernel's tracepoint
 * "sched_dl_throttle_tp" (Linux 7.1 and later), else "sched_switch"
 * (inferred at the switch-out). */
const char *kcount_throttle_source(const struct kcount *k);
/* How many times a thread's record could not be made since kcount_start
 * (the kernel had no memory for it): the event that needed it was not
 * counted, so that thread's counts are short. */
uint64_t kcount_failed(const struct kcount *k);
void kcount_stop(struct kcount *k);

#endif
