/* libFuzzer target: the layout state file's reader (/run/libdl/layout). */
#include <stdint.h>
#include <stdlib.h>

#include "layout/layout.h"
#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_layout *l = NULL;

	if (dl_layout_parse((const char *)data, size, "fuzz", &l) == 0) {
		char buf[4096];

		if (!l)
			abort();
		dl_layout_text(l, buf, sizeof(buf));
		dl_layout_free(l);
	}
	return 0;
}
