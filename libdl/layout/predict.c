/*
 * predict.c: would the kernel admit a reservation in a member of the
 * layout (a partition, or the cluster), for a thread placed there first
 * as dl_part_set(3) places it?  Nothing is changed.
 *
 * A thread that joins a member's cpuset is allowed exactly the member's
 * CPUs (the cpuset's attach sets its affinity), so the kernel's rule
 * (bw/admit.c) is judged on the root domain of those CPUs with that
 * affinity: a partition that is its own root domain passes the affinity
 * step, one that has stopped being one (dl-part status says INVALID)
 * fails it with EPERM, as dl_part_set(3) then would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout/layout.h"

/* The member's name as the messages give it. */
static void member_text(const char *name, const char *cg, char *buf, size_t len)
{
	if (strcmp(name, DL_CLUSTER) == 0)
		snprintf(buf, len, "the cluster (/%s)", cg);
	else
		snprintf(buf, len, "partition %s (/%s)", name, cg);
}

DL_EXPORT int dl_part_predict(const char *name, pid_t pid, bool all_threads, const struct dl_params *p,
			      struct dl_verdict *v, char *why, size_t len)
{
	char cg[4200], who[4300], text[1024], cpus[DL_CPUS_STRLEN], span[DL_CPUS_STRLEN];
	struct dl_verdict local;
	struct dl_admission a;
	struct dl_params norm;
	dl_cpus_t mine;
	uint64_t n, old;
	int ret, at, err;

	if (!why || len == 0) {
		char scratch[1024];

		/* No reason wanted: the verdict alone, as dl_predict_verdict(3). */
		return dl_part_predict(name, pid, all_threads, p, v, scratch, sizeof(scratch));
	}
	err = dl_verdict_begin(v ? v : (v = &local), p, &norm, why, len);
	if (err <= 0)
		return err;
	if (pid == 0)
		pid = gettid();
	err = dl_layout_member_cgroup(name, cg, sizeof(cg), NULL);
	if (err)
		return err;
	member_text(name, cg, who, sizeof(who));
	if (!dl_cs_exists(cg))
		return dl_fail(-ENOENT, "%s no longer exists: see dl-part status, and dl-part destroy and create to make the layout again",
			       who);
	if (dl_cs_effective(cg, &mine) < 0 || dl_cpus_count(&mine) == 0)
		return dl_fail(-ENOENT, "%s has no CPUs now: see dl-part status", who);
	err = dl_threads_bw(pid, all_threads, &n, &old);
	if (err)
		return err;

	memset(&a, 0, sizeof(a));
	a.cpu = dl_cpus_first(&mine);
	a.need = n * dl_params_bw(&norm);
	a.cap_need = dl_cap_need(&norm);
	a.old = old;
	if (dl_have_cap_sys_nice() == 0) {
		a.step = DL_ADMIT_NO_CAP;
		a.cpu = -1;
	} else {
		err = dl_rd_of_cpu(a.cpu, &a.rd);
		if (err)
			return err;
		a.affinity = mine;
		a.have_affinity = true;
		/* A reservation held in another root domain moves in with the
		 * thread (the cpuset's attach admits it there first), and the
		 * request then replaces it: the larger of the two must fit. */
		at = dl_task_cpu(pid);
		if (old && (at < 0 || !dl_cpus_isset(&a.rd.cpus, at))) {
			if (old > a.need)
				a.need = old;
			a.old = 0;
		}
		dl_admit_decide(&a);
	}
	ret = dl_verdict_render(pid, n, &a, v, text, sizeof(text));
	if (a.step == DL_ADMIT_AFFINITY)
		snprintf(text, sizeof(text), "permission denied: %s, CPUs %s, is not a root domain of its own now (its CPUs are in the root domain of CPUs %s), and the kernel admits a deadline task only where its affinity covers the whole root domain: see dl-part status, and dl-part repair or destroy and create",
			 who, dl_cpus_format(&mine, cpus, sizeof(cpus)), dl_cpus_format(&a.rd.cpus, span, sizeof(span)));
	snprintf(why, len, "%s: %s", who, text);
	return ret;
}
