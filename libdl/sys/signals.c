/*
 * signals.c: the signals that end a command from outside (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT) held back while the machine is being
 * changed.
 *
 * A layout change (create, destroy, repair and its accounting check, a
 * placement) is a sequence of cgroup writes that only makes sense whole:
 * a probe cpuset made but not yet removed keeps a CPU exclusively, a
 * partition toggled to "member" is not yet "root" again.  Recording the
 * intent before each write would make every such moment one the next
 * command must find and finish; holding the signals back makes none of
 * them visible at all: the change is finished (destroy, repair, a
 * placement) or rolled back (create: dl_sig_interrupted() between its
 * steps) before the signal is delivered, with its usual effect.  So a
 * Ctrl-C, a systemctl stop or a hang-up never leaves anything that the
 * state does not record.  SIGKILL cannot be held: for it the state is
 * written before each change (destroy finishes what it finds) and a
 * repair's probe carries its pid in its name, to be removed once that
 * pid is gone (bw/rebuild.c).
 *
 * The mask is the calling thread's (pthread_sigmask): a program with
 * other threads that take these signals has them handled there, as it
 * chose.  The holds nest; the outermost one's release delivers.
 */
#include <pthread.h>
#include <signal.h>

#include "sys/sys.h"

static const int held_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* What the outermost hold of this thread blocked that was not blocked
 * already: a signal the caller blocked itself is the caller's. */
static __thread sigset_t held;
static __thread int depth;

void dl_sig_hold(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(held_signals); i++)
		sigaddset(&set, held_signals[i]);
	pthread_sigmask(SIG_BLOCK, &set, old);
	if (depth++ == 0) {
		sigemptyset(&held);
		for (size_t i = 0; i < ARRAY_SIZE(held_signals); i++)
			if (!sigismember(old, held_signals[i]))
				sigaddset(&held, held_signals[i]);
	}
}

void dl_sig_release(const sigset_t *old)
{
	if (depth > 0)
		depth--;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

int dl_sig_interrupted(void)
{
	sigset_t pending;

	if (depth == 0 || sigpending(&pending) < 0)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(held_signals); i++)
		if (sigismember(&held, held_signals[i]) && sigismember(&pending, held_signals[i]))
			return held_signals[i];
	return 0;
}

const char *dl_sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	case SIGQUIT:
		return "SIGQUIT";
	default:
		return "a signal";
	}
}
