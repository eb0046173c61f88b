/* libFuzzer target: dl_cpus_parse() and dl_cpus_format(), asserting what
 * dl_cpus_parse(3) promises: a list read formats into DL_CPUS_STRLEN bytes
 * and reads back as the same set; a refusal is -EINVAL or -ERANGE with the
 * set empty. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), buf[DL_CPUS_STRLEN];
	dl_cpus_t set, again;
	int err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&set, 0xff, sizeof(set));
	err = dl_cpus_parse(text, &set);
	if (err == 0) {
		if (!dl_cpus_format(&set, buf, sizeof(buf)))
			abort();
		if (dl_cpus_parse(buf, &again) != 0 || !dl_cpus_equal(&set, &again))
			abort();
	} else if ((err != -EINVAL && err != -ERANGE) || dl_cpus_count(&set) != 0) {
		abort();
	}
	free(text);
	return 0;
}
