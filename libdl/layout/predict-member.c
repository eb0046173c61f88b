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
#include <string.h>

#include "layout/layout.h"

/* Where a task outside every partition starts, with no layout: the
 * root cgroup (every online CPU the kernel gives it). */
static int outside(dl_cpus_t *cpus, char *where, size_t len)
{
	int err = dl_cs_effective("", cpus);

	if (err || dl_cpus_count(cpus) == 0)
		err = dl_cpus_online(cpus);
	if (err)
		return dl_fail(err, "cannot read the online CPUs");
	snprintf(where, len, "no layout, the whole machine: ");
	return 0;
}

static int member_cpus(const char *member, dl_cpus_t *cpus, char *where, size_t len)
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
	snprintf(where, len, "in %s%s (cgroup /%s, CPUs %s): ", i < 0 ? "the " : "partition ", member, cg,
		 dl_cpus_format(cpus, list, sizeof(list)));
	dl_layout_free(l);
	return 0;
}

DL_EXPORT int dl_predict_member(const char *member, const struct dl_params *p, struct dl_verdict *v, char *why,
				size_t len)
{
	struct dl_verdict local;
	struct dl_admission a;
	struct dl_params norm;
	char where[512], rest[1024], span[DL_CPUS_STRLEN], scratch[1536];
	dl_cpus_t cpus;
	int err, ret;

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
		err = member_cpus(member, &cpus, where, sizeof(where));
	else if ((err = member_cpus(DL_CLUSTER, &cpus, where, sizeof(where))) == 0)
		memmove(where + strlen("outside the partitions, "), where, strlen(where) + 1),
			memcpy(where, "outside the partitions, ", strlen("outside the partitions, "));
	else if (err == -ENOENT)
		err = outside(&cpus, where, sizeof(where));
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.cpu = dl_cpus_first(&cpus);
	a.need = dl_params_bw(&norm);
	a.affinity = cpus;
	a.have_affinity = true;
	if (a.cpu < 0)
		return dl_fail(-ENODEV, "%sno CPU", where);
	if ((err = dl_rd_of_cpu(a.cpu, &a.rd)))
		return err;
	dl_admit_decide(&a);
	ret = dl_verdict_render(0, 1, &a, v, rest, sizeof(rest));
	if (a.step == DL_ADMIT_AFFINITY)
		snprintf(rest, sizeof(rest),
			 "permission denied: its CPUs are not a root domain of their own (the root domain of CPU %d is CPUs %s): the kernel refuses a deadline task whose CPUs do not cover its root domain; is the partition still valid? (dl_layout_report(3))",
			 a.cpu, dl_cpus_format(&a.rd.cpus, span, sizeof(span)));
	snprintf(why, len, "%s%s", where, rest);
	return ret;
}
