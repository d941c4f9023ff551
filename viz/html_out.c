/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML page's data writer (viz/html_out.h): JSON members and elements,
 * strings made safe for a <script> element, numeric columns as LEB128
 * varints gathered into the page's binary part, base64.
 */
#include <inttypes.h>
#include <math.h>
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

/* ---- JSON output (strings made safe for a <script> element) ---- */

/*
 * A valid UTF-8 sequence's length (lib/json.c), except U+2028 and
 * U+2029: legal in JSON but line terminators in older JavaScript, so they
 * are escaped inside the page's <script>.
 */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len = json_utf8_len(p, n);

	if (len == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9))
		return 0;
	return len;
}

/* A JSON string; '<', '>' and '&' escaped so no "</script" can appear. */
static void put_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t n = strlen((const char *)p);

	fputc('"', f);
	while (n > 0) {
		unsigned char c = *p;
		size_t l = 1;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&') {
			fprintf(f, "\\u%04x", c);
		} else {
			l = utf8_len(p, n);
			if (l == 0) {
				fputs("\\ufffd", f);
				l = 1;
			} else {
				fwrite(p, 1, l, f);
			}
		}
		p += l;
		n -= l;
	}
	fputc('"', f);
}

static void sep(struct out *o)
{
	if (o->depth > 0) {
		if (!o->first[o->depth])
			fputc(',', o->f);
		o->first[o->depth] = false;
	}
}

void html_out_key(struct out *o, const char *k)
{
	sep(o);
	put_str(o->f, k);
	fputc(':', o->f);
}

/* Begin an object or array, as a member K (NULL: an element). */
static void open_(struct out *o, const char *k, char c)
{
	if (k)
		html_out_key(o, k);
	else
		sep(o);
	fputc(c, o->f);
	if (o->depth < (int)(sizeof(o->first) / sizeof(o->first[0])) - 1)
		o->depth++;
	o->first[o->depth] = true;
}

void html_out_obj(struct out *o, const char *k) { open_(o, k, '{'); }
void html_out_arr(struct out *o, const char *k) { open_(o, k, '['); }

static void close_(struct out *o, char c)
{
	fputc(c, o->f);
	if (o->depth > 0)
		o->depth--;
}

void html_out_end_obj(struct out *o) { close_(o, '}'); }
void html_out_end_arr(struct out *o) { close_(o, ']'); }

/* Members (K non-NULL) or elements (K NULL). */
void html_out_u(struct out *o, const char *k, uint64_t v)
{
	if (k)
		html_out_key(o, k);
	else
		sep(o);
	fprintf(o->f, "%" PRIu64, v);
}

void html_out_i(struct out *o, const char *k, int64_t v)
{
	if (k)
		html_out_key(o, k);
	else
		sep(o);
	fprintf(o->f, "%" PRId64, v);
}

void html_out_s(struct out *o, const char *k, const char *s)
{
	if (k)
		html_out_key(o, k);
	else
		sep(o);
	put_str(o->f, s);
}

void html_out_b(struct out *o, const char *k, bool v)
{
	if (k)
		html_out_key(o, k);
	else
		sep(o);
	fputs(v ? "true" : "false", o->f);
}

/* A double with a fixed format; NaN and infinities as null. */
void html_out_d(struct out *o, const char *k, double v, int decimals)
{
	if (k)
		html_out_key(o, k);
	else
		sep(o);
	if (isfinite(v))
		fprintf(o->f, "%.*f", decimals, v);
	else
		fputs("null", o->f);
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

	if (k)
		html_out_key(o, k);
	else
		sep(o);
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
	fprintf(o->f, "[%zu,%zu]", off, c->b.n);
	html_col_free(c);
}
