/*
 * libload.c: an optional library loaded at run time.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "sys/sys.h"

/* libsystemd (cg-systemd.c) and libcgroup (cgroup.c): loaded by the
 * first call that needs them.  RTLD_NODELETE: never unmapped, since what
 * they made (buses with per-thread state, cgroup structs) outlives any
 * one call. */
void *dl_lib_load(const char *soname, const char *const *names, void **syms, size_t n,
		  char *err, size_t errlen)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);

	if (!h) {
		snprintf(err, errlen, "%s", dlerror());
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(syms[i] = dlsym(h, names[i]))) {
			snprintf(err, errlen, "%s has no %s", soname, names[i]);
			dlclose(h);
			return NULL;
		}
	}
	return h;
}
