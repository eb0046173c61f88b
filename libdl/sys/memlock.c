/*
 * memlock.c: memory made ready for real-time jobs (dl_prefault(3)).
 *
 * A page a job touches for the first time costs a page fault inside the
 * job: the kernel allocates and zeroes a page (a fresh anonymous or
 * shared one), copies one (the first write after fork(2) to a page the
 * parent shares), or reads one back.  mlockall(MCL_CURRENT) populates
 * every mapping there is, writable private ones by a write fault that
 * also breaks the copy-on-write sharing; MCL_FUTURE does the same for
 * every mapping made later, and keeps them all in memory
 * (docs/kernel-notes.md, "Locked memory: no page fault in a job").  The
 * stack grows a page at a time as it is used, so the depth a job will
 * use is touched here; and a heap block freed back to the kernel would
 * come back fresh, so the heap is grown once and kept.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sys/sys.h"

#define STACK_CHUNK 4096
#define STACK_MARGIN (64 * 1024) /* left untouched below the depth asked for */

/* Touch n chunks of stack below the caller's frame, one frame each.  The
 * frame's last use after the call keeps the compiler from turning the
 * recursion into a loop that reuses one frame. */
static __attribute__((noinline)) unsigned touch_stack(size_t n)
{
	volatile unsigned char chunk[STACK_CHUNK];

	for (size_t i = 0; i < sizeof(chunk); i += 256)
		chunk[i] = (unsigned char)n;
	if (n > 1)
		return touch_stack(n - 1) + chunk[0];
	return chunk[0];
}

/* The bytes of stack below this frame the thread may still use. */
static int stack_left(size_t *left)
{
	pthread_attr_t attr;
	void *lo;
	size_t size;
	int err;

	if ((err = pthread_getattr_np(pthread_self(), &attr)) != 0)
		return dl_fail(-err, "cannot find the thread's stack: %s", strerror(err));
	err = pthread_attr_getstack(&attr, &lo, &size);
	pthread_attr_destroy(&attr);
	if (err)
		return dl_fail(-err, "cannot find the thread's stack: %s", strerror(err));
	*left = (size_t)((uintptr_t)__builtin_frame_address(0) - (uintptr_t)lo);
	return 0;
}

static int lock_failed(int err)
{
	struct rlimit rl = { 0, 0 };
	char lim[32] = "unlimited";

	getrlimit(RLIMIT_MEMLOCK, &rl);
	if (rl.rlim_cur != RLIM_INFINITY)
		snprintf(lim, sizeof(lim), "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
	if (err == ENOMEM || err == EPERM || err == EAGAIN)
		return dl_fail(-err, "cannot lock the process's memory (mlockall: %s): RLIMIT_MEMLOCK is %s, less than the process maps, and it lacks CAP_IPC_LOCK; raise the limit (ulimit -l unlimited, LimitMEMLOCK=infinity in a systemd unit, memlock in limits.conf(5)), run it with CAP_IPC_LOCK, or run without locking (dl-load --no-mlock, DL_PREFAULT_NO_LOCK)",
			       strerror(err), lim);
	return dl_fail(-err, "cannot lock the process's memory: mlockall: %s", strerror(err));
}

DL_EXPORT int dl_prefault(size_t stack_bytes, size_t heap_bytes, unsigned int flags)
{
	size_t left = 0, page = (size_t)sysconf(_SC_PAGESIZE);
	int err;

	if (flags & ~(unsigned int)DL_PREFAULT_NO_LOCK)
		return dl_fail(-EINVAL, "unknown flags 0x%x: use DL_PREFAULT_NO_LOCK or 0", flags);
	if (stack_bytes) {
		if ((err = stack_left(&left)) < 0)
			return err;
		if (stack_bytes > left || left - stack_bytes < STACK_MARGIN)
			return dl_fail(-EINVAL, "%zu KiB of stack asked for, but the thread has %zu KiB left below this call: ask for at most %zu KiB, or give the thread a larger stack (ulimit -s, pthread_attr_setstacksize)",
				       stack_bytes / 1024, left / 1024,
				       left > STACK_MARGIN ? (left - STACK_MARGIN) / 1024 : 0);
	}
	if (!(flags & DL_PREFAULT_NO_LOCK) && mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		return lock_failed(errno);
	if (stack_bytes)
		(void)touch_stack((stack_bytes + STACK_CHUNK - 1) / STACK_CHUNK);
	if (heap_bytes) {
		unsigned char *p;

		/* The block stays in the heap when freed: no trimming, and
		 * no block of its own mapped for a large request. */
		if (!mallopt(M_TRIM_THRESHOLD, -1) || !mallopt(M_MMAP_MAX, 0))
			return dl_fail(-EINVAL, "cannot keep the heap (mallopt refused)");
		p = malloc(heap_bytes);
		if (!p)
			return dl_fail(-ENOMEM, "cannot grow the heap by %zu KiB: out of memory", heap_bytes / 1024);
		for (size_t i = 0; i < heap_bytes; i += page)
			((volatile unsigned char *)p)[i] = 0;
		free(p);
	}
	return 0;
}
