/* libFuzzer target: dl_time_parse() and dl_time_format(), asserting what
 * dl_time_parse(3) promises: a time read is below 2^63 ns and what
 * dl_time_format() writes of it reads back the same; a refusal is -EINVAL
 * or -ERANGE with *ns 0; any 64-bit value formats into DL_TIME_STRLEN
 * bytes. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(uint64_t ns)
{
	char buf[DL_TIME_STRLEN];
	uint64_t again = 1;

	if (!dl_time_format(ns, buf, sizeof(buf)))
		abort();
	if (ns >> 63) {
		if (dl_time_parse(buf, &again) != -ERANGE || again != 0)
			abort();
	} else if (dl_time_parse(buf, &again) != 0 || again != ns) {
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	uint64_t ns = 1, raw;
	int err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	err = dl_time_parse(text, &ns);
	if (err == 0) {
		if (ns >> 63)
			abort();
		round_trip(ns);
	} else if ((err != -EINVAL && err != -ERANGE) || ns != 0) {
		abort();
	}
	/* The input's first bytes as a value: dl_time_format over all of them. */
	if (size >= sizeof(raw)) {
		memcpy(&raw, data, sizeof(raw));
		round_trip(raw);
	}
	free(text);
	return 0;
}
