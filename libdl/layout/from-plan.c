/*
 * plan-layout.c: plans for task sets, and the layout that makes a plan
 * real (dl_plan_taskset(3), dl_plan_layout(3)).
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "layout/layout.h"
#include "workload/taskset.h"

/* The set's parameters as an array, after checking their periods
 * against the platform's limits; with no platform, this host's, and
 * *pf is then this host's platform, filled in host. */
static int taskset_on(const struct dl_taskset *set, const struct dl_platform **pf, struct dl_platform *host,
		      const char *who, struct dl_params **out, size_t *count)
{
	size_t n = set ? dl_taskset_count(set) : 0;
	struct dl_params *p;
	int err;

	if (!set)
		return dl_fail(-EINVAL, "%s: no task set given", who);
	if (!*pf) {
		err = dl_platform_get(host, 0);
		if (err)
			return err;
		*pf = host;
	}
	err = dl_taskset_check_periods(set, (*pf)->period_min, (*pf)->period_max,
				       *pf == host ? "the kernel's" : "the platform's");
	if (err)
		return err;
	p = calloc(n ? n : 1, sizeof(*p));
	if (!p)
		return dl_fail(-ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		p[i] = dl_taskset_task(set, i)->params;
	*out = p;
	*count = n;
	return 0;
}

DL_EXPORT int dl_plan_taskset(const struct dl_taskset *set, const struct dl_platform *pf,
			      struct dl_plan **plan)
{
	struct dl_platform host;
	struct dl_params *p;
	size_t n;
	int err;

	if (!plan)
		return dl_fail(-EINVAL, "dl_plan_taskset: no result pointer given");
	*plan = NULL;
	err = taskset_on(set, &pf, &host, "dl_plan_taskset", &p, &n);
	if (err)
		return err;
	err = dl_plan_compute(p, n, pf, plan);
	free(p);
	return err;
}

DL_EXPORT int dl_global_test_taskset(const struct dl_taskset *set, const struct dl_platform *pf,
				     struct dl_global_result **res)
{
	struct dl_platform host;
	struct dl_params *p;
	size_t n;
	int err;

	if (!res)
		return dl_fail(-EINVAL, "dl_global_test_taskset: no result pointer given");
	*res = NULL;
	err = taskset_on(set, &pf, &host, "dl_global_test_taskset", &p, &n);
	if (err)
		return err;
	err = dl_an_platform_check(pf, "dl_global_test_taskset");
	if (!err)
		err = dl_an_global_on(p, n, pf, res);
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
