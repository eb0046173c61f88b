/*
 * bench-cginit: what libcgroup costs a process of libdeadline's, as
 * libdeadline pays it: loaded by soname (dlopen) and set up
 * (cgroup_init), at the first cgroup change, through the library's own
 * dl_cg_init().
 *
 *   bench-cginit         load and set up libcgroup, then exit
 *   bench-cginit none    exit at once (the same program otherwise)
 *
 * bench/run.sh times both by bench-spawn, alternating: the difference of
 * their medians is what libcgroup adds to a process that changes cgroups
 * (dl-part create and destroy are one each).
 */
#include <stdio.h>
#include <string.h>

#include "cgroup/cg.h"

int main(int argc, char **argv)
{
	int err;

	if (argc > 1 && strcmp(argv[1], "none") == 0)
		return 0;
	err = dl_cg_init();
	if (err)
		fprintf(stderr, "bench-cginit: %s\n", dl_errmsg());
	return err ? 1 : 0;
}
