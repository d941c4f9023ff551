/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A small streaming JSON writer (in the spirit of bpftool's json_writer):
 * it tracks nesting and commas, escapes strings, and prints doubles with a
 * fixed format so output is deterministic.  Output is pretty-printed when
 * `pretty` is set, else one line.
 */
#ifndef FABTRACE_JSON_H
#define FABTRACE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *out;
	bool pretty;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* no member written yet at this depth */
	bool after_key;             /* a key was written, its value comes next */
};

void json_init(struct json *j, FILE *out, bool pretty);
void json_object_begin(struct json *j);   /* { */
void json_object_end(struct json *j);     /* } */
void json_array_begin(struct json *j);    /* [ */
void json_array_end(struct json *j);      /* ] */
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_double(struct json *j, double v, int decimals); /* NaN/inf -> null */
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* key + value shorthands */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_i64(struct json *j, const char *key, int64_t v);
void json_kv_double(struct json *j, const char *key, double v, int decimals);
void json_kv_bool(struct json *j, const char *key, bool v);
/* Length of the valid UTF-8 sequence at P (N bytes left), 0 if invalid (also for surrogates). */
size_t json_utf8_len(const unsigned char *p, size_t n);
/* Ends the document with a newline (call when depth is back to 0). */
void json_finish(struct json *j);

#endif
