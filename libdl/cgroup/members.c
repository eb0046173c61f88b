/*
 * members.c: the tasks of a cpuset: listed, counted, and one moved in
 * through libcgroup.
 *
 * cgroup v1 moves threads (the "tasks" file), v2 whole processes
 * ("cgroup.procs"; libcgroup 2.0.2 writes there on v2, so a TID moves its
 * whole process).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup/cg-lib.h"

/* The TIDs (v1) or PIDs (v2) listed in a cpuset, read whole. */
int dl_cs_tasks(const char *name, bool threads, pid_t **out, size_t *n)
{
	char path[4096], line[64];
	const struct dl_cg_files *files = dl_cg_files();
	const char *file = !files ? "tasks" : threads ? files->threads : files->procs;
	size_t cap = 0;
	pid_t *v = NULL;
	FILE *f;
	int err;

	*out = NULL;
	*n = 0;
	err = dl_cs_path(name, file, path, sizeof(path));
	if (err)
		return err;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (*n == cap) {
			pid_t *nv;

			cap = cap ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = nv;
		}
		line[strcspn(line, "\n")] = '\0';
		if (dl_parse_pid(line) > 0)
			v[(*n)++] = dl_parse_pid(line);
	}
	fclose(f);
	*out = v;
	return 0;
}

int dl_cs_attach(const char *name, pid_t tid)
{
	struct cgroup *cg;
	int err = dl_cg_init();

	if (!err)
		err = dl_fault("move a task");
	if (err)
		return err;
	cg = dl_cs_lcg(name, NULL);
	if (!cg)
		return -ENOMEM;
	err = dl_cg_errno(dl_cg.cgroup_attach_task_pid(cg, tid));
	dl_cg.cgroup_free(&cg);
	return err;
}

int dl_cs_count_threads(const char *name, uint64_t *threads, uint64_t *deadline)
{
	size_t n;
	pid_t *tids;
	int err = dl_cs_tasks(name, true, &tids, &n);

	*threads = *deadline = 0;
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		struct dl_sched_attr a;

		if (dl_sys_getattr(tids[i], &a) < 0)
			continue; /* exited */
		(*threads)++;
		if (a.sched_policy == DL_SCHED_DEADLINE)
			(*deadline)++;
	}
	free(tids);
	return 0;
}
