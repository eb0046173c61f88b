/*
 * policy.h: dl-run's per-user policy (dl-run.conf(5)), the layer's own
 * parts.  Above bw.h.  Internal.
 */
#ifndef LIBDL_POLICY_H
#define LIBDL_POLICY_H

#include "bw/bw.h"

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
