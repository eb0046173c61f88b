/*
 * rebuild-under-lock.c: the public repair of the kernel's deadline accounting, a
 * root-domain rebuild (bw/rebuild.c) taken under the layout lock so that it
 * never runs in the middle of a create or destroy.
 */
#include <errno.h>
#include <unistd.h>

#include "layout/layout.h"

/* How long a repair waits for a create or destroy to finish. */
#define LOCK_WAIT_MS 10000

/* With the layout lock held: a repair never rebuilds in the middle of a
 * create or destroy.  It gives the layout's CPUs their deadline servers
 * back as well (layout/servers.c). */
DL_EXPORT int dl_rd_rebuild(void)
{
	int lock, err;

	if (geteuid() != 0)
		return dl_fail(-EPERM, "cannot rebuild the root domains: it takes root (a cpuset is made and removed)");
	lock = dl_layout_lock(LOCK_WAIT_MS);
	if (lock < 0)
		return lock;
	err = dl_rd_rebuild_locked();
	/* The layout's deadline servers too, where they are not its setting
	 * (someone changed one). */
	if (!err) {
		struct dl_layout *l;

		if (dl_layout_load(&l) == 0) {
			int n = dl_layout_servers_reapply(l);

			if (n < 0)
				err = n;
			dl_layout_free(l);
		}
	}
	close(lock);
	return err;
}
