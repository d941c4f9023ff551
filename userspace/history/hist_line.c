// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One summary line (history.h): a flat JSON object on one line, written
 * through the report's JSON writer and read back by a small reader of
 * exactly that shape (strings, integers, null, arrays of strings).
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "userspace/history/history.h"

int hist_line__format(const struct hist_line *l, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");
	struct json j;
	const char *p;
	long n;

	if (!f)
		return -1;
	json_init(&j, f, false);
	json_object_begin(&j);
	json_kv_i64(&j, "wall_ns", l->wall_ns);
	json_kv_string(&j, "op", l->op);
	json_kv_u64(&j, "seq", l->seq);
	json_kv_string(&j, "comm", l->comm);
	json_kv_u64(&j, "size_bytes", l->size_bytes);
	json_kv_u64(&j, "nranks", l->nranks);
	json_kv_u64(&j, "members", l->members);
	json_kv_bool(&j, "partial", l->partial);
	json_kv_bool(&j, "open", l->open);
	json_kv_u64(&j, "span_ns", l->span_ns);
	json_kv_string(&j, "verdict", l->verdict);
	json_kv_u64(&j, "total_ns", l->total_ns);
	json_kv_u64(&j, "waiting_ns", l->waiting_ns);
	if (l->waiting_rank >= 0)
		json_kv_i64(&j, "waiting_rank", l->waiting_rank);
	else
		json_kv_string(&j, "waiting_rank", NULL);
	json_kv_u64(&j, "usual_ns", l->usual_ns);
	json_kv_u64(&j, "network_ns", l->network_ns);
	json_kv_string(&j, "link", l->link[0] ? l->link : NULL);
	json_kv_u64(&j, "unexplained_ns", l->unexplained_ns);
	json_kv_array_begin(&j, "why");
	for (p = l->why; *p;) { /* the names, as corr__why_json() spelt them */
		const char *e = strchr(p, ',');
		size_t k = e ? (size_t)(e - p) : strlen(p);
		char name[64];

		snprintf(name, sizeof(name), "%.*s", (int)k, p);
		json_string(&j, name);
		p += k + (e != NULL);
	}
	json_array_end(&j);
	json_kv_string(&j, "seg", l->seg);
	json_kv_i64(&j, "start_rel_ns", l->start_rel_ns);
	json_object_end(&j);
	json_finish(&j); /* it may end the object with a newline: one, always */
	fflush(f);
	n = ftell(f);
	if (ferror(f) || n <= 0 || (size_t)n + 2 >= len) {
		fclose(f);
		return -1;
	}
	fclose(f);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n++] = '\n';
	buf[n] = 0;
	return (int)n;
}

/* ---- reading ---- */

static const char *ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A JSON string at P (after its quote) into OUT: the end after its closing quote, NULL bad. */
static const char *str(const char *p, char *out, size_t len)
{
	size_t k = 0;

	for (; *p && *p != '"'; p++) {
		char c = *p;

		if ((unsigned char)c < 0x20)
			return NULL;
		if (c == '\\') {
			p++;
			switch (*p) {
			case '"': case '\\': case '/': c = *p; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': /* ours are ASCII: keep a '?' for anything else */
				for (int i = 1; i <= 4; i++)
					if (!p[i])
						return NULL;
				p += 4;
				c = '?';
				break;
			default:
				return NULL;
			}
		}
		if (k + 1 < len)
			out[k++] = c;
	}
	if (*p != '"')
		return NULL;
	if (len)
		out[k] = 0;
	return p + 1;
}

enum kind { K_I64, K_U64, K_U32, K_BOOL, K_STR, K_WHY };

struct field {
	const char *key;
	enum kind kind;
	size_t off, len;
	bool required;
};

#define F(k, kind, m, req) { k, kind, offsetof(struct hist_line, m), sizeof(((struct hist_line *)0)->m), req }
static const struct field fields[] = {
	F("wall_ns", K_I64, wall_ns, true),
	F("op", K_STR, op, true),
	F("seq", K_U64, seq, true),
	F("comm", K_STR, comm, false),
	F("size_bytes", K_U64, size_bytes, false),
	F("nranks", K_U32, nranks, false),
	F("members", K_U32, members, false),
	F("partial", K_BOOL, partial, false),
	F("open", K_BOOL, open, false),
	F("span_ns", K_U64, span_ns, false),
	F("verdict", K_STR, verdict, true),
	F("total_ns", K_U64, total_ns, true),
	F("waiting_ns", K_U64, waiting_ns, true),
	F("waiting_rank", K_I64, waiting_rank, false),
	F("usual_ns", K_U64, usual_ns, true),
	F("network_ns", K_U64, network_ns, true),
	F("link", K_STR, link, false),
	F("unexplained_ns", K_U64, unexplained_ns, true),
	F("why", K_WHY, why, false),
	F("seg", K_STR, seg, false),
	F("start_rel_ns", K_I64, start_rel_ns, false),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* The value at P for field FD (NULL: a key we do not know, skipped): the end, NULL bad. */
static const char *value(const char *p, const struct field *fd, struct hist_line *l)
{
	char *dst = fd ? (char *)l + fd->off : NULL;
	char tmp[256];

	if (strncmp(p, "null", 4) == 0) {
		if (fd && fd->kind == K_I64)
			*(int64_t *)(void *)dst = -1;
		return p + 4;
	}
	if (*p == '"') {
		if (fd && fd->kind != K_STR)
			return NULL;
		return str(p + 1, fd ? dst : tmp, fd ? fd->len : sizeof(tmp));
	}
	if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0) {
		bool v = *p == 't';

		if (fd && fd->kind != K_BOOL)
			return NULL;
		if (fd)
			*(bool *)(void *)dst = v;
		return p + (v ? 4 : 5);
	}
	if (*p == '[') {
		size_t k = 0;

		if (fd && fd->kind != K_WHY)
			return NULL;
		if (fd)
			dst[0] = 0;
		for (p = ws(p + 1); *p != ']';) {
			if (*p != '"' || !(p = str(p + 1, tmp, sizeof(tmp))))
				return NULL;
			if (fd)
				str_appendf(dst, fd->len, &k, "%s%s", k ? "," : "", tmp);
			p = ws(p);
			if (*p == ',')
				p = ws(p + 1);
			else if (*p != ']')
				return NULL;
		}
		return p + 1;
	}
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		char *e;

		errno = 0;
		if (fd && fd->kind == K_I64) {
			*(int64_t *)(void *)dst = strtoll(p, &e, 10);
		} else if (fd && (fd->kind == K_U64 || fd->kind == K_U32)) {
			unsigned long long v;

			if (*p == '-')
				return NULL;
			v = strtoull(p, &e, 10);
			if (fd->kind == K_U32) {
				if (v > UINT32_MAX)
					return NULL;
				*(uint32_t *)(void *)dst = (uint32_t)v;
			} else {
				*(uint64_t *)(void *)dst = v;
			}
		} else if (!fd) {
			(void)strtod(p, &e);
		} else {
			return NULL;
		}
		return errno || e == p ? NULL : e;
	}
	return NULL;
}

int hist_line__parse(const char *s, struct hist_line *l)
{
	unsigned seen = 0, need = 0;
	const char *p = ws(s);
	char key[32];

	memset(l, 0, sizeof(*l));
	l->waiting_rank = -1;
	if (*p++ != '{')
		return -1;
	for (p = ws(p); *p != '}';) {
		const struct field *fd = NULL;

		if (*p != '"' || !(p = str(p + 1, key, sizeof(key))))
			return -1;
		p = ws(p);
		if (*p++ != ':')
			return -1;
		for (size_t i = 0; i < NFIELDS; i++)
			if (strcmp(fields[i].key, key) == 0) {
				fd = &fields[i];
				seen |= 1u << i;
			}
		if (!(p = value(ws(p), fd, l)))
			return -1;
		p = ws(p);
		if (*p == ',')
			p = ws(p + 1);
		else if (*p != '}')
			return -1;
	}
	p = ws(p + 1);
	if (*p && *p != '\n' && !(*p == '\r' && p[1] == '\n'))
		return -1;
	for (size_t i = 0; i < NFIELDS; i++)
		if (fields[i].required)
			need |= 1u << i;
	return (seen & need) == need ? 0 : -1;
}
