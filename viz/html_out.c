/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML page's data (viz/html_out.h): the JSON document's writer made
 * safe for a <script> element, numeric columns as LEB128 varints gathered
 * into the page's binary part, base64.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "viz/html_out.h"

/* ---- byte buffers of varints ---- */

static void vb_byte(struct vbuf *b, unsigned char c)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		unsigned char *p = realloc(b->p, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	b->p[b->n++] = c;
}

static void vb_u(struct vbuf *b, uint64_t v)
{
	while (v >= 0x80) {
		vb_byte(b, (unsigned char)((v & 0x7f) | 0x80));
		v >>= 7;
	}
	vb_byte(b, (unsigned char)v);
}

static void vb_s(struct vbuf *b, int64_t v)
{
	vb_u(b, ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0));
}

void html_vb_free(struct vbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void html_col_u(struct col *c, uint64_t v)
{
	vb_u(&c->b, v);
	c->n++;
}

void html_col_d(struct col *c, int64_t v)
{
	/* modulo 2^64: times of a damaged capture can be further apart than int64_t holds */
	vb_s(&c->b, (int64_t)((uint64_t)v - (uint64_t)c->prev));
	c->prev = v;
	c->n++;
}

void html_col_free(struct col *c)
{
	html_vb_free(&c->b);
	c->prev = 0;
	c->n = 0;
}

/* ---- the JSON document ---- */

void html_out_init(struct out *o, FILE *f, struct vbuf *bin)
{
	memset(o, 0, sizeof(*o));
	json_init(&o->j, f, false);
	o->j.script_safe = true;
	o->bin = bin;
}

static const char b64tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void html_out_b64(FILE *f, const unsigned char *p, size_t n)
{
	char line[4 * 1024 + 4];
	size_t k = 0;

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16;
		size_t rem = n - i;

		if (rem > 1)
			v |= (uint32_t)p[i + 1] << 8;
		if (rem > 2)
			v |= p[i + 2];
		line[k++] = b64tab[(v >> 18) & 63];
		line[k++] = b64tab[(v >> 12) & 63];
		line[k++] = rem > 1 ? b64tab[(v >> 6) & 63] : '=';
		line[k++] = rem > 2 ? b64tab[v & 63] : '=';
		if (k >= sizeof(line) - 4) {
			fwrite(line, 1, k, f);
			k = 0;
		}
	}
	if (k)
		fwrite(line, 1, k, f);
}

/* A column: its bytes go to the binary part, the JSON gets [offset, length]; frees it. */
void html_out_col(struct out *o, const char *k, struct col *c)
{
	size_t off = o->bin->n;

	if (c->b.oom)
		o->oom = true;
	if (c->b.n && o->bin->n + c->b.n > o->bin->cap) {
		size_t cap = o->bin->cap ? o->bin->cap : 1 << 16;
		unsigned char *p;

		while (cap < o->bin->n + c->b.n)
			cap *= 2;
		p = realloc(o->bin->p, cap);
		if (!p) {
			o->oom = true;
		} else {
			o->bin->p = p;
			o->bin->cap = cap;
		}
	}
	if (c->b.n && o->bin->n + c->b.n <= o->bin->cap) {
		memcpy(o->bin->p + o->bin->n, c->b.p, c->b.n);
		o->bin->n += c->b.n;
	}
	json_kv_array_begin(&o->j, k);
	json_u64(&o->j, off);
	json_u64(&o->j, c->b.n);
	json_array_end(&o->j);
	html_col_free(c);
}
