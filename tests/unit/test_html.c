// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for viz/html*.c (the self-contained HTML timeline) on a small
 * model built in memory: the page is whole (template, CSS, JS, data), the
 * data cannot break out of its <script> element, nothing is fetched from
 * the network, the output is deterministic, the columns inflate to the
 * announced size, the level-of-detail pyramid holds the right max/min/sum
 * cells, and lost-event windows reach the model.  The page in a real browser: tests/integration/test_html.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "viz/viz.h"
#include "jsoncheck.h"
#include "records.h"

#define MS 1000000ull
#define S0 (1000ull * MS)
#define BIN MS
#define NS1 4026532100u
#define NS2 4026532101u

/* Two hosts, two ranks, three all-reduces (rank 1 late in the second), a drop, a retransmit, lost events. */
static struct model *small_model(void)
{
	struct ft_file_header h = rec_file_header(S0, BIN);
	struct model *m;

	snprintf(h.command, sizeof(h.command), "fabtrace record </script><script>alert(1)</script>");
	m = model__new(&h, NULL);
	assert_non_null(m);
	rec_iface(m, NS1, 2, "e</script>", "h1<b>&", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 0);
	rec_reason(m, 2, "QDISC_DROP");
	rec_slot(m, 1, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE, "Allreduce");
	rec_comm_info(m, 100, 0x44000000, 0, 2, S0 + 1 * MS);
	rec_comm_info(m, 200, 0x44000000, 1, 2, S0 + 1 * MS);
	for (unsigned i = 0; i < 3; i++) {
		uint64_t t = S0 + (10 + 20 * i) * MS, late = i == 1 ? 8 * MS : 0;

		rec_call(m, 1, 100, NS1, t, t + 10 * MS, 1024, 4, 0x44000000, i + 1);
		rec_call(m, 1, 200, NS2, t + late, t + 10 * MS, 1024, 4, 0x44000000, i + 1);
	}
	/* TX bins of h1 at slots 0, 1 and 3: 10, 30 and 50 bytes */
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0, 10, 1, 0);
	rec_bin(m, 1, NS1, 2, FT_DIR_TX, S0 + 1 * MS, 30, 1, 0);
	rec_bin(m, 0, NS1, 2, FT_DIR_TX, S0 + 3 * MS, 50, 1, 1);
	rec_bin(m, 0, NS2, 2, FT_DIR_RX, S0 + 12 * MS, 4096, 3, 0);
	rec_drop(m, S0 + 15 * MS, NS2, 2, 2);
	rec_retrans(m, rec_flow(1, 4000, 5000, NS1), S0 + 16 * MS, FT_RTX_FAST);
	rec_lost(m, FT_SRC_NET, 0, 0, S0 + 1000 * MS);
	rec_lost(m, FT_SRC_NET, 0, 5, S0 + 3000 * MS);
	rec_lost(m, FT_SRC_TCP, 1, 2, S0 + 500 * MS);
	rec_end(m, S0 + 10000 * MS);
	assert_int_equal(model__finish(m), 0);
	return m;
}

/* Render into a malloc'd string (NUL-terminated). */
static char *render(const struct model *m, const struct corr *c, int *ret)
{
	struct viz_ctx v = { .m = m, .c = c };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret = viz__html(&v, f);
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_page(void **state)
{
	struct model *m = small_model();
	struct corr_opts co;
	struct corr *c = NULL;
	const char *tag = "<script type=\"application/json\" id=\"ft-data\">";
	char *a, *b, *data, *end;
	int ret;

	(void)state;
	corr_opts__init(&co);
	assert_int_equal(corr__build(m, &co, &c), 0);
	a = render(m, c, &ret);
	assert_int_equal(ret, 0);
	assert_non_null(a);
	assert_true(strncmp(a, "<!DOCTYPE html>", 15) == 0);
	assert_non_null(strstr(a, "</html>"));
	/* markers replaced, CSS and JS inlined */
	assert_null(strstr(a, "{{DATA}}"));
	assert_null(strstr(a, "/*{{CSS}}*/"));
	assert_null(strstr(a, "/*{{JS}}*/"));
	assert_non_null(strstr(a, "#ft-canvas"));
	assert_non_null(strstr(a, "window.fabtrace"));
	/* self-contained: nothing loaded from elsewhere */
	assert_null(strstr(a, "http://"));
	assert_null(strstr(a, "https://"));
	assert_null(strstr(a, "<script src"));
	assert_null(strstr(a, "<link"));
	/* the data: one element, no '<' inside (so no "</script>"), hostile strings escaped */
	assert_int_equal(count(a, tag), 1);
	data = strstr(a, tag) + strlen(tag);
	end = strstr(data, "</script>");
	assert_non_null(end);
	for (const char *p = data; p < end; p++)
		assert_int_not_equal(*p, '<');
	assert_int_equal(count(a, "</script>"), 3);
	assert_true(json_ok(data, end));
	assert_false(json_ok("{\"a\":1,}", "{\"a\":1,}" + 8)); /* the checker itself */
	assert_false(json_ok("{\"a\":\"b\"\"c\":1}", "{\"a\":\"b\"\"c\":1}" + 14));
	assert_true(strncmp(data, "{\"format\":\"fabtrace-html-1\"", 27) == 0);
	assert_non_null(strstr(data, "e\\u003c/script\\u003e"));
	assert_non_null(strstr(data, "h1\\u003cb\\u003e\\u0026"));
	/* the counts the page shows */
	assert_non_null(strstr(data, "\"insts\":{\"n\":3,"));
	/* the page opens on the report's answer: the headline's lines, the title aside */
	assert_non_null(strstr(data, "\"headline\":[\"Answer: of 3 collectives"));
	assert_non_null(strstr(data, "\"Data: capture "));
	assert_non_null(strstr(a, "<pre id=\"ft-answer\""));
	assert_non_null(strstr(a, "el('ft-answer').textContent"));
	assert_int_equal(count(data, "\"world\":2"), 2);
	assert_non_null(strstr(data, "\"lost\":[[0,500000000,2,1,1],[2000000000,3000000000,5,0,0]]"));
	/* deterministic */
	b = render(m, c, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(a, b);
	free(a);
	free(b);
	/* without a correlator (no phase probes at all) it still renders */
	a = render(m, NULL, &ret);
	assert_int_equal(ret, 0);
	assert_non_null(strstr(a, "\"ranks\":[]"));
	free(a);
	corr__free(c);
	model__free(m);
}

/* ---- decoding the columns back ---- */

static size_t b64dec(const char *s, size_t n, unsigned char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t acc = 0;
	int bits = 0;
	size_t k = 0;

	for (size_t i = 0; i < n && s[i] != '='; i++) {
		const char *p = strchr(tab, s[i]);

		assert_non_null(p);
		acc = (acc << 6) | (uint32_t)(p - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[k++] = (unsigned char)(acc >> bits);
		}
	}
	return k;
}

/* The inflated columns of PAGE (malloc'd); their size must be the announced bin_raw. */
static unsigned char *columns(const char *page, size_t *len)
{
	const char *tag = "<script type=\"application/octet-stream\" id=\"ft-bin\">";
	const char *p = strstr(page, tag), *e, *raw;
	unsigned char *z, *out;
	size_t nz;
	uLongf n;

	assert_non_null(p);
	p += strlen(tag);
	e = strstr(p, "</script>");
	assert_non_null(e);
	for (const char *q = p; q < e; q++)
		assert_true(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=", *q) != NULL);
	z = malloc((size_t)(e - p) + 1);
	assert_non_null(z);
	nz = b64dec(p, (size_t)(e - p), z);
	raw = strstr(page, "\"bin_raw\":");
	assert_non_null(raw);
	n = strtoul(raw + 10, NULL, 10);
	out = malloc(n + 1);
	assert_non_null(out);
	assert_int_equal(uncompress(out, &n, z, nz), Z_OK);
	assert_int_equal(n, strtoul(raw + 10, NULL, 10));
	free(z);
	*len = n;
	return out;
}

/* Up to MAX varints of the column whose [offset,length] reference starts at P. */
static size_t varints(const unsigned char *bin, size_t binlen, const char *p, uint64_t *v, size_t max, bool delta)
{
	unsigned long off, len;
	size_t n = 0, i;
	int64_t acc = 0;
	char *e;

	memset(v, 0, max * sizeof(*v));
	assert_int_equal(*p, '[');
	off = strtoul(p + 1, &e, 10);
	assert_int_equal(*e, ',');
	len = strtoul(e + 1, &e, 10);
	assert_int_equal(*e, ']');
	assert_true(off + len <= binlen);
	i = off;
	while (i < off + len && n < max) {
		uint64_t x = 0;
		int sh = 0;

		do {
			x |= (uint64_t)(bin[i] & 0x7f) << sh;
			sh += 7;
		} while (bin[i++] & 0x80);
		if (delta) {
			acc += (x & 1) ? -(int64_t)((x + 1) / 2) : (int64_t)(x / 2);
			v[n++] = (uint64_t)acc;
		} else {
			v[n++] = x;
		}
	}
	return n;
}

/* Position of the next column reference ('[') following KEY from P. */
static const char *after(const char *p, const char *key)
{
	const char *q = strstr(p, key);

	assert_non_null(q);
	q = strchr(q + strlen(key), '[');
	assert_non_null(q);
	return q;
}

/* The column reference after the one at P (in the same "v":[...] array). */
static const char *next_ref(const char *p)
{
	const char *q = strchr(p, ']');

	assert_non_null(q);
	q = strchr(q + 1, '[');
	assert_non_null(q);
	return q;
}

static void test_pyramid(void **state)
{
	struct model *m = small_model();
	uint64_t v[8];
	char want[96], *page;
	const char *t, *p;
	unsigned char *bin;
	size_t ifi, nbin;
	int ret;

	(void)state;
	for (ifi = 0; ifi < m->nifaces && m->ifaces[ifi].netns != NS1; ifi++)
		;
	assert_true(ifi < m->nifaces);
	page = render(m, NULL, &ret);
	assert_int_equal(ret, 0);
	bin = columns(page, &nbin);
	snprintf(want, sizeof(want), "{\"type\":\"tp\",\"ref\":%zu,\"dir\":1,\"w\":%llu,\"o\":0,\"n\":3,\"kmin\":0,",
		 ifi, (unsigned long long)BIN);
	t = strstr(page, want);
	assert_non_null(t);
	/* 10 s of 1 ms slots: levels 0 (exact) .. 3 (<= 2048 cells) */
	assert_non_null(strstr(t, "\"ktop\":3,\"levels\":[{\"k\":0,\"n\":3,"));
	/* exact: slots 0, 1, 3 with 10, 30, 50 bytes, 1 packet each, CE in the last */
	p = after(t, "\"k\":0,\"n\":3,\"i\":");
	assert_int_equal(varints(bin, nbin, p, v, 8, true), 3);
	assert_true(v[0] == 0 && v[1] == 1 && v[2] == 3);
	p = after(p, "\"v\":");
	assert_int_equal(varints(bin, nbin, p + 1, v, 8, false), 3);
	assert_true(v[0] == 10 && v[1] == 30 && v[2] == 50);
	p = next_ref(p + 1);
	varints(bin, nbin, p, v, 8, false);
	assert_true(v[0] == 1 && v[1] == 1 && v[2] == 1);
	p = next_ref(p);
	varints(bin, nbin, p, v, 8, false);
	assert_true(v[0] == 0 && v[1] == 0 && v[2] == 1);
	/* level 1: cells 0 (slots 0+1: max 30, min 10, sum 40) and 1 (slot 3 alone: max 50, min 0, sum 50) */
	p = after(t, "\"k\":1,\"n\":2,\"i\":");
	assert_int_equal(varints(bin, nbin, p, v, 8, true), 2);
	assert_true(v[0] == 0 && v[1] == 1);
	p = after(p, "\"v\":") + 1;
	varints(bin, nbin, p, v, 8, false);
	assert_true(v[0] == 30 && v[1] == 50);     /* max */
	p = next_ref(p);
	varints(bin, nbin, p, v, 8, false);
	assert_true(v[0] == 10 && v[1] == 0);      /* min: 0 where a slot is empty */
	p = next_ref(p);
	varints(bin, nbin, p, v, 8, false);
	assert_true(v[0] == 40 && v[1] == 50);     /* sum */
	p = next_ref(p);
	varints(bin, nbin, p, v, 8, false);
	assert_true(v[0] == 0 && v[1] == 1);       /* CE packets */
	/* level 2: one cell, max 50, min 0, sum 90 */
	p = after(t, "\"k\":2,\"n\":1,\"i\":");
	p = after(p, "\"v\":") + 1;
	varints(bin, nbin, p, v, 8, false);
	assert_int_equal(v[0], 50);
	p = next_ref(p);
	varints(bin, nbin, p, v, 8, false);
	assert_int_equal(v[0], 0);
	p = next_ref(p);
	varints(bin, nbin, p, v, 8, false);
	assert_int_equal(v[0], 90);
	free(bin);
	free(page);
	model__free(m);
}

/* FT_REC_LOST growths become windows: since the previous reading, at most one tick back. */
static void test_lost_windows(void **state)
{
	struct model *m = small_model();

	(void)state;
	assert_int_equal(m->nlost_evs, 2);
	/* by time: tcp cpu 1 at +0.5 s (first reading: one tick back, clamped to the start) */
	assert_int_equal(m->lost_evs[0].source, FT_SRC_TCP);
	assert_int_equal(m->lost_evs[0].from_ns, S0);
	assert_int_equal(m->lost_evs[0].ts_ns, S0 + 500 * MS);
	assert_int_equal(m->lost_evs[0].lost, 2);
	/* net cpu 0: 0 at +1 s, 5 at +3 s: lost in (+2 s, +3 s] (one tick) */
	assert_int_equal(m->lost_evs[1].source, FT_SRC_NET);
	assert_int_equal(m->lost_evs[1].from_ns, S0 + 2000 * MS);
	assert_int_equal(m->lost_evs[1].ts_ns, S0 + 3000 * MS);
	assert_int_equal(m->lost_evs[1].lost, 5);
	assert_int_equal(m->lost_total, 7);
	model__free(m);
}

static void test_errors(void **state)
{
	struct ft_file_header h = rec_file_header(S0, BIN);
	struct model *m = model__new(&h, NULL);
	struct viz_ctx v = { .m = m };
	FILE *f = fopen("/dev/null", "w");

	(void)state;
	assert_non_null(f);
	assert_int_equal(viz__html(&v, f), -EINVAL); /* not finished */
	assert_int_equal(viz__html(NULL, f), -EINVAL);
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(viz__html(&v, NULL), -EINVAL);
	assert_int_equal(viz__html(&v, f), 0);       /* an empty capture renders */
	fclose(f);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_pyramid),
		cmocka_unit_test(test_lost_windows),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
