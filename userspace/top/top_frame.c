// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The text of `fabtrace top`'s view (userspace/top/top_frame.h): lines
 * that know their display width (UTF-8, escapes take no columns) and cut at
 * the screen's, and the frame that gathers them for one write, positioned
 * for the terminal or newline-separated for a snapshot.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/top/top_frame.h"

void top_line__init(struct top_line *ln, int max)
{
	ln->len = 0;
	ln->col = 0;
	ln->max = max;
	ln->buf[0] = '\0';
}

/* Append S (UTF-8), cut at the line's width. */
void top_line__put(struct top_line *ln, const char *s)
{
	while (*s) {
		size_t n = 1;

		if ((unsigned char)*s >= 0xc0) /* a code point's length from its lead byte */
			n = (unsigned char)*s >= 0xf0 ? 4 : (unsigned char)*s >= 0xe0 ? 3 : 2;
		if ((ln->max > 0 && ln->col >= ln->max) || ln->len + n >= sizeof(ln->buf))
			return;
		memcpy(ln->buf + ln->len, s, n);
		ln->len += n;
		ln->buf[ln->len] = '\0';
		ln->col++;
		for (size_t i = 0; i < n && *s; i++)
			s++;
	}
}

void top_line__esc(struct top_line *ln, bool ansi, const char *seq)
{
	size_t n = strlen(seq);

	if (!ansi || ln->len + n >= sizeof(ln->buf))
		return;
	memcpy(ln->buf + ln->len, seq, n + 1);
	ln->len += n;
}

/* S in a field of WIDTH columns (right-aligned when RIGHT), then a space. */
void top_line__field(struct top_line *ln, const char *s, int width, bool right)
{
	char tmp[256];

	snprintf(tmp, sizeof(tmp), right ? "%*.*s " : "%-*.*s ", width, width, s);
	top_line__put(ln, tmp);
}

void top_line__printf(struct top_line *ln, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	top_line__put(ln, tmp);
}


void top_frame__add(struct top_frame *fr, const struct top_line *ln)
{
	char pos[32];
	size_t need;
	int n = 0;

	if (fr->max_lines > 0 && fr->lines >= fr->max_lines) {
		fr->full = true;
		return;
	}
	if (fr->ansi)
		n = snprintf(pos, sizeof(pos), "\x1b[%d;1H", fr->lines + 1);
	need = fr->len + (size_t)n + ln->len + 16;
	if (need > fr->cap) {
		size_t cap = fr->cap ? fr->cap * 2 : 16384;
		char *p;

		while (cap < need)
			cap *= 2;
		p = realloc(fr->buf, cap);
		if (!p)
			return;
		fr->buf = p;
		fr->cap = cap;
	}
	if (!fr->buf)
		return;
	memcpy(fr->buf + fr->len, pos, (size_t)n);
	fr->len += (size_t)n;
	memcpy(fr->buf + fr->len, ln->buf, ln->len);
	fr->len += ln->len;
	if (fr->ansi) {
		memcpy(fr->buf + fr->len, "\x1b[0m\x1b[K", 7); /* attributes off, rest of the line cleared */
		fr->len += 7;
	} else {
		fr->buf[fr->len++] = '\n';
	}
	fr->lines++;
}

int top_frame__room(const struct top_frame *fr)
{
	return fr->max_lines > 0 ? fr->max_lines - fr->lines : 1 << 30;
}
