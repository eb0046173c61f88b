// SPDX-License-Identifier: GPL-2.0-only
/*
 * kcount.bpf.c: every SCHED_DEADLINE thread's jobs, deadline misses and
 * throttles, counted on the scheduler's tracepoints (BTF-typed, tp_btf:
 * Linux 5.5 and later; fentry is refused under lockdown, these are not).
 * docs/kernel-notes.md, "Jobs and misses seen from the scheduler", gives
 * the kernel's rules this follows; dl-stat(1) the definitions:
 *
 * - a job starts when the thread first runs after it blocked (the CBS
 *   set its deadline when it was woken: enqueue_dl_entity; or, woken
 *   throttled, a deadline shorter than the period, woken between its
 *   deadline and its next period, the kernel's replenishment did) or
 *   after it ended a job with sched_yield() (the replenishment):
 *   at its switch in, or at its first switch away where the kernel
 *   traced no switch in; its deadline is task->dl.deadline then;
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

/* Each thread's record lives in the thread itself: task-local storage
 * (BPF_MAP_TYPE_TASK_STORAGE, usable from tracing programs since Linux
 * 5.13), which the kernel frees with the task_struct.  Nothing is keyed
 * by thread id, so that nothing a thread does after its exit tracepoint
 * (a throttle, a block in its exit path) outlives it, a thread that later
 * gets its id starts with none, and there is no table to fill up
 * (docs/kernel-notes.md, "Jobs and misses seen from the scheduler"). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kc_rec);
} kc_store SEC(".maps");

/* Records the kernel could not make (no memory, or the storage busy on
 * that CPU): an event of a thread without a record lost with it.  Read by
 * kcount.c from the object's .bss. */
__u64 kc_failed = 0;

/* A thread on its way out makes no record: it would be freed with it
 * unread. */
#define KC_PF_EXITING 0x00000004

static struct kc_rec *rec_of(struct task_struct *p, bool make)
{
	struct kc_rec *r;

	if (!make)
		return bpf_task_storage_get(&kc_store, p, NULL, 0);
	r = bpf_task_storage_get(&kc_store, p, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!r)
		__sync_fetch_and_add(&kc_failed, 1);
	return r;
}

static void job_start(struct kc_rec *r, struct task_struct *p)
{
	r->deadline = p->dl.deadline;
	r->rel_deadline = p->dl.dl_deadline;
	r->in_job = 1;
	r->start_next = 0;
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

/* The one program on the machine's hot path: two loads and a return for
 * any switch between threads that are not SCHED_DEADLINE.  A job starts
 * at the thread's first run after it blocked or yielded, not at its
 * wake-up: the deadline it runs against is then set whichever way the
 * kernel released it (the CBS's wake-up rule at the enqueue, or the
 * replenishment after a yield or a throttled wake-up: a thread whose
 * deadline is shorter than its period, woken between its deadline and its
 * next period, waits for that period, dl_check_constrained_dl()), and no
 * program runs at the machine's wake-ups. */
SEC("tp_btf/sched_switch")
int BPF_PROG(libdl_kc_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct kc_rec *r;

	if (prev->policy == SCHED_DEADLINE) {
		bool yielded = BPF_CORE_READ_BITFIELD(prev, dl.dl_yielded);
		bool throttled = BPF_CORE_READ_BITFIELD(prev, dl.dl_throttled);
		bool blocked = !prev->on_rq;
		bool throttle = throttled && !yielded && !blocked;

		/* A record is made at a throttle, and at a block: the
		 * thread's next run starts a job. */
		r = rec_of(prev, (throttle || blocked) && !(prev->flags & KC_PF_EXITING));
		if (r) {
			/* It ran since it blocked or yielded, yet no switch
			 * in started its job: the kernel did not trace that
			 * switch (6.18 as run here traces none away from a
			 * thread of its PID 1; docs/kernel-notes.md).  The job
			 * starts now, its deadline still the one it ran
			 * against: only a switch away or an enqueue moves it. */
			if (!r->in_job && r->start_next)
				job_start(r, prev);
			if (r->in_job && (blocked || yielded))
				/* prev's run queue is this CPU's, its clock
				 * updated by __schedule() just before. */
				job_end(r, prev->se.cfs_rq->rq->clock);
			else if (throttle)
				r->throttles++;
			if (blocked || yielded)
				r->start_next = 1;
		}
	}
	if (next->policy == SCHED_DEADLINE) {
		r = rec_of(next, false);
		if (r && !r->in_job && r->start_next)
			job_start(r, next);
	}
	return 0;
}

/* The thread from its id, counted and released (kfuncs of Linux 6.2 and
 * later; weak: the object still loads on 6.1, where this program, which
 * needs them, is not loaded). */
extern struct task_struct *bpf_task_from_pid(__s32 pid) __ksym __weak;
extern void bpf_task_release(struct task_struct *p) __ksym __weak;

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
 * verifier knows no task_struct there.  Its record, which only a task
 * the verifier trusts reaches, through its id: the entity may be another
 * CPU's current task's (update_curr_dl() for a remote run queue, as a read
 * of its CPU time does). */
#define KC_DL_TASK 1
SEC("tp_btf/sched_dl_throttle_tp")
int BPF_PROG(libdl_kc_dlthr, struct sched_dl_entity *dl_se, int cpu, __u8 type)
{
	struct task_struct *p, *t;
	struct kc_rec *r;

	(void)cpu;
	if (type != KC_DL_TASK || BPF_CORE_READ_BITFIELD_PROBED(dl_se, dl_yielded) || BPF_CORE_READ(dl_se, runtime) > 0)
		return 0;
	p = (void *)dl_se - bpf_core_field_offset(struct task_struct, dl);
	if (BPF_CORE_READ(p, policy) != SCHED_DEADLINE)
		return 0;
	t = bpf_task_from_pid(BPF_CORE_READ(p, pid));
	if (!t)
		return 0;
	r = rec_of(t, !(t->flags & KC_PF_EXITING));
	if (r)
		r->tp_throttles++;
	bpf_task_release(t);
	return 0;
}

/* The records read back: each live task's that has one, as its thread id
 * and record (struct kc_row), one write per task (a task's row is whole
 * or absent in a read).  A BPF task iterator, run by kcount.c at each
 * refresh through the link it holds: task storage is reached from user
 * space only by a pidfd, and pidfd_open() opens a thread that is not its
 * process's leader only from Linux 6.9 (PIDFD_THREAD); the iterator walks
 * every thread from 5.8. */
SEC("iter/task")
int libdl_kc_iter(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct kc_row row;
	struct kc_rec *r;

	if (!task)
		return 0;
	r = rec_of(task, false);
	if (!r)
		return 0;
	row.tid = task->pid;
	row.rec = *r;
	bpf_seq_write(ctx->meta->seq, &row, sizeof(row));
	return 0;
}
