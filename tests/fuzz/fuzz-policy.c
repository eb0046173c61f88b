/* libFuzzer target: the dl-run.conf(5) reader. */
#include <stdint.h>
#include <stdlib.h>

#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_policy *pol = NULL;

	if (dl_policy_parse((const char *)data, size, "fuzz", &pol) == 0) {
		if (!pol)
			abort();
		dl_policy_free(pol);
	} else if (pol) {
		abort();
	}
	return 0;
}
