/*
 * json-writer.h: a small streaming JSON writer for the tools' --json output.
 * Commas and nesting are tracked; strings are escaped.
 */
#ifndef LIBDL_TOOLS_JSON_WRITER_H
#define LIBDL_TOOLS_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libdeadline.h"

struct json {
	FILE *f;
	int depth;
	bool first[32];
};

void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j, const char *key);  /* key NULL in arrays and at the top */
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *val);
void json_int(struct json *j, const char *key, int64_t val);
void json_uint(struct json *j, const char *key, uint64_t val);
void json_bool(struct json *j, const char *key, bool val);
void json_null(struct json *j, const char *key);
void json_end(struct json *j); /* the final newline */

/* A root domain's figures, the fields dl-part(1) and dl-stat(1) share,
 * into the object being written. */
void json_rd_fields(struct json *j, const struct dl_rd *rd);

#endif
