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

#include "sys/sys.h"

#define POLICY_MAX_SIZE (64 * 1024)
#define POLICY_MAX_RULES 1024
#define NAME_MAX_LEN 64

enum subject { ALL, USER, GROUP };

struct rule {
	bool allow;
	enum subject subject;
	char name[NAME_MAX_LEN + 1];
	uint64_t max_task;  /* DL_BW units */
	uint64_t max_user;
	uint64_t min_period; /* ns */
	int line;
};

struct dl_policy {
	char origin[256];
	struct rule *rules;
	size_t n;
	bool builtin;
};

/* The built-in default, and each rule's defaults: a user may run a
 * typical control loop (2 ms every 10 ms is 0.2) but not hold a CPU, nor,
 * with several, more than half of one; periods under 1 ms cost the
 * machine more in scheduling than they give. */
#define DEFAULT_MAX_TASK (DL_BW_UNIT / 4)
#define DEFAULT_MAX_USER (DL_BW_UNIT / 2)
#define DEFAULT_MIN_PERIOD 1000000ULL

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

/* "0.25" or "25%" of a CPU, into DL_BW units (0 < bw <= 1). */
static int parse_bw(const char *s, uint64_t *bw)
{
	uint64_t whole = 0, frac = 0, scale = 1;
	bool pct = false, digits = false;
	const char *p = s;

	for (; isdigit((unsigned char)*p); p++, digits = true)
		if ((whole = whole * 10 + (uint64_t)(*p - '0')) > 100)
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
	return *bw > 0 && *bw <= DL_BW_UNIT ? 0 : -ERANGE;
}

static int parse_rule(struct dl_policy *pol, char *line, int lineno)
{
	char *save = NULL, *tok[16];
	int nt = 0;
	struct rule r = { .max_task = DEFAULT_MAX_TASK, .max_user = DEFAULT_MAX_USER,
			  .min_period = DEFAULT_MIN_PERIOD, .line = lineno };

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
		r.subject = ALL;
	} else if (strcmp(tok[1], "user") == 0 || strcmp(tok[1], "group") == 0) {
		r.subject = tok[1][0] == 'u' ? USER : GROUP;
		if (nt < 3 || strlen(tok[2]) > NAME_MAX_LEN || strchr(tok[2], '='))
			return perr(pol->origin, lineno, "%s needs a name (at most %d characters)", tok[1], NAME_MAX_LEN);
		snprintf(r.name, sizeof(r.name), "%s", tok[2]);
		k = 3;
	} else {
		return perr(pol->origin, lineno, "\"%.32s\": the subject is all, user NAME or group NAME", tok[1]);
	}
	for (; k < nt; k++) {
		char *eq = strchr(tok[k], '=');
		int err = 0;

		if (!r.allow)
			return perr(pol->origin, lineno, "a deny rule takes no limits (\"%.32s\")", tok[k]);
		if (!eq)
			return perr(pol->origin, lineno, "\"%.32s\" is not KEY=VALUE", tok[k]);
		*eq++ = '\0';
		if (strcmp(tok[k], "max-task") == 0)
			err = parse_bw(eq, &r.max_task);
		else if (strcmp(tok[k], "max-user") == 0)
			err = parse_bw(eq, &r.max_user);
		else if (strcmp(tok[k], "min-period") == 0)
			err = dl_time_parse(eq, &r.min_period);
		else
			return perr(pol->origin, lineno, "unknown key \"%.32s\" (max-task, max-user, min-period)", tok[k]);
		if (err)
			return perr(pol->origin, lineno, "%s=%.32s: %s", tok[k], eq,
				    strcmp(tok[k], "min-period") == 0 ? "not a time (e.g. 1ms)"
								    : "not a bandwidth above 0 and at most 1 (e.g. 0.25 or 25%)");
	}
	if (pol->n == POLICY_MAX_RULES)
		return perr(pol->origin, lineno, "more than %d rules", POLICY_MAX_RULES);
	struct rule *v = realloc(pol->rules, (pol->n + 1) * sizeof(*v));
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

/* Is the calling process's real user (or one of its groups) the rule's
 * subject? */
static bool matches(const struct rule *r)
{
	char buf[4096];
	gid_t groups[256];
	int n;

	if (r->subject == ALL)
		return true;
	if (r->subject == USER) {
		struct passwd pw, *res = NULL;

		if (getpwnam_r(r->name, &pw, buf, sizeof(buf), &res) == 0 && res)
			return res->pw_uid == getuid();
		return dl_parse_pid(r->name) >= 0 && (uid_t)dl_parse_pid(r->name) == getuid();
	}
	{
		struct group gr, *res = NULL;
		gid_t gid;

		if (getgrnam_r(r->name, &gr, buf, sizeof(buf), &res) == 0 && res)
			gid = res->gr_gid;
		else if (dl_parse_pid(r->name) >= 0)
			gid = (gid_t)dl_parse_pid(r->name);
		else
			return false;
		if (gid == getgid())
			return true;
		n = getgroups((int)ARRAY_SIZE(groups), groups);
		for (int i = 0; i < n; i++)
			if (groups[i] == gid)
				return true;
	}
	return false;
}

/* The bandwidth the caller's user holds now, in every deadline thread
 * whose real uid is theirs, but the threads of `except` (their old
 * reservations are replaced). */
static int user_bw(uid_t uid, pid_t except, bool all_threads, uint64_t *sum)
{
	struct dl_task *t;
	size_t n;
	int err = dl_tasks_list(0, &t, &n);

	*sum = 0;
	if (err < 0)
		return err;
	for (size_t i = 0; i < n; i++) {
		char path[64];
		unsigned long long ids[1];

		if (t[i].tid == except || (all_threads && t[i].pid == except))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)t[i].pid, (int)t[i].tid);
		if (dl_status_ids(AT_FDCWD, path, "Uid", ids, 1) == 0 && ids[0] == uid)
			*sum += t[i].bw;
	}
	free(t);
	return 0;
}

static void rule_text(const struct dl_policy *pol, const struct rule *r, char *buf, size_t len)
{
	char t[32], u[32], pstr[32];

	if (pol->builtin)
		snprintf(buf, len, "the built-in policy (no policy file)");
	else
		snprintf(buf, len, "%s, line %d (%s %s%s%s)", pol->origin, r->line, r->allow ? "allow" : "deny",
			 r->subject == ALL ? "all" : r->subject == USER ? "user " : "group ", r->name, "");
	if (r->allow) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, ": max-task %s, max-user %s, min-period %s",
			 dl_bw_format((int64_t)r->max_task, t, sizeof(t)),
			 dl_bw_format((int64_t)r->max_user, u, sizeof(u)),
			 dl_time_format(r->min_period, pstr, sizeof(pstr)));
	}
}

DL_EXPORT int dl_policy_check(const struct dl_policy *pol, pid_t pid, bool all_threads,
			      const struct dl_params *p, char *why, size_t len)
{
	const struct rule *r = NULL;
	struct dl_params norm;
	char rt[512], a[32], b[32], c[32], scratch[1024];
	uint64_t bw, held, nthreads = 1;
	int err;

	if (!why || len == 0) {
		/* No reason wanted: the verdict alone. */
		why = scratch;
		len = sizeof(scratch);
	}
	why[0] = '\0';
	if (!pol || !p)
		return dl_fail(-EINVAL, "dl_policy_check needs a policy and parameters");
	if (getuid() == 0) {
		snprintf(why, len, "allowed: root is not limited by the policy");
		return 1;
	}
	err = dl_params_normalize(p, &norm);
	if (err)
		return err;
	for (size_t i = 0; i < pol->n && !r; i++)
		if (matches(&pol->rules[i]))
			r = &pol->rules[i];
	if (!r) {
		snprintf(why, len, "refused: no rule of %s allows your user (uid %u) or its groups; ask the administrator",
			 pol->origin, (unsigned)getuid());
		return 0;
	}
	rule_text(pol, r, rt, sizeof(rt));
	if (!r->allow) {
		snprintf(why, len, "refused by %s", rt);
		return 0;
	}
	bw = dl_params_bw(&norm);
	if (bw > r->max_task) {
		snprintf(why, len, "refused: the reservation is %s of a CPU, above the %s allowed for one by %s",
			 dl_bw_format((int64_t)bw, a, sizeof(a)), dl_bw_format((int64_t)r->max_task, b, sizeof(b)), rt);
		return 0;
	}
	if (norm.period < r->min_period) {
		snprintf(why, len, "refused: the period %s is shorter than the %s allowed by %s",
			 dl_time_format(norm.period, a, sizeof(a)), dl_time_format(r->min_period, b, sizeof(b)), rt);
		return 0;
	}
	if (pid > 0 && all_threads) {
		pid_t *tids = NULL;
		size_t n = 0;

		if (dl_threads_list(pid, &tids, &n) == 0 && n > 0)
			nthreads = n;
		free(tids);
	}
	err = user_bw(getuid(), pid > 0 ? pid : gettid(), all_threads, &held);
	if (err)
		return err;
	if (held + nthreads * bw > r->max_user) {
		snprintf(why, len, "refused: your deadline threads hold %s of a CPU, and %s more would pass the %s allowed in all by %s",
			 dl_bw_format((int64_t)held, a, sizeof(a)), dl_bw_format((int64_t)(nthreads * bw), b, sizeof(b)),
			 dl_bw_format((int64_t)r->max_user, c, sizeof(c)), rt);
		return 0;
	}
	snprintf(why, len, "allowed by %s", rt);
	return 1;
}
