/*
 * error.c: the explanation of the last failure, per thread.
 *
 * Functions return a negative errno; the sentence that goes with it
 * (which rule broke, with what numbers, what to do) waits here until the
 * next failure in the same thread, like errno.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sys/sys.h"

static __thread char errmsg[1024];

DL_EXPORT const char *dl_errmsg(void)
{
	return errmsg[0] ? errmsg : "no error";
}

int dl_failv(int err, const char *fmt, va_list ap)
{
	vsnprintf(errmsg, sizeof(errmsg), fmt, ap);
	return err;
}

int dl_fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	dl_failv(err, fmt, ap);
	va_end(ap);
	return err;
}

int dl_fail_ctx(int err, const char *fmt, ...)
{
	char prefix[512], old[sizeof(errmsg)];
	va_list ap;

	memcpy(old, errmsg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	snprintf(errmsg, sizeof(errmsg), "%s: %s", prefix, old[0] ? old : strerror(-err));
	return err;
}

int dl_reserved_check(const void *reserved, size_t len, const char *what)
{
	const unsigned char *b = reserved;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return dl_fail(-EINVAL, "%s has non-zero bytes in its reserved space: "
				       "initialise the whole struct (= { .field = ... } or memset) before filling it in",
				       what);
	return 0;
}
