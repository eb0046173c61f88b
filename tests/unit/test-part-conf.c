/*
 * dl-part's layout file (dl-part.conf(5)) read by utils/dl-part-conf.c:
 * a line is read whole or refused.  A line longer than the limit is
 * refused with its file, number, the limit and the fix, never cut into
 * pieces whose tail reads as a directive of its own; a NUL byte, which
 * would hide the rest of its line, is refused too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dl-part-conf.h"
#include "testlib.h"

static char path[64];

/* text into a file of its own; conf_load() on it. */
static int load(const char *text, size_t len, struct dl_layout **l, int *nparts, char *msg, size_t msglen)
{
	unsigned int flags = 0;
	int fd, ret;

	snprintf(path, sizeof(path), "/tmp/test-part-conf.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	*l = dl_layout_new();
	*nparts = 0;
	msg[0] = '\0';
	ret = conf_load(path, *l, &flags, nparts, msg, msglen);
	unlink(path);
	return ret;
}

/* The message names the file and the second line. */
static void at_line_2(const char *msg)
{
	char want[128];

	snprintf(want, sizeof(want), "%s:2: ", path);
	ck_assert_msg(strncmp(msg, want, strlen(want)) == 0, "\"%s\" does not start with \"%s\"", msg, want);
}

/* "partition a=0\n", then one comment line of `width` characters that
 * ends in "partition evil=0", then its newline unless last. */
static char *long_comment(size_t width, bool newline, size_t *len)
{
	const char *tail = "partition evil=0";
	char *text = malloc(width + 64), *p = text;

	p += sprintf(p, "partition a=0\n#");
	memset(p, 'x', width - 1 - strlen(tail));
	p += width - 1 - strlen(tail);
	p += sprintf(p, "%s%s", tail, newline ? "\n" : "");
	*len = (size_t)(p - text);
	return text;
}

/* Lines of up to 4096 characters (DL_PART_CONF_LINE_MAX) are read whole, the
 * last one with or without its newline. */
START_TEST(test_longest_line)
{
	struct dl_layout *l;
	char msg[1024];
	size_t len;
	int nparts;
	char *text = long_comment(4096, _i, &len);

	ck_assert_msg(load(text, len, &l, &nparts, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_int_eq(nparts, 1);
	dl_layout_free(l);
	free(text);
}
END_TEST

/* One character more is refused, whether a newline follows or not; so
 * is a line whose tail past 4095 characters is a directive (read in
 * pieces, it would make a second partition), and a much longer one. */
static const size_t too_long[] = { 4097, 4095 + 16, 100000 };

START_TEST(test_too_long)
{
	struct dl_layout *l;
	char msg[1024];
	size_t len;
	int nparts;
	char *text = long_comment(too_long[_i / 2], _i % 2, &len);

	ck_assert_msg(load(text, len, &l, &nparts, msg, sizeof(msg)) == -1, "accepted, %d partitions", nparts);
	at_line_2(msg);
	ck_assert_msg(strstr(msg, "longer than 4096 characters"), "%s", msg);
	ck_assert_msg(strstr(msg, "split"), "%s", msg);
	dl_layout_free(l);
	free(text);
}
END_TEST

START_TEST(test_nul)
{
	static const char text[] = "partition a=0\n# a comment\0partition evil=0\n";
	struct dl_layout *l;
	char msg[1024];
	int nparts;

	ck_assert_int_eq(load(text, sizeof(text) - 1, &l, &nparts, msg, sizeof(msg)), -1);
	at_line_2(msg);
	ck_assert_msg(strstr(msg, "NUL byte"), "%s", msg);
	dl_layout_free(l);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("part-conf");
	TCase *tc = tcase_create("lines");

	tcase_add_loop_test(tc, test_longest_line, 0, 2);
	tcase_add_loop_test(tc, test_too_long, 0, 2 * ARRAY_SIZE(too_long));
	tcase_add_test(tc, test_nul);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_UNIT);
}
