/* libFuzzer target: the dl-run.conf(5) reader, asserting what
 * dl_policy_parse(3) promises: 0 with a policy, or -EINVAL, -EFBIG or
 * -ENOMEM with *pol still NULL and a message saying why. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_policy *pol = NULL;
	int err = dl_policy_parse((const char *)data, size, "fuzz", &pol);

	if (err == 0) {
		if (!pol)
			abort();
		dl_policy_free(pol);
	} else if (pol || (err != -EINVAL && err != -EFBIG && err != -ENOMEM) || !dl_errmsg()[0]) {
		abort();
	}
	return 0;
}
