/*
 * kcount.bpf.h: what dl-stat's kernel counter shares between its BPF
 * program (kcount.bpf.c) and the reader (kcount.c): the per-thread record
 * it keeps in each thread's task storage, and the row its task iterator
 * writes for each.  Fixed-width types only: both sides compile it.
 */
#ifndef LIBDL_TOOLS_KCOUNT_BPF_H
#define LIBDL_TOOLS_KCOUNT_BPF_H

/* The published counters' buckets (DL_COUNTS_BUCKETS, DL_COUNTS_LE_NS):
 * bucket i < KC_BUCKETS - 1 holds responses of at most 1024 << i ns. */
#define KC_BUCKETS 24
struct kc_rec {
	__u64 jobs;       /* jobs seen from start to end */
	__u64 misses;     /* of them, ended after their deadline */
	__u64 throttles;  /* switched out with its runtime exhausted */
	/* Throttled, as the kernel's sched_dl_throttle_tp says (7.1 and
	 * later; 0 where dl-stat did not load that program). */
	__u64 tp_throttles;
	__u64 resp_max;   /* ns */
	__u64 resp_sum;   /* ns */
	__u64 buckets[KC_BUCKETS];
	/* The job running now (in_job): its absolute deadline and the
	 * relative deadline it was judged with, from task->dl at its start. */
	__u64 deadline;
	__u64 rel_deadline;
	__u32 in_job;
	/* The next job starts at the thread's next run, with the deadline
	 * the kernel released it with: after it blocked or yielded
	 * (kcount.bpf.c). */
	__u32 start_next;
};

/* What the task iterator writes for each thread that has a record: its
 * id (the kernel's, task->pid) and the record. */
struct kc_row {
	__u64 tid;
	struct kc_rec rec;
};

#endif
