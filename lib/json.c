// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The streaming JSON writer (lib/json.h).  It tracks nesting and commas,
 * escapes strings (control characters as \u00XX, invalid UTF-8 as U+FFFD;
 * in script-safe mode also '<', '>', '&', U+2028 and U+2029) and prints
 * doubles with a fixed number of decimals, so output is deterministic.
 * Numbers are printed with the C locale's '.' (fabtrace never calls
 * setlocale(LC_NUMERIC)).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/json.h"

static bool *first_slot(struct json *j)
{
	int d = j->depth;

	if (d < 0)
		d = 0;
	if (d >= JSON_MAX_DEPTH)
		d = JSON_MAX_DEPTH - 1;
	return &j->first[d];
}

static void indent(struct json *j)
{
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* The newline json_break() asked for (one-line output only). */
static void put_break(struct json *j)
{
	if (j->brk && !j->pretty)
		fputc('\n', j->out);
	j->brk = false;
}

/* Before a value or a key: the comma and the indentation. */
static void prefix(struct json *j)
{
	bool *first;

	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0)
		return;
	first = first_slot(j);
	if (!*first)
		fputc(',', j->out);
	*first = false;
	put_break(j);
	if (j->pretty)
		indent(j);
}

void json_init(struct json *j, FILE *out, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->pretty = pretty;
}

void json_break(struct json *j)
{
	j->brk = true;
}

static void open_(struct json *j, char c)
{
	prefix(j);
	fputc(c, j->out);
	j->depth++;
	*first_slot(j) = true;
}

static void close_(struct json *j, char c)
{
	bool empty;

	if (j->depth <= 0)
		return;
	j->after_key = false;
	empty = *first_slot(j);
	j->depth--;
	put_break(j);
	if (j->pretty && !empty)
		indent(j);
	fputc(c, j->out);
}

void json_object_begin(struct json *j) { open_(j, '{'); }
void json_object_end(struct json *j)   { close_(j, '}'); }
void json_array_begin(struct json *j)  { open_(j, '['); }
void json_array_end(struct json *j)    { close_(j, ']'); }

size_t json_utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0; /* overlong, out of range, or a surrogate */
	return len;
}

/* U+2028 and U+2029: legal in JSON, line terminators in older JavaScript. */
static bool js_line_sep(const unsigned char *p, size_t l)
{
	return l == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9);
}

/* Bytes that go out as they are need no escape: printable ASCII but '"' and '\\'
 * (and in script-safe mode '<', '>', '&'). */
static bool plain_byte(const struct json *j, unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
	       !(j->script_safe && (c == '<' || c == '>' || c == '&'));
}

static void put_escaped(const struct json *j, const char *s)
{
	FILE *out = j->out;
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	fputc('"', out);
	while (n > 0) {
		unsigned char c = *p;
		size_t l = 0;

		while (l < n && plain_byte(j, p[l]))
			l++;
		if (l) { /* a run of plain bytes, written at once */
			fwrite(p, 1, l, out);
		} else if (c == '"' || c == '\\') {
			fputc('\\', out);
			fputc(c, out);
			l = 1;
		} else if (c < 0x80) { /* control characters, DEL, and '<' '>' '&' (no "</script") */
			fprintf(out, "\\u%04x", c);
			l = 1;
		} else {
			l = json_utf8_len(p, n);
			if (l == 0) {
				fputs("\\ufffd", out);
				l = 1;
			} else if (j->script_safe && js_line_sep(p, l)) {
				fprintf(out, "\\u202%c", p[2] == 0xa8 ? '8' : '9');
			} else {
				fwrite(p, 1, l, out);
			}
		}
		p += l;
		n -= l;
	}
	fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
	prefix(j);
	put_escaped(j, key ? key : "");
	fputs(j->pretty ? ": " : ":", j->out);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	prefix(j);
	put_escaped(j, s);
}

void json_u64(struct json *j, uint64_t v)
{
	prefix(j);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, int64_t v)
{
	prefix(j);
	fprintf(j->out, "%lld", (long long)v);
}

void json_double(struct json *j, double v, int decimals)
{
	char buf[400];
	const char *p = buf;

	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	/* "-0.000" -> "0.000": the sign of a value that rounds to zero is noise */
	if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1))
		p = buf + 1;
	prefix(j);
	fputs(p, j->out);
}

void json_fixed(struct json *j, int64_t v, int decimals)
{
	uint64_t a = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v, div = 1;

	if (decimals > 18)
		decimals = 18;
	for (int i = 0; i < decimals; i++)
		div *= 10;
	prefix(j);
	if (decimals <= 0)
		fprintf(j->out, "%s%" PRIu64, v < 0 ? "-" : "", a);
	else
		fprintf(j->out, "%s%" PRIu64 ".%0*" PRIu64, v < 0 ? "-" : "", a / div, decimals, a % div);
}

void json_raw(struct json *j, const char *text, size_t n)
{
	prefix(j);
	fwrite(text, 1, n, j->out);
}

void json_bool(struct json *j, bool v)
{
	prefix(j);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j)
{
	prefix(j);
	fputs("null", j->out);
}

/* The member's key, or nothing for an element (KEY NULL). */
static void kv_key(struct json *j, const char *key)
{
	if (key)
		json_key(j, key);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	kv_key(j, key);
	json_string(j, s);
}

void json_kv_u64(struct json *j, const char *key, uint64_t v)
{
	kv_key(j, key);
	json_u64(j, v);
}

void json_kv_i64(struct json *j, const char *key, int64_t v)
{
	kv_key(j, key);
	json_i64(j, v);
}

void json_kv_double(struct json *j, const char *key, double v, int decimals)
{
	kv_key(j, key);
	json_double(j, v, decimals);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	kv_key(j, key);
	json_bool(j, v);
}

void json_kv_fixed(struct json *j, const char *key, int64_t v, int decimals)
{
	kv_key(j, key);
	json_fixed(j, v, decimals);
}

void json_kv_object_begin(struct json *j, const char *key)
{
	kv_key(j, key);
	json_object_begin(j);
}

void json_kv_array_begin(struct json *j, const char *key)
{
	kv_key(j, key);
	json_array_begin(j);
}

void json_finish(struct json *j)
{
	fputc('\n', j->out);
	fflush(j->out);
}
