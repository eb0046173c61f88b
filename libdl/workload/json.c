/*
 * json-read.c: a small strict JSON reader (RFC 8259) for the task-set
 * files, into a tree whose values remember their lines.
 *
 * Strict: no comments, no trailing commas, no single quotes, no leading
 * zeros, no control characters or invalid UTF-8 in strings, no lone
 * surrogates, no duplicate keys in an object, nothing after the value,
 * nesting at most DL_JSON_MAX_DEPTH deep.  \u0000 is refused too: the
 * strings become C strings.  No dependency, because a task set is small
 * and its errors must name the line.
 *
 * The files are anyone's (dl-part plan reads a user's), so no input may
 * cost more than linear-logarithmic time: arrays and objects grow by
 * doubling, and an object's duplicate keys are found by sorting its
 * members once it is read, not by comparing each key with all before.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "workload/taskset.h"

struct jp {
	const char *s, *end;
	const char *origin;
	int line;
	uint64_t compares; /* key comparisons of the duplicate check */
};

static int jfail(struct jp *p, const char *what)
{
	return dl_fail(-EINVAL, "%s:%d: JSON: %s", p->origin, p->line, what);
}

static void skip_ws(struct jp *p)
{
	for (; p->s < p->end; p->s++) {
		if (*p->s == '\n')
			p->line++;
		else if (*p->s != ' ' && *p->s != '\t' && *p->s != '\r')
			return;
	}
}

const char *dl_json_type_name(enum dl_jtype t)
{
	static const char *const names[] = { "null", "false", "true", "a number", "a string",
					     "an array", "an object" };

	return names[t];
}

void dl_json_free_members(struct dl_jval *v)
{
	free(v->key);
	free(v->text);
	for (size_t i = 0; i < v->n; i++)
		dl_json_free_members(&v->items[i]);
	free(v->items);
}

void dl_json_free(struct dl_jval *v)
{
	if (!v)
		return;
	dl_json_free_members(v);
	free(v);
}

const struct dl_jval *dl_json_get(const struct dl_jval *obj, const char *key)
{
	for (size_t i = 0; obj && obj->type == DL_JOBJ && i < obj->n; i++)
		if (!strcmp(obj->items[i].key, key))
			return &obj->items[i];
	return NULL;
}

static int hex4(struct jp *p, unsigned *u)
{
	*u = 0;
	if (p->end - p->s < 4)
		return jfail(p, "\\u needs four hex digits");
	for (int i = 0; i < 4; i++) {
		char c = *p->s++;

		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*u |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*u |= (unsigned)(c - 'A' + 10);
		else
			return jfail(p, "\\u needs four hex digits");
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned u)
{
	if (u < 0x80) {
		o[0] = (char)u;
		return 1;
	}
	if (u < 0x800) {
		o[0] = (char)(0xc0 | (u >> 6));
		o[1] = (char)(0x80 | (u & 0x3f));
		return 2;
	}
	if (u < 0x10000) {
		o[0] = (char)(0xe0 | (u >> 12));
		o[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		o[2] = (char)(0x80 | (u & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (u >> 18));
	o[1] = (char)(0x80 | ((u >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((u >> 6) & 0x3f));
	o[3] = (char)(0x80 | (u & 0x3f));
	return 4;
}

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_len(const unsigned char *s, const unsigned char *end)
{
	unsigned c = s[0], u;
	size_t n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, u = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, u = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, u = c & 0x07;
	else
		return 0;
	if ((size_t)(end - s) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		u = (u << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && (u < 0x800 || (u >= 0xd800 && u <= 0xdfff))) || (n == 4 && (u < 0x10000 || u > 0x10ffff)))
		return 0;
	return n;
}

/* A string, after its opening quote; the decoded text into *out. */
static int parse_string(struct jp *p, char **out)
{
	const char *start = p->s;
	char *buf, *o;
	int err;

	/* Decoded, a string is never longer than written. */
	while (p->s < p->end && *p->s != '"') {
		if (*p->s == '\\' && p->s + 1 < p->end)
			p->s++;
		p->s++;
	}
	if (p->s >= p->end)
		return jfail(p, "a string is not closed: add the closing '\"'");
	buf = o = malloc((size_t)(p->s - start) + 1);
	if (!buf)
		return dl_fail(-ENOMEM, "out of memory");
	p->s = start;
	while (*p->s != '"') {
		unsigned char c = (unsigned char)*p->s;
		unsigned u, lo;
		size_t n;

		if (c < 0x20) {
			err = jfail(p, c == '\n' ? "a string runs past the end of its line: close it with '\"'"
						 : "a control character in a string: write it as an escape (\\t, \\u0001)");
			goto fail;
		}
		if (c != '\\') {
			n = utf8_len((const unsigned char *)p->s, (const unsigned char *)p->end);
			if (n == 0) {
				err = jfail(p, "invalid UTF-8 in a string");
				goto fail;
			}
			memcpy(o, p->s, n);
			o += n;
			p->s += n;
			continue;
		}
		p->s++;
		switch (*p->s++) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if ((err = hex4(p, &u)))
				goto fail;
			if (u >= 0xdc00 && u <= 0xdfff) {
				err = jfail(p, "a lone low surrogate (\\udc00-\\udfff) in a string");
				goto fail;
			}
			if (u >= 0xd800 && u <= 0xdbff) {
				if (p->end - p->s < 6 || p->s[0] != '\\' || p->s[1] != 'u') {
					err = jfail(p, "a high surrogate (\\ud800-\\udbff) not followed by a low one");
					goto fail;
				}
				p->s += 2;
				if ((err = hex4(p, &lo)))
					goto fail;
				if (lo < 0xdc00 || lo > 0xdfff) {
					err = jfail(p, "a high surrogate (\\ud800-\\udbff) not followed by a low one");
					goto fail;
				}
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (u == 0) {
				err = jfail(p, "\\u0000 in a string: task sets hold no NUL characters");
				goto fail;
			}
			o += put_utf8(o, u);
			break;
		default:
			err = jfail(p, "unknown escape in a string (use \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)");
			goto fail;
		}
	}
	p->s++;
	*o = '\0';
	*out = buf;
	return 0;
fail:
	free(buf);
	return err;
}

static bool isdigit_(char c)
{
	return c >= '0' && c <= '9';
}

static int parse_number(struct jp *p, struct dl_jval *v)
{
	const char *start = p->s;

	if (p->s < p->end && *p->s == '-')
		p->s++;
	if (p->s >= p->end || !isdigit_(*p->s))
		return jfail(p, "a number needs a digit");
	if (*p->s == '0' && p->s + 1 < p->end && isdigit_(p->s[1]))
		return jfail(p, "a number with a leading zero");
	while (p->s < p->end && isdigit_(*p->s))
		p->s++;
	if (p->s < p->end && *p->s == '.') {
		p->s++;
		if (p->s >= p->end || !isdigit_(*p->s))
			return jfail(p, "a number needs a digit after its point");
		while (p->s < p->end && isdigit_(*p->s))
			p->s++;
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (p->s >= p->end || !isdigit_(*p->s))
			return jfail(p, "a number needs a digit in its exponent");
		while (p->s < p->end && isdigit_(*p->s))
			p->s++;
	}
	v->type = DL_JNUM;
	v->text = strndup(start, (size_t)(p->s - start));
	return v->text ? 0 : dl_fail(-ENOMEM, "out of memory");
}

static int parse_value(struct jp *p, struct dl_jval *v, int depth);

/* One more element or member, the array doubling when full (*cap is
 * its room, kept by the caller while the value is read). */
static int append(struct dl_jval *v, size_t *cap, struct dl_jval **item)
{
	if (v->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		struct dl_jval *items = realloc(v->items, ncap * sizeof(*items));

		if (!items)
			return dl_fail(-ENOMEM, "out of memory");
		v->items = items;
		*cap = ncap;
	}
	*item = memset(&v->items[v->n++], 0, sizeof(**item));
	return 0;
}

static int parse_array(struct jp *p, struct dl_jval *v, int depth)
{
	struct dl_jval *item;
	size_t cap = 0;
	int err;

	v->type = DL_JARR;
	skip_ws(p);
	if (p->s < p->end && *p->s == ']') {
		p->s++;
		return 0;
	}
	for (;;) {
		if ((err = append(v, &cap, &item)) || (err = parse_value(p, item, depth + 1)))
			return err;
		skip_ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			skip_ws(p);
			if (p->s < p->end && *p->s == ']')
				return jfail(p, "a comma before ']': remove it");
			continue;
		}
		if (p->s < p->end && *p->s == ']') {
			p->s++;
			return 0;
		}
		return jfail(p, "expected ',' or ']' after an array element");
	}
}

struct key_order {
	const struct dl_jval *items;
	uint64_t *compares;
};

/* By key, then by place in the object: equal keys end up side by side,
 * the first written first. */
static int key_cmp(const void *a, const void *b, void *arg)
{
	const struct key_order *o = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(o->items[i].key, o->items[j].key);

	(*o->compares)++;
	if (c)
		return c;
	return i < j ? -1 : i > j;
}

/* A key that appears twice in the object v, read whole: the message names
 * the one written second that comes first in the text, as a reader finds
 * it, and both lines.  O(n log n) comparisons. */
static int check_duplicates(struct jp *p, const struct dl_jval *v, const int *key_line)
{
	struct key_order o = { .items = v->items, .compares = &p->compares };
	size_t *idx, dup = SIZE_MAX, first = 0;
	char msg[200];

	if (v->n < 2)
		return 0;
	idx = malloc(v->n * sizeof(*idx));
	if (!idx)
		return dl_fail(-ENOMEM, "out of memory");
	for (size_t i = 0; i < v->n; i++)
		idx[i] = i;
	qsort_r(idx, v->n, sizeof(*idx), key_cmp, &o);
	for (size_t i = 1; i < v->n; i++) {
		/* The run's first is idx[i - 1] when idx[i] is its second. */
		if (strcmp(v->items[idx[i - 1]].key, v->items[idx[i]].key) != 0 ||
		    (i >= 2 && strcmp(v->items[idx[i - 2]].key, v->items[idx[i]].key) == 0))
			continue;
		if (idx[i] < dup) {
			dup = idx[i];
			first = idx[i - 1];
		}
	}
	free(idx);
	if (dup == SIZE_MAX)
		return 0;
	snprintf(msg, sizeof(msg), "\"%.64s\" appears twice in one object (lines %d and %d): keep one",
		 v->items[dup].key, key_line[first], key_line[dup]);
	p->line = key_line[dup];
	return jfail(p, msg);
}

static int parse_object(struct jp *p, struct dl_jval *v, int depth)
{
	struct dl_jval *item;
	int *key_line = NULL; /* each member's key's line, for the duplicate check */
	size_t cap = 0, kcap = 0;
	char *key;
	int err;

	v->type = DL_JOBJ;
	skip_ws(p);
	if (p->s < p->end && *p->s == '}') {
		p->s++;
		return 0;
	}
	for (;;) {
		skip_ws(p);
		if (p->s >= p->end || *p->s != '"') {
			err = jfail(p, p->s < p->end && *p->s == '}' ? "a comma before '}': remove it"
								    : "expected a member's key in double quotes");
			break;
		}
		p->s++;
		if ((err = parse_string(p, &key)))
			break;
		if ((err = append(v, &cap, &item))) {
			free(key);
			break;
		}
		if (v->n > kcap) {
			int *kl = realloc(key_line, cap * sizeof(*kl));

			if (!kl) {
				free(key);
				err = dl_fail(-ENOMEM, "out of memory");
				break;
			}
			key_line = kl;
			kcap = cap;
		}
		item->key = key;
		key_line[v->n - 1] = p->line;
		skip_ws(p);
		if (p->s >= p->end || *p->s != ':') {
			err = jfail(p, "expected ':' after a member's key");
			break;
		}
		p->s++;
		if ((err = parse_value(p, item, depth + 1)))
			break;
		skip_ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == '}') {
			p->s++;
			err = check_duplicates(p, v, key_line);
			break;
		}
		err = jfail(p, "expected ',' or '}' after an object member");
		break;
	}
	free(key_line);
	return err;
}

static int literal(struct jp *p, struct dl_jval *v, const char *word, enum dl_jtype t)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n) != 0)
		return jfail(p, "expected a value (a string, a number, an object, an array, true, false or null)");
	p->s += n;
	v->type = t;
	return 0;
}

static int parse_value(struct jp *p, struct dl_jval *v, int depth)
{
	if (depth > DL_JSON_MAX_DEPTH)
		return jfail(p, "nested too deep");
	skip_ws(p);
	v->line = p->line;
	if (p->s >= p->end)
		return jfail(p, "the text ends where a value should be");
	switch (*p->s) {
	case '{':
		p->s++;
		return parse_object(p, v, depth);
	case '[':
		p->s++;
		return parse_array(p, v, depth);
	case '"':
		p->s++;
		v->type = DL_JSTR;
		return parse_string(p, &v->text);
	case 't':
		return literal(p, v, "true", DL_JTRUE);
	case 'f':
		return literal(p, v, "false", DL_JFALSE);
	case 'n':
		return literal(p, v, "null", DL_JNULL);
	default:
		if (*p->s == '-' || isdigit_(*p->s))
			return parse_number(p, v);
		return jfail(p, "expected a value (a string, a number, an object, an array, true, false or null)");
	}
}

int dl_json_parse_counted(const char *text, size_t len, const char *origin, struct dl_jval **out,
			  uint64_t *compares)
{
	struct jp p = { .s = text, .end = text + len, .origin = origin, .line = 1 };
	struct dl_jval *v = calloc(1, sizeof(*v));
	int err;

	if (compares)
		*compares = 0;
	if (!v)
		return dl_fail(-ENOMEM, "out of memory");
	err = parse_value(&p, v, 0);
	if (!err) {
		skip_ws(&p);
		if (p.s < p.end)
			err = jfail(&p, "more text after the JSON value: a file holds one value");
	}
	if (compares)
		*compares = p.compares;
	if (err) {
		dl_json_free(v);
		return err;
	}
	*out = v;
	return 0;
}

int dl_json_parse(const char *text, size_t len, const char *origin, struct dl_jval **out)
{
	return dl_json_parse_counted(text, len, origin, out, NULL);
}
