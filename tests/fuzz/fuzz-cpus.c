/* libFuzzer target: dl_cpus_parse() and dl_cpus_format(). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), buf[8192];
	dl_cpus_t set, again;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (dl_cpus_parse(text, &set) == 0) {
		dl_cpus_format(&set, buf, sizeof(buf));
		if (dl_cpus_parse(buf, &again) != 0 || !dl_cpus_equal(&set, &again))
			abort();
	}
	free(text);
	return 0;
}
