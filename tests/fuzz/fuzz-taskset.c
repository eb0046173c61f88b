/* libFuzzer target: the task-set reader (libdl-taskset(5)), both forms. */
#include <stdint.h>
#include <stdlib.h>

#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_taskset *ts = NULL;

	if (dl_taskset_parse((const char *)data, size, "fuzz", &ts) == 0) {
		if (!ts)
			abort();
		/* Every task read back is one the kernel could take. */
		for (size_t i = 0; i < dl_taskset_count(ts); i++) {
			const struct dl_taskspec *t = dl_taskset_task(ts, i);
			struct dl_params p;

			if (!t || !t->name || dl_params_normalize(&t->params, &p) != 0)
				abort();
		}
		dl_taskset_free(ts);
	}
	return 0;
}
