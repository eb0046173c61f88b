/*
 * backend.c: what the three cgroup backends of a layout (backend-v1.c,
 * backend-v2.c, backend-systemd.c) share: numbered steps that the tests
 * can stop or fail, a cpuset made with its values in the kernel's order,
 * tasks moved back and members removed on the way out; and the backend
 * a layout uses.
 */
#include <errno.h>
#include <string.h>

#include "layout/systemd.h"

/*
 * Steps are numbered; the test builds of the tools (dl_test_hooks) stop a
 * create after step N or make step N fail, to prove that destroy and the
 * rollback restore everything from any point.
 */
int dl_step_begin(struct dl_layout_result *res, const char *what)
{
	int sig = dl_sig_interrupted();

	/* A signal held back since the last step (sys/signals.c): the
	 * create stops here and is rolled back, then the signal ends it. */
	if (sig)
		return dl_fail(-EINTR, "interrupted by %s before step %d (%s)", dl_sig_name(sig), res->steps + 1, what);
	if (dl_test_hooks && dl_test_hooks->step_begin)
		return dl_test_hooks->step_begin(res->steps + 1, what);
	return 0;
}

int dl_step(struct dl_layout_result *res, const char *what)
{
	res->steps++;
	if (dl_test_hooks && dl_test_hooks->step_done)
		dl_test_hooks->step_done(res->steps, what);
	return 0;
}


void dl_layout_all_cpus(const struct dl_layout *l, dl_cpus_t *out)
{
	*out = l->cluster;
	for (size_t i = 0; i < l->nparts; i++)
		dl_cpus_or(out, &l->parts[i].cpus);
}

/* Create a cpuset with its CPUs and nodes (in that order: the kernel
 * wants both before cpu_exclusive) and more values after. */
int dl_layout_make_cs(const char *name, const dl_cpus_t *cpus, const dl_cpus_t *mems,
			 const struct dl_kv *more, size_t nmore)
{
	char c[4096], m[DL_CPUS_STRLEN];
	struct dl_kv kv[8];
	size_t n = 0;
	int err;

	kv[n++] = (struct dl_kv){ "cpuset.cpus", dl_cpus_format(cpus, c, sizeof(c)) };
	kv[n++] = (struct dl_kv){ "cpuset.mems", dl_cpus_format(mems, m, sizeof(m)) };
	for (size_t i = 0; i < nmore && n < ARRAY_SIZE(kv); i++)
		kv[n++] = more[i];
	err = dl_cs_create(name, kv, n);
	if (err == -EEXIST)
		return dl_fail(err, "cpuset /%s exists already: remove it, or call dl_layout_destroy(3)", name);
	if (err)
		return dl_fail(err, "cannot create cpuset /%s with CPUs %s: %s", name, c,
			       err == -EINVAL ? "the kernel refused its values (an exclusive cpuset elsewhere may hold these CPUs)"
					      : dl_cg_why(err));
	return 0;
}

/* Every member's tasks back where they came from (the root, for those
 * create moved), once no exit is in flight. */
int dl_layout_move_back(const struct dl_layout *l, bool threads, struct dl_layout_result *res)
{
	char name[4200];
	int err = 0, e;

	dl_wait_quiet(DL_QUIET_TIMEOUT_MS);
	for (int i = -1; i < (int)l->nparts; i++) {
		if (dl_layout_left(l, i))
			continue; /* left as it is, its tasks too */
		dl_layout_cgroup(l, dl_layout_member(l, i, NULL), name, sizeof(name));
		if (dl_cs_exists(name) && (e = dl_cs_move_home(l, name, threads, res)) && !err)
			err = e;
	}
	return err;
}

/* Remove a member's cpuset, moving back what forked into it meanwhile. */
int dl_layout_remove_member(const struct dl_layout *l, const char *name, bool threads,
			     struct dl_layout_result *res)
{
	int e = 0;

	for (int tries = 0; tries < 5; tries++) {
		e = dl_cs_remove(name);
		if (e != -EBUSY)
			break;
		dl_cs_move_home(l, name, threads, res);
	}
	return e;
}

int dl_layout_count_cs(const char *cg, bool partition, uint64_t *threads, uint64_t *deadline)
{
	(void)partition;
	return dl_cs_count_threads(cg, threads, deadline);
}

const struct dl_cg_backend *dl_layout_backend(const struct dl_layout *l)
{
	if (l->systemd)
		return &dl_backend_systemd;
	return l->version == 2 ? &dl_backend_v2 : &dl_backend_v1;
}
