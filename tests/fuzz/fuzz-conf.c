/* libFuzzer target: dl-part's layout file (dl-part.conf(5)), read
 * through a memfd the way dl-part reads a file, asserting what conf_load()
 * promises: 0 with every partition counted and at least one, or -1 with
 * a message that names the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dl-part-conf.h"
#include "layout/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_layout *l = dl_layout_new();
	char path[64], msg[1024] = "";
	unsigned int flags = 0;
	int fd = memfd_create("fuzz", MFD_CLOEXEC), nparts = 0;

	if (fd < 0 || !l || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (conf_load(path, l, &flags, &nparts, msg, sizeof(msg)) == 0) {
		if (nparts < 1 || (size_t)nparts != l->nparts)
			abort();
	} else if (strncmp(msg, path, strlen(path)) != 0) {
		abort();
	}
	close(fd);
	dl_layout_free(l);
	return 0;
}
