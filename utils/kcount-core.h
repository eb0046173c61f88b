/*
 * kcount-core.h: the few kernel types dl-stat's BPF program reads, as CO-RE
 * declarations: libbpf relocates each field by name against the running
 * kernel's BTF (/sys/kernel/btf/vmlinux) when it loads the program, so
 * that one object runs on every kernel from 6.1 on, whatever their
 * layouts.  Written by hand rather than a vmlinux.h dumped at build time:
 * the build then needs no kernel's BTF of its own (package builders have
 * none), and the program names exactly what it relies on
 * (docs/kernel-notes.md, "Jobs and misses seen from the scheduler").
 */
#ifndef LIBDL_TOOLS_KCOUNT_CORE_H
#define LIBDL_TOOLS_KCOUNT_CORE_H

#define SCHED_DEADLINE 6

struct sched_dl_entity {
	__u64 dl_runtime;
	__u64 dl_deadline;
	__u64 dl_period;
	__s64 runtime;
	__u64 deadline;
	unsigned int dl_throttled : 1;
	unsigned int dl_yielded : 1;
} __attribute__((preserve_access_index));

struct rq {
	__u64 clock;
} __attribute__((preserve_access_index));

/* With CONFIG_FAIR_GROUP_SCHED (Debian's kernels): every task's entity
 * names its CPU's fair run queue, and that its run queue. */
struct cfs_rq {
	struct rq *rq;
} __attribute__((preserve_access_index));

struct sched_entity {
	struct cfs_rq *cfs_rq;
} __attribute__((preserve_access_index));

/* on_rq is unsigned here: an int in 6.1 and 6.12, a u8 in sid's 7.2.
 * libbpf narrows the load of an unsigned field to the running kernel's
 * size; a signed one it cannot (sign extension), and refuses the load. */
struct task_struct {
	unsigned int flags;
	unsigned int on_rq;
	unsigned int policy;
	int pid;
	int tgid;
	struct sched_entity se;
	struct sched_dl_entity dl;
} __attribute__((preserve_access_index));

/* The task iterator's context (iter/task, Linux 5.8): a fixed layout,
 * as a program's context is, so declared plainly, without relocation. */
struct seq_file;
struct bpf_iter_meta {
	struct seq_file *seq;
	__u64 session_id;
	__u64 seq_num;
};

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
};

#endif
