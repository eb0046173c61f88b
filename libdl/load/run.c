/*
 * load.c: run a task set (dl_load_run(3), the engine of dl-load(1)).
 *
 * A task with a place or a command runs in a process of its own: a
 * cgroup v2 cpuset move takes a whole process, and a command is exec'd.
 * The others run as threads of one process (unless DL_LOAD_PROCESSES):
 * a switch between two of them keeps the address space, where a switch
 * between two processes changes it, which flushes the TLB on a CPU
 * without PCID (bench/README, experiment 7: 0.4 more flushes a job, and
 * the job's memory walked again after each); rt-app runs its tasks so.
 * A reservation, a name and a SIGXCPU count are each thread's own
 * (docs/kernel-notes.md, "The overrun signal goes to the thread that
 * overran"), so nothing else changes.
 * Every task is set up (placed, admitted) before any starts; then all
 * are released from one common start time plus their offsets.  Results
 * come back through shared memory, so a job's loop makes no system call
 * but its clocks, its counters and its wait; and each task's memory is
 * locked and its pages touched before its first release, so that no job
 * takes a page fault (dl_prefault(3)).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/sys.h"
#include "workload/taskset.h"

#define SETUP_TIMEOUT_MS 10000
#define START_MARGIN_NS 50000000ULL /* from "all ready" to the common start */
#define MAX_KEPT_BYTES (1ULL << 30)
/* The stack a task's loop may use, touched before its first release:
 * the loop itself needs a few KiB (a job's work, dl_periodic_next(3)). */
#define TASK_STACK_BYTES (128 * 1024)
/* A task thread's whole stack: the part touched, dl_prefault(3)'s margin
 * below it, and room above for what glibc keeps at its top (the thread's
 * descriptor and static TLS, the library's error message among it: 72
 * KiB here, so 256 KiB left 184, too little for 128 plus 64). */
#define THREAD_STACK_BYTES (384 * 1024)

/* What a task's thread shares with the parent. */
struct shared {
	int err;
	pid_t tid;           /* the thread that ran it */
	char msg[1024];
	struct dl_periodic_stats stats;
	uint64_t njobs;
	uint64_t cap;        /* room for jobs after this header */
	struct dl_job jobs[];
};

struct dl_load {
	uint64_t start;
	size_t n;
	struct dl_load_task *tasks;
};

/* Burn ns of this thread's CPU time: the job's work, however often it
 * is preempted meanwhile. */
static void burn(uint64_t ns)
{
	uint64_t until = dl_thread_cpu_ns() + ns;

	while (dl_thread_cpu_ns() < until)
		;
}

/* Spin until ns of wall-clock time have passed: the job's spin, which a
 * preemption shortens in CPU time (rt-app's runtime event). */
static void spin(uint64_t ns)
{
	uint64_t until = dl_now_ns() + ns;

	while (dl_now_ns() < until)
		;
}

static size_t shared_size(uint64_t cap)
{
	return sizeof(struct shared) + cap * sizeof(struct dl_job);
}

static noreturn void child_fail(struct shared *sh, int ready_fd, int err)
{
	sh->err = err;
	snprintf(sh->msg, sizeof(sh->msg), "%s", dl_errmsg());
	if (write(ready_fd, "x", 1) < 0)
		_exit(1);
	_exit(1); /* the whole process: a task of it failed its set-up */
}

/* One task, in the thread that runs it. */
struct task_arg {
	const struct dl_taskspec *t;
	int mode;
	uint64_t duration, jobs;
	unsigned int flags;
	struct shared *sh;
	int ready_fd, go_fd;
	bool threaded; /* a thread of the process the tasks share, not a process's own */
	int ret;       /* the thread's exit code */
};

/* The task's thread: place and admit it, say so, wait for the common
 * start, run.  Returns the process's exit code (a command's thread does
 * not return); a set-up that fails ends the process. */
static int task_body(const struct task_arg *a)
{
	const struct dl_taskspec *t = a->t;
	struct shared *sh = a->sh;
	struct dl_periodic *pt;
	const struct dl_job *job;
	uint64_t t0, end_time, work = t->work, spin_ns = t->spin, in_phase = 0;
	size_t phase = 0;
	int mode = a->mode, err;

	prctl(PR_SET_NAME, t->name);
	sh->tid = gettid();
	if (!t->argv) {
		/* Locked and touched before the reservation: populating a
		 * large job record under a small runtime would take long.
		 * The shared record is written to once per page, locked or
		 * not: fork(2) gives a child no page table entry for a
		 * shared mapping, so each page would otherwise fault in the
		 * job that first writes it. */
		size_t page = (size_t)sysconf(_SC_PAGESIZE), size = shared_size(sh->cap);

		err = dl_prefault(TASK_STACK_BYTES, 0, a->flags & DL_LOAD_NO_MLOCK ? DL_PREFAULT_NO_LOCK : 0);
		if (err)
			child_fail(sh, a->ready_fd, err);
		for (size_t off = 0; off < size; off += page)
			((volatile char *)sh)[off] = ((volatile char *)sh)[off];
	}
	if (t->place && !(a->flags & DL_LOAD_IGNORE_PLACE))
		err = dl_part_set(t->place, 0, &t->params);
	else
		err = dl_set(0, &t->params);
	if (err)
		child_fail(sh, a->ready_fd, err);
	if (write(a->ready_fd, "r", 1) != 1)
		_exit(1);
	/* A process's own task has said all it will: its end closed, the
	 * pipe ends, and the parent stops waiting, once every other writer
	 * has spoken or ended; among them a process of threads that one
	 * failing thread took down, its other threads' bytes unwritten.  A
	 * thread's end is its siblings' too: kept. */
	if (!a->threaded)
		close(a->ready_fd);
	if (read(a->go_fd, &t0, sizeof(t0)) != sizeof(t0))
		_exit(1); /* the parent gave up */
	if (!a->threaded)
		close(a->go_fd);
	end_time = a->duration ? t0 + t->offset + a->duration : UINT64_MAX;
	if (t->argv) {
		if (dl_caps_drop() < 0)
			_exit(126);
		dl_sleep_until(t0 + t->offset);
		execvp(t->argv[0], t->argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* Publish for dl-stat unless told not to; a task that cannot (for
	 * a user that is not root, neither /run/libdl-tasks nor a runtime
	 * folder) runs all the same. */
	err = -1;
	/* What follows a late job: the task's timer mode, in sleep mode
	 * (in yield mode the kernel's replenishments release the jobs). */
	if (mode == DL_PERIODIC_SLEEP)
		mode |= t->timer;
	if (!(a->flags & DL_LOAD_NO_PUBLISH))
		err = dl_periodic_start(&pt, NULL, mode | DL_PERIODIC_PUBLISH, t0 + t->offset);
	if (err)
		err = dl_periodic_start(&pt, NULL, mode, t0 + t->offset);
	if (err) {
		sh->err = err;
		snprintf(sh->msg, sizeof(sh->msg), "%s", dl_errmsg());
		dl_clear(0);
		return 1;
	}
	while ((!a->jobs || sh->njobs < a->jobs) && (!t->jobs || sh->njobs < t->jobs) && dl_now_ns() < end_time) {
		if (work)
			burn(work);
		if (spin_ns)
			spin(spin_ns);
		/* The next job's phase: its jobs in a row, then the next
		 * phase's, round (dl_taskspec_job(3) says the same). */
		if (t->nphases && ++in_phase >= t->phases[phase].jobs) {
			in_phase = 0;
			phase = (phase + 1) % t->nphases;
			work = t->phases[phase].work;
			spin_ns = t->phases[phase].spin;
		}
		if ((err = dl_periodic_next(pt, &job))) {
			sh->err = err;
			snprintf(sh->msg, sizeof(sh->msg), "%s", dl_errmsg());
			break;
		}
		if (sh->njobs < sh->cap)
			sh->jobs[sh->njobs] = *job;
		sh->njobs++;
	}
	sh->stats = *dl_periodic_stats(pt);
	dl_periodic_free(pt); /* its record removed */
	/* Leave SCHED_DEADLINE before the exit.  The kernel still holds
	 * the bandwidth, and an inactive timer on this CPU, until the 0-lag
	 * time, as for an exit under it (docs/kernel-notes.md, "CPU hotplug
	 * after a deadline exit"); libdl's own root-domain changes wait for
	 * it (dl_wait_quiet). */
	dl_clear(0);
	return 0;
}

/* A task's own process.  Never returns. */
static noreturn void task_process(struct task_arg *a)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	_exit(task_body(a));
}

static void *task_thread(void *arg)
{
	struct task_arg *a = arg;

	a->ret = task_body(a);
	return NULL;
}

/* Task i's thread could not be started: its failure, and a byte for it
 * and each task after it that has no thread to say so, so that the
 * parent need not wait for them.  Never returns. */
static noreturn void threads_fail(struct task_arg *a, size_t n, size_t i, int err, const char *why)
{
	a[i].sh->err = err;
	snprintf(a[i].sh->msg, sizeof(a[i].sh->msg), "cannot start its thread: %s", why);
	for (size_t j = i; j < n; j++)
		if (a[j].threaded && write(a[j].ready_fd, "x", 1) < 0)
			break;
	_exit(1);
}

/* The process whose threads run the tasks of a[] marked threaded (one
 * at least): it exits when they are done, 1 when one of them failed.
 * Never returns. */
static noreturn void task_threads(struct task_arg *a, size_t n)
{
	pthread_t *th = calloc(n, sizeof(*th));
	pthread_attr_t attr;
	int ret = 0, err = 0;
	size_t first = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	while (!a[first].threaded)
		first++;
	if (!th || (err = pthread_attr_init(&attr)) || (err = pthread_attr_setstacksize(&attr, THREAD_STACK_BYTES)))
		threads_fail(a, n, first, -ENOMEM, "out of memory");
	for (size_t i = first; i < n; i++)
		if (a[i].threaded && (err = pthread_create(&th[i], &attr, task_thread, &a[i])))
			threads_fail(a, n, i, -err,
				     err == EAGAIN ? "the user's limit of processes (RLIMIT_NPROC, ulimit -u: threads count) or the system's is reached: raise it, or run fewer tasks"
						   : strerror(err));
	for (size_t i = first; i < n; i++) {
		if (a[i].threaded) {
			pthread_join(th[i], NULL);
			ret |= a[i].ret;
		}
	}
	_exit(ret);
}

/* Wait for n "ready" bytes (or fewer, when children die). */
static int wait_ready(int fd, size_t n)
{
	uint64_t deadline = dl_now_ns() + SETUP_TIMEOUT_MS * 1000000ULL;
	size_t got = 0;
	char buf[64];

	while (got < n) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = dl_now_ns();
		ssize_t r;
		int ready;

		if (now >= deadline)
			return dl_fail(-ETIMEDOUT, "the tasks were not all set up after %d s", SETUP_TIMEOUT_MS / 1000);
		ready = poll(&pfd, 1, (int)((deadline - now) / 1000000ULL) + 1);
		if (ready < 0 && errno != EINTR)
			return dl_fail(-errno, "poll: %s", strerror(errno));
		if (ready <= 0)
			continue; /* the pipe is blocking: read only what poll saw */
		r = read(fd, buf, sizeof(buf) < n - got ? sizeof(buf) : n - got);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			return dl_fail(-ECHILD, "a task's process ended while being set up");
		got += (size_t)r;
	}
	return 0;
}

DL_EXPORT void dl_load_free(struct dl_load *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++) {
		free((void *)l->tasks[i].stats);
		free((void *)l->tasks[i].jobs);
		free((void *)l->tasks[i].errmsg);
	}
	free(l->tasks);
	free(l);
}

DL_EXPORT size_t dl_load_count(const struct dl_load *l)
{
	return l ? l->n : 0;
}

DL_EXPORT const struct dl_load_task *dl_load_task(const struct dl_load *l, size_t i)
{
	if (!l || i >= l->n) {
		errno = l ? ERANGE : EINVAL;
		dl_fail(-errno, l ? "task %zu: the load ran %zu" : "no load given", i, l ? l->n : 0);
		return NULL;
	}
	return &l->tasks[i];
}

DL_EXPORT uint64_t dl_load_start(const struct dl_load *l)
{
	return l ? l->start : 0;
}

/* The jobs to make room for: the count, or the periods in the run (a
 * late job's successors never start more often: each is released on
 * the grid or later), at most the task's own. */
static uint64_t job_room(const struct dl_taskspec *t, uint64_t duration, uint64_t jobs)
{
	uint64_t n = jobs ? jobs : duration ? duration / t->params.period + 2 : t->jobs;

	return t->jobs && t->jobs < n ? t->jobs : n;
}

/* Process pid was reaped with status: every task it ran is marked so
 * (its pid negated until the end).  Returns how many of them were
 * measured (not commands). */
static size_t reaped(struct dl_load *l, pid_t pid, int status)
{
	size_t measured = 0;

	for (size_t i = 0; i < l->n; i++) {
		if (l->tasks[i].pid == pid) {
			l->tasks[i].status = status;
			l->tasks[i].pid = -pid;
			measured += !l->tasks[i].spec->argv;
		}
	}
	return measured;
}

/* Copy child i's results out of shared memory. */
static int collect(struct dl_load_task *r, struct shared *sh, bool keep)
{
	struct dl_periodic_stats *st = malloc(sizeof(*st));

	if (!st)
		return -ENOMEM;
	*st = sh->stats;
	r->stats = st;
	if (sh->tid)
		r->pid = sh->tid; /* a process's own is its main thread */
	r->err = sh->err;
	if (sh->err && !(r->errmsg = strdup(sh->msg)))
		return -ENOMEM;
	if (keep) {
		size_t n = sh->njobs < sh->cap ? sh->njobs : sh->cap;
		struct dl_job *jobs = malloc(n ? n * sizeof(*jobs) : 1);

		if (!jobs)
			return -ENOMEM;
		memcpy(jobs, sh->jobs, n * sizeof(*jobs));
		r->jobs = jobs;
		r->njobs = n;
	}
	return 0;
}

DL_EXPORT int dl_load_run(const struct dl_taskset *ts, int mode, uint64_t duration, uint64_t jobs,
			  unsigned int flags, struct dl_load **out)
{
	size_t n = dl_taskset_count(ts), nthreads = 0, measured = 0;
	int ready[2] = { -1, -1 }, go[2] = { -1, -1 }, err = 0;
	bool keep = flags & DL_LOAD_KEEP_JOBS;
	struct shared **sh = NULL;
	struct task_arg *args = NULL;
	struct dl_load *l = NULL;
	uint64_t t0;

	if (out)
		*out = NULL;
	if (!out || n == 0)
		return dl_fail(-EINVAL, "dl_load_run needs a task set with tasks");
	if (mode != DL_PERIODIC_YIELD && mode != DL_PERIODIC_SLEEP)
		return dl_fail(-EINVAL, "unknown periodic mode %d: use DL_PERIODIC_YIELD or DL_PERIODIC_SLEEP", mode);
	if (!duration && !jobs && !dl_taskset_ends(ts))
		return dl_fail(-EINVAL, "give a duration or a number of jobs: a load runs for one or the other, unless each of its tasks ends after its own jobs (dl_taskspec.jobs)");
	if (flags & ~(unsigned int)(DL_LOAD_KEEP_JOBS | DL_LOAD_IGNORE_PLACE | DL_LOAD_NO_PUBLISH | DL_LOAD_NO_MLOCK |
					DL_LOAD_PROCESSES))
		return dl_fail(-EINVAL, "unknown flags 0x%x", flags);
	/* A process that may not take a reservation at all (no CAP_SYS_NICE)
	 * is not locked: its reservation's refusal is what it is told, not
	 * the lock's.  Asked once here, for every task's process. */
	if (!(flags & DL_LOAD_NO_MLOCK) && dl_have_cap_sys_nice() != 1)
		flags |= DL_LOAD_NO_MLOCK;
	{
		/* This host's period limits, with the file and line, before
		 * any process starts. */
		uint64_t min, max;

		dl_period_limits(&min, &max);
		err = dl_taskset_check_periods(ts, min, max, "the kernel's");
		if (err)
			return err;
	}
	l = calloc(1, sizeof(*l));
	sh = calloc(n, sizeof(*sh));
	if (!l || !sh || !(l->tasks = calloc(n, sizeof(*l->tasks)))) {
		err = dl_fail(-ENOMEM, "out of memory");
		goto out;
	}
	l->n = n;
	for (size_t i = 0; i < n; i++) {
		const struct dl_taskspec *t = dl_taskset_task(ts, i);
		uint64_t cap = keep && !t->argv ? job_room(t, duration, jobs) : 0;

		l->tasks[i].spec = t;
		if (shared_size(cap) > MAX_KEPT_BYTES) {
			err = dl_fail(-E2BIG, "task %s: keeping %" PRIu64 " jobs needs more than 1 GiB: run fewer", t->name, cap);
			goto out;
		}
		sh[i] = mmap(NULL, shared_size(cap), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (sh[i] == MAP_FAILED) {
			sh[i] = NULL;
			err = dl_fail(-ENOMEM, "task %s: cannot map its results: %s", t->name, strerror(errno));
			goto out;
		}
		sh[i]->cap = cap;
	}
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0) {
		err = dl_fail(-errno, "pipe: %s", strerror(errno));
		goto out;
	}
	args = calloc(n, sizeof(*args));
	if (!args) {
		err = dl_fail(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct dl_taskspec *t = l->tasks[i].spec;

		args[i] = (struct task_arg){ .t = t, .mode = mode, .duration = duration, .jobs = jobs,
					     .flags = flags, .sh = sh[i], .ready_fd = ready[1], .go_fd = go[0] };
		args[i].threaded = !(flags & DL_LOAD_PROCESSES) && !t->argv &&
				   !(t->place && !(flags & DL_LOAD_IGNORE_PLACE));
		nthreads += args[i].threaded;
	}
	if (nthreads) {
		pid_t pid = fork();

		if (pid < 0) {
			err = dl_fail(-errno, "cannot start the tasks' process: fork: %s", strerror(errno));
			goto out;
		}
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			task_threads(args, n);
		}
		for (size_t i = 0; i < n; i++)
			if (args[i].threaded)
				l->tasks[i].pid = pid;
		measured += nthreads;
	}
	for (size_t i = 0; i < n; i++) {
		pid_t pid;

		if (args[i].threaded)
			continue;
		pid = fork();
		if (pid < 0) {
			err = dl_fail(-errno, "cannot start task %s: fork: %s", l->tasks[i].spec->name, strerror(errno));
			goto out;
		}
		if (pid == 0) {
			close(ready[0]);
			close(go[1]);
			task_process(&args[i]);
		}
		l->tasks[i].pid = pid;
		measured += !l->tasks[i].spec->argv;
	}
	close(ready[1]);
	ready[1] = -1;
	close(go[0]);
	go[0] = -1;
	err = wait_ready(ready[0], n);
	for (size_t i = 0; i < n; i++) {
		if (sh[i]->err) {
			err = dl_fail(sh[i]->err, "task %s: %s", l->tasks[i].spec->name, sh[i]->msg);
			break;
		}
	}
	if (err)
		goto out; /* closing go makes the others exit */
	t0 = dl_now_ns() + START_MARGIN_NS;
	l->start = t0;
	for (size_t i = 0; i < n; i++) {
		if (write(go[1], &t0, sizeof(t0)) != sizeof(t0)) {
			err = dl_fail(-errno, "cannot start the tasks: %s", strerror(errno));
			goto out;
		}
	}
	close(go[1]);
	go[1] = -1;
	/* The measured tasks end by themselves; the commands are stopped
	 * when the run is over. */
	if (!measured && duration)
		dl_sleep_until(t0 + duration);
	for (size_t done = 0; done < measured;) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		done += reaped(l, pid, status);
	}
	for (size_t i = 0; i < n; i++)
		if (l->tasks[i].pid > 0 && (duration || measured))
			kill(l->tasks[i].pid, SIGTERM);
out:
	if (go[1] >= 0)
		close(go[1]);
	for (size_t i = 0; l && i < n; i++) {
		pid_t pid = l->tasks[i].pid;
		int status = 0;

		if (pid <= 0)
			continue; /* reaped, or never started */
		/* After a failure the others see go closed and exit; one
		 * that hangs in its set-up is killed. */
		if (err == -ETIMEDOUT)
			kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		reaped(l, pid, status);
	}
	for (size_t i = 0; l && i < n; i++)
		l->tasks[i].pid = -l->tasks[i].pid;
	for (size_t i = 0; !err && i < n; i++)
		if (collect(&l->tasks[i], sh[i], keep) < 0)
			err = dl_fail(-ENOMEM, "out of memory");
	for (size_t i = 0; sh && i < n; i++)
		if (sh[i])
			munmap(sh[i], shared_size(sh[i]->cap));
	for (int i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			close(ready[i]);
		if (go[i] >= 0)
			close(go[i]);
	}
	free(sh);
	free(args);
	if (err) {
		dl_load_free(l);
		return err;
	}
	*out = l;
	return 0;
}
