/*
 * plan-layout.c: plans for task sets, and the layout that makes a plan
 * real (dl_plan_taskset(3), dl_plan_layout(3)).
 */
#include <errno.h>
#include <stdlib.h>

#include "layout/layout.h"

DL_EXPORT int dl_plan_taskset(const struct dl_taskset *set, const struct dl_platform *pf,
			      struct dl_plan **plan)
{
	size_t n = set ? dl_taskset_count(set) : 0;
	struct dl_params *p;
	int err;

	if (plan)
		*plan = NULL;
	if (!set || !plan)
		return dl_fail(-EINVAL, "dl_plan_taskset: no task set or result pointer given");
	p = calloc(n ? n : 1, sizeof(*p));
	if (!p)
		return dl_fail(-ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		p[i] = dl_taskset_task(set, i)->params;
	err = dl_plan_compute(p, n, pf, plan);
	free(p);
	return err;
}

DL_EXPORT int dl_plan_layout(const struct dl_plan *plan, struct dl_layout **out)
{
	struct dl_layout *l;
	int err;

	if (out)
		*out = NULL;
	if (!plan || !out)
		return dl_fail(-EINVAL, "dl_plan_layout: no plan or result pointer given");
	if (!plan->feasible)
		return dl_fail(-EINVAL, "the plan is not feasible: %s", plan->why);
	if (plan->nparts == 0)
		return dl_fail(-EINVAL, "the plan has no partition: every task runs in the cluster, on every CPU, and no layout is needed");
	l = dl_layout_new();
	if (!l)
		return dl_fail(-ENOMEM, "out of memory");
	for (size_t j = 0; j < plan->nparts; j++) {
		err = dl_layout_add_partition(l, plan->parts[j]->name, &plan->parts[j]->cpus);
		if (err)
			goto fail;
	}
	err = dl_layout_set_cluster(l, &plan->cluster->cpus);
	if (err)
		goto fail;
	*out = l;
	return 0;
fail:
	dl_layout_free(l);
	return err;
}
