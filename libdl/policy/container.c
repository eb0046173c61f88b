/*
 * container.c: what an engine may start under a reservation, by the
 * node's policy (dl-run.conf(5), CONTAINERS): a Kubernetes pod's
 * container by its namespace's rule, any other container (podman's) by
 * the engine's rule when the file has one.
 *
 * The hook that asks runs as root, for a tenant: the pod's author, who
 * may create pods in a namespace and write any annotation.  So a pod's
 * container is refused unless a rule allows its namespace (the default
 * for a node agent: deny), and root is no exception.  A container that
 * is no pod's keeps what it had before the file gave engines rules: root's
 * engine, root's choice, unless an `engine podman` rule limits it.
 *
 * A namespace's total is what its containers' live deadline threads
 * hold on the node, as the kernel reports them.  Which container is
 * whose is recorded here when it is admitted: the namespace, its
 * process and that process's start time, one line each in the state
 * folder's "containers" (root's, 0600).  Each use reads the records
 * under the folder's "containers.lock", drops every record whose process
 * is gone (a container killed frees its share at once; the file holds
 * only what is alive), and counts the deadline threads in the cpusets of
 * the live ones: a container's threads are those of its cgroup, whatever
 * it started.  The check, the kernel's change and the record are one
 * step under the lock: two containers of one namespace started at once
 * are judged one after the other, and the second sees the first.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/policy.h"

#define RECORDS "containers"
#define RECORDS_LOCK "containers.lock"
#define LOCK_WAIT_MS 10000

/* One admitted container: whose (kind "namespace" or "engine", name),
 * its process, and that process's start time (a pid reused is another
 * process). */
struct record {
	char kind[16];
	char name[DL_POLICY_NAME_MAX + 1];
	pid_t pid;
	unsigned long long start;
	char cpuset[256]; /* its cpuset now; "" when gone */
};

static const char *kind_of(const struct dl_container *c)
{
	return c->ns ? "namespace" : "engine";
}

static const char *name_of(const struct dl_container *c)
{
	return c->ns ? c->ns : "podman";
}

/* The process's start time, or -ESRCH when it is gone. */
static int start_of(pid_t pid, unsigned long long *start)
{
	int fd = dl_thread_open(0, pid), err;

	if (fd < 0)
		return -ESRCH;
	err = dl_thread_start(fd, start);
	close(fd);
	return err;
}

/*
 * A file of the state folder with a record a line: read, each line kept
 * when parse fills elem from it and returns true (a line of no record, or
 * of a process gone, is dropped at the next write), as an array of
 * elements of size bytes; written whole, each element a line of fewer
 * than RECORD_LINE_MAX bytes by format.
 */
#define RECORD_LINE_MAX 512

static int lines_read(const char *file, size_t size, bool (*parse)(const char *line, void *elem), void **out,
		      size_t *count)
{
	char path[4096], line[RECORD_LINE_MAX];
	char *v = NULL, *elem = calloc(1, size);
	size_t n = 0, cap = 0;
	FILE *f;

	*out = NULL;
	*count = 0;
	if (!elem)
		return dl_fail(-ENOMEM, "out of memory");
	if (dl_state_path(path, sizeof(path), file)) {
		free(elem);
		return dl_fail(-ENAMETOOLONG, "the records' path is too long");
	}
	f = fopen(path, "re");
	if (!f) {
		int e = errno;

		free(elem);
		return e == ENOENT ? 0 : dl_fail(-e, "cannot read %s: %s", path, strerror(e));
	}
	while (fgets(line, sizeof(line), f)) {
		memset(elem, 0, size);
		if (!parse(line, elem))
			continue;
		if (n == cap) {
			char *nv = realloc(v, (cap = cap ? 2 * cap : 16) * size);

			if (!nv) {
				free(v);
				free(elem);
				fclose(f);
				return dl_fail(-ENOMEM, "out of memory");
			}
			v = nv;
		}
		memcpy(v + n++ * size, elem, size);
	}
	fclose(f);
	free(elem);
	*out = v;
	*count = n;
	return 0;
}

static int lines_write(const char *file, const void *v, size_t n, size_t size,
		       int (*format)(char *buf, size_t len, const void *elem))
{
	char path[4096], *text = malloc(n * RECORD_LINE_MAX + 1);
	size_t used = 0;
	int err;

	if (!text)
		return dl_fail(-ENOMEM, "out of memory");
	text[0] = '\0';
	for (size_t i = 0; i < n; i++)
		used += (size_t)format(text + used, RECORD_LINE_MAX, (const char *)v + i * size);
	err = dl_state_path(path, sizeof(path), file) ? dl_fail(-ENAMETOOLONG, "the records' path is too long")
						      : dl_file_replace(path, text, used, 0600, false);
	free(text);
	return err;
}

/* A record whose process lives, with its cpuset now. */
static bool record_parse(const char *line, void *elem)
{
	struct record *r = elem;
	unsigned long long start;
	char cs[64];
	int pid;

	if (sscanf(line, "%15s %64s %d %llu", r->kind, r->name, &pid, &r->start) != 4 || pid <= 0 ||
	    (strcmp(r->kind, "namespace") && strcmp(r->kind, "engine")))
		return false;
	r->pid = pid;
	if (start_of(r->pid, &start) < 0 || start != r->start)
		return false; /* gone: its share with it */
	snprintf(cs, sizeof(cs), "/proc/%d/cpuset", pid);
	if (dl_read_file(cs, r->cpuset, sizeof(r->cpuset)) < 0)
		return false;
	r->cpuset[strcspn(r->cpuset, "\n")] = '\0';
	return true;
}

static int record_format(char *buf, size_t len, const void *elem)
{
	const struct record *r = elem;

	return snprintf(buf, len, "%s %s %d %llu\n", r->kind, r->name, (int)r->pid, r->start);
}

static int records_read(struct record **out, size_t *count)
{
	return lines_read(RECORDS, sizeof(**out), record_parse, (void **)out, count);
}

static int records_write(const struct record *r, size_t n)
{
	return lines_write(RECORDS, r, n, sizeof(*r), record_format);
}

/* What the live deadline threads of the records of (kind, name) hold, at
 * their charge; a record in the root cgroup counts its process's threads. */
static int held_by(const struct record *r, size_t n, const char *kind, const char *name, uint64_t *sum,
		   size_t *containers)
{
	struct dl_task *t;
	size_t nt;
	int err = dl_tasks_list(0, &t, &nt);

	*sum = 0;
	*containers = 0;
	if (err < 0)
		return err;
	for (size_t k = 0; k < n; k++)
		*containers += !strcmp(r[k].kind, kind) && !strcmp(r[k].name, name);
	for (size_t i = 0; i < nt; i++)
		for (size_t k = 0; k < n; k++) {
			if (strcmp(r[k].kind, kind) || strcmp(r[k].name, name))
				continue;
			if (dl_path_within(t[i].cpuset, r[k].cpuset) || t[i].pid == r[k].pid) {
				*sum += dl_policy_charge(&t[i].params);
				break;
			}
		}
	free(t);
	return 0;
}

/* Is member among the rule's partitions=?  Outside every member is the
 * cluster's. */
static bool placed_allowed(const struct dl_policy_rule *r, const char *member)
{
	const char *m = member ? member : DL_CLUSTER, *p = r->parts;
	size_t n = strlen(m);

	if (!r->parts[0])
		return true;
	while (*p) {
		size_t w = strcspn(p, ",");

		if (w == n && !strncmp(p, m, n))
			return true;
		p += w + (p[w] == ',');
	}
	return false;
}

/* The container in words: "pod NS/POD's container NAME". */
static const char *who(const struct dl_container *c, char *buf, size_t len)
{
	char a[256], b[256], d[256];

	if (!c->ns)
		snprintf(buf, len, "a container of no Kubernetes pod (podman's)");
	else
		snprintf(buf, len, "namespace %s's pod %s, container %s", dl_str_escape(c->ns, a, sizeof(a)),
			 c->pod ? dl_str_escape(c->pod, b, sizeof(b)) : "(unnamed)",
			 c->name ? dl_str_escape(c->name, d, sizeof(d)) : "(unnamed)");
	return buf;
}

/*
 * The rule that judges c: 1 with *rule, or 0 when none does (a pod:
 * refused, why says so; no pod's: *rule NULL, the caller's rule
 * applies).  Negative: an argument that is not a container's.
 */
static int rule_for(const struct dl_policy *pol, const struct dl_container *c, const struct dl_policy_rule **rule,
		    char *why, size_t len)
{
	char w[1024];

	*rule = NULL;
	if (c->ns && !dl_policy_namespace_ok(c->ns)) {
		char shown[256];

		return dl_fail(-EINVAL, "the pod's namespace \"%s\" is not a Kubernetes namespace's name (a DNS label)",
			       dl_str_escape(c->ns, shown, sizeof(shown)));
	}
	for (size_t i = 0; i < pol->n; i++) {
		const struct dl_policy_rule *r = &pol->rules[i];

		if (c->ns && r->subject == DL_SUBJ_NAMESPACE && (!strcmp(r->name, "*") || !strcmp(r->name, c->ns))) {
			*rule = r;
			return 1;
		}
		if (!c->ns && r->subject == DL_SUBJ_ENGINE) {
			*rule = r;
			return 1;
		}
	}
	if (c->ns)
		snprintf(why, len, "refused: no rule of %s allows namespace %s (%s): a pod's container gets a reservation only where a rule allows its namespace; the administrator adds one, e.g. \"allow namespace %s max-task=0.25 max-total=0.5\" (dl-run.conf(5))",
			 pol->origin, c->ns, who(c, w, sizeof(w)), c->ns);
	return 0;
}

/* The verdict of rule r on one more reservation p for c, the records r
 * of the node counted: 1 allowed, 0 refused with why. */
static int judge(const struct dl_policy *pol, const struct dl_policy_rule *r, const struct dl_container *c,
		 const struct dl_params *p, const struct record *rec, size_t n, char *why, size_t len)
{
	char rt[768], w[1024], a[32], b[32], d[32], shown[256];
	uint64_t held, cost = dl_policy_charge(p);
	size_t nc;
	int err = dl_policy_judge_limits(pol, r, p, why, len);

	if (err <= 0) {
		/* Who it was, before the rule's words. */
		char tmp[2048];

		snprintf(tmp, sizeof(tmp), "%s", why);
		snprintf(why, len, "%s: %s", who(c, w, sizeof(w)), tmp);
		return err;
	}
	dl_policy_rule_text(pol, r, rt, sizeof(rt));
	if (!placed_allowed(r, c->member)) {
		snprintf(why, len, "refused: %s asks for %s%s, and %s allows only %s",
			 who(c, w, sizeof(w)), c->member && strcmp(c->member, DL_CLUSTER) ? "partition " : "",
			 c->member && strcmp(c->member, DL_CLUSTER) ? dl_str_escape(c->member, shown, sizeof(shown))
								     : "the cluster (outside the partitions)",
			 rt, r->parts);
		return 0;
	}
	if ((err = held_by(rec, n, kind_of(c), name_of(c), &held, &nc)) < 0)
		return err;
	if (held + cost > r->max_total) {
		snprintf(why, len, "refused: %s %s's %zu running container%s hold%s %s of a CPU on this node, and %s more would pass the %s allowed in all by %s",
			 c->ns ? "namespace" : "engine", name_of(c), nc, nc == 1 ? "" : "s", nc == 1 ? "s" : "",
			 dl_bw_format((int64_t)held, a, sizeof(a)), dl_bw_format((int64_t)cost, b, sizeof(b)),
			 dl_bw_format((int64_t)r->max_total, d, sizeof(d)), rt);
		return 0;
	}
	snprintf(why, len, "allowed by %s", rt);
	return 1;
}

/* A container of no pod, no engine rule, root's engine: not limited. */
static int root_unruled(const struct dl_policy *pol, char *why, size_t len)
{
	snprintf(why, len, "allowed: no rule of %s for engines, and root's engine is not limited", pol->origin);
	return 1;
}

DL_EXPORT int dl_policy_container_check(const struct dl_policy *pol, const struct dl_container *c,
					const struct dl_params *p, char *why, size_t len)
{
	const struct dl_policy_rule *r;
	struct dl_params norm;
	struct record *rec = NULL;
	char scratch[2048];
	size_t n = 0;
	int err;

	if (!why || len == 0) {
		why = scratch;
		len = sizeof(scratch);
	}
	why[0] = '\0';
	if (!pol || !c || !p)
		return dl_fail(-EINVAL, "dl_policy_container_check needs a policy, a container and parameters");
	if ((err = dl_params_normalize(p, &norm)))
		return err;
	err = rule_for(pol, c, &r, why, len);
	if (err < 0 || (err == 0 && c->ns))
		return err;
	if (!r) {
		/* No pod's, no engine rule: root's engine, root's choice; a
		 * user's by the user's rules. */
		if (getuid() == 0)
			return root_unruled(pol, why, len);
		return dl_policy_check(pol, 0, false, &norm, why, len);
	}
	if (r->allow && (err = records_read(&rec, &n)) < 0)
		return err;
	err = judge(pol, r, c, &norm, rec, n, why, len);
	free(rec);
	return err;
}

DL_EXPORT int dl_policy_container_set(const struct dl_policy *pol, const struct dl_container *c,
				      const struct dl_params *p, char *why, size_t len)
{
	const struct dl_policy_rule *r;
	struct dl_params norm;
	struct record *rec = NULL, mine = { .pid = 0 };
	char scratch[2048];
	size_t n = 0;
	int err, lock;

	if (!why || len == 0) {
		why = scratch;
		len = sizeof(scratch);
	}
	why[0] = '\0';
	if (!pol || !c || !p || c->pid <= 0)
		return dl_fail(-EINVAL, "dl_policy_container_set needs a policy, a container with its process and parameters");
	if ((err = dl_params_normalize(p, &norm)))
		return err;
	err = rule_for(pol, c, &r, why, len);
	if (err < 0 || (err == 0 && c->ns))
		return err;
	if (!r && getuid() != 0)
		return dl_policy_set(pol, c->pid, false, &norm, NULL, NULL, why, len);
	if (!r) {
		err = dl_set(c->pid, &norm);
		return err < 0 ? err : root_unruled(pol, why, len);
	}
	if (!r->allow)
		return judge(pol, r, c, &norm, NULL, 0, why, len);
	/* The records read, judged, the kernel asked and the record written
	 * as one step. */
	lock = dl_state_lock(RECORDS_LOCK, LOCK_WAIT_MS, "another container's admission holds the containers' records");
	if (lock < 0)
		return lock == -EBUSY ? dl_fail(-ETIMEDOUT, "%s", dl_errmsg()) : lock;
	if ((err = records_read(&rec, &n)) < 0)
		goto out;
	if ((err = judge(pol, r, c, &norm, rec, n, why, len)) <= 0)
		goto out;
	snprintf(mine.kind, sizeof(mine.kind), "%s", kind_of(c));
	snprintf(mine.name, sizeof(mine.name), "%s", name_of(c));
	mine.pid = c->pid;
	if (start_of(c->pid, &mine.start) < 0) {
		err = dl_fail(-ESRCH, "the container's process %d is gone", (int)c->pid);
		goto out;
	}
	if ((err = dl_set(c->pid, &norm)) < 0)
		goto out;
	{
		struct record *v = realloc(rec, (n + 1) * sizeof(*v));

		if (!v) {
			err = dl_fail(-ENOMEM, "out of memory");
		} else {
			rec = v;
			rec[n++] = mine;
			err = records_write(rec, n);
		}
	}
	if (err < 0) {
		/* Unrecorded, it would not count: taken back. */
		char msg[1024];

		snprintf(msg, sizeof(msg), "%s", dl_errmsg());
		dl_clear(c->pid);
		err = dl_fail(err, "%s: the reservation was taken back", msg);
	} else {
		err = 1;
	}
out:
	free(rec);
	close(lock);
	return err;
}

/*
 * Containers that ask for a reservation and run without one: created
 * while the engine's plugin (libdl-nri) was not running, found by it when
 * it connects.  Recorded in the state folder's "containers.unreserved"
 * (root's, 0600), one line each: the process, its start time, and the
 * pod's namespace and name and the container's name, their bytes outside
 * [A-Za-z0-9._-] shown as '?' (Kubernetes' names have none).  A record
 * lasts while its process lives and holds no reservation; each write
 * drops the others, so the file holds only what is alive.
 */
#define UNRESERVED "containers.unreserved"

struct unreserved {
	struct dl_container_unreserved c;
	unsigned long long start;
};

static void name_copy(char *dst, size_t len, const char *src)
{
	size_t i = 0;

	for (; src && src[i] && i + 1 < len; i++)
		dst[i] = (isalnum((unsigned char)src[i]) && isascii(src[i])) || strchr("._-", src[i]) ? src[i] : '?';
	if (i == 0 && len > 1)
		dst[i++] = '-';
	dst[i] = '\0';
}

/* A record whose process lives and still holds no reservation. */
static bool unreserved_parse(const char *line, void *elem)
{
	struct unreserved *r = elem;
	unsigned long long start;
	int pid;

	if (sscanf(line, "%d %llu %64s %253s %63s", &pid, &r->start, r->c.ns, r->c.pod, r->c.name) != 5 || pid <= 0)
		return false;
	r->c.pid = pid;
	return start_of(r->c.pid, &start) == 0 && start == r->start &&
	       dl_get(r->c.pid, &(struct dl_params){ 0 }) != DL_SCHED_DEADLINE;
}

static int unreserved_format(char *buf, size_t len, const void *elem)
{
	const struct unreserved *r = elem;

	return snprintf(buf, len, "%d %llu %s %s %s\n", (int)r->c.pid, r->start, r->c.ns, r->c.pod, r->c.name);
}

static int unreserved_read(struct unreserved **out, size_t *count)
{
	return lines_read(UNRESERVED, sizeof(**out), unreserved_parse, (void **)out, count);
}

static int unreserved_write(const struct unreserved *r, size_t n)
{
	return lines_write(UNRESERVED, r, n, sizeof(*r), unreserved_format);
}

DL_EXPORT int dl_container_unreserved_add(const struct dl_container *c)
{
	struct unreserved *rec = NULL, mine = { .start = 0 };
	size_t n = 0;
	int err, lock, policy;

	if (!c || c->pid <= 0)
		return dl_fail(-EINVAL, "dl_container_unreserved_add needs a container with its process");
	policy = dl_get(c->pid, &(struct dl_params){ 0 });
	if (policy < 0)
		return policy;
	if (policy == DL_SCHED_DEADLINE)
		return 0;
	mine.c.pid = c->pid;
	name_copy(mine.c.ns, sizeof(mine.c.ns), c->ns);
	name_copy(mine.c.pod, sizeof(mine.c.pod), c->pod);
	name_copy(mine.c.name, sizeof(mine.c.name), c->name);
	if (start_of(c->pid, &mine.start) < 0)
		return dl_fail(-ESRCH, "the container's process %d is gone", (int)c->pid);
	lock = dl_state_lock(RECORDS_LOCK, LOCK_WAIT_MS, "another container's admission holds the containers' records");
	if (lock < 0)
		return lock == -EBUSY ? dl_fail(-ETIMEDOUT, "%s", dl_errmsg()) : lock;
	if ((err = unreserved_read(&rec, &n)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (rec[i].c.pid == mine.c.pid && rec[i].start == mine.start) {
			rec[i] = mine; /* once, with the names given last */
			mine.c.pid = 0;
		}
	if (mine.c.pid) {
		struct unreserved *v = realloc(rec, (n + 1) * sizeof(*v));

		if (!v) {
			err = dl_fail(-ENOMEM, "out of memory");
			goto out;
		}
		rec = v;
		rec[n++] = mine;
	}
	err = unreserved_write(rec, n);
	if (err == 0)
		err = 1;
out:
	free(rec);
	close(lock);
	return err;
}

DL_EXPORT int dl_container_unreserved_list(struct dl_container_unreserved **list, size_t *count)
{
	struct unreserved *rec = NULL;
	size_t n = 0;
	int err;

	if (!list || !count)
		return dl_fail(-EINVAL, "dl_container_unreserved_list needs where to put the list");
	*list = NULL;
	*count = 0;
	if ((err = unreserved_read(&rec, &n)) < 0)
		return err;
	*list = calloc(n ? n : 1, sizeof(**list));
	if (!*list) {
		free(rec);
		return dl_fail(-ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		(*list)[i] = rec[i].c;
	*count = n;
	free(rec);
	return 0;
}
