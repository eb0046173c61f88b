/*
 * owner.c: the kernel's owner rule, applied by a caller that holds
 * CAP_SYS_NICE.
 *
 * Without CAP_SYS_NICE, sched_setattr(2) on another thread needs the
 * caller's effective uid to be the target's real or effective uid
 * (check_same_owner(), kernel/sched/syscalls.c).  With it the kernel
 * skips that check, so a program given the capability with setcap would
 * let any user change any process: it must apply the rule itself.
 *
 * A thread is named by a number that the kernel reuses once it exits.
 * The check reads the owner through a descriptor of /proc/TID opened
 * first, which stops answering when that thread exits (and names the
 * thread's start time, which a later thread of the same number does not
 * share): bw/set.c asks it again right before and right after each
 * change.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/sys.h"

int dl_thread_open(pid_t pid, pid_t tid)
{
	char path[64];
	int fd;

	if (pid > 0 && pid != tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE))
		return dl_fail(-EMFILE, "cannot hold thread %d: no more files may be opened (raise ulimit -n)", (int)tid);
	if (fd < 0)
		return dl_fail(-ESRCH, "no thread %d", (int)tid);
	return fd;
}

int dl_thread_start(int dirfd, unsigned long long *start)
{
	/* proc(5): starttime, field 22 of stat. */
	return dl_stat_field_at(dirfd, 22, start) == 0 ? 0 : -ESRCH;
}

static const char *user_name(uid_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[1024];

	if (getpwuid_r(uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, len, "%s", res->pw_name);
	else
		snprintf(buf, len, "uid %u", (unsigned)uid);
	return buf;
}

bool dl_owner_is_caller(int dirfd)
{
	unsigned long long ids[2];
	uid_t euid = geteuid();

	if (euid == 0)
		return true; /* root may change any thread, with or without the rule */
	return dl_status_ids(dirfd, "status", "Uid", ids, 2) == 0 && (ids[0] == euid || ids[1] == euid);
}

int dl_owner_check(int dirfd, pid_t tid)
{
	unsigned long long ids[2];
	char comm[64] = "", raw[32] = "", who[128], me[128];
	uid_t euid = geteuid();
	ssize_t n;
	int fd, err;

	if (euid == 0)
		return 0; /* root may change any thread, with or without the rule */
	err = dl_status_ids(dirfd, "status", "Uid", ids, 2);
	if (err)
		return dl_fail(-ESRCH, "no thread %d", (int)tid);
	if (ids[0] == euid || ids[1] == euid)
		return 0;
	fd = openat(dirfd, "comm", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, raw, sizeof(raw) - 1);
		raw[n > 0 ? n : 0] = '\0';
		raw[strcspn(raw, "\n")] = '\0';
		close(fd);
		dl_str_escape(raw, comm, sizeof(comm));
	}
	return dl_fail(-EPERM, "thread %d (%s) belongs to %s (real uid %llu, effective %llu), not to the caller (%s, uid %u): without CAP_SYS_NICE the kernel lets a user change only threads whose real or effective uid is theirs, and the same rule is kept for a caller that holds the capability",
		       (int)tid, comm, user_name((uid_t)ids[0], who, sizeof(who)), ids[0], ids[1],
		       user_name(euid, me, sizeof(me)), (unsigned)euid);
}
