/*
 * policy.h: dl-run's per-user policy (dl-run.conf(5)), the layer's own
 * parts.  Above bw.h.  Internal.
 */
#ifndef LIBDL_POLICY_H
#define LIBDL_POLICY_H

#include "bw/bw.h"

/* policy.c: the file's rules.  A user's (all, user, group) judge a
 * caller of dl-run; a container's (namespace, engine) judge what an
 * engine starts (container.c). */
enum dl_subject { DL_SUBJ_ALL, DL_SUBJ_USER, DL_SUBJ_GROUP, DL_SUBJ_NAMESPACE, DL_SUBJ_ENGINE };
#define DL_POLICY_NAME_MAX 64
#define DL_POLICY_PARTS_MAX 512

struct dl_policy_rule {
	bool allow;
	enum dl_subject subject;
	char name[DL_POLICY_NAME_MAX + 1];
	uint64_t max_task;  /* DL_BW units */
	uint64_t max_user;  /* a user's rules */
	uint64_t max_total; /* a container's rules: the namespace's (engine's) in all */
	uint64_t min_period; /* ns */
	uint64_t flags;      /* DL_FLAG_* that need a rule: what allow-flags= allows */
	char parts[DL_POLICY_PARTS_MAX]; /* partitions=, comma-separated; "" any */
	int line;
};

struct dl_policy {
	char origin[256];
	struct dl_policy_rule *rules;
	size_t n;
	bool builtin;
};

/* A Kubernetes namespace's name (a DNS-1123 label). */
bool dl_policy_namespace_ok(const char *s);

/* What a reservation is charged: its bandwidth, or with the reclaim
 * flag what a reclaiming task can take. */
uint64_t dl_policy_charge(const struct dl_params *p);
/* A rule in words, for messages. */
void dl_policy_rule_text(const struct dl_policy *pol, const struct dl_policy_rule *r, char *buf, size_t len);
/* The rule's limits on one reservation (flags, max-task, min-period):
 * 1 within them, 0 refused with why. */
int dl_policy_judge_limits(const struct dl_policy *pol, const struct dl_policy_rule *r, const struct dl_params *p,
			   char *why, size_t len);

/* turn.c: one change of a user's reservations at a time, among the
 * threads of the caller's uid (the file says how and why not a file
 * lock).  dl_turn_take: 0 with the turn held, or -EBUSY when another
 * thread of the user kept it for 10 s (named in the message); the
 * calling thread's name is borrowed meanwhile.  dl_turn_give: back. */
struct dl_turn {
	char name[16]; /* the thread's own name, given back */
	bool held;
};
int dl_turn_take(struct dl_turn *t);
void dl_turn_give(struct dl_turn *t);

#endif
