/*
 * stat-out.h: one refresh of dl-stat as the machines read it: JSON and the
 * Prometheus text exposition format, both from the same struct stat_frame,
 * so that the figures of the two are the figures of one instant.
 */
#ifndef LIBDL_TOOLS_STAT_OUT_H
#define LIBDL_TOOLS_STAT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libdeadline.h"
#include "rd-table.h"

/* A task that uses this much of its runtime per period runs out of it. */
#define BUDGET_FULL_PERMILLE 950

/* What one refresh shows: one dl_snapshot(3), the drift verdicts, what
 * the refresh before lets say of each task (--watch), and the layout. */
struct stat_frame {
	uint64_t now; /* CLOCK_MONOTONIC ns */
	const struct dl_task *tasks;
	size_t ntasks;
	const struct dl_rd *rds;
	size_t nrds;
	const int *drift; /* per root domain, DL_DRIFT_* (dl_rd_drift(3)) */
	/* Each CPU of the root domains and its deadline servers. */
	const struct cpu_servers *cpus;
	size_t ncpus;
	bool watch;       /* refreshed: the per-task figures below are known */
	/* Per task, with watch: seen in the refresh before (else the next
	 * three are not known yet), its CPU time per period since, and how
	 * many refreshes found it out of budget. */
	const bool *seen;
	const uint64_t *used;
	const uint64_t *overruns;
	/* Per task: the counters its loop publishes (dl_counts_list(3)),
	 * or NULL; with watch, whether its misses rose since the refresh
	 * before. */
	const struct dl_task_counts *const *counts;
	const bool *misses_rose;
	/* Per task: the budget its job has left now (dl_get_budget(3)),
	 * or NULL where the kernel does not say (before Linux 7.1). */
	const struct dl_budget *const *budget;
	/* dl-stat --kernel: asked for; counting, else why not (a sentence);
	 * when counting, per task the kernel's counts since dl-stat began
	 * (kcount.h: throttles in .overruns). */
	bool kernel_asked;
	const char *kernel_why;
	const struct dl_task_counts *kcounts;
	/* When counting: what counted the throttles in kcounts, the
	 * kernel's tracepoint ("sched_dl_throttle_tp", 7.1 and later) or the
	 * switch-out ("sched_switch", inferred); per task the inferred
	 * count, beside the tracepoint's to compare (kcount.h). */
	const char *kthrottle_source;
	const uint64_t *kthrottles_inferred;
	/* When counting: how many times since dl-stat began a thread's
	 * record could not be made (kcount_failed): its counts are short. */
	uint64_t krec_failed;
	/* The containers that ask for a reservation and hold none
	 * (dl_container_unreserved_list(3)), when this user may read them. */
	bool unreserved_known;
	const struct dl_container_unreserved *unreserved;
	size_t nunreserved;
	/* The dl-part layout (dl_layout_report(3)), when there is one. */
	bool layout;
	int layout_version;
	const struct dl_part_info *parts;
	size_t nparts;
};

struct stat_view {
	bool tasks_only;
	bool domains_only;
	bool pid_labels; /* Prometheus: pid and tid labels on the task series */
};

/* Out of budget: it used BUDGET_FULL_PERMILLE of its runtime or more. */
bool task_overran(const struct dl_task *t, uint64_t used);
/* Why a layout member is not what create made, or NULL (dl-part status
 * prints it, dl-stat exports it). */
const char *member_invalid(int version, const struct dl_part_info *p);

/* The published counters of task i into a JSON object (null when it
 * publishes none), the kernel's beside them (--kernel), and both as
 * Prometheus families, told apart by their label source ("loop",
 * "kernel"). */
struct json;
void json_task_counts(struct json *j, const struct stat_frame *f, size_t i);
void prom_task_counts(FILE *o, const struct stat_frame *f, const struct stat_view *v);
/* Whether the kernel's own tracepoint counted f's throttles (kcounts
 * and f->kthrottle_source say so), rather than the switch-out. */
bool stat_throttle_tp(const struct stat_frame *f);
/* The note for f->krec_failed records that could not be made, into buf:
 * buf, or NULL when every record was made. */
const char *stat_krec_note(const struct stat_frame *f, char *buf, size_t len);

void stat_json(FILE *o, const struct stat_frame *f, const struct stat_view *v);
void stat_prometheus(FILE *o, const struct stat_frame *f, const struct stat_view *v);

#endif
