/*
 * predict-member.c: would the kernel admit a reservation for a task that
 * starts in a member of the layout (dl_predict_member(3))?  The question
 * a container runtime's sched_setattr(2) answers once the container's
 * process is in its cgroup, asked before it starts.
 *
 * The kernel judges a new task by the root domain of the CPU it runs on
 * and its affinity (bw/admit.c): here the member's root domain, and the
 * member cgroup's effective CPUs, which a process started in it is
 * allowed.  Nothing holds bandwidth yet (old 0).  The capability is not
 * asked: what starts a container (crun, as root) holds it.  Why this is
 * the container's verdict: docs/kernel-notes.md, "EINVAL, EPERM and
 * EBUSY".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

/* Where a task outside every partition starts, with no layout: the
 * root cgroup (every online CPU the kernel gives it). */
static int outside(dl_cpus_t *cpus, char **where)
{
	int err = dl_cs_effective("", cpus);

	if (err || dl_cpus_count(cpus) == 0)
		err = dl_cpus_online(cpus);
	if (err)
		return dl_fail(err, "cannot read the online CPUs");
	if (!(*where = strdup("no layout, the whole machine: ")))
		return dl_fail(-ENOMEM, "out of memory");
	return 0;
}

/* The member's CPUs, and where the reason says the task starts: "in
 * partition rt (cgroup /libdl/rt, CPUs 2-3): " after lead ("outside the
 * partitions, " for the cluster asked for as the rest of the machine),
 * made whole at once on the heap: it holds the CPU list, which on a
 * machine of many CPUs outgrows any fixed share of a message (every
 * other CPU of 512 is 968 characters; DL_CPUS_STRLEN the longest). */
static int member_cpus(const char *member, const char *lead, dl_cpus_t *cpus, char **where)
{
	struct dl_layout *l;
	char cg[4200], list[DL_CPUS_STRLEN];
	int err, i;

	err = dl_layout_member_cgroup(member, cg, sizeof(cg), &l);
	if (err)
		return err;
	for (i = -1; i < (int)l->nparts; i++)
		if (!strcmp(dl_layout_member(l, i, cpus), member))
			break;
	/* What the kernel gives its tasks now, else what create asked. */
	if (dl_cs_effective(cg, cpus) == 0 && dl_cpus_count(cpus) == 0)
		dl_layout_member(l, i, cpus);
	if (asprintf(where, "%sin %s%s (cgroup /%s, CPUs %s): ", lead, i < 0 ? "the " : "partition ", member, cg,
		     dl_cpus_format(cpus, list, sizeof(list))) < 0) {
		*where = NULL; /* asprintf(3) leaves it undefined */
		err = dl_fail(-ENOMEM, "out of memory");
	}
	dl_layout_free(l);
	return err;
}

DL_EXPORT int dl_predict_member(const char *member, const struct dl_params *p, struct dl_verdict *v, char *why,
				size_t len)
{
	struct dl_verdict local;
	struct dl_admission a;
	struct dl_params norm;
	char span[DL_CPUS_STRLEN], scratch[1536], *where = NULL;
	dl_cpus_t cpus;
	size_t at;
	int err;

	if (!why || len == 0) {
		/* No reason wanted: the verdict alone. */
		why = scratch;
		len = sizeof(scratch);
	}
	err = dl_verdict_begin(v ? v : (v = &local), p, &norm, why, len);
	if (err <= 0)
		return err;
	/* Outside the partitions of a layout is the cluster: the rest of the
	 * machine (the root cgroup's CPUs on cgroup v2 and under systemd). */
	if (member)
		err = member_cpus(member, "", &cpus, &where);
	else if ((err = member_cpus(DL_CLUSTER, "outside the partitions, ", &cpus, &where)) == -ENOENT)
		err = outside(&cpus, &where);
	if (err)
		goto out;
	memset(&a, 0, sizeof(a));
	a.cpu = dl_cpus_first(&cpus);
	a.need = dl_params_bw(&norm);
	a.cap_need = dl_cap_need(&norm);
	a.affinity = cpus;
	a.have_affinity = true;
	if (a.cpu < 0) {
		err = dl_fail(-ENODEV, "%sno CPU", where);
		goto out;
	}
	if ((err = dl_rd_of_cpu(a.cpu, &a.rd)))
		goto out;
	dl_admit_decide(&a);
	/* The verdict follows where, in what is left of why (none when
	 * where alone fills it: the caller's len cuts the reason). */
	snprintf(why, len, "%s", where);
	at = strlen(why);
	err = dl_verdict_render(0, 1, &a, v, why + at, len - at);
	if (a.step == DL_ADMIT_AFFINITY)
		snprintf(why + at, len - at,
			 "permission denied: its CPUs are not a root domain of their own (the root domain of CPU %d is CPUs %s): the kernel refuses a deadline task whose CPUs do not cover its root domain; is the partition still valid? (dl_layout_report(3))",
			 a.cpu, dl_cpus_format(&a.rd.cpus, span, sizeof(span)));
out:
	free(where);
	return err;
}
