/* libFuzzer target: dl_time_parse() and dl_time_format(). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), buf[64];
	uint64_t ns, again;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (dl_time_parse(text, &ns) == 0) {
		/* What it prints reads back as the same time. */
		dl_time_format(ns, buf, sizeof(buf));
		if (dl_time_parse(buf, &again) != 0 || again != ns)
			abort();
	}
	free(text);
	return 0;
}
