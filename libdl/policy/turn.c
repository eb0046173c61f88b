/*
 * turn.c: one change of a user's reservations at a time.
 *
 * dl_policy_set() sums what the user's deadline threads hold, then sets
 * threads: two calls at once for one user could both pass the sum.  So
 * each takes its turn, per user.  The turn cannot be a file lock: the
 * program that holds CAP_SYS_NICE for a user runs as that user, so any
 * lock file it can create or open is one the user can create, open or
 * remove too: the user could escape it, or another user could hold it
 * and block them.  What only a user can make, for their own uid alone,
 * are threads; any user can read a thread's name and start time, and only
 * the thread itself can set its name (PR_SET_NAME; /proc/TID/comm writes
 * are refused across thread groups).
 *
 * So a thread asks for the turn by naming itself TURN_WAIT, and holds it
 * named TURN_HOLD.  Among the threads of one real uid so named, tickets
 * are (start time, tid), fixed for a thread's life.  A thread takes the
 * turn when no other holds it and none with an earlier ticket asks, names
 * itself TURN_HOLD, looks once more and steps back when one with an
 * earlier ticket asks.  Two holders cannot be: the later ticket's second
 * look came before the earlier one asked (else it stepped back), so the
 * earlier one's first look saw it holding, and waited.
 *
 * Another user's threads are never looked at: one user cannot delay
 * another.  A user can delay only themselves (a thread of theirs so
 * named, a dl-run of theirs stopped with SIGSTOP while it holds the
 * turn); a turn not had within TURN_WAIT_MS fails, naming the thread
 * that has it.  A thread that exits gives the turn back with its life.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "policy/policy.h"

#define TURN_WAIT "libdl:waiting"
#define TURN_HOLD "libdl:setting"
#define TURN_WAIT_MS 10000

struct ticket {
	unsigned long long start; /* field 22 of stat: clock ticks after boot */
	pid_t tid;
};

static bool earlier(const struct ticket *a, const struct ticket *b)
{
	return a->start < b->start || (a->start == b->start && a->tid < b->tid);
}

/* What the other threads of uid that ask for or hold the turn are. */
struct others {
	bool holding;  /* one holds the turn */
	bool earlier;  /* one with an earlier ticket asks for it or holds it */
	pid_t who;     /* one of those, for the message */
};

static bool named(int dirfd, bool *hold)
{
	char comm[32];
	ssize_t n;
	int fd = openat(dirfd, "comm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	comm[strcspn(comm, "\n")] = '\0';
	*hold = strcmp(comm, TURN_HOLD) == 0;
	return *hold || strcmp(comm, TURN_WAIT) == 0;
}

/* The threads of process dirfd that ask for or hold the turn. */
static void look_in(int pfd, const struct ticket *me, struct others *o)
{
	int tfd = openat(pfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (tfd < 0 || !(d = fdopendir(tfd))) {
		if (tfd >= 0)
			close(tfd);
		return;
	}
	while ((de = readdir(d))) {
		struct ticket t = { .tid = dl_parse_pid(de->d_name) };
		int fd;
		bool hold;

		if (t.tid <= 0 || t.tid == me->tid)
			continue;
		fd = openat(tfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue; /* exited: it has no turn */
		if (named(fd, &hold) && dl_stat_field_at(fd, 22, &t.start) == 0) {
			if (hold)
				o->holding = true;
			if (earlier(&t, me))
				o->earlier = true;
			if (hold || earlier(&t, me))
				o->who = t.tid;
		}
		close(fd);
	}
	closedir(d);
}

/* Every process whose real uid is uid, and their threads. */
static int look(uid_t uid, const struct ticket *me, struct others *o)
{
	struct dirent *de;
	DIR *proc = opendir("/proc");

	memset(o, 0, sizeof(*o));
	if (!proc)
		return dl_fail(-errno, "cannot read /proc: %s", strerror(errno));
	while ((de = readdir(proc))) {
		unsigned long long ruid;
		int fd;

		if (dl_parse_pid(de->d_name) <= 0)
			continue;
		fd = openat(dirfd(proc), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (dl_status_ids(fd, "status", "Uid", &ruid, 1) == 0 && ruid == uid)
			look_in(fd, me, o);
		close(fd);
	}
	closedir(proc);
	return 0;
}

int dl_turn_take(struct dl_turn *t)
{
	uint64_t until = dl_now_ns() + TURN_WAIT_MS * 1000000ULL;
	struct ticket me = { .tid = gettid() };
	struct others o;
	uid_t uid = geteuid();
	int fd, err;

	memset(t, 0, sizeof(*t));
	fd = open("/proc/thread-self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = fd >= 0 ? dl_stat_field_at(fd, 22, &me.start) : -ESRCH;
	if (fd >= 0)
		close(fd);
	if (err)
		return dl_fail(-ESRCH, "cannot read this thread's start time in /proc/thread-self/stat");
	if (prctl(PR_GET_NAME, t->name) < 0 || prctl(PR_SET_NAME, TURN_WAIT) < 0)
		return dl_fail(-errno, "cannot name this thread to wait for its turn: %s", strerror(errno));
	for (;;) {
		if ((err = look(uid, &me, &o)))
			break;
		if (!o.holding && !o.earlier) {
			prctl(PR_SET_NAME, TURN_HOLD);
			if ((err = look(uid, &me, &o)))
				break;
			if (!o.earlier) {
				t->held = true;
				return 0;
			}
			prctl(PR_SET_NAME, TURN_WAIT);
		}
		if (dl_now_ns() >= until) {
			err = dl_fail(-EBUSY, "another change of your deadline reservations (thread %d, named " TURN_HOLD " or " TURN_WAIT ") has not let this one have its turn in %d s: is it stopped? let it finish, or end it, and try again",
				      (int)o.who, TURN_WAIT_MS / 1000);
			break;
		}
		dl_sleep_ns(2000000);
	}
	prctl(PR_SET_NAME, t->name);
	return err;
}

void dl_turn_give(struct dl_turn *t)
{
	if (t->held)
		prctl(PR_SET_NAME, t->name);
	t->held = false;
}
