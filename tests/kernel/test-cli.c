/*
 * Bad input, table-driven (tests/cli/bad-input.txt): every row runs a
 * tool with bad arguments and asserts its exit status, that its message
 * names the problem, and that the cpuset tree, the layout's state, the
 * root domains' deadline bandwidth and every deadline thread are exactly
 * as before.  One TAP result per row.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#define MAX_ROWS 512
#define MAX_ARGS 32

struct row {
	int line;
	int exit;
	char words[256];
	char *argv[MAX_ARGS + 1];
};

static struct row rows[MAX_ROWS];
static int nrows;
static char out[65536], err[65536];
static char cs_before[65536], cs_after[65536], dl_before[16384], dl_after[16384];

/* \s blank, \t tab, \e empty, \xNN a byte. */
static char *unescape(const char *in)
{
	char *o = malloc(strlen(in) + 1), *p = o;

	for (; *in; in++) {
		if (*in != '\\' || !in[1]) {
			*p++ = *in;
			continue;
		}
		in++;
		if (*in == 's')
			*p++ = ' ';
		else if (*in == 't')
			*p++ = '\t';
		else if (*in == 'e')
			;
		else if (*in == 'x' && isxdigit((unsigned char)in[1]) && isxdigit((unsigned char)in[2])) {
			char hex[3] = { in[1], in[2], 0 };

			*p++ = (char)strtol(hex, NULL, 16);
			in += 2;
		} else
			*p++ = *in;
	}
	*p = '\0';
	return o;
}

static void load(const char *path)
{
	char line[2048];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		tl_skip_all("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		char *bar1, *bar2, *save = NULL, *tok;
		struct row *r;
		int a = 0;

		n++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		bar1 = strchr(line, '|');
		bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
		if (!bar2 || nrows == MAX_ROWS) {
			fprintf(stderr, "%s:%d: not EXIT | WORDS | COMMAND\n", path, n);
			exit(99);
		}
		r = &rows[nrows++];
		r->line = n;
		r->exit = atoi(line);
		*bar2 = '\0';
		tok = bar1 + 1;
		while (*tok == ' ')
			tok++;
		for (char *e = tok + strlen(tok); e > tok && e[-1] == ' ';)
			*--e = '\0';
		{
			char *w = unescape(tok);

			snprintf(r->words, sizeof(r->words), "%s", w);
			free(w);
		}
		for (tok = strtok_r(bar2 + 1, " ", &save); tok && a < MAX_ARGS; tok = strtok_r(NULL, " ", &save))
			r->argv[a++] = a == 0 ? strdup(tl_tool(tok)) : unescape(tok);
		r->argv[a] = NULL;
	}
	fclose(f);
}

START_TEST(test_row)
{
	struct row *r = &rows[_i];
	int rc;

	tl_cpuset_snapshot(cs_before, sizeof(cs_before));
	tl_dl_snapshot(dl_before, sizeof(dl_before));
	rc = tl_run(r->argv, out, sizeof(out), err, sizeof(err));
	ck_assert_msg(rc == r->exit, "line %d: exit %d, not %d: %s%s", r->line, rc, r->exit, out, err);
	ck_assert_msg(strstr(err, r->words) || strstr(out, r->words),
		      "line %d: the message does not say \"%s\": %s%s", r->line, r->words, out, err);
	/* A message a user reads names the program. */
	if (r->exit)
		ck_assert_msg(strncmp(err, "dl-", 3) == 0, "line %d: stderr: %s", r->line, err);
	/* A row that got as far as a reservation (an exec that failed) is
	 * released at the task's 0-lag time: compare once that passed. */
	tl_settle();
	tl_cpuset_snapshot(cs_after, sizeof(cs_after));
	ck_assert_msg(strcmp(cs_before, cs_after) == 0, "line %d changed the cpusets:\n%s\n--\n%s",
		      r->line, cs_before, cs_after);
	tl_dl_snapshot(dl_after, sizeof(dl_after));
	ck_assert_msg(strcmp(dl_before, dl_after) == 0, "line %d changed the deadline threads or bandwidth:\n%s\n--\n%s",
		      r->line, dl_before, dl_after);
}
END_TEST

static Suite *make(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("bad-input");
	char path[4096];
	const char *src = getenv("top_srcdir");

	if (access("/run/libdl/layout", F_OK) == 0)
		tl_skip_all("a dl-part layout is in place on this machine: the rows expect none");
	snprintf(path, sizeof(path), "%s/tests/cli/bad-input.txt", src && *src ? src : ".");
	load(path);
	tl_settle();
	tcase_add_loop_test(tc, test_row, 0, nrows);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return tl_main(make, TL_KERNEL);
}
