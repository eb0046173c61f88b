// SPDX-License-Identifier: GPL-2.0-only
/*
 * kcount.bpf.c: every SCHED_DEADLINE thread's jobs, deadline misses and
 * throttles, counted on the scheduler's tracepoints (BTF-typed, tp_btf:
 * Linux 5.5 and later; fentry is refused under lockdown, these are not).
 * docs/kernel-notes.md, "Jobs and misses seen from the scheduler", gives
 * the kernel's rules this follows; dl-stat(1) the definitions:
 *
 * - a job starts when the thread wakes up (sched_wakeup: the CBS has
 *   just set its deadline, enqueue_dl_entity runs before the
 *   tracepoint), or first runs again after it ended a job with
 *   sched_yield() or woke up throttled (a deadline shorter than the
 *   period, woken between its deadline and its next period: the
 *   kernel's replenishment gave it a new deadline);
 *   its deadline is task->dl.deadline then;
 * - it ends when the thread blocks (switched out, no longer on its run
 *   queue) or yields (dl_yielded); it missed when the run queue's clock
 *   then is past that deadline: dl.deadline is in rq_clock() time;
 * - a throttle: switched out still runnable with dl_throttled set, its
 *   runtime exhausted, without a yield (inferred, on every kernel);
 *   where the kernel has the sched_dl_throttle_tp tracepoint (Linux 7.1
 *   and later: kcount.c loads libdl_kc_dlthr only there), also counted
 *   where the kernel throttles a task: each count is kept, dl-stat
 *   reports the tracepoint's and the inferred one beside it.
 *
 * Response: from the job's release as the CBS sees it (its deadline
 * minus the relative deadline) to its end, so that response > relative
 * deadline exactly when it missed.
 */
#include <stdbool.h>
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "kcount-core.h"
#include "kcount.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KC_THREADS);
	__type(key, __u32); /* thread id */
	__type(value, struct kc_rec);
} counts SEC(".maps");

static struct kc_rec *rec_tid(__u32 tid, bool make)
{
	struct kc_rec *r = bpf_map_lookup_elem(&counts, &tid);
	static const struct kc_rec zero;

	if (r || !make)
		return r;
	bpf_map_update_elem(&counts, &tid, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&counts, &tid);
}

static struct kc_rec *rec_of(struct task_struct *p, bool make)
{
	return rec_tid(p->pid, make);
}

static void job_start(struct kc_rec *r, struct task_struct *p)
{
	r->deadline = p->dl.deadline;
	r->rel_deadline = p->dl.dl_deadline;
	r->in_job = 1;
	r->yielded = 0;
}

static void job_end(struct kc_rec *r, __u64 now)
{
	__u64 release = r->deadline - r->rel_deadline;
	__u64 resp = now > release ? now - release : 0;
	__u32 b;

	r->in_job = 0;
	r->jobs++;
	if (now > r->deadline)
		r->misses++;
	r->resp_sum += resp;
	if (resp > r->resp_max)
		r->resp_max = resp;
	for (b = 0; b < KC_BUCKETS - 1; b++)
		if (resp <= (1024ULL << b))
			break;
	r->buckets[b]++;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(libdl_kc_wakeup, struct task_struct *p)
{
	struct task_struct *task;
	struct kc_rec *r;

	if (p->policy != SCHED_DEADLINE)
		return 0;
	r = rec_of(p, true);
	/* Woken while still in a job: it never blocked (woken before it
	 * was switched out), the job goes on. */
	if (!r || r->in_job)
		return 0;
	/* Woken throttled: a thread whose deadline is shorter than its
	 * period, woken after its deadline but before its next period, waits
	 * for that period (dl_check_constrained_dl()); its deadline now is
	 * the last job's.  The job starts when it first runs, with the
	 * deadline the replenishment gave it, as after a yield. */
	task = p; /* (the macro has a p of its own) */
	if (BPF_CORE_READ_BITFIELD(task, dl.dl_throttled))
		r->yielded = 1;
	else
		job_start(r, p);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(libdl_kc_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct kc_rec *r;

	if (prev->policy == SCHED_DEADLINE) {
		bool yielded = BPF_CORE_READ_BITFIELD(prev, dl.dl_yielded);
		bool throttled = BPF_CORE_READ_BITFIELD(prev, dl.dl_throttled);
		bool blocked = !prev->on_rq;

		r = rec_of(prev, throttled && !yielded && !blocked);
		if (r) {
			if (r->in_job && (blocked || yielded)) {
				/* prev's run queue is this CPU's, its clock
				 * updated by __schedule() just before. */
				job_end(r, prev->se.cfs_rq->rq->clock);
				r->yielded = yielded && !blocked;
			} else if (throttled && !yielded && !blocked) {
				r->throttles++;
			}
		}
	}
	if (next->policy == SCHED_DEADLINE) {
		r = rec_of(next, false);
		if (r && !r->in_job && r->yielded)
			job_start(r, next);
	}
	return 0;
}

/* Linux 7.1 and later: the kernel's own throttle, a bare tracepoint
 * (sched_dl_throttle_tp, no trace event) with the entity, its CPU and its
 * type (DL_TASK 1, or a deadline server: fair 2, ext 3, other 0).  It
 * fires in update_curr_dl_se() when the runtime is exhausted or the
 * entity yielded, and in dl_check_constrained_dl() when a task whose
 * deadline is shorter than its period wakes between its deadline and its
 * next period (docs/kernel-notes.md).  Counted: a task's, not yielded,
 * its runtime exhausted (runtime <= 0: update_curr_dl_se's case; the
 * constrained wake-up still has the runtime it had, zeroed just after).
 * The task from its entity: container_of(dl_se, struct task_struct, dl),
 * the offset of dl relocated by CO-RE; read through probe reads, the
 * verifier knows no task_struct there. */
#define KC_DL_TASK 1
SEC("tp_btf/sched_dl_throttle_tp")
int BPF_PROG(libdl_kc_dlthr, struct sched_dl_entity *dl_se, int cpu, __u8 type)
{
	struct task_struct *p;
	struct kc_rec *r;

	(void)cpu;
	if (type != KC_DL_TASK || BPF_CORE_READ_BITFIELD_PROBED(dl_se, dl_yielded) || BPF_CORE_READ(dl_se, runtime) > 0)
		return 0;
	p = (void *)dl_se - bpf_core_field_offset(struct task_struct, dl);
	if (BPF_CORE_READ(p, policy) != SCHED_DEADLINE)
		return 0;
	r = rec_tid(BPF_CORE_READ(p, pid), true);
	if (r)
		r->tp_throttles++;
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(libdl_kc_exit, struct task_struct *p)
{
	__u32 tid = p->pid;

	bpf_map_delete_elem(&counts, &tid);
	return 0;
}
