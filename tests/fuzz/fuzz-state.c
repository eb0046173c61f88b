/* libFuzzer target: the layout state file's reader (/run/libdl/layout),
 * asserting what it promises: a state read is of cgroup version 1 or 2,
 * its partitions named, each name once; a refusal leaves *out NULL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_layout *l = (struct dl_layout *)1;
	char buf[4096];

	if (dl_layout_parse((const char *)data, size, "fuzz", &l) != 0) {
		if (l)
			abort();
		return 0;
	}
	if (!l || (l->version != 1 && l->version != 2))
		abort();
	for (size_t i = 0; i < l->nparts; i++) {
		if (!l->parts[i].name[0])
			abort();
		for (size_t j = 0; j < i; j++)
			if (strcmp(l->parts[i].name, l->parts[j].name) == 0)
				abort();
	}
	dl_layout_text(l, buf, sizeof(buf));
	dl_layout_free(l);
	return 0;
}
