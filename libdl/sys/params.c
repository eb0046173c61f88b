/*
 * params.c: deadline parameters as text and as the kernel checks them.
 *
 * The rules mirror __checkparam_dl() in kernel/sched/deadline.c: runtime
 * of at least 1024 ns (DL_SCALE), runtime <= deadline <= period, no time
 * with bit 63 set, and the period within
 * /proc/sys/kernel/sched_deadline_period_{min,max}_us.  Checking here,
 * before the syscall, lets the message say which rule broke and with what
 * numbers instead of a bare EINVAL.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sys.h"

#define NSEC_PER_USEC 1000ULL
#define DL_RUNTIME_MIN 1024ULL /* 1 << DL_SCALE */

DL_EXPORT int dl_period_limits(uint64_t *min_ns, uint64_t *max_ns)
{
	uint64_t min_us = DL_PERIOD_MIN_US_DEFAULT, max_us = DL_PERIOD_MAX_US_DEFAULT;

	/* Missing on kernels before 5.2, which had no limits but these. */
	dl_read_u64("/proc/sys/kernel/sched_deadline_period_min_us", &min_us);
	dl_read_u64("/proc/sys/kernel/sched_deadline_period_max_us", &max_us);
	if (min_ns)
		*min_ns = min_us * NSEC_PER_USEC;
	if (max_ns)
		*max_ns = max_us * NSEC_PER_USEC;
	return 0;
}

uint64_t dl_to_ratio(uint64_t period, uint64_t runtime)
{
	if (period == 0)
		return 0;
	return (uint64_t)(((unsigned __int128)runtime << DL_BW_SHIFT) / period);
}

DL_EXPORT int64_t dl_params_bw(const struct dl_params *p)
{
	uint64_t period = p->period ? p->period : p->deadline;

	/* runtime < 2^63 and runtime <= period: at most DL_BW_UNIT, but a
	 * caller's unchecked parameters may ask more, cut to INT64_MAX. */
	uint64_t bw = dl_to_ratio(period, p->runtime);

	return bw > INT64_MAX ? INT64_MAX : (int64_t)bw;
}

int dl_params_check(const struct dl_params *p)
{
	uint64_t min, max;
	int err = dl_params_check_rules(p);

	if (err)
		return err;
	dl_period_limits(&min, &max);
	return dl_params_check_period(p, min, max, "the kernel's");
}

int dl_params_check_period(const struct dl_params *p, uint64_t min, uint64_t max, const char *whose)
{
	char a[DL_TIME_STRLEN], b[DL_TIME_STRLEN];

	if (p->period < min)
		return dl_fail(-EINVAL, "period %s is below %s minimum of %s (sched_deadline_period_min_us)",
			       dl_time_format(p->period, a, sizeof(a)), whose,
			       dl_time_format(min, b, sizeof(b)));
	if (p->period > max)
		return dl_fail(-EINVAL, "period %s is above %s maximum of %s (sched_deadline_period_max_us)",
			       dl_time_format(p->period, a, sizeof(a)), whose,
			       dl_time_format(max, b, sizeof(b)));
	return 0;
}

int dl_params_check_rules(const struct dl_params *p)
{
	char a[DL_TIME_STRLEN], b[DL_TIME_STRLEN];

	if (dl_reserved_check(p->reserved, sizeof(p->reserved), "struct dl_params") < 0)
		return -EINVAL;
	if (p->flags & ~(uint64_t)DL_FLAGS_ALL)
		return dl_fail(-EINVAL, "unknown flags 0x%" PRIx64 " (known: 0x%x)",
			       p->flags & ~(uint64_t)DL_FLAGS_ALL, DL_FLAGS_ALL);
	if (p->runtime == 0)
		return dl_fail(-EINVAL, "no runtime: a reservation needs a runtime of at least 1024ns (1.024us)");
	if (p->deadline == 0)
		return dl_fail(-EINVAL, "no deadline or period: give at least one (each defaults to the other)");
	if ((p->runtime | p->deadline | p->period) & (1ULL << 63))
		return dl_fail(-EINVAL, "times must be below 2^63 ns");
	if (p->runtime < DL_RUNTIME_MIN)
		return dl_fail(-EINVAL, "runtime %" PRIu64 "ns is below the kernel's minimum of 1024ns (1.024us)",
			       p->runtime);
	if (p->runtime > p->deadline)
		return dl_fail(-EINVAL, "runtime %s is longer than the deadline %s: the kernel needs runtime <= deadline <= period",
			       dl_time_format(p->runtime, a, sizeof(a)),
			       dl_time_format(p->deadline, b, sizeof(b)));
	if (p->deadline > p->period)
		return dl_fail(-EINVAL, "deadline %s is longer than the period %s: the kernel needs runtime <= deadline <= period",
			       dl_time_format(p->deadline, a, sizeof(a)),
			       dl_time_format(p->period, b, sizeof(b)));
	if ((p->flags & DL_FLAG_UTIL_CLAMP_MIN) && p->util_min > DL_UTIL_MAX)
		return dl_fail(-EINVAL, "util-min %" PRIu32 " is above %d, a whole CPU", p->util_min, DL_UTIL_MAX);
	if ((p->flags & DL_FLAG_UTIL_CLAMP_MAX) && p->util_max > DL_UTIL_MAX)
		return dl_fail(-EINVAL, "util-max %" PRIu32 " is above %d, a whole CPU", p->util_max, DL_UTIL_MAX);
	if ((p->flags & DL_FLAG_UTIL_CLAMP_MIN) && (p->flags & DL_FLAG_UTIL_CLAMP_MAX) &&
	    p->util_min > p->util_max)
		return dl_fail(-EINVAL, "util-min %" PRIu32 " is above util-max %" PRIu32, p->util_min, p->util_max);
	return 0;
}

static int normalize(const struct dl_params *in, struct dl_params *out, bool limits)
{
	struct dl_params p;

	/* out may be in, or NULL (the check alone); zero on failure. */
	if (!in) {
		if (out)
			memset(out, 0, sizeof(*out));
		return dl_fail(-EINVAL, "no parameters");
	}
	p = *in;
	if (out)
		memset(out, 0, sizeof(*out));
	if (p.deadline == 0)
		p.deadline = p.period;
	if (p.period == 0)
		p.period = p.deadline;
	if ((limits ? dl_params_check(&p) : dl_params_check_rules(&p)) < 0)
		return -EINVAL;
	if (out)
		*out = p;
	return 0;
}

DL_EXPORT int dl_params_normalize(const struct dl_params *in, struct dl_params *out)
{
	return normalize(in, out, true);
}

int dl_params_normalize_rules(const struct dl_params *in, struct dl_params *out)
{
	return normalize(in, out, false);
}
