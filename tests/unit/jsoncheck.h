/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A JSON syntax checker (RFC 8259) for the unit tests, strict enough to
 * reject what a browser's JSON.parse rejects: trailing commas, NaN, bare
 * control characters, bad escapes.  Used by test_report.c and test_html.c.
 */
#ifndef FABTRACE_TEST_JSONCHECK_H
#define FABTRACE_TEST_JSONCHECK_H

#include <stdbool.h>
#include <string.h>

static inline const char *js_value(const char *p, int depth);

static inline const char *js_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static inline const char *js_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return NULL;
		if (*p == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i])
						return NULL;
				p += 4;
			} else if (!*p || !strchr("\"\\/bfnrt", *p)) {
				return NULL;
			}
		}
		p++;
	}
	return *p == '"' ? p + 1 : NULL;
}

static inline const char *js_number(const char *p)
{
	const char *s;

	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		return NULL;
	if (*p == '.') {
		s = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == s)
			return NULL;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		s = p;
		while (*p >= '0' && *p <= '9')
			p++;
		if (p == s)
			return NULL;
	}
	return p;
}

static inline const char *js_value(const char *p, int depth)
{
	p = js_ws(p);
	if (depth > 64)
		return NULL;
	if (*p == '"')
		return js_string(p);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = js_ws(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = js_string(js_ws(p));
				if (!p || *(p = js_ws(p)) != ':')
					return NULL;
				p++;
			}
			p = js_value(p, depth + 1);
			if (!p)
				return NULL;
			p = js_ws(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	if (!strncmp(p, "true", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	if (!strncmp(p, "null", 4))
		return p + 4;
	return js_number(p);
}

/* Is [S, END) one JSON value? */
static inline bool json_ok(const char *s, const char *end)
{
	const char *p = js_value(s, 0);

	return p && js_ws(p) == end;
}

/* Is S (NUL-terminated) one JSON value? */
static inline bool json_valid(const char *s)
{
	return json_ok(s, s + strlen(s));
}

#endif
