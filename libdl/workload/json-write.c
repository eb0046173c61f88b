/*
 * json-write.c: a tree of json.c written back as JSON text, compact, in
 * the order it was read: what a program that was handed a document (an
 * OCI hook's runtime configuration) prints after changing some of it.
 * Every string of a tree is UTF-8 without NUL bytes (json.c checks it),
 * so escaping the quote, the backslash and the control characters is
 * all that keeps it JSON.  (utils/json-writer.c, above the library,
 * writes the tools' own strings, which need not be UTF-8: it escapes
 * every byte past ASCII, which here would change what was read.)  Depth is the reader's, at most
 * DL_JSON_MAX_DEPTH, so the recursion is bounded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/taskset.h"

/*
 * A string as JSON: runs of bytes that need no escape written as they
 * are (UTF-8 stays UTF-8: the reader checked it, and an engine reads it
 * back), the quote, the backslash and the control bytes escaped.
 */
static void put_string(FILE *f, const char *s)
{
	static const char plain_not[] = "\"\\\x01\x02\x03\x04\x05\x06\x07\x08\t\n\x0b\x0c\r\x0e\x0f"
					"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f";

	putc('"', f);
	for (;;) {
		size_t n = strcspn(s, plain_not);

		fwrite(s, 1, n, f);
		s += n;
		if (!*s)
			break;
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else
			fprintf(f, "\\u%04x", (unsigned char)*s);
		s++;
	}
	putc('"', f);
}

static void put_value(FILE *f, const struct dl_jval *v)
{
	static const char *const words[] = { "null", "false", "true" };

	switch (v->type) {
	case DL_JNULL:
	case DL_JFALSE:
	case DL_JTRUE:
		fputs(words[v->type], f);
		return;
	case DL_JNUM:
		fputs(v->text, f);
		return;
	case DL_JSTR:
		put_string(f, v->text);
		return;
	case DL_JARR:
	case DL_JOBJ:
		putc(v->type == DL_JARR ? '[' : '{', f);
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				putc(',', f);
			if (v->type == DL_JOBJ) {
				put_string(f, v->items[i].key);
				putc(':', f);
			}
			put_value(f, &v->items[i]);
		}
		putc(v->type == DL_JARR ? ']' : '}', f);
		return;
	}
}

int dl_json_write(const struct dl_jval *v, char **text, size_t *len)
{
	FILE *f;

	*text = NULL;
	*len = 0;
	f = open_memstream(text, len);
	if (!f)
		return dl_fail(-ENOMEM, "out of memory");
	put_value(f, v);
	putc('\n', f);
	if (ferror(f) | fclose(f)) {
		free(*text);
		*text = NULL;
		*len = 0;
		return dl_fail(-ENOMEM, "out of memory");
	}
	return 0;
}

/* A member of object obj set to the value v, taken over (v's own key is
 * freed): the member of that key replaced where it is, or appended. */
int dl_json_set(struct dl_jval *obj, const char *key, struct dl_jval *v)
{
	struct dl_jval *items;
	char *k;

	if (!obj || obj->type != DL_JOBJ)
		return dl_fail(-EINVAL, "not an object");
	if (!(k = strdup(key)))
		return dl_fail(-ENOMEM, "out of memory");
	free(v->key);
	v->key = k;
	for (size_t i = 0; i < obj->n; i++) {
		if (strcmp(obj->items[i].key, key))
			continue;
		v->line = obj->items[i].line;
		dl_json_free_members(&obj->items[i]);
		obj->items[i] = *v;
		return 0;
	}
	items = realloc(obj->items, (obj->n + 1) * sizeof(*items));
	if (!items)
		return dl_fail(-ENOMEM, "out of memory");
	obj->items = items;
	obj->items[obj->n++] = *v;
	return 0;
}
