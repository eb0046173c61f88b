/*
 * A capacity planner for an 8-CPU machine, as an application writes it
 * against the installed header alone: dl_platform_init(8), a task set,
 * dl_plan_taskset().  The expected plan is worked out here from the
 * task parameters and the kernel's rules, not asked of the library:
 *
 * - the set is Dhall's: 8 light tasks (1.5 ms every 9 ms) released with
 *   a heavy one (9 ms every 10 ms) keep all 8 CPUs for 1.5 ms, so global
 *   EDF has the heavy task end at 10.5 ms, past its deadline at 10 ms:
 *   not guaranteed, the miss at 10 ms (not infeasible: the plan below
 *   meets every deadline);
 * - so the plan needs a partition, and one is enough: the heavy task
 *   alone on a CPU, with that CPU's fair server, fills the kernel's cap
 *   (0.9 + 0.05 <= 0.95), and the 8 light tasks on the other 7 CPUs pass
 *   GFB (density sum 8/6 + 7 x 0.05 <= 7 - 6 x 1/6);
 * - each root domain's load is its tasks' and fair servers' bandwidths
 *   in the kernel's arithmetic, to_ratio() = (runtime << 20) / period,
 *   and what it leaves free is its CPUs x the default cap less that.
 *
 * It prints the plan in a fixed form; make installcheck runs it again
 * with this host's sysctls and CPU list made different (a private mount
 * namespace) and compares: a plan for another machine reads nothing
 * here.  With --host it prints what dl_platform_get() reads instead, to
 * show that the different host is seen.  Exit 0, or 1 with the reason.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeadline.h>

#define MS 1000000ULL

static const char tasks[] =
	"heavy 9ms 10ms 10ms\n"
	"light 1.5ms 9ms 9ms count=8\n";

/* The kernel's to_ratio(), from kernel/sched/core.c. */
static int64_t to_ratio(uint64_t period, uint64_t runtime)
{
	return (int64_t)((runtime << 20) / period);
}

static int fail(const char *what)
{
	fprintf(stderr, "planner: %s\n", what);
	return 1;
}

int main(int argc, char **argv)
{
	const int64_t cap = to_ratio(1000000, 950000), server = to_ratio(1000 * MS, 50 * MS);
	const int64_t heavy = to_ratio(10 * MS, 9 * MS), light = to_ratio(9 * MS, 1500000);
	struct dl_taskset *ts;
	struct dl_platform pf;
	struct dl_plan *plan;
	const struct dl_plan_part *part, *cl;
	char cpus[DL_CPUS_STRLEN], cpus2[DL_CPUS_STRLEN], bw[DL_BW_STRLEN];

	if (argc > 1 && strcmp(argv[1], "--host") == 0) {
		if (dl_platform_get(&pf, 0) < 0)
			return fail(dl_errmsg());
		printf("host: %d CPUs %s, cap %s, period max %" PRIu64 " ns\n", pf.ncpus,
		       dl_cpus_format(&pf.cpus, cpus, sizeof(cpus)), dl_bw_format(pf.cpu_bw, bw, sizeof(bw)),
		       pf.period_max);
		return 0;
	}
	if (dl_taskset_parse(tasks, strlen(tasks), "planner", &ts) < 0 || dl_platform_init(&pf, 8) < 0 ||
	    dl_plan_taskset(ts, &pf, &plan) < 0)
		return fail(dl_errmsg());
	if (pf.ncpus != 8 || pf.cpu_bw != cap || dl_params_bw(&pf.server) != server)
		return fail("dl_platform_init(8) is not the kernel's defaults");
	if (plan->global->verdict != DL_NOT_GUARANTEED || plan->global->miss_at != 10 * MS)
		return fail("global EDF should miss the heavy task's deadline at 10 ms");
	if (!plan->feasible || plan->nparts != 1)
		return fail("the plan should isolate one task, and only one");
	part = plan->parts[0];
	cl = plan->cluster;
	if (part->ncpus != 1 || part->ntasks != 1 || strcmp(dl_taskset_task(ts, part->tasks[0])->name, "heavy"))
		return fail("the partition should hold the heavy task alone, on one CPU");
	if (part->load != heavy + server || part->free_bw != cap - (heavy + server))
		return fail("the partition's load is not the heavy task's and one fair server's");
	if (cl->ncpus != 7 || cl->ntasks != 8 || cl->load != 8 * light + 7 * server ||
	    cl->free_bw != 7 * cap - (8 * light + 7 * server))
		return fail("the cluster should be 7 CPUs holding the 8 light tasks and 7 fair servers");
	if (dl_cpus_intersects(&part->cpus, &cl->cpus) || dl_cpus_count(&part->cpus) + dl_cpus_count(&cl->cpus) != 8)
		return fail("the partition and the cluster should share no CPU and cover all 8");
	printf("plan for 8 CPUs: %s, partition %s CPUs %s load %" PRId64 " free %" PRId64 "; cluster CPUs %s load %" PRId64
	       " free %" PRId64 "\n",
	       dl_plan_method_name(plan->method), part->name, dl_cpus_format(&part->cpus, cpus, sizeof(cpus)),
	       part->load, part->free_bw, dl_cpus_format(&cl->cpus, cpus2, sizeof(cpus2)), cl->load, cl->free_bw);
	dl_plan_free(plan);
	dl_taskset_free(ts);
	return 0;
}
