/*
 * policy.c: who may reserve how much through a program that holds
 * CAP_SYS_NICE on a user's behalf (dl-run.conf(5)).
 *
 * A deadline reservation is not limited by cgroup cpu.max or by any
 * rlimit: the capability alone lets a user take the whole machine.  The
 * policy file, root's, says which users and groups may use such a
 * program and the largest bandwidth per reservation, in all per user,
 * and the shortest period.  Lines are tried in order; the first whose
 * subject matches decides.  Without the file, the built-in default:
 * every user, 0.25 of a CPU per reservation, 0.5 in all, periods of 1 ms
 * or more.  Root (real uid 0) is never limited.
 *
 * What a reservation is charged is what it can take: its bandwidth, or
 * with SCHED_FLAG_RECLAIM the most a reclaiming task may run, a CPU's
 * whole deadline share (docs/kernel-notes.md, "SCHED_FLAG_RECLAIM lets a
 * task run far past its reservation"), and reclaiming, like the
 * utilization clamps, needs a rule that allows it.  The user is one uid (a caller whose real and effective ids
 * differ is refused), and the threads charged to them are the ones the
 * owner rule lets them change: real or effective uid theirs.  A user or
 * group that cannot be looked up fails closed.  dl_policy_set() makes
 * the check and the change one step, per user (turn.c), on the threads
 * it checked, and counts again after.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"

#define POLICY_MAX_SIZE (64 * 1024)
#define POLICY_MAX_RULES 1024

/* The built-in default, and each rule's defaults: a user may run a
 * typical control loop (2 ms every 10 ms is 0.2) but not hold a CPU, nor,
 * with several, more than half of one; periods under 1 ms cost the
 * machine more in scheduling than they give. */
#define DEFAULT_MAX_TASK (DL_BW_UNIT / 4)
#define DEFAULT_MAX_USER (DL_BW_UNIT / 2)
#define DEFAULT_MIN_PERIOD 1000000ULL

/* The flags a reservation may carry only when its rule allows them.
 * Reclaim lets a task run far past its reservation.  The utilization
 * clamps ask the kernel for CPU frequency rather than time: the deadline
 * class does not apply them, but they stay on the thread when it leaves
 * the class, so what a privileged program sets on a user's behalf is the
 * administrator's to allow.  Reset-on-fork and overrun-signal give a
 * task nothing of others': those need no rule. */
static const struct {
	const char *name;
	uint64_t flag;
} rule_flags[] = {
	{ "reclaim", DL_FLAG_RECLAIM },
	{ "util-clamp", DL_FLAG_UTIL_CLAMP_MIN | DL_FLAG_UTIL_CLAMP_MAX },
};

/* allow-flags=NAME[,NAME...] */
static int parse_flags(const char *s, uint64_t *flags, char *bad, size_t len)
{
	char buf[128], *save = NULL;

	if (strlen(s) >= sizeof(buf) || !*s) {
		snprintf(bad, len, "%.32s", s);
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", s);
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(rule_flags); i++)
			if (strcmp(w, rule_flags[i].name) == 0)
				break;
		if (i == ARRAY_SIZE(rule_flags)) {
			snprintf(bad, len, "%.32s", w);
			return -EINVAL;
		}
		*flags |= rule_flags[i].flag;
	}
	return 0;
}

static int perr(const char *origin, int line, const char *fmt, ...) DL_PRINTF(3, 4);
static int perr(const char *origin, int line, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return dl_fail(-EINVAL, "%s, line %d: %s", origin, line, what);
}

/* "0.25" or "25%" of a CPU, into DL_BW units (0 < bw <= cpus CPUs'). */
static int parse_bw_upto(const char *s, uint64_t cpus, uint64_t *bw)
{
	uint64_t whole = 0, frac = 0, scale = 1;
	bool pct = false, digits = false;
	const char *p = s;

	for (; isdigit((unsigned char)*p); p++, digits = true)
		if ((whole = whole * 10 + (uint64_t)(*p - '0')) > 100 * cpus)
			return -EINVAL;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++, digits = true)
			if (scale < 1000000) {
				frac = frac * 10 + (uint64_t)(*p - '0');
				scale *= 10;
			}
	if (*p == '%') {
		pct = true;
		p++;
	}
	if (*p || !digits)
		return -EINVAL;
	/* (whole + frac/scale) x 2^20, rounded, / 100 for a percentage. */
	*bw = (whole * scale + frac) * DL_BW_UNIT / scale / (pct ? 100 : 1);
	return *bw > 0 && *bw <= cpus * DL_BW_UNIT ? 0 : -ERANGE;
}

/* One reservation's: at most a CPU. */
static int parse_bw(const char *s, uint64_t *bw)
{
	return parse_bw_upto(s, 1, bw);
}

/* A namespace's total, over the node's CPUs: up to 1024 of them. */
static int parse_bw_total(const char *s, uint64_t *bw)
{
	return parse_bw_upto(s, 1024, bw);
}

/* A Kubernetes namespace's name: a DNS-1123 label. */
bool dl_policy_namespace_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static int parse_rule(struct dl_policy *pol, char *line, int lineno)
{
	char *save = NULL, *tok[16];
	int nt = 0;
	struct dl_policy_rule r = { .max_task = DEFAULT_MAX_TASK, .max_user = DEFAULT_MAX_USER,
				    .max_total = DEFAULT_MAX_USER, .min_period = DEFAULT_MIN_PERIOD, .line = lineno };

	for (char *t = strtok_r(line, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (nt == (int)ARRAY_SIZE(tok))
			return perr(pol->origin, lineno, "too many words");
		tok[nt++] = t;
	}
	if (nt == 0)
		return 0;
	if (strcmp(tok[0], "allow") != 0 && strcmp(tok[0], "deny") != 0)
		return perr(pol->origin, lineno, "\"%.32s\" is not a rule: begin with allow or deny", tok[0]);
	r.allow = tok[0][0] == 'a';
	if (nt < 2)
		return perr(pol->origin, lineno, "%s whom? give all, user NAME or group NAME", tok[0]);
	int k = 2;
	if (strcmp(tok[1], "all") == 0) {
		r.subject = DL_SUBJ_ALL;
	} else if (strcmp(tok[1], "user") == 0 || strcmp(tok[1], "group") == 0) {
		r.subject = tok[1][0] == 'u' ? DL_SUBJ_USER : DL_SUBJ_GROUP;
		if (nt < 3 || strlen(tok[2]) > DL_POLICY_NAME_MAX || strchr(tok[2], '='))
			return perr(pol->origin, lineno, "%s needs a name (at most %d characters)", tok[1], DL_POLICY_NAME_MAX);
		snprintf(r.name, sizeof(r.name), "%s", tok[2]);
		k = 3;
	} else if (strcmp(tok[1], "namespace") == 0) {
		r.subject = DL_SUBJ_NAMESPACE;
		if (nt < 3 || (strcmp(tok[2], "*") && !dl_policy_namespace_ok(tok[2])))
			return perr(pol->origin, lineno, "namespace needs a Kubernetes namespace's name (lower-case letters, digits and '-', at most 63) or *, not \"%.32s\"",
				    nt < 3 ? "" : tok[2]);
		snprintf(r.name, sizeof(r.name), "%s", tok[2]);
		r.max_user = 0;
		k = 3;
	} else if (strcmp(tok[1], "engine") == 0) {
		r.subject = DL_SUBJ_ENGINE;
		if (nt < 3 || strcmp(tok[2], "podman"))
			return perr(pol->origin, lineno, "engine needs the engine's name: podman (the containers that are no Kubernetes pod's)");
		snprintf(r.name, sizeof(r.name), "%s", tok[2]);
		r.max_user = 0;
		k = 3;
	} else {
		return perr(pol->origin, lineno, "\"%.32s\": the subject is all, user NAME, group NAME, namespace NAME or engine podman", tok[1]);
	}
	bool box = r.subject == DL_SUBJ_NAMESPACE || r.subject == DL_SUBJ_ENGINE;
	for (; k < nt; k++) {
		char *eq = strchr(tok[k], '=');
		int err = 0;

		if (!r.allow)
			return perr(pol->origin, lineno, "a deny rule takes no limits (\"%.32s\")", tok[k]);
		if (!eq)
			return perr(pol->origin, lineno, "\"%.32s\" is not KEY=VALUE", tok[k]);
		*eq++ = '\0';
		if (strcmp(tok[k], "allow-flags") == 0) {
			char bad[40];

			if (parse_flags(eq, &r.flags, bad, sizeof(bad)) < 0)
				return perr(pol->origin, lineno, "allow-flags=%.32s: \"%s\" is not a flag a rule allows (reclaim, util-clamp; reset-on-fork and overrun-signal need no rule)",
					    eq, bad);
			continue;
		}
		if (strcmp(tok[k], "partitions") == 0 && box) {
			if (!*eq || strlen(eq) >= sizeof(r.parts) || strspn(eq, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,-") != strlen(eq))
				return perr(pol->origin, lineno, "partitions=%.32s: give partition names (or cluster) separated by commas", eq);
			snprintf(r.parts, sizeof(r.parts), "%s", eq);
			continue;
		}
		if (strcmp(tok[k], "max-task") == 0)
			err = parse_bw(eq, &r.max_task);
		else if (strcmp(tok[k], "max-user") == 0 && !box)
			err = parse_bw(eq, &r.max_user);
		else if (strcmp(tok[k], "max-total") == 0 && box)
			err = parse_bw_total(eq, &r.max_total);
		else if (strcmp(tok[k], "min-period") == 0)
			err = dl_time_parse(eq, &r.min_period);
		else if (box)
			return perr(pol->origin, lineno, "unknown key \"%.32s\" for a container's rule (max-task, max-total, min-period, allow-flags, partitions)", tok[k]);
		else
			return perr(pol->origin, lineno, "unknown key \"%.32s\" for a user's rule (max-task, max-user, min-period, allow-flags)", tok[k]);
		if (err)
			return perr(pol->origin, lineno, "%s=%.32s: %s", tok[k], eq,
				    strcmp(tok[k], "min-period") == 0 ? "not a time (e.g. 1ms)"
				    : strcmp(tok[k], "max-total") == 0 ? "not a bandwidth above 0 in CPUs (e.g. 0.5, 1.5 or 150%)"
								       : "not a bandwidth above 0 and at most 1 (e.g. 0.25 or 25%)");
	}
	if (pol->n == POLICY_MAX_RULES)
		return perr(pol->origin, lineno, "more than %d rules", POLICY_MAX_RULES);
	struct dl_policy_rule *v = realloc(pol->rules, (pol->n + 1) * sizeof(*v));
	if (!v)
		return dl_fail(-ENOMEM, "out of memory");
	pol->rules = v;
	pol->rules[pol->n++] = r;
	return 0;
}

DL_EXPORT int dl_policy_parse(const char *text, size_t len, const char *origin, struct dl_policy **out)
{
	struct dl_policy *pol;
	int lineno = 0, err = 0;
	size_t i = 0;

	if (!out)
		return dl_fail(-EINVAL, "no place for the policy");
	*out = NULL;
	if (!text && len)
		return dl_fail(-EINVAL, "no policy text");
	if (len > POLICY_MAX_SIZE)
		return dl_fail(-EFBIG, "%s is larger than %d bytes", origin ? origin : "the policy", POLICY_MAX_SIZE);
	pol = calloc(1, sizeof(*pol));
	if (!pol)
		return dl_fail(-ENOMEM, "out of memory");
	snprintf(pol->origin, sizeof(pol->origin), "%s", origin ? origin : "policy");
	while (!err && i < len) {
		char line[1024];
		size_t n = 0;

		lineno++;
		while (i < len && text[i] != '\n') {
			if (text[i] == '\0') {
				err = perr(pol->origin, lineno, "a NUL byte: not a text file");
				break;
			}
			if (n < sizeof(line) - 1)
				line[n] = text[i];
			n++;
			i++;
		}
		i++;
		if (err)
			break;
		if (n >= sizeof(line)) {
			err = perr(pol->origin, lineno, "longer than %zu characters", sizeof(line) - 1);
			break;
		}
		line[n] = '\0';
		line[strcspn(line, "#")] = '\0';
		err = parse_rule(pol, line, lineno);
	}
	if (err) {
		dl_policy_free(pol);
		return err;
	}
	*out = pol;
	return 0;
}

DL_EXPORT int dl_policy_read(const char *path, struct dl_policy **out)
{
	char *text;
	struct stat st;
	ssize_t got;
	int fd, err;

	if (!path || !out)
		return dl_fail(-EINVAL, "no policy file or no place for it");
	*out = NULL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && errno == ENOENT) {
		/* No file: the built-in default. */
		err = dl_policy_parse("allow all", 9, "the built-in policy", out);
		if (!err)
			(*out)->builtin = true;
		return err;
	}
	if (fd < 0)
		return dl_fail(-errno, "cannot read the policy %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return dl_fail(-EPERM, "the policy %s is not a regular file owned by root and writable by root alone, so it cannot be trusted: chown root:root %s; chmod 644 %s",
			       path, path, path);
	}
	if (st.st_size > POLICY_MAX_SIZE) {
		close(fd);
		return dl_fail(-EFBIG, "the policy %s is larger than %d bytes", path, POLICY_MAX_SIZE);
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		return dl_fail(-ENOMEM, "out of memory");
	}
	got = read(fd, text, (size_t)st.st_size);
	close(fd);
	if (got < 0) {
		err = -errno;
		free(text);
		return dl_fail(err, "cannot read the policy %s: %s", path, strerror(-err));
	}
	err = dl_policy_parse(text, (size_t)got, path, out);
	free(text);
	return err;
}

DL_EXPORT void dl_policy_free(struct dl_policy *pol)
{
	if (!pol)
		return;
	free(pol->rules);
	free(pol);
}

/* The user the policy judges: one uid and one gid, real and effective
 * alike (dl-run refuses to be set-id; a library caller that is, is
 * refused here, since either id could be meant). */
struct caller {
	uid_t uid;
	gid_t gid;
};

static bool caller_of(struct caller *c, char *why, size_t len)
{
	uid_t r, e, su;
	gid_t rg, eg, sg;

	if (getresuid(&r, &e, &su) < 0 || getresgid(&rg, &eg, &sg) < 0) {
		snprintf(why, len, "refused: cannot read the caller's user and group ids: %s", strerror(errno));
		return false;
	}
	if (r != e || rg != eg) {
		snprintf(why, len, "refused: the caller's real and effective ids differ (uid %u and %u, gid %u and %u): the policy judges one user",
			 (unsigned)r, (unsigned)e, (unsigned)rg, (unsigned)eg);
		return false;
	}
	c->uid = r;
	c->gid = rg;
	return true;
}

/*
 * The user and group database, failing closed: buffers start at the size
 * sysconf() suggests and double on ERANGE (a group of many members is
 * larger than any fixed buffer), and an error of the lookup is an error,
 * never "no such entry".  0 found, -ENOENT none, or the negative errno.
 */
#define LOOKUP_MAX (16u << 20)

struct entry {
	union {
		struct passwd pw;
		struct group gr;
	};
	char *buf;
};

enum lookup { PW_NAM, PW_UID, GR_NAM, GR_GID };

static int lookup(enum lookup what, const char *name, unsigned int id, struct entry *e)
{
	long hint = sysconf(what == PW_NAM || what == PW_UID ? _SC_GETPW_R_SIZE_MAX : _SC_GETGR_R_SIZE_MAX);
	size_t len = hint > 0 && hint < (long)LOOKUP_MAX ? (size_t)hint : 16384;
	void *res = NULL;
	int err;

	e->buf = NULL;
	for (;;) {
		char *nb = realloc(e->buf, len);

		if (!nb)
			return -ENOMEM;
		e->buf = nb;
		if (what == PW_NAM || what == PW_UID) {
			struct passwd *r = NULL;

			err = what == PW_NAM ? getpwnam_r(name, &e->pw, e->buf, len, &r)
					     : getpwuid_r((uid_t)id, &e->pw, e->buf, len, &r);
			res = r;
		} else {
			struct group *r = NULL;

			err = what == GR_NAM ? getgrnam_r(name, &e->gr, e->buf, len, &r)
					     : getgrgid_r((gid_t)id, &e->gr, e->buf, len, &r);
			res = r;
		}
		if (err != ERANGE || len >= LOOKUP_MAX)
			break;
		len *= 2;
	}
	if (err)
		return -err;
	return res ? 0 : -ENOENT;
}

/* What the rule's subject is, looked up: its uid or gid and, when the
 * database has the group (*found), its members in e.  -ENOENT when the
 * name is nobody's and no number, or the lookup's error. */
static int resolve(const struct dl_policy_rule *r, struct entry *e, unsigned int *id, bool *found)
{
	pid_t n = dl_parse_pid(r->name);
	int err;

	err = lookup(r->subject == DL_SUBJ_USER ? PW_NAM : GR_NAM, r->name, 0, e);
	*found = err == 0;
	if (err == 0) {
		*id = r->subject == DL_SUBJ_USER ? e->pw.pw_uid : e->gr.gr_gid;
		return 0;
	}
	if (err != -ENOENT || n < 0)
		return err;
	*id = (unsigned int)n;
	if (r->subject == DL_SUBJ_USER)
		return 0;
	/* A group by number: its members, when the database has it. */
	free(e->buf);
	err = lookup(GR_GID, NULL, *id, e);
	*found = err == 0;
	return err == -ENOENT ? 0 : err;
}

/* Is the caller in group gid: its own group, a supplementary group of
 * this process (the kernel's view), or in the group database its user's
 * primary group or one that lists it as a member?  1, 0, or the negative
 * errno with what failed in *what. */
static int in_group(const struct caller *c, gid_t gid, char *const *members, const char **what)
{
	struct entry me;
	gid_t *list;
	int n, err;

	if (gid == c->gid)
		return 1;
	n = getgroups(0, NULL);
	if (n < 0) {
		*what = "getgroups()";
		return -errno;
	}
	list = malloc(((size_t)n + 1) * sizeof(*list));
	if (!list)
		return -ENOMEM;
	n = getgroups(n + 1, list);
	if (n < 0) {
		err = -errno;
		free(list);
		*what = "getgroups()";
		return err;
	}
	for (int i = 0; i < n; i++) {
		if (list[i] == gid) {
			free(list);
			return 1;
		}
	}
	free(list);
	err = lookup(PW_UID, NULL, c->uid, &me);
	if (err == 0) {
		err = me.pw.pw_gid == gid;
		for (char *const *m = members; m && *m && !err; m++)
			err = strcmp(*m, me.pw.pw_name) == 0;
	} else if (err == -ENOENT) {
		err = 0; /* a uid of no user: in no group of the database */
	} else {
		*what = "the user database (your uid)";
	}
	free(me.buf);
	return err;
}

/*
 * Does rule r apply to the caller?  1 or 0; -1 refused, with why: a
 * lookup failed, or a deny rule names a user or group the system cannot
 * find (a name service that failed can answer "no such entry"; a deny
 * rule then must not let the user through).
 */
static int matches(const struct dl_policy *pol, const struct dl_policy_rule *r, const struct caller *c, char *why, size_t len)
{
	const char *kind = r->subject == DL_SUBJ_USER ? "user" : "group", *what = NULL;
	struct entry e = { .buf = NULL };
	unsigned int id = 0;
	bool found;
	int err;

	if (r->subject == DL_SUBJ_NAMESPACE || r->subject == DL_SUBJ_ENGINE)
		return 0; /* a container's rule: container.c's */
	if (r->subject == DL_SUBJ_ALL)
		return 1;
	err = resolve(r, &e, &id, &found);
	if (err == -ENOENT && !r->allow) {
		free(e.buf);
		snprintf(why, len, "refused: %s, line %d denies %s %s, which cannot be looked up (no such %s, or the name service did not answer): the policy fails closed; correct the line or the name service",
			 pol->origin, r->line, kind, r->name, kind);
		return -1;
	}
	if (err == -ENOENT) {
		free(e.buf);
		return 0;
	}
	if (err == 0 && r->subject == DL_SUBJ_USER)
		err = id == c->uid;
	else if (err == 0)
		err = in_group(c, (gid_t)id, found ? e.gr.gr_mem : NULL, &what);
	free(e.buf);
	if (err < 0) {
		snprintf(why, len, "refused: cannot tell whether %s, line %d (%s %s %s) applies to you: looking up %s failed (%s); the policy fails closed",
			 pol->origin, r->line, r->allow ? "allow" : "deny", kind, r->name,
			 what ? what : r->subject == DL_SUBJ_USER ? "the user" : "the group", strerror(-err));
		return -1;
	}
	return err;
}

/* What a reclaiming reservation can take: the kernel lets it run up to
 * a CPU's deadline share, max_bw = sched_rt_runtime_us /
 * sched_rt_period_us (all of it when that is -1), whatever its own
 * bandwidth (docs/kernel-notes.md, "SCHED_FLAG_RECLAIM lets a task run
 * far past its reservation"). */
static uint64_t reclaim_cap(void)
{
	uint64_t bw;
	bool unlimited;

	dl_rt_bw(&bw, &unlimited);
	return unlimited || bw > DL_BW_UNIT ? DL_BW_UNIT : bw;
}

uint64_t dl_policy_charge(const struct dl_params *p)
{
	uint64_t cap, bw = dl_params_bw(p);

	if (!(p->flags & DL_FLAG_RECLAIM))
		return bw;
	cap = reclaim_cap();
	return bw > cap ? bw : cap;
}

/* The threads whose reservations a request replaces: not counted as
 * held.  The threads of pid (all_threads), or thread pid, or the held
 * ones. */
struct replaced {
	pid_t pid;
	bool all_threads;
	const struct dl_held *held;
	size_t n;
};

static bool is_replaced(const struct replaced *rp, const struct dl_task *t)
{
	if (!rp)
		return false;
	if (rp->held) {
		for (size_t i = 0; i < rp->n; i++)
			if (rp->held[i].tid == t->tid && !rp->held[i].gone)
				return true;
		return false;
	}
	return t->tid == rp->pid || (rp->all_threads && t->pid == rp->pid);
}

/* What the user's deadline threads hold now, as the kernel reports them:
 * every thread whose real or effective uid is the user's (the owner
 * rule: the threads the user may change are the ones charged), each at
 * its charge, but the replaced ones. */
static int user_bw(uid_t uid, const struct replaced *rp, uint64_t *sum)
{
	struct dl_task *t;
	size_t n;
	int err = dl_tasks_list(0, &t, &n);

	*sum = 0;
	if (err < 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		char path[64];
		unsigned long long ids[2];

		if (is_replaced(rp, &t[i]))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)t[i].pid, (int)t[i].tid);
		if (dl_status_ids(AT_FDCWD, path, "Uid", ids, 2) == 0 && (ids[0] == uid || ids[1] == uid))
			*sum += dl_policy_charge(&t[i].params);
	}
	free(t);
	return 0;
}

void dl_policy_rule_text(const struct dl_policy *pol, const struct dl_policy_rule *r, char *buf, size_t len)
{
	static const char *const subj[] = { "all", "user ", "group ", "namespace ", "engine " };
	char t[32], u[32], pstr[32];
	bool box = r->subject == DL_SUBJ_NAMESPACE || r->subject == DL_SUBJ_ENGINE;
	size_t used;

	if (pol->builtin)
		snprintf(buf, len, "the built-in policy (no policy file)");
	else
		snprintf(buf, len, "%s, line %d (%s %s%s)", pol->origin, r->line, r->allow ? "allow" : "deny",
			 subj[r->subject], r->name);
	if (!r->allow)
		return;
	const char *sep = ", allow-flags ";

	used = strlen(buf);
	used += (size_t)snprintf(buf + used, len - used, ": max-task %s, %s %s, min-period %s",
				 dl_bw_format((int64_t)r->max_task, t, sizeof(t)), box ? "max-total" : "max-user",
				 dl_bw_format((int64_t)(box ? r->max_total : r->max_user), u, sizeof(u)),
				 dl_time_format(r->min_period, pstr, sizeof(pstr)));
	if (box && r->parts[0] && used < len)
		used += (size_t)snprintf(buf + used, len - used, ", partitions %s", r->parts);
	for (size_t i = 0; i < ARRAY_SIZE(rule_flags) && used < len; i++) {
		if (!(r->flags & rule_flags[i].flag))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", sep, rule_flags[i].name);
		sep = ",";
	}
}

/*
 * The verdict on request p (normalized) alone, before any thread is
 * counted: the rule that decides (*rule), its subject, the flags, one
 * reservation's charge and the period.  1 allowed so far, 0 refused with
 * why.
 */
static int judge_request(const struct dl_policy *pol, const struct caller *c, const struct dl_params *p,
			 const struct dl_policy_rule **rule, char *why, size_t len)
{
	const struct dl_policy_rule *r = NULL;
	int m;

	for (size_t i = 0; i < pol->n && !r; i++) {
		m = matches(pol, &pol->rules[i], c, why, len);
		if (m < 0)
			return 0;
		if (m)
			r = &pol->rules[i];
	}
	if (!r) {
		snprintf(why, len, "refused: no rule of %s allows your user (uid %u) or its groups; ask the administrator",
			 pol->origin, (unsigned)c->uid);
		return 0;
	}
	*rule = r;
	return dl_policy_judge_limits(pol, r, p, why, len);
}

int dl_policy_judge_limits(const struct dl_policy *pol, const struct dl_policy_rule *r, const struct dl_params *p,
			   char *why, size_t len)
{
	char rt[768], a[32], b[32];
	uint64_t bw, cost;

	dl_policy_rule_text(pol, r, rt, sizeof(rt));
	if (!r->allow) {
		snprintf(why, len, "refused by %s", rt);
		return 0;
	}
	if ((p->flags & DL_FLAG_RECLAIM) && !(r->flags & DL_FLAG_RECLAIM)) {
		snprintf(why, len, "refused: the reclaim flag (SCHED_FLAG_RECLAIM) lets a reservation run up to %s of a CPU, whatever its runtime, and %s does not allow it: the administrator allows it with allow-flags=reclaim (dl-run.conf(5))",
			 dl_bw_format((int64_t)reclaim_cap(), a, sizeof(a)), rt);
		return 0;
	}
	if ((p->flags & (DL_FLAG_UTIL_CLAMP_MIN | DL_FLAG_UTIL_CLAMP_MAX)) &&
	    (r->flags & (DL_FLAG_UTIL_CLAMP_MIN | DL_FLAG_UTIL_CLAMP_MAX)) == 0) {
		snprintf(why, len, "refused: %s does not allow the utilization clamps (--util-min, --util-max): the administrator allows them with allow-flags=util-clamp (dl-run.conf(5))",
			 rt);
		return 0;
	}
	bw = dl_params_bw(p);
	cost = dl_policy_charge(p);
	if (cost > r->max_task) {
		if (cost != bw)
			snprintf(why, len, "refused: with the reclaim flag the reservation can take %s of a CPU (a reclaiming task may run up to the kernel's cap for its CPU), above the %s allowed for one by %s",
				 dl_bw_format((int64_t)cost, a, sizeof(a)), dl_bw_format((int64_t)r->max_task, b, sizeof(b)), rt);
		else
			snprintf(why, len, "refused: the reservation is %s of a CPU, above the %s allowed for one by %s",
				 dl_bw_format((int64_t)bw, a, sizeof(a)), dl_bw_format((int64_t)r->max_task, b, sizeof(b)), rt);
		return 0;
	}
	if (p->period < r->min_period) {
		snprintf(why, len, "refused: the period %s is shorter than the %s allowed by %s",
			 dl_time_format(p->period, a, sizeof(a)), dl_time_format(r->min_period, b, sizeof(b)), rt);
		return 0;
	}
	return 1;
}

/*
 * The verdict on the user's sum under rule r: what the user's threads
 * hold (but the threads of rp, replaced) and nthreads reservations of p.
 * 1 allowed, 0 refused, with why; negative: an error listing threads.
 */
static int judge_sum(const struct dl_policy *pol, const struct dl_policy_rule *r, uid_t uid, const struct dl_params *p,
		     uint64_t nthreads, const struct replaced *rp, char *why, size_t len)
{
	uint64_t cost = dl_policy_charge(p), held;
	char rt[768], a[32], b[32], d[32];
	int err = user_bw(uid, rp, &held);

	if (err)
		return err;
	dl_policy_rule_text(pol, r, rt, sizeof(rt));
	if (held + nthreads * cost > r->max_user) {
		snprintf(why, len, "refused: your deadline threads hold %s of a CPU, and %s more would pass the %s allowed in all by %s",
			 dl_bw_format((int64_t)held, a, sizeof(a)), dl_bw_format((int64_t)(nthreads * cost), b, sizeof(b)),
			 dl_bw_format((int64_t)r->max_user, d, sizeof(d)), rt);
		return 0;
	}
	snprintf(why, len, "allowed by %s", rt);
	return 1;
}

static int hold(pid_t pid, bool all_threads, struct dl_held **out, size_t *count);

/* judge_sum for the threads held, those still alive replaced. */
static int judge_held(const struct dl_policy *pol, const struct dl_policy_rule *r, uid_t uid, const struct dl_params *p,
		      const struct dl_held *h, size_t n, char *why, size_t len)
{
	struct replaced rp = { .held = h, .n = n };
	size_t live = 0;

	for (size_t i = 0; i < n; i++)
		live += !h[i].gone;
	return judge_sum(pol, r, uid, p, live, &rp, why, len);
}

DL_EXPORT int dl_policy_check(const struct dl_policy *pol, pid_t pid, bool all_threads,
			      const struct dl_params *p, char *why, size_t len)
{
	struct replaced rp = { .pid = pid > 0 ? pid : gettid(), .all_threads = all_threads };
	const struct dl_policy_rule *r;
	struct dl_params norm;
	struct caller c;
	char scratch[1024];
	int err;

	if (!why || len == 0) {
		/* No reason wanted: the verdict alone. */
		why = scratch;
		len = sizeof(scratch);
	}
	why[0] = '\0';
	if (!pol || !p)
		return dl_fail(-EINVAL, "dl_policy_check needs a policy and parameters");
	if (!caller_of(&c, why, len))
		return 0;
	if (c.uid == 0) {
		snprintf(why, len, "allowed: root is not limited by the policy");
		return 1;
	}
	err = dl_params_normalize(p, &norm);
	if (err)
		return err;
	err = judge_request(pol, &c, &norm, &r, why, len);
	if (err <= 0)
		return err;
	if (pid > 0) {
		/* dl_policy_set's verdict: the threads it would hold, each
		 * the caller's by the owner rule, counted as it counts them. */
		struct dl_held *h = NULL;
		size_t n = 0;

		err = hold(pid, all_threads, &h, &n);
		if (err == -EPERM) {
			snprintf(why, len, "refused: %s", dl_errmsg());
			return 0;
		}
		if (err)
			return err;
		err = judge_held(pol, r, c.uid, &norm, h, n, why, len);
		dl_held_close(h, n);
		return err;
	}
	return judge_sum(pol, r, c.uid, &norm, 1, &rp, why, len);
}

/* The threads a request names, each held (bw/bw.h): the calling thread
 * (pid 0), thread pid, or every thread of process pid now. */
static int hold(pid_t pid, bool all_threads, struct dl_held **out, size_t *count)
{
	struct dl_held *h;
	pid_t *tids = NULL;
	size_t n = 1;
	int err;

	*out = NULL;
	*count = 0;
	if (pid > 0 && all_threads) {
		err = dl_threads_list(pid, &tids, &n);
		if (err == -ESRCH || (!err && n == 0)) {
			free(tids);
			return dl_fail(-ESRCH, "no process %d", (int)pid);
		}
		if (err) {
			free(tids);
			return dl_fail(err, "cannot list the threads of process %d: %s", (int)pid, strerror(-err));
		}
	}
	h = calloc(n, sizeof(*h));
	if (!h) {
		free(tids);
		return dl_fail(-ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		err = tids ? dl_held_open(pid, tids[i], DL_PROC_OWNED, &h[i])
			   : dl_held_open(0, pid > 0 ? pid : gettid(), DL_PROC_OWNED, &h[i]);
		if (err == -EMFILE || (err && !tids)) {
			free(tids);
			dl_held_close(h, i + 1);
			return err;
		}
		if (h[i].foreign) {
			err = dl_owner_check(h[i].fd, h[i].tid);
			free(tids);
			dl_held_close(h, i + 1);
			return err ? err : dl_fail(-EPERM, "thread %d is not the caller's", (int)h[i].tid);
		}
	}
	free(tids);
	*out = h;
	*count = n;
	return 0;
}

/* The caller is root: set, unlimited. */
static int set_as_root(pid_t pid, bool all_threads, const struct dl_params *p,
		       struct dl_thread_status **status, size_t *count, char *why, size_t len)
{
	int err = all_threads && pid > 0 ? dl_set_process(pid, p, 0, status, count) : dl_set(pid, p);

	if (err < 0)
		return err;
	snprintf(why, len, "allowed: root is not limited by the policy");
	return 1;
}

DL_EXPORT int dl_policy_set(const struct dl_policy *pol, pid_t pid, bool all_threads, const struct dl_params *p,
			    struct dl_thread_status **status, size_t *count, char *why, size_t len)
{
	const struct dl_policy_rule *r = NULL;
	struct dl_held *h = NULL;
	struct dl_params norm;
	struct dl_turn turn;
	struct caller c;
	char scratch[1024];
	uint64_t total;
	size_t n = 0;
	int err;

	if (status)
		*status = NULL;
	if (count)
		*count = 0;
	if (!why || len == 0) {
		/* No reason wanted: the verdict alone. */
		why = scratch;
		len = sizeof(scratch);
	}
	why[0] = '\0';
	if (!pol || !p || pid < 0)
		return dl_fail(-EINVAL, "dl_policy_set needs a policy and parameters, and a pid of 0 or more");
	if (!caller_of(&c, why, len))
		return 0;
	if (c.uid == 0)
		return set_as_root(pid, all_threads, p, status, count, why, len);
	err = dl_params_normalize(p, &norm);
	if (err)
		return err;
	/* What the rules say of the request itself, first: a user they
	 * refuse learns nothing of the threads named. */
	err = judge_request(pol, &c, &norm, &r, why, len);
	if (err <= 0)
		return err;
	/* From the sum to the count after the change, the user's only
	 * change: what the sum saw is what is changed. */
	err = dl_turn_take(&turn);
	if (err)
		return err;
	err = hold(pid, all_threads && pid > 0, &h, &n);
	if (err)
		goto out;
	err = judge_held(pol, r, c.uid, &norm, h, n, why, len);
	if (err <= 0)
		goto out;
	/* Only the threads held and checked: one started since waits for the
	 * next request. */
	for (size_t i = 0; i < n; i++)
		dl_held_set(&h[i], &norm, DL_PROC_OWNED);
	if (all_threads && pid > 0) {
		err = dl_held_finish(pid, h, n, &norm, DL_PROC_OWNED, status, count);
	} else {
		err = dl_held_result(&h[0], &norm);
	}
	if (err < 0)
		goto out;
	/* Counted again, as the kernel now reports it: anything that
	 * changed the user's threads meanwhile (another program, root) and
	 * took the sum past the rule takes this change back. */
	err = user_bw(c.uid, NULL, &total);
	if (err == 0 && total > r->max_user) {
		char a[32], b[32];

		dl_held_restore(h, n, DL_PROC_OWNED);
		snprintf(why, len, "refused: with the new reservations your deadline threads held %s of a CPU, above the %s allowed in all (their sum changed after the check): the new ones were taken back",
			 dl_bw_format((int64_t)total, a, sizeof(a)), dl_bw_format((int64_t)r->max_user, b, sizeof(b)));
		err = 0;
	} else if (err < 0) {
		dl_held_restore(h, n, DL_PROC_OWNED);
	} else {
		err = 1;
	}
	if (err <= 0 && status) {
		free(*status);
		*status = NULL;
		if (count)
			*count = 0;
	}
out:
	dl_held_close(h, n);
	dl_turn_give(&turn);
	return err;
}
