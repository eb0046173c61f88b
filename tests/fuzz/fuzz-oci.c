/* libFuzzer target: the OCI hook's reader of a runtime configuration
 * (dl_oci_parse(3)) and its writer, asserting what they promise: 0 with
 * an object whose configuration writes back as JSON that reads again to
 * the same text, or -ENODATA, -EINVAL, -EFBIG, -ENOENT, -EACCES or
 * -ENOMEM with nothing returned and a message saying why. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "workload/taskset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dl_oci *oci = NULL;
	struct dl_jval *again = NULL;
	char *text = NULL, *text2 = NULL;
	size_t len, len2;
	int err = dl_oci_parse((const char *)data, size, "fuzz", 0, &oci);

	if (err) {
		if (oci || !dl_errmsg()[0] ||
		    (err != -ENODATA && err != -EINVAL && err != -EFBIG && err != -ENOENT && err != -EACCES &&
		     err != -ENOMEM && err != -ENAMETOOLONG))
			abort();
		return 0;
	}
	if (!oci || dl_params_normalize(&oci->params, &(struct dl_params){ 0 }) < 0)
		abort();
	if (dl_oci_write(oci, size & 1 ? DL_OCI_SCHEDULER : 0, &text, &len) == 0) {
		/* What was written reads back, and writes the same. */
		if (len != strlen(text) || dl_json_parse(text, len, "written", &again) < 0 ||
		    dl_json_write(again, &text2, &len2) < 0 || len2 != len || memcmp(text, text2, len))
			abort();
	}
	dl_json_free(again);
	free(text);
	free(text2);
	dl_oci_free(oci);
	return 0;
}
