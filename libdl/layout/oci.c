/*
 * oci.c: a container's OCI runtime configuration read for what the
 * kernel will be asked when it starts (dl_oci_read(3)): process.scheduler
 * (runtime-spec 1.1 and later, config.md "Process": policy, flags,
 * runtime, deadline and period in nanoseconds, which crun applies with
 * sched_setattr(2) once the process is in its cgroup) and
 * linux.cgroupsPath (config-linux.md "Cgroups Path"), which says whose
 * root domain judges it.  No other field is read.
 *
 * cgroupsPath comes in two forms.  The systemd cgroup driver's
 * "SLICE:PREFIX:NAME" (podman --cgroup-parent=libdl-rt.slice writes
 * "libdl-rt.slice:libpod:ID"), where systemd nests a slice under the one
 * its name's dashes name (systemd.slice(5)): libdl-rt.slice is
 * /libdl.slice/libdl-rt.slice, a partition of a layout made on a systemd
 * host.  And a cgroupfs path, absolute from the hierarchy's root
 * (podman --cgroup-manager cgroupfs --cgroup-parent=/libdl-rt writes
 * "/libdl-rt/libpod-ID"), below a partition's cgroup or not.
 *
 * Every string of the container's (a path, a cgroup, a field's value,
 * the bundle's name) is escaped (dl_str_escape) where a message or
 * `where` embeds it, once: callers print both as they are (the OCI
 * hook into the system log, dl-run on a terminal).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "workload/taskset.h"

#define OCI_MAX_BYTES (4 << 20)

/* An unsigned 64-bit integer as the spec's uint64 fields are written:
 * digits only. */
static int uint64_field(const char *file, const struct dl_jval *v, const char *name, uint64_t *out)
{
	char *end;

	*out = 0;
	if (!v)
		return 0;
	if (v->type != DL_JNUM || v->text[0] == '-' || strspn(v->text, "0123456789") != strlen(v->text))
		return dl_fail(-EINVAL, "%s:%d: process.scheduler.%s must be a whole number of nanoseconds (an unsigned integer, no sign, fraction or exponent), not %s",
			       file, v->line, name, v->type == DL_JNUM ? v->text : dl_json_type_name(v->type));
	errno = 0;
	*out = strtoull(v->text, &end, 10);
	if (errno)
		return dl_fail(-EINVAL, "%s:%d: process.scheduler.%s %s is beyond 64 bits", file, v->line, name, v->text);
	return 0;
}

static const struct {
	const char *name;
	uint64_t flag; /* 0: the spec's, not a reservation's */
} flag_names[] = {
	{ "SCHED_FLAG_RESET_ON_FORK", DL_FLAG_RESET_ON_FORK },
	{ "SCHED_FLAG_RECLAIM", DL_FLAG_RECLAIM },
	{ "SCHED_FLAG_DL_OVERRUN", DL_FLAG_DL_OVERRUN },
	{ "SCHED_FLAG_KEEP_POLICY", 0 },
	{ "SCHED_FLAG_KEEP_PARAMS", 0 },
	{ "SCHED_FLAG_UTIL_CLAMP_MIN", DL_FLAG_UTIL_CLAMP_MIN },
	{ "SCHED_FLAG_UTIL_CLAMP_MAX", DL_FLAG_UTIL_CLAMP_MAX },
};

static int flags_field(const char *file, const struct dl_jval *v, uint64_t *out)
{
	*out = 0;
	if (!v)
		return 0;
	if (v->type != DL_JARR)
		return dl_fail(-EINVAL, "%s:%d: process.scheduler.flags must be an array of strings, not %s", file, v->line,
			       dl_json_type_name(v->type));
	for (size_t i = 0; i < v->n; i++) {
		const struct dl_jval *f = &v->items[i];
		size_t k;

		if (f->type != DL_JSTR)
			return dl_fail(-EINVAL, "%s:%d: process.scheduler.flags holds %s, not a flag's name", file,
				       f->line, dl_json_type_name(f->type));
		for (k = 0; k < ARRAY_SIZE(flag_names); k++)
			if (!strcmp(f->text, flag_names[k].name))
				break;
		if (k == ARRAY_SIZE(flag_names)) {
			char shown[256];

			return dl_fail(-EINVAL, "%s:%d: process.scheduler.flags: unknown flag \"%s\" (the spec's are SCHED_FLAG_RESET_ON_FORK, SCHED_FLAG_RECLAIM, SCHED_FLAG_DL_OVERRUN, SCHED_FLAG_KEEP_POLICY, SCHED_FLAG_KEEP_PARAMS, SCHED_FLAG_UTIL_CLAMP_MIN and SCHED_FLAG_UTIL_CLAMP_MAX)",
				       file, f->line, dl_str_escape(f->text, shown, sizeof(shown)));
		}
		if (!flag_names[k].flag)
			return dl_fail(-EINVAL, "%s:%d: process.scheduler.flags: %s makes the kernel keep the process's current %s instead of the ones written: there is no reservation here to judge; drop it",
				       file, f->line, f->text, strstr(f->text, "POLICY") ? "policy" : "parameters");
		*out |= flag_names[k].flag;
	}
	return 0;
}

/* The scheduler's fields into o->pub.params, each checked. */
static int read_scheduler(struct dl_oci_priv *o, const struct dl_jval *root)
{
	static const char *const policies[] = { "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH",
						"SCHED_ISO", "SCHED_IDLE", "SCHED_DEADLINE" };
	const char *file = o->shown;
	const struct dl_jval *proc = dl_json_get(root, "process");
	const struct dl_jval *s = dl_json_get(proc, "scheduler"), *pol, *prio, *nice;
	struct dl_params *p = &o->pub.params;
	char note[1024] = "", shown[256];
	size_t k;
	int err;

	if (!s)
		return dl_fail(-ENOENT, "%s: no process.scheduler: the container runs under the runtime's default policy (SCHED_OTHER), nothing to check; a deadline container needs process.scheduler with policy SCHED_DEADLINE (runtime-spec 1.1)",
			       file);
	if (s->type != DL_JOBJ)
		return dl_fail(-EINVAL, "%s:%d: process.scheduler must be an object, not %s", file, s->line,
			       dl_json_type_name(s->type));
	pol = dl_json_get(s, "policy");
	if (!pol || pol->type != DL_JSTR)
		return dl_fail(-EINVAL, "%s:%d: process.scheduler.policy must be given, a string (SCHED_DEADLINE)", file,
			       pol ? pol->line : s->line);
	for (k = 0; k < ARRAY_SIZE(policies); k++)
		if (!strcmp(pol->text, policies[k]))
			break;
	if (k == ARRAY_SIZE(policies))
		return dl_fail(-EINVAL, "%s:%d: process.scheduler.policy \"%s\" is not one of the spec's (SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_BATCH, SCHED_ISO, SCHED_IDLE, SCHED_DEADLINE)",
			       file, pol->line, dl_str_escape(pol->text, shown, sizeof(shown)));
	if (strcmp(pol->text, "SCHED_DEADLINE"))
		return dl_fail(-ENOTSUP, "%s:%d: process.scheduler.policy is %s, not SCHED_DEADLINE: no deadline bandwidth is asked, nothing to check",
			       file, pol->line, pol->text);
	if ((err = uint64_field(file, dl_json_get(s, "runtime"), "runtime", &p->runtime)) ||
	    (err = uint64_field(file, dl_json_get(s, "deadline"), "deadline", &p->deadline)) ||
	    (err = uint64_field(file, dl_json_get(s, "period"), "period", &p->period)) ||
	    (err = flags_field(file, dl_json_get(s, "flags"), &p->flags)))
		return err;
	/* The spec's default is 0, which the kernel refuses for a deadline
	 * (libdeadline's own default, the period, is not what crun asks). */
	if (!p->deadline)
		return dl_fail(-EINVAL, "%s:%d: process.scheduler.deadline is %s: the kernel refuses a deadline of 0 (crun: \"SCHED_DEADLINE requires deadline\"); give it, in nanoseconds",
			       file, s->line, dl_json_get(s, "deadline") ? "0" : "not given");
	prio = dl_json_get(s, "priority");
	if (prio && (prio->type != DL_JNUM || strcmp(prio->text, "0")))
		return dl_fail(-EINVAL, "%s:%d: process.scheduler.priority %s: the kernel refuses a priority with SCHED_DEADLINE (EINVAL, it is for SCHED_FIFO and SCHED_RR); drop it",
			       file, prio->line, prio->type == DL_JNUM ? prio->text : dl_json_type_name(prio->type));
	nice = dl_json_get(s, "nice");
	if (nice && (nice->type != DL_JNUM || strcmp(nice->text, "0")))
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "process.scheduler.nice does nothing under SCHED_DEADLINE (it is for SCHED_OTHER and SCHED_BATCH). ");
	if (!(p->flags & DL_FLAG_RESET_ON_FORK))
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "No SCHED_FLAG_RESET_ON_FORK: the kernel refuses fork() to a deadline task (EAGAIN), so the container's process cannot start another (a shell running a command, an init such as podman --init's catatonit); add \"SCHED_FLAG_RESET_ON_FORK\" to process.scheduler.flags and its children start as SCHED_OTHER. ");
	if (p->runtime < 1024 || p->deadline < 1024 || (p->period && p->period < 1024))
		snprintf(note + strlen(note), sizeof(note) - strlen(note),
			 "The OCI fields are nanoseconds: runtime %llu is %llu ns (850 ms is 850000000). ",
			 (unsigned long long)p->runtime, (unsigned long long)p->runtime);
	if (note[0]) {
		note[strlen(note) - 1] = '\0';
		if (!(o->note = strdup(note)))
			return dl_fail(-ENOMEM, "out of memory");
	}
	return 0;
}

/* A systemd slice's cgroup: systemd nests "a-b-c.slice" as
 * a.slice/a-b.slice/a-b-c.slice, "-.slice" is the root. */
static int slice_path(const char *slice, char *buf, size_t len)
{
	size_t n = strlen(slice), used = 0;

	buf[0] = '\0';
	if (n < 6 || strcmp(slice + n - 6, ".slice") || strchr(slice, '/'))
		return -EINVAL;
	if (!strcmp(slice, "-.slice"))
		return 0;
	for (size_t i = 0; i + 6 <= n; i++) {
		if (slice[i] != '-' && i + 6 != n)
			continue;
		if (i == 0 || slice[i - 1] == '-')
			return -EINVAL;
		int w = snprintf(buf + used, len - used, "%s%.*s.slice", used ? "/" : "", (int)i, slice);

		if (w < 0 || (size_t)w >= len - used)
			return -ENAMETOOLONG;
		used += (size_t)w;
	}
	return 0;
}

/*
 * A cgroupfs path with a "." or ".." component is refused: the runtime
 * resolves it ("/libdl-rt/../system.slice/x" is /system.slice/x), and
 * judged by its first components it would be placed in a partition it is
 * not in.  The message gives the path resolved, as it should be written.
 * path is below the root (no leading '/'); cg, of len bytes, a scratch.
 */
static int dotted(const char *file, const char *path, char *cg, size_t len)
{
	const char *p = path, *bad = NULL;
	char shown[400], fixed[400];
	size_t used = 0;

	cg[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			if (!bad)
				bad = n == 1 ? "." : "..";
			if (n == 2) {
				/* Up one: drop the last component kept. */
				while (used > 0 && cg[used - 1] != '/')
					used--;
				if (used > 0)
					used--;
				cg[used] = '\0';
			}
		} else if (n > 0 && used + n + 2 < len) {
			used += (size_t)snprintf(cg + used, len - used, "%s%.*s", used ? "/" : "", (int)n, p);
		}
		p += n;
		while (*p == '/')
			p++;
	}
	if (!bad)
		return 0;
	return dl_fail(-EINVAL, "%s: linux.cgroupsPath \"/%s\" has a \"%s\" component: the runtime resolves it to /%s, which is where the container would be; write that path instead",
		       file, dl_str_escape(path, shown, sizeof(shown)), bad, dl_str_escape(cg, fixed, sizeof(fixed)));
}

/* The cgroup the container will be in, below the hierarchy's root, and
 * how that was read (escaped: how is for messages). */
int dl_oci_container_cgroup(const char *file, const char *path, char *cg, size_t len, char *how, size_t hlen)
{
	const char *colon = strchr(path, ':');
	char slice[256], shown[1024], cshown[1024];
	int err;

	if (colon) {
		/* SLICE:PREFIX:NAME, NAME in PREFIX-NAME.scope */
		const char *second = strchr(colon + 1, ':');

		if (!second || (size_t)(colon - path) >= sizeof(slice))
			return dl_fail(-EINVAL, "%s: linux.cgroupsPath \"%s\" is neither a path nor systemd's SLICE:PREFIX:NAME", file,
				       dl_str_escape(path, shown, sizeof(shown)));
		memcpy(slice, path, (size_t)(colon - path));
		slice[colon - path] = '\0';
		if (!slice[0])
			snprintf(slice, sizeof(slice), "system.slice"); /* what crun and runc take for "" */
		if ((err = slice_path(slice, cg, len)))
			return dl_fail(-EINVAL, "%s: linux.cgroupsPath \"%s\": \"%s\" is not a systemd slice's name (NAME.slice)", file,
				       dl_str_escape(path, shown, sizeof(shown)), dl_str_escape(slice, cshown, sizeof(cshown)));
		snprintf(how, hlen, "systemd slice %s (cgroup /%s)", dl_str_escape(slice, shown, sizeof(shown)),
			 dl_str_escape(cg, cshown, sizeof(cshown)));
		return 0;
	}
	while (*path == '/')
		path++;
	if (dl_pathf(cg, len, "%s", path) < 0)
		return dl_fail(-ENAMETOOLONG, "%s: linux.cgroupsPath is too long", file);
	if ((err = dotted(file, path, cg, len)))
		return err;
	snprintf(how, hlen, "cgroup /%s", dl_str_escape(cg, cshown, sizeof(cshown)));
	return 0;
}

/*
 * The layout member cg is in: o->member, or none, and whether that is
 * the cluster (o->in_cluster).  The cluster is its cgroup and what is
 * below it (v1's libdl/cluster, v2's libdl-cluster), or, where that is
 * the root cgroup (a layout under systemd), every cgroup outside the
 * layout's, as dl_part_attach(DL_CLUSTER) takes it.  how is escaped.
 */
int dl_oci_find_member(struct dl_oci_priv *o, const char *cg, const char *how)
{
	struct dl_layout *l;
	char mcg[4200], parent[4200], ccg[4200], text[2048];
	bool have_ccg;
	int err = dl_layout_load(&l);

	o->in_cluster = false;
	if (err == -ENOENT) {
		snprintf(text, sizeof(text), "%s: no layout, so the whole machine", how);
		return (o->where = strdup(text)) ? 0 : dl_fail(-ENOMEM, "out of memory");
	}
	if (err == -EACCES) {
		/* The state is root's (state.c): the file is fine, where it
		 * runs is what cannot be told. */
		snprintf(text, sizeof(text), "%s: layout unknown (the layout's state is root's: run as root to know which partition this is)",
			 how);
		return (o->where = strdup(text)) ? 0 : dl_fail(-ENOMEM, "out of memory");
	}
	if (err)
		return err;
	for (size_t i = 0; i < l->nparts; i++) {
		if (dl_layout_cgroup(l, l->parts[i].name, mcg, sizeof(mcg)) < 0)
			continue;
		if (cg[0] && dl_path_within(cg, mcg)) {
			if (!(o->member = strdup(l->parts[i].name))) {
				dl_layout_free(l);
				return dl_fail(-ENOMEM, "out of memory");
			}
			snprintf(text, sizeof(text), "%s: in partition %s (cgroup /%s)", how, l->parts[i].name, mcg);
			break;
		}
	}
	have_ccg = !o->member && dl_layout_cgroup(l, DL_CLUSTER, ccg, sizeof(ccg)) == 0;
	if (have_ccg && dl_path_within(cg, ccg)) {
		/* v1's cluster is below the partitions' parent, with CPUs. */
		o->in_cluster = true;
		snprintf(text, sizeof(text), "%s: in the cluster (cgroup /%s)", how, ccg);
	} else if (!o->member) {
		/* Below the partitions' parent, in none of them: no CPU there. */
		if (dl_layout_backend(l)->cgroup(NULL, parent, sizeof(parent)) == 0 && parent[0] &&
		    !strncmp(cg, parent, strlen(parent)) && cg[strlen(parent)] == '/' && l->nparts) {
			err = dl_fail(-EINVAL, "%s: %s is below the layout's cgroup /%s but in none of its partitions nor its cluster, where a container gets no CPU of its own; give a partition's %s",
				      o->shown, how, parent, l->systemd ? "slice (libdl-NAME.slice)" : "cgroup");
			dl_layout_free(l);
			return err;
		}
		/* The cluster is the root cgroup: the rest of the machine. */
		o->in_cluster = have_ccg && !ccg[0];
		snprintf(text, sizeof(text), "%s: outside the layout's partitions", how);
	}
	dl_layout_free(l);
	return (o->where = strdup(text)) ? 0 : dl_fail(-ENOMEM, "out of memory");
}

/* A runtime configuration's or state's text (len bytes, named origin)
 * as a tree whose top is an object. */
int dl_oci_tree(const char *text, size_t len, const char *origin, const char *what, struct dl_jval **root)
{
	int err;

	*root = NULL;
	if (len > OCI_MAX_BYTES)
		return dl_fail(-EFBIG, "%s is larger than %d MiB: not %s", origin, OCI_MAX_BYTES >> 20, what);
	err = dl_json_parse(text, len, origin, root);
	if (!err && (*root)->type != DL_JOBJ)
		err = dl_fail(-EINVAL, "%s: %s is a JSON object, not %s", origin, what, dl_json_type_name((*root)->type));
	if (err) {
		dl_json_free(*root);
		*root = NULL;
	}
	return err;
}

/* A new object with its origin's name, or NULL. */
struct dl_oci_priv *dl_oci_new(const char *origin)
{
	struct dl_oci_priv *o = calloc(1, sizeof(*o));
	char shown[1024];

	if (!o || !(o->config = strdup(origin)) || !(o->shown = strdup(dl_str_escape(origin, shown, sizeof(shown))))) {
		if (o)
			free(o->config);
		free(o);
		dl_fail(-ENOMEM, "out of memory");
		return NULL;
	}
	return o;
}

/* The private fields shown through the public ones. */
void dl_oci_show(struct dl_oci_priv *o)
{
	o->pub.config = o->config;
	o->pub.cgroup = o->cgroup;
	o->pub.member = o->member;
	o->pub.where = o->where;
	o->pub.note = o->note;
	o->pub.bundle = o->bundle;
}

DL_EXPORT int dl_oci_read(const char *path, struct dl_oci **out)
{
	char file[4200], *text = NULL, cg[4200], how[4400], shown[1024];
	struct dl_jval *root = NULL;
	const struct dl_jval *cgp;
	struct dl_oci_priv *o = NULL;
	size_t len;
	FILE *f;
	int err;

	if (!out)
		return dl_fail(-EINVAL, "no place for the result");
	*out = NULL;
	if (!path || !*path)
		return dl_fail(-EINVAL, "no file: give a bundle's config.json or its folder");
	/* A bundle's folder, or its config.json. */
	if ((err = dl_pathf(file, sizeof(file), "%s/config.json", path)))
		return dl_fail(err, "%s: the name is too long", dl_str_escape(path, shown, sizeof(shown)));
	f = fopen(file, "re");
	if (!f && (errno == ENOENT || errno == ENOTDIR)) {
		snprintf(file, sizeof(file), "%s", path);
		f = fopen(file, "re");
	}
	if (!f) {
		err = -errno;
		return dl_fail(err, "cannot read %s: %s (give a bundle's config.json or its folder)",
			       dl_str_escape(path, shown, sizeof(shown)), strerror(-err));
	}
	text = malloc(OCI_MAX_BYTES + 1);
	len = text ? fread(text, 1, OCI_MAX_BYTES + 1, f) : 0;
	err = !text	  ? dl_fail(-ENOMEM, "out of memory")
	      : ferror(f) ? dl_fail(-EIO, "cannot read %s", dl_str_escape(file, shown, sizeof(shown)))
			  : 0;
	fclose(f);
	if (!err && !(o = dl_oci_new(file)))
		err = -ENOMEM;
	if (!err)
		err = dl_oci_tree(text, len, o->shown, "a runtime configuration", &root);
	if (!err)
		err = read_scheduler(o, root);
	if (!err && (cgp = dl_json_get(dl_json_get(root, "linux"), "cgroupsPath"))) {
		if (cgp->type != DL_JSTR)
			err = dl_fail(-EINVAL, "%s:%d: linux.cgroupsPath must be a string, not %s", o->shown, cgp->line,
				      dl_json_type_name(cgp->type));
		else if (!(o->cgroup = strdup(cgp->text)))
			err = dl_fail(-ENOMEM, "out of memory");
	}
	if (!err && o->cgroup)
		err = dl_oci_container_cgroup(o->shown, o->cgroup, cg, sizeof(cg), how, sizeof(how));
	else if (!err) {
		cg[0] = '\0'; /* in no member */
		snprintf(how, sizeof(how), "no linux.cgroupsPath (the runtime's default cgroup)");
	}
	if (!err)
		err = dl_oci_find_member(o, cg, how);
	dl_json_free(root);
	free(text);
	if (err) {
		dl_oci_free(o ? &o->pub : NULL);
		return err;
	}
	dl_oci_show(o);
	*out = &o->pub;
	return 0;
}

DL_EXPORT void dl_oci_free(struct dl_oci *pub)
{
	struct dl_oci_priv *o = (struct dl_oci_priv *)pub;

	if (!o)
		return;
	free(o->config);
	free(o->shown);
	free(o->cgroup);
	free(o->member);
	free(o->where);
	free(o->note);
	free(o->newcg);
	free(o->bundle);
	dl_json_free(o->root);
	free(o);
}
