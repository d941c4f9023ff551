/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lines and frames of `fabtrace top`'s view (userspace/top/top_frame.c). */
#ifndef FABTRACE_TOP_FRAME_H
#define FABTRACE_TOP_FRAME_H

#include <stdbool.h>
#include <stddef.h>

/* One screen line: text with its display width tracked; escapes take no columns. */
struct top_line {
	char buf[2048];
	size_t len;
	int col, max;      /* columns used, allowed (<= 0: unlimited) */
};

/* The lines of one frame (the screen, or a --once snapshot). */
struct top_frame {
	char *buf;
	size_t len, cap;
	int lines;
	int max_lines;      /* <= 0: unlimited */
	bool ansi;
	bool full;
};

/* An empty line of at most MAX columns (<= 0: unlimited). */
void top_line__init(struct top_line *ln, int max);
/* Append S (UTF-8), cut at the line's width. */
void top_line__put(struct top_line *ln, const char *s);
/* Append the escape sequence SEQ (no columns) when ANSI. */
void top_line__esc(struct top_line *ln, bool ansi, const char *seq);
/* S in a field of WIDTH columns (right-aligned when RIGHT), then a space. */
void top_line__field(struct top_line *ln, const char *s, int width, bool right);
void top_line__printf(struct top_line *ln, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Append LN to FR: at its row (ANSI: cursor position, rest of the row
 * cleared) or followed by a newline.  Past FR->max_lines it sets FR->full.
 */
void top_frame__add(struct top_frame *fr, const struct top_line *ln);
/* Rows left in FR (a large number when unlimited). */
int top_frame__room(const struct top_frame *fr);

#endif
