// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for userspace/live/metrics.c: the OpenMetrics text of the
 * live aggregator (families, suffixes, units, label escaping, # EOF,
 * counters that never go down); and metrics_http.c: the HTTP request
 * parser and the --listen address rules (loopback unless asked).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "userspace/live/live.h"
#include "userspace/live/metrics.h"

#define BIN 100000ull
#define T0 1000000000000ull
#define SEC 1000000000ull
#define NS1 4026531840u

/* |A - B| <= EPS, with both values in the message */
#define assert_near(a, b, eps) do { \
	double a_ = (a), b_ = (b); \
	if (!(fabs(a_ - b_) <= (eps))) \
		fail_msg("%s = %.17g, want %.17g", #a, a_, b_); \
} while (0)
#define REC(r, t) do { memset(&(r), 0, sizeof(r)); (r).hdr.type = (t); (r).hdr.size = sizeof(r); } while (0)
#define ADD(l, r) assert_int_equal(live__add((l), (const struct ft_rec_hdr *)(const void *)&(r)), 0)

static void iface(struct live *l, uint32_t netns, uint32_t ifindex, const char *name, const char *ns)
{
	struct ft_iface_info r;

	REC(r, FT_REC_IFACE);
	r.netns = netns;
	r.ifindex = ifindex;
	r.speed_mbps = 10000;
	r.tx_rate_kbps = 100000;
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.netns_name, sizeof(r.netns_name), "%s", ns);
	ADD(l, r);
}

static void bin(struct live *l, uint32_t netns, uint32_t ifindex, int dir, uint64_t start, uint64_t bytes)
{
	struct ft_iface_bin r;

	REC(r, FT_REC_IFACE_BIN);
	r.start_ns = start;
	r.bytes = bytes;
	r.pkts = 1;
	r.netns = netns;
	r.ifindex = ifindex;
	r.dir = (uint8_t)dir;
	ADD(l, r);
}

static void some_traffic(struct live *l, uint64_t t, int n)
{
	struct ft_drop d;
	struct ft_lost lo;
	struct ft_qdisc_bin q;

	for (int i = 0; i < n; i++) {
		bin(l, NS1, 2, FT_DIR_TX, t + (uint64_t)i * 3 * BIN, 1250);
		bin(l, NS1, 2, FT_DIR_RX, t + (uint64_t)i * 3 * BIN, 100);
		bin(l, NS1 + 1, 2, FT_DIR_RX, t + (uint64_t)i * 3 * BIN, 100);
	}
	REC(d, FT_REC_DROP);
	d.netns = NS1;
	d.ifindex = 2;
	d.reason = 5;
	ADD(l, d);
	REC(lo, FT_REC_LOST);
	lo.source = FT_SRC_TCP;
	lo.lost = (uint64_t)n;
	ADD(l, lo);
	REC(q, FT_REC_QDISC_BIN);
	q.netns = NS1;
	q.ifindex = 2;
	q.max_backlog = 30000;
	q.sojourn_cnt = 1;
	q.sojourn_max_ns = 2500000;
	snprintf(q.kind, sizeof(q.kind), "tbf");
	ADD(l, q);
}

static struct live *fixture(void)
{
	struct live_opts o;
	struct live *l;
	struct ft_drop_reason dr;
	struct ft_phase_slot s;
	struct ft_comm_info c;
	struct ft_phase p;

	live_opts__init(&o, BIN);
	l = live__new(&o, T0);
	assert_non_null(l);
	iface(l, NS1, 2, "eth0", "h2");
	iface(l, NS1 + 1, 2, "eth0", "we\"ird\\ns\nx");  /* a namespace name that needs escaping */
	REC(dr, FT_REC_DROP_REASON);
	dr.reason = 5;
	snprintf(dr.name, sizeof(dr.name), "QDISC_DROP");
	ADD(l, dr);
	REC(s, FT_REC_PHASE_SLOT);
	s.slot = 1;
	s.op = FT_OP_ALLREDUCE;
	s.flags = FT_SLOT_COLLECTIVE;
	ADD(l, s);
	REC(c, FT_REC_COMM_INFO);
	c.pid = 10;
	c.comm = 1;
	c.rank = 3;
	c.size = 4;
	ADD(l, c);
	REC(p, FT_REC_PHASE);
	p.pid = 10;
	p.slot = 1;
	p.seq = 1;
	p.comm = 1;
	p.start_ns = T0;
	p.end_ns = T0 + 1500000;
	p.count = 1000;
	p.dtype_size = 4;
	p.netns = NS1;
	ADD(l, p);
	some_traffic(l, T0, 10);
	live__tick(l, T0 + SEC);
	return l;
}

static char *render(const struct live *l)
{
	struct metrics_info mi = { .hostname = "node\"1", .refresh_s = 1.0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(metrics__render(l, &mi, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Value of the sample KEY ("name{labels}") in TEXT; NAN when absent. */
static double sample(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtod(p + kl + 1, NULL);
	return NAN;
}

static void test_exposition(void **state)
{
	struct live *l = fixture();
	char *t = render(l);
	char *copy = strdup(t), *save = NULL, *line;
	char families[128][96];
	int nfam = 0;
	char cur_type[32] = "", cur_fam[96] = "";
	size_t len = strlen(t);

	(void)state;
	/* the last line is # EOF, and nothing after it */
	assert_true(len > 6);
	assert_string_equal(t + len - 6, "# EOF\n");
	assert_non_null(strstr(t, "fabtrace_build_info{version=\""));
	assert_non_null(strstr(t, "hostname=\"node\\\"1\"")); /* escaped quote */
	/* documented names, with their units and values */
	assert_near(sample(t, "fabtrace_interface_bytes_total{netns=\"h2\",interface=\"eth0\",direction=\"tx\"}"),
			    12500, 0);
	assert_near(sample(t, "fabtrace_interface_peak_bin_bytes{netns=\"h2\",interface=\"eth0\",direction=\"tx\"}"),
			    1250, 0);
	assert_near(sample(t, "fabtrace_microbursts_total{netns=\"h2\",interface=\"eth0\",direction=\"tx\"}"),
			    10, 0);
	assert_near(sample(t, "fabtrace_drops_total{netns=\"h2\",interface=\"eth0\",reason=\"QDISC_DROP\"}"),
			    1, 0);
	assert_near(sample(t, "fabtrace_qdisc_backlog_max_bytes{netns=\"h2\",interface=\"eth0\"}"), 30000, 0);
	assert_near(sample(t, "fabtrace_qdisc_sojourn_max_seconds{netns=\"h2\",interface=\"eth0\"}"), 0.0025,
			    1e-12);
	assert_near(sample(t, "fabtrace_lost_events_total{source=\"tcp\"}"), 10, 0);
	assert_near(sample(t, "fabtrace_lost_events_total{source=\"net\"}"), 0, 0); /* zeros shown */
	assert_near(sample(t, "fabtrace_collectives_total{op=\"allreduce\"}"), 1, 0);
	assert_near(sample(t, "fabtrace_collective_seconds_total{op=\"allreduce\"}"), 0.0015, 1e-12);
	assert_near(sample(t, "fabtrace_rank_collectives_total{rank=\"3\",netns=\"h2\"}"), 1, 0);
	assert_near(sample(t, "fabtrace_interface_speed_bytes{netns=\"h2\",interface=\"eth0\",direction=\"tx\"}"),
			    12500000, 0);
	assert_non_null(strstr(t, "# UNIT fabtrace_interface_bytes bytes\n"));
	assert_non_null(strstr(t, "# UNIT fabtrace_qdisc_sojourn_max_seconds seconds\n"));
	assert_non_null(strstr(t, "# TYPE fabtrace_tcp_retransmits counter\n"));
	/* label escaping: \" \\ \n in a namespace name */
	assert_non_null(strstr(t, "netns=\"we\\\"ird\\\\ns\\nx\",interface=\"eth0\",direction=\"rx\"} 1000\n"));

	/* structure: families once each, counters' samples end in _total, units end the name */
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[96], word[64];

		if (!strncmp(line, "# TYPE ", 7)) {
			assert_int_equal(sscanf(line + 7, "%95s %63s", name, word), 2);
			for (int i = 0; i < nfam; i++)
				if (!strcmp(families[i], name))
					fail_msg("family %s twice", name);
			assert_true(nfam < 128);
			strcpy(families[nfam++], name);
			strcpy(cur_fam, name);
			strcpy(cur_type, word);
			continue;
		}
		if (!strncmp(line, "# UNIT ", 7)) {
			size_t nl, ul;

			assert_int_equal(sscanf(line + 7, "%95s %63s", name, word), 2);
			assert_string_equal(name, cur_fam);
			nl = strlen(name);
			ul = strlen(word);
			assert_true(nl > ul + 1 && name[nl - ul - 1] == '_' && !strcmp(name + nl - ul, word));
			continue;
		}
		if (line[0] == '#') {
			assert_true(!strncmp(line, "# HELP ", 7) || !strcmp(line, "# EOF"));
			continue;
		}
		/* a sample of the current family */
		{
			size_t fl = strlen(cur_fam);
			const char *rest = line + fl;

			if (strncmp(line, cur_fam, fl))
				fail_msg("sample '%s' outside its family %s", line, cur_fam);
			if (!strcmp(cur_type, "counter")) {
				if (strncmp(rest, "_total", 6))
					fail_msg("counter sample without _total: %s", line);
				assert_true(strtod(strrchr(line, ' ') + 1, NULL) >= 0);
			} else if (!strcmp(cur_type, "info")) {
				assert_int_equal(strncmp(rest, "_info", 5), 0);
			} else {
				assert_true(*rest == '{' || *rest == ' ');
			}
		}
	}
	assert_true(nfam >= 20);
	free(copy);
	free(t);
	live__free(l);
}

/* Every counter series of the first scrape is in the second with a value at least as large. */
/* A namespace deleted and made again under its name (a new inode): one series per
 * label set, counters summed; every sample key of the exposition is unique. */
static void test_same_labels(void **state)
{
	struct live *l = fixture();
	struct ft_drop d;
	char *t, *copy, *save = NULL, *line;
	char **keys = NULL;
	size_t nkeys = 0;

	(void)state;
	iface(l, NS1 + 2, 2, "eth0", "h2");
	bin(l, NS1 + 2, 2, FT_DIR_TX, T0 + SEC + BIN, 500);
	REC(d, FT_REC_DROP);
	d.netns = NS1 + 2;
	d.ifindex = 2;
	d.reason = 5;
	ADD(l, d);
	live__tick(l, T0 + 2 * SEC);
	t = render(l);
	assert_near(sample(t, "fabtrace_interface_bytes_total{netns=\"h2\",interface=\"eth0\",direction=\"tx\"}"),
		    12500 + 500, 0);
	assert_near(sample(t, "fabtrace_drops_total{netns=\"h2\",interface=\"eth0\",reason=\"QDISC_DROP\"}"), 2, 0);
	copy = strdup(t);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');

		if (line[0] == '#' || !sp)
			continue;
		*sp = '\0';
		for (size_t i = 0; i < nkeys; i++)
			if (!strcmp(keys[i], line))
				fail_msg("duplicate series %s", line);
		keys = realloc(keys, (nkeys + 1) * sizeof(*keys));
		assert_non_null(keys);
		keys[nkeys++] = line;
	}
	assert_true(nkeys > 20);
	free(keys);
	free(copy);
	free(t);
	live__free(l);
}

static void test_monotonic(void **state)
{
	struct live *l = fixture();
	char *a = render(l), *b, *copy, *save = NULL, *line;
	int counters = 0;

	(void)state;
	some_traffic(l, T0 + SEC, 5);
	/* the period closes: gauges go down, counters must not */
	live__tick(l, T0 + 2 * SEC);
	live__tick(l, T0 + 3 * SEC);
	b = render(l);
	copy = strdup(a);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');
		char key[512];
		double va, vb;

		if (line[0] == '#' || !strstr(line, "_total"))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(sp - line), line);
		va = strtod(sp + 1, NULL);
		vb = sample(b, key);
		if (isnan(vb) || vb < va)
			fail_msg("counter %s went from %g to %g", key, va, vb);
		counters++;
	}
	assert_true(counters > 20);
	assert_near(sample(b, "fabtrace_interface_bytes_total{netns=\"h2\",interface=\"eth0\",direction=\"tx\"}"),
			    12500 + 5 * 1250, 0);
	assert_near(sample(b, "fabtrace_drops_total{netns=\"h2\",interface=\"eth0\",reason=\"QDISC_DROP\"}"), 2, 0);
	assert_near(sample(b, "fabtrace_interface_peak_bin_bytes{netns=\"h2\",interface=\"eth0\",direction=\"tx\"}"),
			    0, 0); /* a gauge: the last (empty) period */
	free(copy);
	free(a);
	free(b);
	live__free(l);
}

static void test_escape(void **state)
{
	char out[64];

	(void)state;
	assert_true(metrics__escape(out, sizeof(out), "plain"));
	assert_string_equal(out, "plain");
	assert_true(metrics__escape(out, sizeof(out), "a\"b\\c\nd"));
	assert_string_equal(out, "a\\\"b\\\\c\\nd");
	assert_false(metrics__escape(out, 6, "\"\"\"\""));   /* does not fit: cut, still terminated */
	assert_true(strlen(out) < 6);
	/* label values stay UTF-8 (found by tests/fuzz/fuzz_records): a bad byte becomes U+FFFD, */
	assert_true(metrics__escape(out, sizeof(out), "ns\xe8-\xc3\xa9"));
	assert_string_equal(out, "ns\xef\xbf\xbd-\xc3\xa9");
	/* and a cut never splits a character */
	assert_false(metrics__escape(out, 4, "ab\xc3\xa9"));
	assert_string_equal(out, "ab");
}

static int req(const char *s)
{
	return metrics__parse_request(s, strlen(s));
}

static void test_request(void **state)
{
	char big[METRICS_MAX_REQUEST];

	(void)state;
	assert_int_equal(req("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 200);
	assert_int_equal(req("GET /metrics?x=1 HTTP/1.0\r\n\r\n"), 200);
	assert_int_equal(req("GET /metrics HTTP/1.1\n\n"), 200);
	assert_int_equal(req("GET / HTTP/1.1\r\n\r\n"), 404);
	assert_int_equal(req("GET /metricsx HTTP/1.1\r\n\r\n"), 404);
	assert_int_equal(req("POST /metrics HTTP/1.1\r\n\r\n"), 405);
	assert_int_equal(req("HEAD /metrics HTTP/1.1\r\n\r\n"), 405);
	assert_int_equal(req("garbage\r\n\r\n"), 400);
	assert_int_equal(req("GET /metrics SMTP\r\n\r\n"), 400);
	assert_int_equal(req("GET /metrics HTTP/1.1\r\nHost: x\r\n"), 0);  /* not complete yet */
	memset(big, 'a', sizeof(big));
	assert_int_equal(metrics__parse_request(big, sizeof(big)), 431);
}

static void test_addr(void **state)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];
	const struct sockaddr_in *v4 = (const struct sockaddr_in *)&ss;

	(void)state;
	assert_int_equal(metrics__parse_addr("9464", false, &ss, &len, err, sizeof(err)), 0);
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohl(v4->sin_addr.s_addr), 0x7f000001);
	assert_int_equal(ntohs(v4->sin_port), 9464);
	assert_int_equal(metrics__parse_addr(":0", false, &ss, &len, err, sizeof(err)), 0);
	assert_int_equal(metrics__parse_addr("127.0.0.2:80", false, &ss, &len, err, sizeof(err)), 0);
	assert_int_equal(metrics__parse_addr("localhost:9", false, &ss, &len, err, sizeof(err)), 0);
	assert_int_equal(metrics__parse_addr("[::1]:9464", false, &ss, &len, err, sizeof(err)), 0);
	assert_int_equal(ss.ss_family, AF_INET6);
	/* never an open listener unless asked */
	assert_int_equal(metrics__parse_addr("0.0.0.0:9464", false, &ss, &len, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "--allow-remote"));
	assert_int_equal(metrics__parse_addr("[::]:9464", false, &ss, &len, err, sizeof(err)), -EPERM);
	assert_int_equal(metrics__parse_addr("10.1.2.3:9464", false, &ss, &len, err, sizeof(err)), -EPERM);
	assert_int_equal(metrics__parse_addr("0.0.0.0:9464", true, &ss, &len, err, sizeof(err)), 0);
	/* bad input */
	assert_int_equal(metrics__parse_addr("127.0.0.1:99999", false, &ss, &len, err, sizeof(err)), -EINVAL);
	assert_int_equal(metrics__parse_addr("127.0.0.1:", false, &ss, &len, err, sizeof(err)), -EINVAL);
	assert_int_equal(metrics__parse_addr("example.com:80", true, &ss, &len, err, sizeof(err)), -EINVAL);
	assert_int_equal(metrics__parse_addr("[::1:80", false, &ss, &len, err, sizeof(err)), -EINVAL);
	assert_int_equal(metrics__parse_addr("", false, &ss, &len, err, sizeof(err)), -EINVAL);
}


static enum metrics_format nego(const char *s)
{
	return metrics__negotiate(s, strlen(s));
}

/* Prometheus text 0.0.4 unless the scraper asks for OpenMetrics (issue 17) */
static void test_negotiation(void **state)
{
	struct live *l = fixture();
	struct metrics_info mi = { .hostname = "h", .refresh_s = 1.0, .format = METRICS_TEXT };
	char *t = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(nego("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), METRICS_TEXT);
	assert_int_equal(nego("GET /metrics HTTP/1.1\r\nAccept: text/plain;version=0.0.4;q=0.3,*/*;q=0.1\r\n\r\n"),
			 METRICS_TEXT);
	/* what Prometheus 2.x sends */
	assert_int_equal(nego("GET /metrics HTTP/1.1\r\naccept: application/openmetrics-text;version=1.0.0,"
			      "application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
			      "*/*;q=0.1\r\n\r\n"), METRICS_OPENMETRICS);
	assert_int_equal(nego("GET /metrics HTTP/1.1\r\nACCEPT: Application/OpenMetrics-Text\r\n\r\n"),
			 METRICS_OPENMETRICS);
	assert_int_equal(nego("GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text; q=0\r\n\r\n"),
			 METRICS_TEXT);
	assert_int_equal(nego("GET /metrics HTTP/1.1\r\nX-Accept: application/openmetrics-text\r\n\r\n"),
			 METRICS_TEXT);
	/* another media type whose name begins or ends the same */
	assert_int_equal(nego("GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-textx\r\n\r\n"),
			 METRICS_TEXT);
	assert_int_equal(nego("GET /metrics HTTP/1.1\r\nAccept: xapplication/openmetrics-text\r\n\r\n"),
			 METRICS_TEXT);
	assert_int_equal(nego("GET /metrics HTTP/1.1\r\nAccept: text/plain, application/openmetrics-text\r\n\r\n"),
			 METRICS_OPENMETRICS);

	f = open_memstream(&t, &len);
	assert_non_null(f);
	assert_int_equal(metrics__render(l, &mi, f), 0);
	assert_int_equal(fclose(f), 0);
	/* no OpenMetrics-only syntax */
	assert_null(strstr(t, "# EOF"));
	assert_null(strstr(t, "# UNIT"));
	assert_null(strstr(t, " info\n"));
	/* families named as their samples */
	assert_non_null(strstr(t, "# TYPE fabtrace_build_info gauge\n"));
	assert_non_null(strstr(t, "# TYPE fabtrace_lost_events_total counter\n"));
	assert_non_null(strstr(t, "\nfabtrace_lost_events_total{source=\"net\"} "));
	assert_non_null(strstr(t, "# TYPE fabtrace_bin_width_seconds gauge\n"));
	free(t);
	live__free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exposition),
		cmocka_unit_test(test_monotonic),
		cmocka_unit_test(test_same_labels),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_negotiation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
