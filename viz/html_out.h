/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML page's data writer (viz/html_out.c), shared by the viz/html*.c
 * files only.  The data is a JSON document plus numeric columns: a column
 * is unsigned LEB128 varints (zigzag for signed and delta-coded values);
 * html_out_col() appends its bytes to the binary part and writes
 * [offset, length] into the JSON.  Strings are escaped so that no
 * "</script" can appear.  K names a member; K NULL writes an element.
 */
#ifndef FABTRACE_VIZ_HTML_OUT_H
#define FABTRACE_VIZ_HTML_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vbuf {
	unsigned char *p;
	size_t n, cap;
	bool oom;
};

/* A column: plain unsigned values, or zigzag deltas from the previous value. */
struct col {
	struct vbuf b;
	int64_t prev;
	size_t n;
};

struct out {
	FILE *f;
	struct vbuf *bin;           /* where the columns go */
	bool oom;
	bool first[16];
	int depth;
};

void html_vb_free(struct vbuf *b);

void html_col_u(struct col *c, uint64_t v);
/* modulo 2^64: times of a damaged capture can be further apart than int64_t holds */
void html_col_d(struct col *c, int64_t v);
void html_col_free(struct col *c);

void html_out_key(struct out *o, const char *k);
/* Begin an object or array, as a member K (NULL: an element); end it. */
void html_out_obj(struct out *o, const char *k);
void html_out_arr(struct out *o, const char *k);
void html_out_end_obj(struct out *o);
void html_out_end_arr(struct out *o);
void html_out_u(struct out *o, const char *k, uint64_t v);
void html_out_i(struct out *o, const char *k, int64_t v);
void html_out_s(struct out *o, const char *k, const char *s);
void html_out_b(struct out *o, const char *k, bool v);
/* A double with a fixed format; NaN and infinities as null. */
void html_out_d(struct out *o, const char *k, double v, int decimals);
/* A column: its bytes go to the binary part, the JSON gets [offset, length]; frees it. */
void html_out_col(struct out *o, const char *k, struct col *c);
void html_out_b64(FILE *f, const unsigned char *p, size_t n);

#endif
