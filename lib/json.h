/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The JSON writer of every output (in the spirit of bpftool's json_writer):
 * it tracks nesting and commas, escapes strings, and prints doubles with a
 * fixed format so output is deterministic.  Output is pretty-printed when
 * `pretty` is set, else one line, broken where json_break() asks (a trace
 * with one event per line).  The report, the timelines (Perfetto,
 * speedscope, the HTML page's data) and the live views all write through it.
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
	/* set after json_init(): strings also escape '<', '>', '&', U+2028 and
	 * U+2029, so the document can sit inside an HTML <script> element */
	bool script_safe;
	int depth;
	bool first[JSON_MAX_DEPTH]; /* no member written yet at this depth */
	bool after_key;             /* a key was written, its value comes next */
	bool brk;                   /* json_break(): a newline before the next token */
};

void json_init(struct json *j, FILE *out, bool pretty);
/* One line: the next key, element or closing bracket starts a new line
 * (after its comma).  Pretty output breaks lines itself and ignores it. */
void json_break(struct json *j);
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
/* V / 10^DECIMALS exactly, integer arithmetic ("-1.250" for -1250, 3): nanoseconds as microseconds */
void json_fixed(struct json *j, int64_t v, int decimals);
/* A value already written as JSON (N bytes of TEXT), placed like any other value. */
void json_raw(struct json *j, const char *text, size_t n);
/* key + value shorthands; KEY NULL writes the value alone (an element of an array) */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_i64(struct json *j, const char *key, int64_t v);
void json_kv_double(struct json *j, const char *key, double v, int decimals);
void json_kv_fixed(struct json *j, const char *key, int64_t v, int decimals);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_object_begin(struct json *j, const char *key);
void json_kv_array_begin(struct json *j, const char *key);
/* Length of the valid UTF-8 sequence at P (N bytes left), 0 if invalid (also for surrogates). */
size_t json_utf8_len(const unsigned char *p, size_t n);
/* Ends the document with a newline (call when depth is back to 0). */
void json_finish(struct json *j);

#endif
