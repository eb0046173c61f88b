/*
 * testlib.c: the suites' runner and helpers (see testlib.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <grp.h>

#include "testlib.h"

#define KERNEL_LOCK "/run/lock/libdl-kernel-tests.lock"

void tl_note(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void tl_skip_all(const char *fmt, ...)
{
	va_list ap;

	printf("1..0 # SKIP ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(0);
}

const char *tl_builddir(void)
{
	const char *d = getenv("top_builddir");

	return d && *d ? d : ".";
}

const char *tl_srcdir(void)
{
	const char *d = getenv("top_srcdir");

	return d && *d ? d : ".";
}

static const char *path_in_build(const char *rel)
{
	static __thread char buf[8][4096];
	static __thread int slot;
	char *p = buf[slot++ % 8];

	snprintf(p, 4096, "%s/%s", tl_builddir(), rel);
	return p;
}

const char *tl_tool(const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "utils/%s", name);
	return path_in_build(rel);
}

const char *tl_test_tool(const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "tests/bin/%s", name);
	return path_in_build(rel);
}

static char anyone_dir[] = "/tmp/libdl-tools-XXXXXX";
static pid_t anyone_owner;

static void anyone_remove(void)
{
	if (getpid() == anyone_owner)
		tl_run((char *[]){ "/bin/rm", "-rf", anyone_dir, NULL }, NULL, 0, NULL, 0);
}

const char *tl_anyone_dir(void)
{
	if (anyone_owner != getpid()) {
		strcpy(anyone_dir, "/tmp/libdl-tools-XXXXXX");
		if (!mkdtemp(anyone_dir))
			return NULL;
		if (chmod(anyone_dir, 0755) < 0) {
			rmdir(anyone_dir);
			return NULL;
		}
		anyone_owner = getpid();
		atexit(anyone_remove);
	}
	return anyone_dir;
}

const char *tl_copy_for_anyone(const char *from, const char *name)
{
	static __thread char buf[8][4200];
	static __thread int slot;
	const char *dir = tl_anyone_dir();
	char *p = buf[slot++ % 8];

	if (!dir)
		return NULL;
	snprintf(p, 4200, "%s/%s", dir, name);
	if (tl_run((char *[]){ "/bin/cp", (char *)from, p, NULL }, NULL, 0, NULL, 0) != 0 || chmod(p, 0755) < 0)
		return NULL;
	return p;
}

const char *tl_tool_for_anyone(const char *name)
{
	const char *p = tl_copy_for_anyone(tl_tool(name), name);

	ck_assert_msg(p, "cannot copy %s where any user can run it", tl_tool(name));
	return p;
}

const char *tl_helper(const char *path)
{
	return path_in_build(path);
}

static void drain(int fd, char *buf, size_t len, size_t *used)
{
	char tmp[4096];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n <= 0)
		return;
	if (buf && *used + 1 < len) {
		size_t take = (size_t)n < len - 1 - *used ? (size_t)n : len - 1 - *used;

		memcpy(buf + *used, tmp, take);
		*used += take;
		buf[*used] = '\0';
	}
}

/* tl_run_as() with in_fd (or, when -1, the caller's) as the stdin. */
static int run_with(char *const argv[], uid_t uid, gid_t gid, int in_fd, char *out, size_t outlen,
		    char *err, size_t errlen)
{
	int po[2], pe[2], status;
	size_t uo = 0, ue = 0;
	pid_t pid;

	if (out && outlen)
		out[0] = '\0';
	if (err && errlen)
		err[0] = '\0';
	if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		if (in_fd >= 0)
			dup2(in_fd, 0);
		if (gid != (gid_t)-1 && (setgroups(0, NULL) < 0 || setgid(gid) < 0))
			_exit(120);
		if (uid != (uid_t)-1 && setuid(uid) < 0)
			_exit(121);
		execv(argv[0], argv);
		fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	for (;;) {
		struct pollfd p[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		int open_fds = 0;

		if (po[0] >= 0)
			open_fds++;
		if (pe[0] >= 0)
			open_fds++;
		if (!open_fds)
			break;
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		for (int i = 0; i < 2; i++) {
			int *fd = i ? &pe[0] : &po[0];

			if (*fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (p[i].revents & POLLIN) {
				if (i)
					drain(*fd, err, errlen, &ue);
				else
					drain(*fd, out, outlen, &uo);
			}
			if (!(p[i].revents & POLLIN) || (p[i].revents & POLLHUP)) {
				/* Read what is left, then close. */
				char tmp[4096];
				ssize_t n;

				while ((n = read(*fd, tmp, sizeof(tmp))) > 0) {
					size_t *u = i ? &ue : &uo;
					char *b = i ? err : out;
					size_t l = i ? errlen : outlen;

					if (b && *u + 1 < l) {
						size_t take = (size_t)n < l - 1 - *u ? (size_t)n : l - 1 - *u;

						memcpy(b + *u, tmp, take);
						*u += take;
						b[*u] = '\0';
					}
				}
				close(*fd);
				*fd = -1;
				p[i].fd = -1;
			}
		}
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int tl_run_as(char *const argv[], uid_t uid, gid_t gid, char *out, size_t outlen,
	      char *err, size_t errlen)
{
	return run_with(argv, uid, gid, -1, out, outlen, err, errlen);
}

int tl_run_input(char *const argv[], uid_t uid, gid_t gid, const char *input, char *out, size_t outlen,
		 char *err, size_t errlen)
{
	int fd = memfd_create("tl-input", MFD_CLOEXEC), rc;
	size_t len = strlen(input);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, input, len), (ssize_t)len);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	rc = run_with(argv, uid, gid, fd, out, outlen, err, errlen);
	close(fd);
	return rc;
}

int tl_run(char *const argv[], char *out, size_t outlen, char *err, size_t errlen)
{
	return tl_run_as(argv, (uid_t)-1, (gid_t)-1, out, outlen, err, errlen);
}

int tl_run_tool(const char *tool, char *const args[], char *out, size_t outlen,
		char *err, size_t errlen)
{
	char *argv[64];
	int i = 0;

	argv[i++] = (char *)tl_tool(tool);
	for (; *args && i < 63; args++)
		argv[i++] = *args;
	argv[i] = NULL;
	return tl_run(argv, out, outlen, err, errlen);
}

pid_t tl_dl_run_sleep(char *const opts[])
{
	char *argv[64];
	int i = 0;
	pid_t pid;

	argv[i++] = (char *)tl_tool("dl-run");
	for (; *opts && i < 60; opts++)
		argv[i++] = *opts;
	argv[i++] = "--";
	argv[i++] = "/bin/sleep";
	argv[i++] = "30";
	argv[i] = NULL;
	pid = tl_spawn(argv, NULL);
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(tl_wait_policy(pid, DL_SCHED_DEADLINE, 5000), "pid %d never became SCHED_DEADLINE", (int)pid);
	return pid;
}

pid_t tl_spawn_spin(int threads, bool pause, const char *cpu, pid_t *tids)
{
	char n[16], line[4096], *save, *tok;
	char *argv[8];
	int fd, i = 0, a = 0;
	pid_t pid;

	snprintf(n, sizeof(n), "%d", threads);
	if (cpu) {
		argv[a++] = "/usr/bin/taskset";
		argv[a++] = "-c";
		argv[a++] = (char *)cpu;
	}
	argv[a++] = (char *)tl_helper("tests/kernel/dl-spin");
	if (pause)
		argv[a++] = "--pause";
	argv[a++] = n;
	argv[a] = NULL;
	pid = tl_spawn(argv, &fd);
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(tl_read_line(fd, line, sizeof(line), 5000) > 0, "dl-spin did not start");
	close(fd);
	tok = strtok_r(line, " ", &save);
	ck_assert_str_eq(tok, "ready");
	while ((tok = strtok_r(NULL, " ", &save)) && i < threads)
		tids[i++] = atoi(tok);
	ck_assert_int_eq(i, threads);
	return pid;
}

pid_t tl_spawn(char *const argv[], int *out_fd)
{
	int p[2] = { -1, -1 };
	pid_t pid;

	if (out_fd && pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* Die with the test, never outlive it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (out_fd)
			dup2(p[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	if (out_fd) {
		close(p[1]);
		*out_fd = p[0];
	}
	return pid;
}

int tl_read_line(int fd, char *buf, size_t len, int ms)
{
	size_t used = 0;
	uint64_t until = dl_now_ns() + (uint64_t)ms * 1000000ULL;

	while (used + 1 < len) {
		struct pollfd p = { fd, POLLIN, 0 };
		uint64_t now = dl_now_ns();
		char c;

		if (now >= until)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)((until - now) / 1000000ULL) + 1) <= 0)
			continue;
		if (read(fd, &c, 1) != 1)
			return -EIO;
		if (c == '\n')
			break;
		buf[used++] = c;
	}
	buf[used] = '\0';
	return (int)used;
}

int tl_wait(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void tl_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

bool tl_wait_policy(pid_t tid, int policy, int ms)
{
	uint64_t until = dl_now_ns() + (uint64_t)ms * 1000000ULL;

	do {
		struct dl_sched_attr a;

		if (dl_sys_getattr(tid, &a) == 0 && (int)a.sched_policy == policy)
			return true;
		dl_sleep_ns(2000000);
	} while (dl_now_ns() < until);
	return false;
}

int tl_proc_sched(pid_t pid, const char *field, uint64_t *val)
{
	char path[64], line[256];
	size_t flen = strlen(field);
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/sched", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *colon;

		if (strncmp(line, field, flen) != 0 || (line[flen] != ' ' && line[flen] != ':'))
			continue;
		colon = strchr(line, ':');
		if (colon && sscanf(colon + 1, "%" SCNu64, val) == 1)
			err = 0;
		break;
	}
	fclose(f);
	return err;
}

int tl_cap_eff(pid_t pid, uint64_t *caps)
{
	char path[64], line[256];
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %" SCNx64, caps) == 1) {
			err = 0;
			break;
		}
	fclose(f);
	return err;
}

bool tl_become_with_nice(uid_t uid, gid_t gid, const gid_t *groups, size_t ngroups)
{
	cap_value_t nice_cap = CAP_SYS_NICE;
	cap_t caps;
	bool ok;

	if (prctl(PR_SET_KEEPCAPS, 1) < 0 || setgroups(ngroups, groups) < 0 || setgid(gid) < 0 || setuid(uid) < 0)
		return false;
	caps = cap_init();
	ok = caps && cap_set_flag(caps, CAP_PERMITTED, 1, &nice_cap, CAP_SET) == 0 &&
	     cap_set_flag(caps, CAP_EFFECTIVE, 1, &nice_cap, CAP_SET) == 0 && cap_set_proc(caps) == 0;
	cap_free(caps);
	return ok;
}

pid_t tl_dl_hog_in(const char *where, uint64_t runtime, uint64_t period, char *why, size_t len)
{
	char msg[1024] = "";
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct dl_params prm = { .runtime = runtime, .period = period };
		int e;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		e = where ? dl_part_set(where, 0, &prm) : dl_set(0, &prm);
		snprintf(msg, sizeof(msg), "%s", e ? dl_errmsg() : "ok");
		if (write(p[1], msg, strlen(msg) + 1) < 0)
			_exit(1);
		close(p[1]);
		if (e)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], msg, sizeof(msg) - 1) <= 0)
		msg[0] = '\0';
	close(p[0]);
	if (why)
		snprintf(why, len, "%s", msg);
	if (strcmp(msg, "ok") != 0) {
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

pid_t tl_dl_hog(uint64_t runtime, uint64_t period)
{
	return tl_dl_hog_in(NULL, runtime, period, NULL, 0);
}

/* The kernel's accounting against the live tasks; repaired if wrong. */
static void drift_guard(const char *when)
{
	struct dl_drift *d = NULL;
	size_t n = 0;
	int ret = dl_drift_check(2000, &d, &n);

	if (ret < 0) {
		tl_note("%s: cannot check the kernel's deadline accounting: %s", when, dl_errmsg());
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char cpus[DL_CPUS_STRLEN], k[DL_BW_STRLEN], e[DL_BW_STRLEN];

		tl_note("%s: the kernel's total_bw for CPUs %s is %s, the live tasks and fair servers hold %s: kernel accounting drift (docs/kernel-notes.md); repairing with one root-domain rebuild",
			when, dl_cpus_format(&d[i].cpus, cpus, sizeof(cpus)),
			dl_bw_format(d[i].kernel_bw, k, sizeof(k)),
			dl_bw_format(d[i].expected_bw, e, sizeof(e)));
	}
	free(d);
	if (n == 0)
		return;
	if (dl_rd_rebuild() < 0) {
		tl_note("%s: repair failed: %s", when, dl_errmsg());
		return;
	}
	ret = dl_drift_check(2000, NULL, &n);
	tl_note("%s: after the rebuild: %s", when, ret == 0 ? "the kernel's figures are right again" : "still wrong");
}

/*
 * Exited tasks hold their bandwidth until their 0-lag time: wait until
 * the kernel's count is back to the live tasks'.  A test that measures
 * total_bw against a baseline needs a right one, so what is still wrong
 * after the wait (a task that exited in SCHED_DEADLINE can leave its
 * bandwidth behind for good, docs/kernel-notes.md) is repaired, with a note.
 */
void tl_settle(void)
{
	drift_guard("before measuring total_bw");
}

int tl_main(Suite *(*make)(void), enum tl_kind kind)
{
	SRunner *sr;
	int failed, lock = -1;

	/* Kernel tests wait on real periods; the default 4 s is too short. */
	setenv("CK_DEFAULT_TIMEOUT", kind == TL_KERNEL ? "120" : "30", 0);
	if (kind == TL_KERNEL) {
		if (geteuid() != 0)
			tl_skip_all("kernel suites need root (SCHED_DEADLINE, cpusets): run make check as root");
		/* One kernel suite at a time: they share the machine's bandwidth. */
		lock = open(KERNEL_LOCK, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (lock < 0)
			lock = open("/tmp/libdl-kernel-tests.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (lock >= 0 && flock(lock, LOCK_EX) < 0)
			tl_note("cannot lock %s: %s", KERNEL_LOCK, strerror(errno));
		/*
		 * The suites compare the library's figures with the kernel's
		 * sched/debug, which a freshly booted machine without systemd
		 * has not mounted yet: mounted as dl-stat and dl-part mount it
		 * (and leave it), so that the first suite of a boot reads them.
		 */
		if (dl_debugfs_mount() < 0)
			tl_note("debugfs: %s", dl_errmsg());
		drift_guard("before the suite");
	}
	sr = srunner_create(make());
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	fflush(stdout);
	if (kind == TL_KERNEL) {
		drift_guard("after the suite");
		if (lock >= 0)
			close(lock);
	}
	return failed ? 1 : 0;
}

/* ---------------------------------------------------------------- snapshots */

static void snapshot_dir(const char *dir, char *buf, size_t len)
{
	static const char *files[] = { "cpuset.cpus", "cpuset.mems", "cpuset.cpu_exclusive",
				       "cpuset.sched_load_balance", "cpuset.cpus.partition",
				       "cgroup.subtree_control" };
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t used = strlen(buf);

	if (!d)
		return;
	used += (size_t)snprintf(buf + used, len - used, "%s:", dir);
	for (size_t i = 0; i < ARRAY_SIZE(files) && used < len; i++) {
		char path[4200], v[4096] = "-";

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		dl_read_file(path, v, sizeof(v));
		used += (size_t)snprintf(buf + used, len - used, " %s", v);
	}
	if (used < len)
		used += (size_t)snprintf(buf + used, len - used, "\n");
	while ((de = readdir(d))) {
		char sub[4200];

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		snapshot_dir(sub, buf, len);
	}
	closedir(d);
}

void tl_cpuset_snapshot(char *buf, size_t len)
{
	char mnt[4096];

	buf[0] = '\0';
	if (dl_cpuset_mount(mnt, sizeof(mnt)) == 0)
		snapshot_dir(mnt, buf, len);
	strncat(buf, access("/run/libdl/layout", F_OK) == 0 ? "state file\n" : "no state file\n",
		len - strlen(buf) - 1);
}

void tl_dl_snapshot(char *buf, size_t len)
{
	struct dl_task *t = NULL;
	struct dl_rd *rds = NULL;
	size_t nt = 0, nrd = 0, used = 0;

	buf[0] = '\0';
	if (dl_snapshot(0, &t, &nt, &rds, &nrd) < 0) {
		snprintf(buf, len, "cannot list: %s", dl_errmsg());
		return;
	}
	for (size_t i = 0; i < nrd && used < len; i++) {
		char c[DL_CPUS_STRLEN];

		used += (size_t)snprintf(buf + used, len - used, "rd %s total_bw %lld\n",
					 dl_cpus_format(&rds[i].cpus, c, sizeof(c)), (long long)rds[i].total_bw);
	}
	for (size_t i = 0; i < nt && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "thread %d %llu/%llu/%llu\n", (int)t[i].tid,
					 (unsigned long long)t[i].params.runtime,
					 (unsigned long long)t[i].params.deadline,
					 (unsigned long long)t[i].params.period);
	free(t);
	free(rds);
}

/* ---------------------------------------------------------------- churn */

static void *churn_plain(void *arg)
{
	(void)arg;
	return NULL;
}

static void *churn_deadline(void *arg)
{
	struct dl_params p = { .runtime = 100 * 1000, .period = 50 * 1000000ULL };

	(void)arg;
	dl_set(0, &p);
	dl_sleep_ns(1000000);
	return NULL;
}

pid_t tl_churn(bool deadline)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;) {
			pthread_t t[8];

			for (int i = 0; i < 8; i++)
				pthread_create(&t[i], NULL, deadline ? churn_deadline : churn_plain, NULL);
			for (int i = 0; i < 8; i++)
				pthread_join(t[i], NULL);
		}
	}
	return pid;
}

/* ---------------------------------------------------------------- layouts */

void tl_layout_cpu0(void)
{
	struct dl_layout *lay = dl_layout_new();
	dl_cpus_t cpu0;
	int err;

	dl_cpus_zero(&cpu0);
	dl_cpus_set(&cpu0, 0);
	ck_assert_ptr_nonnull(lay);
	ck_assert_int_eq(dl_layout_add_partition(lay, "partition0", &cpu0), 0);
	ck_assert_int_eq(dl_layout_set_flags(lay, DL_LAYOUT_NO_MOVE), 0);
	err = dl_layout_create(lay, NULL);
	dl_layout_free(lay);
	ck_assert_msg(err == 0, "layout: %s", dl_errmsg());
}

int tl_exit_then_rebuild(void (*rebuild)(void))
{
	struct dl_layout *l = dl_layout_new();
	dl_cpus_t zero;
	int err;
	pid_t pid;

	dl_cpus_parse("0", &zero);
	dl_layout_add_partition(l, NULL, &zero);
	dl_layout_set_flags(l, DL_LAYOUT_NO_MOVE);
	err = dl_layout_create(l, NULL);
	dl_layout_free(l);
	if (err < 0) {
		tl_note("create: %s", dl_errmsg());
		return err;
	}
	pid = fork();
	if (pid == 0) {
		struct dl_params p = { .runtime = 2500 * 1000, .period = 8000 * 1000 };

		uint64_t until;

		if (dl_part_set(DL_CLUSTER, 0, &p) < 0)
			_exit(1);
		dl_sleep_ns(200 * 1000 * 1000);
		/* 1.5 ms of the 2.5 ms it was given at its wake-up, then the
		 * exit: its 0-lag time, when the kernel lets its bandwidth go,
		 * is then about 3 ms after the exit (8 ms from the wake-up,
		 * less the 1 ms left scaled by 8 / 2.5), a window the rebuild
		 * falls in.  Exiting at once, 0.2 ms after its wake-up, it
		 * was let go within a fraction of a millisecond: a quiet host
		 * missed that window 30 times of 30. */
		until = dl_now_ns() + 1500 * 1000;
		while (dl_now_ns() < until)
			;
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	rebuild();
	/* Past the exited task's 0-lag time: what the kernel then counts is
	 * what the suite judges. */
	dl_sleep_ns(20 * 1000 * 1000);
	return 0;
}

void tl_skip_if_layout(void)
{
	if (access("/run/libdl/layout", F_OK) == 0)
		tl_skip_all("a dl-part layout is in place on this machine: the tests will not touch it");
}

void tl_require_layout_host(void)
{
	dl_cpus_t online;

	if (dl_cpuset_version() != 1)
		tl_skip_all("the host suites need cgroup v1 cpusets (cgroup v2 is tested in the VM suites)");
	dl_cpus_online(&online);
	if (dl_cpus_count(&online) != 2)
		tl_skip_all("the host suites are written for the 2-CPU machines (this one has %d)", dl_cpus_count(&online));
	tl_skip_if_layout();
}

void tl_layout_restore(const char *root_lb)
{
	char now[16] = "";

	if (access("/run/libdl/layout", F_OK) == 0 && dl_layout_destroy(NULL, NULL) < 0)
		tl_note("cleanup: destroy failed: %s", dl_errmsg());
	dl_read_file("/sys/fs/cgroup/cpuset/cpuset.sched_load_balance", now, sizeof(now));
	if (root_lb && root_lb[0] && strcmp(now, root_lb) != 0) {
		tl_note("cleanup: root sched_load_balance was %s, restoring %s", now, root_lb);
		dl_write_file("/sys/fs/cgroup/cpuset/cpuset.sched_load_balance", root_lb);
	}
}

int tl_private_mounts(void)
{
	char line[4096];
	FILE *f;
	int shared = 0;

	if (unshare(CLONE_NEWNS) < 0)
		return -errno;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		shared |= strstr(line, " shared:") != NULL;
	fclose(f);
	return shared ? -EINVAL : 0;
}

/* In a child of tl_child_ok: where a failed step is said. */
static int step_fd = -1;

noreturn void tl_step_failed(const char *fmt, ...)
{
	char what[768];
	int e = errno;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (e)
		dprintf(step_fd, "%s: %s (errno %d)", what, strerror(e), e);
	else
		dprintf(step_fd, "%s", what);
	_exit(1);
}

bool tl_child_ok(void (*fn)(void), char *msg, size_t len)
{
	size_t used = 0;
	ssize_t n;
	int fds[2], rc;
	pid_t p;

	if (pipe(fds) < 0) {
		snprintf(msg, len, "pipe: %s", strerror(errno));
		return false;
	}
	p = fork();
	if (p < 0) {
		snprintf(msg, len, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return false;
	}
	if (p == 0) {
		close(fds[0]);
		step_fd = fds[1];
		fn();
		_exit(0);
	}
	close(fds[1]);
	while (used < len - 1 && (n = read(fds[0], msg + used, len - 1 - used)) > 0)
		used += (size_t)n;
	msg[used] = 0;
	close(fds[0]);
	rc = tl_wait(p);
	if (!used && rc)
		snprintf(msg, len, "the child ended with status %d and said nothing", rc);
	return rc == 0 && !used;
}
