/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML page's data (viz/html_out.c), shared by the viz/html*.c files
 * only.  The data is a JSON document, written with lib/json.h's writer
 * (json_kv_*(&o->j, K, ...): K names a member, K NULL writes an element)
 * in script-safe mode, so that no "</script" can appear, plus numeric
 * columns: a column is unsigned LEB128 varints (zigzag for signed and
 * delta-coded values); html_out_col() appends its bytes to the binary part
 * and writes [offset, length] into the JSON.
 */
#ifndef FABTRACE_VIZ_HTML_OUT_H
#define FABTRACE_VIZ_HTML_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/json.h"

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
	struct json j;              /* the JSON document */
	struct vbuf *bin;           /* where the columns go */
	bool oom;
};

/* Start the document on F (script-safe, one line), its columns into BIN. */
void html_out_init(struct out *o, FILE *f, struct vbuf *bin);

void html_vb_free(struct vbuf *b);

void html_col_u(struct col *c, uint64_t v);
/* modulo 2^64: times of a damaged capture can be further apart than int64_t holds */
void html_col_d(struct col *c, int64_t v);
void html_col_free(struct col *c);

/* A column: its bytes go to the binary part, the JSON gets [offset, length]; frees it. */
void html_out_col(struct out *o, const char *k, struct col *c);
void html_out_b64(FILE *f, const unsigned char *p, size_t n);

#endif
