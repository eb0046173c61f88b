/*
 * occupants.c: what runs in a partition that destroy would have to stop
 * or could not move (dl_part_occupants(3)): the cgroups below the
 * partition's own that hold tasks, each named as its owner names it.
 *
 * A container engine puts each container in a cgroup of its own below
 * the parent it is given (podman --cgroup-parent=libdl-rt.slice makes
 * libpod-ID.scope there, podman with cgroupfs libpod-ID); a systemd unit
 * with Slice= is a cgroup there too, and so is dl-run's scope.  Tasks
 * that sit in the partition's cgroup itself are the layout's to move
 * back (dl-run --partition without systemd): they are not counted.
 * Removing the partition would need each occupant stopped (systemd stops
 * a slice's units with it) or moved out of the cgroup its owner keeps.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "layout/layout.h"

struct walk {
	char *buf;
	size_t len, used;
	int count;
	uint64_t threads; /* of the child being counted */
};

static int count_tasks(const char *cg, int depth, void *arg)
{
	struct walk *w = arg;
	uint64_t t = 0, d = 0;

	(void)depth;
	if (dl_cs_count_threads(cg, &t, &d) == 0)
		w->threads += t;
	return DL_CS_DESCEND;
}

/* A container engine's name for its cgroup: ENGINE-ID[.scope]. */
static bool engine_id(const char *base, const char *prefix, char *id, size_t len)
{
	size_t n = strlen(prefix), k = 0;

	if (strncmp(base, prefix, n))
		return false;
	for (base += n; isxdigit((unsigned char)base[k]); k++)
		;
	if (k < 12 || (base[k] && strcmp(base + k, ".scope")))
		return false;
	snprintf(id, len, "%.12s", base);
	return true;
}

static void describe(const char *base, char *buf, size_t len)
{
	static const struct {
		const char *prefix, *engine;
	} engines[] = { { "libpod-", "podman" }, { "docker-", "docker" }, { "crio-", "CRI-O" }, { "cri-containerd-", "containerd" } };
	char id[16];
	const char *dash;

	for (size_t i = 0; i < ARRAY_SIZE(engines); i++)
		if (engine_id(base, engines[i].prefix, id, sizeof(id))) {
			snprintf(buf, len, "%s (%s container %s)", base, engines[i].engine, id);
			return;
		}
	/* dl-run's own scope: libdl-NAME-PID.scope (backend-systemd.c). */
	dash = strrchr(base, '-');
	if (!strncmp(base, DL_LAYOUT_PARENT "-", strlen(DL_LAYOUT_PARENT) + 1) && dash &&
	    strspn(dash + 1, "0123456789") == strlen(dash + 1) - strlen(".scope") && strstr(dash, ".scope")) {
		snprintf(buf, len, "%s (dl-run --partition, process %.*s)", base, (int)(strlen(dash + 1) - 6), dash + 1);
		return;
	}
	snprintf(buf, len, "%s", base);
}

static int visit_child(const char *cg, int depth, void *arg)
{
	struct walk *w = arg;
	const char *base = strrchr(cg, '/');
	char name[600], shown[1300];

	(void)depth;
	base = base ? base + 1 : cg;
	w->threads = 0;
	count_tasks(cg, 0, w);
	dl_cs_walk(cg, count_tasks, w);
	if (!w->threads)
		return DL_CS_NEXT;
	w->count++;
	describe(base, name, sizeof(name));
	dl_str_escape(name, shown, sizeof(shown));
	if (w->buf && w->used < w->len) {
		int n = snprintf(w->buf + w->used, w->len - w->used, "%s%s, %" PRIu64 " thread%s", w->used ? "; " : "",
				 shown, w->threads, w->threads == 1 ? "" : "s");

		w->used += n > 0 ? (size_t)n : 0;
	}
	return DL_CS_NEXT; /* children only: a container's own cgroups are its */
}

int dl_layout_occupants(const struct dl_layout *l, const char *name, char *buf, size_t len)
{
	struct walk w = { .buf = buf, .len = len };
	char cg[4200];
	int err;

	if (buf && len)
		buf[0] = '\0';
	if ((err = dl_layout_cgroup(l, name, cg, sizeof(cg))))
		return err;
	if (!dl_cs_exists(cg))
		return 0;
	err = dl_cs_walk(cg, visit_child, &w);
	return err < 0 ? err : w.count;
}

DL_EXPORT int dl_part_occupants(const char *name, char *buf, size_t len)
{
	struct dl_layout *l;
	int err, i;

	if (buf && len)
		buf[0] = '\0';
	if (!name)
		return dl_fail(-EINVAL, "no partition named");
	err = dl_layout_load(&l);
	if (err == -ENOENT)
		return dl_fail(err, "no layout, so no partition %s", name);
	if (err)
		return err;
	for (i = 0; i < (int)l->nparts && strcmp(l->parts[i].name, name); i++)
		;
	if (i == (int)l->nparts) {
		dl_layout_free(l);
		return dl_fail(-ENOENT, "the layout has no partition %s", name);
	}
	err = dl_layout_occupants(l, name, buf, len);
	dl_layout_free(l);
	if (err < 0)
		return dl_fail(err, "cannot read the cgroups of partition %s: %s", name, strerror(-err));
	return err;
}
