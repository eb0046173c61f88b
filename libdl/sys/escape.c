/*
 * escape.c: text from users and the kernel (a thread's name, a cgroup's
 * path) made safe to print on a terminal.
 */
#include <string.h>

#include "sys/sys.h"

DL_EXPORT char *dl_str_escape(const char *in, char *out, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!out || len == 0)
		return out;
	for (const unsigned char *p = (const unsigned char *)(in ? in : ""); *p; p++) {
		char e[4];
		size_t k = 0;

		if (*p == '\\') {
			e[k++] = '\\';
			e[k++] = '\\';
		} else if (*p >= 0x20 && *p < 0x7f) {
			e[k++] = (char)*p;
		} else {
			if (o + 4 >= len)
				break;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
			continue;
		}
		if (o + k >= len)
			break;
		memcpy(out + o, e, k);
		o += k;
	}
	out[o] = '\0';
	return out;
}
