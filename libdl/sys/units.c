/*
 * units.c: times and bandwidths as people write them: "1.5ms" parsed and
 * written exactly, a bandwidth in units of 2^-20 of a CPU written with
 * four decimals.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sys.h"

static const struct unit {
	const char *name;
	uint64_t ns;
} units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "\xc2\xb5s", 1000 }, /* µs */
	{ "ms", 1000000 },
	{ "s", 1000000000 },
};

DL_EXPORT int dl_time_parse(const char *text, uint64_t *ns)
{
	const char *p = text, *frac = NULL, *unit;
	uint64_t whole = 0, mult = 0, value, fpart = 0;
	size_t nfrac = 0;

	if (ns)
		*ns = 0;
	if (!text || !*text)
		return dl_fail(-EINVAL, "missing time: give a number with a unit, e.g. 200ms");
	if (*p == '-')
		return dl_fail(-EINVAL, "invalid time \"%s\": times cannot be negative", text);
	if (*p == '+')
		p++;
	if (*p < '0' || *p > '9') {
		if (*p == '.')
			return dl_fail(-EINVAL, "invalid time \"%s\": put a digit before the point (0.5ms)", text);
		return dl_fail(-EINVAL, "invalid time \"%s\": expected a number followed by ns, us, ms or s", text);
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (whole > (UINT64_MAX - 9) / 10)
			return dl_fail(-ERANGE, "invalid time \"%s\": too large", text);
		whole = whole * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		frac = ++p;
		for (; *p >= '0' && *p <= '9'; p++)
			nfrac++;
		if (nfrac == 0)
			return dl_fail(-EINVAL, "invalid time \"%s\": no digits after the point", text);
	}
	unit = p;
	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (strcmp(unit, units[i].name) == 0)
			mult = units[i].ns;
	if (*unit == '\0') {
		if (frac)
			return dl_fail(-EINVAL, "invalid time \"%s\": a fraction needs a unit (ns, us, ms or s); a bare number is nanoseconds", text);
		mult = 1;
	}
	if (mult == 0)
		return dl_fail(-EINVAL, "invalid time \"%s\": unknown unit \"%s\" (use ns, us, ms or s)", text, unit);

	/* The fraction's digits weigh mult/10, mult/100, ...: digits that
	 * would weigh less than 1 ns must be zeros. */
	for (size_t i = 0, w = mult; i < nfrac; i++) {
		w /= 10;
		if (w == 0) {
			if (frac[i] != '0')
				return dl_fail(-EINVAL, "invalid time \"%s\": finer than a nanosecond", text);
			continue;
		}
		fpart += (uint64_t)(frac[i] - '0') * w;
	}
	if (whole > (uint64_t)INT64_MAX / mult)
		return dl_fail(-ERANGE, "invalid time \"%s\": too large (at most %" PRId64 "ns)", text, INT64_MAX);
	value = whole * mult + fpart;
	if (value > (uint64_t)INT64_MAX)
		return dl_fail(-ERANGE, "invalid time \"%s\": too large (at most %" PRId64 "ns)", text, INT64_MAX);
	if (ns)
		*ns = value;
	return 0;
}

/* buf holds text, formatted into a buffer of room for any value: copy
 * it into the caller's, or say it does not fit (and leave it empty). */
char *dl_fmt_out(const char *text, char *buf, size_t len, const char *what, const char *constant)
{
	size_t n = strlen(text);

	if (!buf || len == 0) {
		errno = buf ? ERANGE : EINVAL;
		dl_fail(-errno, "%s: no buffer given: give one of %s bytes", what, constant);
		return NULL;
	}
	if (n >= len) {
		buf[0] = '\0';
		errno = ERANGE;
		dl_fail(-ERANGE, "%s: \"%s\" needs %zu bytes, the buffer has %zu: size it with %s", what, text,
			n + 1, len, constant);
		return NULL;
	}
	memcpy(buf, text, n + 1);
	return buf;
}

DL_EXPORT char *dl_time_format(uint64_t ns, char *buf, size_t len)
{
	static const struct unit *order[] = { &units[4], &units[3], &units[1], &units[0] };
	const struct unit *u = &units[0];
	char frac[16], text[DL_TIME_STRLEN];
	uint64_t rem;
	int n;

	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		if (ns >= order[i]->ns) {
			u = order[i];
			break;
		}
	}
	rem = ns % u->ns;
	if (rem == 0) {
		snprintf(text, sizeof(text), "%" PRIu64 "%s", ns / u->ns, u->name);
		return dl_fmt_out(text, buf, len, "dl_time_format", "DL_TIME_STRLEN");
	}
	/* Exact: as many decimals as needed, trailing zeros dropped. */
	n = u->ns == 1000 ? 3 : u->ns == 1000000 ? 6 : 9;
	snprintf(frac, sizeof(frac), "%0*" PRIu64, n, rem);
	for (n = (int)strlen(frac); n > 0 && frac[n - 1] == '0'; n--)
		frac[n - 1] = '\0';
	snprintf(text, sizeof(text), "%" PRIu64 ".%s%s", ns / u->ns, frac, u->name);
	return dl_fmt_out(text, buf, len, "dl_time_format", "DL_TIME_STRLEN");
}

DL_EXPORT char *dl_bw_format(int64_t bw, char *buf, size_t len)
{
	/* Four decimals, rounded: enough to tell 0.9000 from 0.9100.  The
	 * magnitude in unsigned arithmetic: -INT64_MIN does not exist. */
	uint64_t abs = bw < 0 ? 0 - (uint64_t)bw : (uint64_t)bw;
	unsigned __int128 scaled = ((unsigned __int128)abs * 10000 + DL_BW_UNIT / 2) >> DL_BW_SHIFT;
	char text[DL_BW_STRLEN];

	if (bw == INT64_MAX)
		/* The free bandwidth of a root domain without admission test
		 * (sched_rt_runtime_us = -1). */
		return dl_fmt_out("unlimited", buf, len, "dl_bw_format", "DL_BW_STRLEN");
	snprintf(text, sizeof(text), "%s%" PRIu64 ".%04" PRIu64, bw < 0 ? "-" : "",
		 (uint64_t)(scaled / 10000), (uint64_t)(scaled % 10000));
	return dl_fmt_out(text, buf, len, "dl_bw_format", "DL_BW_STRLEN");
}
