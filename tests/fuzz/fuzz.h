/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the libFuzzer targets (tests/fuzz/fuzz_*.c, docs/fuzzing.md):
 * invariant checks that abort with a message, a memfd that carries the fuzz
 * input as a file, output checkers (JSON, UTF-8, SVG/XML, the HTML page,
 * folded stacks) and the pipeline that renders a finished model every way
 * `fabtrace report` can.
 *
 * Header-only on purpose: each target is one translation unit, so a target
 * builds from its own .c and this file, linked against the fuzz library.
 */
#ifndef FABTRACE_FUZZ_H
#define FABTRACE_FUZZ_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The checkers below are not what is under test: no coverage feedback from them. */
#pragma clang attribute push(__attribute__((no_sanitize("coverage"))), apply_to = function)
#include "tests/unit/jsoncheck.h"
#pragma clang attribute pop
#include "userspace/correlate/correlate.h"
#include "lib/json.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"
#include "viz/viz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* From the sanitizer runtime: reaches the report fd even with -close_fd_mask=2. */
void __sanitizer_report_error_summary(const char *error_summary);

static void fz_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));

static void fz_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[512], full[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(full, sizeof(full), "fuzz invariant failed at %s:%d: %s", file, line, msg);
	fprintf(stderr, "%s\n", full);
	__sanitizer_report_error_summary(full);
	abort();
}

/* An invariant of the code under test: a failure is a finding, like a crash. */
#define FZ_CHECK(cond, ...) do { if (!(cond)) fz_fail(__FILE__, __LINE__, __VA_ARGS__); } while (0)

/* A NUL-terminated copy of fuzz bytes (the parsers take C strings). */
static inline char *fz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	FZ_CHECK(s != NULL, "out of memory");
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* ---- the input as a file: one memfd per process, rewritten per run ---- */

struct fz_file {
	int fd;
	char path[64];   /* /proc/self/fd/N: opened anew by the code under test */
};

static inline void fz_file_init(struct fz_file *f, const char *name)
{
	f->fd = memfd_create(name, MFD_CLOEXEC);
	FZ_CHECK(f->fd >= 0, "memfd_create: %s", strerror(errno));
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

static inline void fz_file_set(struct fz_file *f, const void *data, size_t size)
{
	const uint8_t *p = data;
	size_t done = 0;

	FZ_CHECK(ftruncate(f->fd, 0) == 0, "ftruncate: %s", strerror(errno));
	while (done < size) {
		ssize_t n = pwrite(f->fd, p + done, size - done, (off_t)done);

		FZ_CHECK(n > 0, "pwrite: %s", strerror(errno));
		done += (size_t)n;
	}
}

/* ---- output checks (uninstrumented, see above) ---- */

#pragma clang attribute push(__attribute__((no_sanitize("coverage"))), apply_to = function)

/* Valid UTF-8 (RFC 3629: no overlongs, surrogates or code points above U+10FFFF). */
static inline bool fz_utf8_ok(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		unsigned c = p[i], cp, n;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 2;
		else if (c >= 0xe0 && c <= 0xef)
			n = 3;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 4;
		else
			return false;
		cp = c & (0x7f >> n);   /* the lead byte's payload bits */
		if (len - i < n)
			return false;
		for (unsigned k = 1; k < n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n;
	}
	return true;
}

/* One JSON value, nothing else, valid UTF-8.  S[LEN] must be a NUL (json_ok reads up to one). */
static inline bool fz_json_ok(const char *s, size_t len)
{
	return json_ok(s, s + len) && fz_utf8_ok(s, len);
}

/* Occurrences of NEEDLE (lower case) in S, ignoring case as an HTML parser does. */
static inline size_t fz_count(const char *s, size_t len, const char *needle)
{
	size_t n = 0, nl = strlen(needle);

	for (size_t i = 0; i + nl <= len; i++) {
		size_t k = 0;

		while (k < nl && (s[i + k] | (s[i + k] >= 'A' && s[i + k] <= 'Z' ? 0x20 : 0)) == needle[k])
			k++;
		n += k == nl;
	}
	return n;
}

static inline bool fz_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == ':' || c == '.';
}

/*
 * Well-formed enough for an XML parser: tags nest, attribute values are
 * quoted and free of '<', text has no bare '<' or '&', entities are
 * terminated, no control characters, valid UTF-8.  Not a full XML parser:
 * enough to catch a name from the capture that escaped its escaping.
 */
static inline bool fz_xml_ok(const char *s, size_t len)
{
	char stack[64][48];
	size_t depth = 0, i = 0;
	bool seen_root = false;

	if (!fz_utf8_ok(s, len))
		return false;
	while (i < len) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
			return false;
		if (c == '&') {
			size_t k = i + 1;

			while (k < len && k - i < 12 && (fz_name_char(s[k]) || s[k] == '#'))
				k++;
			if (k == i + 1 || k >= len || s[k] != ';')
				return false;
			i = k + 1;
			continue;
		}
		if (c == '>')
			return false; /* legal in XML text, but our writer always escapes it */
		if (c != '<') {
			if (!depth && c != ' ' && c != '\n' && c != '\r' && c != '\t')
				return false; /* text outside the root element */
			i++;
			continue;
		}
		if (i + 1 < len && (s[i + 1] == '?' || s[i + 1] == '!')) {
			const char *e = memmem(s + i, len - i, ">", 1);

			if (!e)
				return false;
			i = (size_t)(e - s) + 1;
			continue;
		}
		if (i + 1 < len && s[i + 1] == '/') {
			size_t k = i + 2, n;

			while (k < len && fz_name_char(s[k]))
				k++;
			n = k - i - 2;
			if (!depth || k >= len || s[k] != '>' || n != strlen(stack[depth - 1]) ||
			    strncmp(s + i + 2, stack[depth - 1], n))
				return false;
			depth--;
			i = k + 1;
			continue;
		}
		{
			size_t k = i + 1, n;
			bool empty = false;

			while (k < len && fz_name_char(s[k]))
				k++;
			n = k - i - 1;
			if (!n || n >= sizeof(stack[0]) || (seen_root && !depth))
				return false;
			/* attributes: name="value" (no '<' in a value) */
			for (;;) {
				while (k < len && (s[k] == ' ' || s[k] == '\n' || s[k] == '\t' || s[k] == '\r'))
					k++;
				if (k >= len)
					return false;
				if (s[k] == '>')
					break;
				if (s[k] == '/' && k + 1 < len && s[k + 1] == '>') {
					empty = true;
					k++;
					break;
				}
				if (!fz_name_char(s[k]))
					return false;
				while (k < len && fz_name_char(s[k]))
					k++;
				if (k + 1 >= len || s[k] != '=' || (s[k + 1] != '"' && s[k + 1] != '\''))
					return false;
				{
					char q = s[k + 1];

					k += 2;
					while (k < len && s[k] != q) {
						if (s[k] == '<' || (unsigned char)s[k] < 0x20)
							return false;
						k++;
					}
					if (k >= len)
						return false;
					k++;
				}
			}
			if (!empty) {
				if (depth == sizeof(stack) / sizeof(stack[0]))
					return false;
				memcpy(stack[depth], s + i + 1, n);
				stack[depth][n] = '\0';
				depth++;
			}
			seen_root = true;
			i = k + 1;
		}
	}
	return seen_root && !depth;
}

/* "frame;frame;frame;frame WEIGHT\n" lines, weight > 0, sorted and unique. */
static inline bool fz_folded_ok(const char *s, size_t len)
{
	const char *prev = NULL;
	size_t prev_len = 0;

	if (len && s[len - 1] != '\n')
		return false;
	for (size_t i = 0; i < len;) {
		const char *line = s + i, *nl = memchr(line, '\n', len - i), *sp;
		size_t ll = (size_t)(nl - line), semis = 0, stack_len;

		for (size_t k = 0; k < ll; k++)
			semis += line[k] == ';';
		sp = memrchr(line, ' ', ll);
		if (semis != 3 || !sp || sp + 1 == nl || sp[1] == '0')
			return false;
		for (const char *d = sp + 1; d < nl; d++)
			if (*d < '0' || *d > '9')
				return false;
		stack_len = (size_t)(sp - line);
		if (memchr(line, '\0', ll))
			return false;
		if (prev) {
			size_t n = prev_len < stack_len ? prev_len : stack_len;
			int c = memcmp(prev, line, n);

			if (c > 0 || (c == 0 && prev_len >= stack_len))
				return false;
		}
		prev = line;
		prev_len = stack_len;
		i += ll + 1;
	}
	return true;
}

/* The page's data block is JSON, and nothing in it closes the <script>. */
static inline bool fz_html_ok(const char *s, size_t len)
{
	static const char open[] = "<script type=\"application/json\" id=\"ft-data\">";
	const char *a = memmem(s, len, open, sizeof(open) - 1), *b;

	if (fz_count(s, len, "</script") != 3 || !a)
		return false;
	a += sizeof(open) - 1;
	b = memmem(a, len - (size_t)(a - s), "</script>", 9);
	return b && json_ok(a, b) && fz_utf8_ok(a, (size_t)(b - a));
}

#pragma clang attribute pop

/* ---- rendering a finished model every way `fabtrace report` can ---- */

struct fz_opts {
	struct report_opts ro;     /* json, pretty, top, sort */
	struct corr_opts co;
	bool corr_in_report;       /* report__write builds its own correlation (no timelines) */
	bool have_from, have_to;   /* --from / --to, ns since the start */
	uint64_t from_rel, to_rel;
	enum viz_weight weight;
};

static inline void fz_opts_init(struct fz_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ro.top = 10;
	o->ro.sort = REPORT_SORT_BYTES;
	o->ro.path = "fuzz.ftr";
	corr_opts__init(&o->co);
}

/* A memstream; fz_out_end() closes it and hands the bytes to the caller (free them). */
struct fz_out {
	FILE *f;
	char *buf;
	size_t len;
};

static inline FILE *fz_out_begin(struct fz_out *o)
{
	o->buf = NULL;
	o->len = 0;
	o->f = open_memstream(&o->buf, &o->len);
	FZ_CHECK(o->f != NULL, "open_memstream: %s", strerror(errno));
	return o->f;
}

static inline void fz_out_end(struct fz_out *o)
{
	FZ_CHECK(fclose(o->f) == 0, "fclose(memstream)");
	o->f = NULL;
}

/*
 * A check of a renderer's output.  With FUZZ_DUMP set, a failing output is
 * written to that file first, to see what is wrong with it.
 */
static inline void fz_check_out(bool ok, const struct fz_out *o, const char *what)
{
	const char *dump = getenv("FUZZ_DUMP");

	if (ok)
		return;
	if (dump) {
		FILE *f = fopen(dump, "w");

		if (f) {
			fwrite(o->buf, 1, o->len, f);
			fclose(f);
		}
	}
	fz_fail(__FILE__, __LINE__, "%s (FUZZ_DUMP=FILE writes the output)", what);
}

/* A renderer returns 0, or -ENOMEM when a size would not fit; anything else is a bug. */
static inline void fz_check_ret(int ret, const char *what)
{
	FZ_CHECK(ret == 0 || ret == -ENOMEM, "%s returned %d", what, ret);
}

static inline void fz_report(const struct model *m, const struct corr *c, const struct fz_opts *o, bool json)
{
	struct report_opts ro = o->ro;
	struct fz_out out;
	int ret;

	ro.json = json;
	ro.pretty = json && o->ro.pretty;
	ro.corr = &o->co;
	ro.phases = o->co.phases;
	ro.built = o->corr_in_report ? NULL : c;
	ret = report__write(fz_out_begin(&out), m, &ro);
	fz_out_end(&out);
	fz_check_ret(ret, json ? "report__write(json)" : "report__write(text)");
	if (!ret && json)
		fz_check_out(fz_json_ok(out.buf, out.len), &out, "report --json is not one valid JSON document");
	if (!ret && !json)
		fz_check_out(!memchr(out.buf, '\0', out.len), &out, "the text report holds a NUL byte");
	free(out.buf);
}

/* The window as cmd_report computes it from --from/--to (write_timelines()). */
static inline bool fz_window(const struct model *m, const struct fz_opts *o, struct viz_ctx *v)
{
	if (o->have_from && o->have_to && o->from_rel >= o->to_rel)
		return false;   /* a usage error: report refuses it */
	if (!o->have_from && !o->have_to)
		return true;
	if (o->have_from && o->from_rel >= m->capture_end_ns - m->capture_start_ns)
		return false;   /* refused as well */
	/* the model spans the window (model_opts.window, set with have_from/have_to) */
	v->from_ns = m->start_ns;
	v->to_ns = m->end_ns > m->start_ns ? m->end_ns : m->start_ns + 1;
	return true;
}

static inline void fz_timelines(const struct model *m, const struct corr *c, const struct fz_opts *o)
{
	struct viz_ctx v = { .m = m, .c = c, .weight = o->weight };
	struct fz_out out;
	int ret;

	if (!fz_window(m, o, &v))
		return;

	ret = viz__html(&v, fz_out_begin(&out));
	fz_out_end(&out);
	fz_check_ret(ret, "viz__html");
	if (!ret)
		fz_check_out(fz_html_ok(out.buf, out.len), &out, "HTML: the data block is not JSON or a </script> escaped");
	free(out.buf);

	ret = viz__svg(&v, fz_out_begin(&out));
	fz_out_end(&out);
	fz_check_ret(ret, "viz__svg");
	if (!ret)
		fz_check_out(fz_xml_ok(out.buf, out.len), &out, "SVG is not well-formed XML");
	free(out.buf);

	ret = viz__perfetto(&v, fz_out_begin(&out));
	fz_out_end(&out);
	fz_check_ret(ret, "viz__perfetto");
	if (!ret)
		fz_check_out(fz_json_ok(out.buf, out.len), &out, "Perfetto trace is not valid JSON");
	free(out.buf);

	ret = viz__speedscope(&v, fz_out_begin(&out));
	fz_out_end(&out);
	fz_check_ret(ret, "viz__speedscope");
	if (!ret)
		fz_check_out(fz_json_ok(out.buf, out.len), &out, "speedscope profile is not valid JSON");
	free(out.buf);

	ret = viz__folded(&v, fz_out_begin(&out));
	fz_out_end(&out);
	fz_check_ret(ret, "viz__folded");
	if (!ret)
		fz_check_out(fz_folded_ok(out.buf, out.len), &out, "folded stacks are malformed");
	free(out.buf);
}

/* Everything `fabtrace report` does with a loaded capture: correlate, summaries, timelines. */
static inline void fz_render(const struct model *m, const struct fz_opts *o)
{
	struct corr *c = NULL;
	int ret = corr__build(m, &o->co, &c);

	fz_check_ret(ret, "corr__build");
	if (ret)
		return;
	for (size_t i = 0; i < c->ninstances; i++) {
		char buf[256];

		corr__describe(c, i, buf, sizeof(buf));
		FZ_CHECK(strlen(buf) < sizeof(buf), "corr__describe overflowed");
	}
	fz_report(m, c, o, false);
	fz_report(m, c, o, true);
	fz_timelines(m, c, o);
	corr__free(c);
}

#endif
