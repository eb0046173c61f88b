/*
 * servers.c: the deadline servers of a layout's members
 * (dl_layout_set_server(3)): asked for per member, set on the member's
 * CPUs by create once its root domains stand, recorded as found in the
 * state before the first write, and put back from the state by destroy,
 * a create's rollback and repair; docs/kernel-notes.md, "The deadline
 * servers' settings".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

static struct dl_layout_server *find(const struct dl_layout *l, const char *member, int kind)
{
	for (size_t i = 0; i < l->nservers; i++)
		if (l->servers[i].kind == kind && strcmp(l->servers[i].member, member) == 0)
			return &l->servers[i];
	return NULL;
}

DL_EXPORT int dl_layout_set_server(struct dl_layout *l, const char *member, int kind,
				   uint64_t runtime, uint64_t period)
{
	struct dl_layout_server *s, *ns;

	if (!l || !member || !*member)
		return dl_fail(-EINVAL, "no layout or no member named");
	if (kind != DL_SERVER_FAIR && kind != DL_SERVER_EXT)
		return dl_fail(-EINVAL, "unknown server kind %d: DL_SERVER_FAIR or DL_SERVER_EXT", kind);
	if (strlen(member) > DL_LAYOUT_NAME_MAX)
		return dl_fail(-EINVAL, "no member is named \"%.40s...\": names are up to %d characters", member,
			       DL_LAYOUT_NAME_MAX);
	if (period && (runtime > period || period < 100000 || period > (1ULL << 22) * 1000)) {
		char t1[DL_TIME_STRLEN], t2[DL_TIME_STRLEN];

		return dl_fail(-EINVAL, "%s of %s: runtime %s every %s: the kernel needs runtime <= period and a "
			       "period from 100us to 4.194304s", dl_server_name(kind), member,
			       dl_time_format(runtime, t1, sizeof(t1)), dl_time_format(period, t2, sizeof(t2)));
	}
	s = find(l, member, kind);
	if (!s) {
		ns = realloc(l->servers, (l->nservers + 1) * sizeof(*ns));
		if (!ns)
			return dl_fail(-ENOMEM, "out of memory");
		l->servers = ns;
		s = &ns[l->nservers++];
		memset(s, 0, sizeof(*s));
		snprintf(s->member, sizeof(s->member), "%s", member);
		s->kind = kind;
	}
	s->runtime = runtime;
	s->period = period;
	return 0;
}

DL_EXPORT int dl_layout_server(const struct dl_layout *l, const char *member, int kind,
			       struct dl_server *out)
{
	const struct dl_layout_server *s;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!l || !member)
		return dl_fail(-EINVAL, "no layout or no member named");
	s = find(l, member, kind);
	if (!s)
		return 0;
	if (out) {
		out->runtime = s->runtime;
		out->period = s->period;
		out->present = true;
		out->known = true;
	}
	return 1;
}

/* The CPUs of member name; false when the layout has no such member. */
static bool member_cpus(const struct dl_layout *l, const char *name, dl_cpus_t *cpus)
{
	if (strcmp(name, DL_CLUSTER) == 0) {
		*cpus = l->cluster;
		return true;
	}
	for (size_t i = 0; i < l->nparts; i++)
		if (strcmp(l->parts[i].name, name) == 0) {
			*cpus = l->parts[i].cpus;
			return true;
		}
	return false;
}

/*
 * Each setting names a member, on a kernel that has the server; a
 * server set off leaves the normal tasks of its CPUs no guaranteed time
 * while deadline tasks use the rest (docs/kernel-notes.md), so it is
 * refused where they run: the cluster, which holds the system's tasks
 * (create moves them there on cgroup v1), unless DL_LAYOUT_SERVER_OFF.
 * A partition is new and empty when made: only its CPUs' per-CPU kernel
 * threads run there besides what the user places.
 */
int dl_layout_servers_check(const struct dl_layout *l)
{
	for (size_t i = 0; i < l->nservers; i++) {
		const struct dl_layout_server *s = &l->servers[i];
		const char *name = dl_server_name(s->kind);
		dl_cpus_t cpus;
		struct dl_server now;
		int cpu, err;

		if (!member_cpus(l, s->member, &cpus))
			return dl_fail(-ENOENT, "the %s is set for \"%s\", which is not a partition of the layout "
				       "nor \"" DL_CLUSTER "\"", name, s->member);
		cpu = dl_cpus_first(&cpus);
		err = cpu < 0 ? 0 : dl_server_get(cpu, s->kind, &now);
		if (err)
			return err;
		if (cpu >= 0 && !now.present) {
			/* dl_server_set() says why: the release, or no ext server. */
			err = dl_server_set(cpu, s->kind, s->runtime, s->period);
			return dl_fail_ctx(err < 0 ? err : -ENODEV, "the %s of %s", name, s->member);
		}
		if (s->runtime == 0 && strcmp(s->member, DL_CLUSTER) == 0 && !(l->flags & DL_LAYOUT_SERVER_OFF))
			return dl_fail(-EBUSY,
				       "the %s of the cluster cannot be set off without force: the cluster holds "
				       "the system's normal tasks, and with its CPUs' %ss off the kernel gives them no "
				       "guaranteed time while deadline tasks use the rest (they starve under deadline "
				       "load); set a smaller server instead (RUNTIME/PERIOD), or force it "
				       "(DL_LAYOUT_SERVER_OFF, dl-part create --force)",
				       name, name);
	}
	return 0;
}

/*
 * dl_server_set() under the layout lock, the CPU's root domain made again
 * first where the kernel does not count its fair servers now (-EAGAIN:
 * bw/server.c says why).  Tried three times: a cgroup write of someone
 * else's (systemd's, a moment after a partition is made) may drop the
 * count again in between.
 */
static int set_counted(int cpu, int kind, uint64_t runtime, uint64_t period)
{
	int err = dl_server_set(cpu, kind, runtime, period);

	for (int i = 0; err == -EAGAIN && i < 3; i++) {
		char why[1024];
		int e;

		snprintf(why, sizeof(why), "%s", dl_errmsg());
		e = dl_rd_remake_locked(cpu);
		if (e)
			return dl_fail(err, "%s; and %s", why, dl_errmsg());
		err = dl_server_set(cpu, kind, runtime, period);
	}
	return err;
}

static int add_orig(struct dl_layout *l, int cpu, int kind, const struct dl_server *now)
{
	struct dl_server_orig *n;

	for (size_t i = 0; i < l->nserver_orig; i++)
		if (l->server_orig[i].cpu == cpu && l->server_orig[i].kind == kind)
			return 0;
	n = realloc(l->server_orig, (l->nserver_orig + 1) * sizeof(*n));
	if (!n)
		return dl_fail(-ENOMEM, "out of memory");
	l->server_orig = n;
	n[l->nserver_orig++] = (struct dl_server_orig){
		.cpu = cpu, .kind = kind, .runtime = now->runtime, .period = now->period
	};
	return 0;
}

/*
 * Every CPU's server as it is, read and saved in the state first (one
 * write: whatever happens next, destroy finds what to put back), then
 * each CPU's set.  A failure leaves the rest to the caller's rollback,
 * which puts back what the state holds.
 */
int dl_layout_servers_apply(struct dl_layout *l)
{
	int err;

	if (!l->nservers)
		return 0;
	for (size_t i = 0; i < l->nservers; i++) {
		const struct dl_layout_server *s = &l->servers[i];
		dl_cpus_t cpus;

		member_cpus(l, s->member, &cpus);
		for (int c = 0; c < DL_CPUS_MAX; c++) {
			struct dl_server now = { 0 };

			if (!dl_cpus_isset(&cpus, c))
				continue;
			err = dl_server_read(c, s->kind, &now.runtime, &now.period);
			if (!err)
				err = add_orig(l, c, s->kind, &now);
			if (err)
				return err;
		}
	}
	err = dl_layout_save(l);
	if (err)
		return err;
	for (size_t i = 0; i < l->nservers; i++) {
		const struct dl_layout_server *s = &l->servers[i];
		dl_cpus_t cpus;

		member_cpus(l, s->member, &cpus);
		for (int c = 0; c < DL_CPUS_MAX; c++) {
			if (!dl_cpus_isset(&cpus, c))
				continue;
			err = set_counted(c, s->kind, s->runtime, s->period);
			if (err)
				return dl_fail_ctx(err, "the %s of %s", dl_server_name(s->kind), s->member);
		}
	}
	return 0;
}

/* CPU c's server of s's kind is not s's setting now; false when its
 * files cannot be read (not judged). */
static bool not_as_set(const struct dl_layout_server *s, int c)
{
	struct dl_server now;

	if (dl_server_get(c, s->kind, &now) < 0 || !now.known)
		return false;
	return now.runtime != s->runtime || (s->period && now.period != s->period);
}

/* Whether CPU cpu is one of a partition destroy leaves in place. */
static bool cpu_left(const struct dl_layout *l, int cpu)
{
	for (size_t i = 0; i < l->nparts; i++)
		if (dl_layout_left(l, (int)i) && dl_cpus_isset(&l->parts[i].cpus, cpu))
			return true;
	return false;
}

/* Every server create changed put back as the state says it was, newest
 * first; all are tried, the first failure is said. */
int dl_layout_servers_restore(const struct dl_layout *l)
{
	int first = 0;
	char why[1024] = "";

	for (size_t i = l->nserver_orig; i-- > 0;) {
		const struct dl_server_orig *o = &l->server_orig[i];
		int err;

		if (cpu_left(l, o->cpu))
			continue;
		err = set_counted(o->cpu, o->kind, o->runtime, o->period);
		if (err && !first) {
			first = err;
			snprintf(why, sizeof(why), "%s", dl_errmsg());
		}
	}
	return first ? dl_fail(first, "putting the deadline servers back: %s", why) : 0;
}

/* The CPUs whose server is not the layout's now (someone changed it: a
 * CPU taken offline and back keeps it, docs/kernel-notes.md, "The deadline
 * servers' settings"), "CPU 1's fair server is 50ms every 1s, the layout's
 * off" joined by "; ".  Servers whose files cannot be
 * read are not judged. */
int dl_layout_servers_differ(const struct dl_layout *l, const char *member, char *buf, size_t len)
{
	size_t used = 0;
	int n = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < l->nservers; i++) {
		const struct dl_layout_server *s = &l->servers[i];
		dl_cpus_t cpus;

		if ((member && strcmp(member, s->member) != 0) || !member_cpus(l, s->member, &cpus))
			continue;
		for (int c = 0; c < DL_CPUS_MAX; c++) {
			char t1[DL_TIME_STRLEN], t2[DL_TIME_STRLEN], w[2 * DL_TIME_STRLEN + 16];
			struct dl_server now;

			if (!dl_cpus_isset(&cpus, c) || !not_as_set(s, c) || dl_server_get(c, s->kind, &now) < 0)
				continue;
			n++;
			if (s->runtime == 0)
				snprintf(w, sizeof(w), "off");
			else if (s->period == 0)
				snprintf(w, sizeof(w), "%s every period", dl_time_format(s->runtime, t1, sizeof(t1)));
			else
				snprintf(w, sizeof(w), "%s every %s", dl_time_format(s->runtime, t1, sizeof(t1)),
					 dl_time_format(s->period, t2, sizeof(t2)));
			if (buf && used < len)
				used += (size_t)snprintf(buf + used, len - used, "%sCPU %d's %s is %s every %s, the "
							 "layout's %s", used ? "; " : "", c, dl_server_name(s->kind),
							 dl_time_format(now.runtime, t1, sizeof(t1)),
							 dl_time_format(now.period, t2, sizeof(t2)), w);
		}
	}
	return n;
}

int dl_layout_servers_reapply(const struct dl_layout *l)
{
	int n = 0;

	for (size_t i = 0; i < l->nservers; i++) {
		const struct dl_layout_server *s = &l->servers[i];
		dl_cpus_t cpus;

		if (!member_cpus(l, s->member, &cpus))
			continue;
		for (int c = 0; c < DL_CPUS_MAX; c++) {
			int err;

			if (!dl_cpus_isset(&cpus, c) || !not_as_set(s, c))
				continue;
			err = set_counted(c, s->kind, s->runtime, s->period);
			if (err)
				return dl_fail_ctx(err, "setting the %s of %s again", dl_server_name(s->kind),
						   s->member);
			n++;
		}
	}
	return n;
}
