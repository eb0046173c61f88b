/* libFuzzer target: dl-part's layout file (dl-part.conf(5)), read
 * through a memfd the way dl-part reads a file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dl-part-conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_layout *l = dl_layout_new();
	char path[64], msg[1024];
	unsigned int flags = 0;
	int fd = memfd_create("fuzz", MFD_CLOEXEC), nparts = 0;

	if (fd < 0 || !l || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	conf_load(path, l, &flags, &nparts, msg, sizeof(msg));
	close(fd);
	dl_layout_free(l);
	return 0;
}
