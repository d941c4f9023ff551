// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for compare (userspace/compare/) on fixed data: metrics paired
 * across runs (one value per run, zero-filled shares, groups a run does not
 * have left out), the statistics and the significance rule (exact
 * Mann-Whitney p of separated samples: 2 / C(n, k); p < alpha and the
 * interval excludes 0), the configuration diff (knobs grouped over objects,
 * derived knobs, sets merged, runs of a side that disagree) and the job
 * shapes (refused, or warned about with force).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "userspace/compare/compare.h"
#include "userspace/compare/cmp_priv.h"
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "records.h"

#define N(x) (sizeof(x) / sizeof((x)[0]))

static struct cmp_opts opts(void)
{
	struct cmp_opts o;

	cmp_opts__init(&o);
	return o;
}

static void runs_free(struct cmp_run *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cmp__run_free(&r[i]);
}

static const struct cmp_metric *metric(const struct cmp_metric *v, size_t n, const char *group, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].group, group) && !strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

/* One value per run; shares 0 where the run has their group; a run without the group left out. */
static void test_pairing(void **state)
{
	struct cmp_run a[3], b[2];
	struct cmp_opts o = opts();
	struct cmp_metric *v = NULL;
	const struct cmp_metric *x;
	size_t n = 0;

	(void)state;
	memset(a, 0, sizeof(a));
	memset(b, 0, sizeof(b));
	assert_int_equal(cmp_run__obs(&a[0], "allreduce 1 MB x4", "time_p50", "s", CMP_LOWER, false, 0.010), 0);
	assert_int_equal(cmp_run__obs(&a[0], "allreduce 1 MB x4 via eth0@h2", "network_share", "share", CMP_LOWER, true, 0.3), 0);
	assert_int_equal(cmp_run__obs(&a[1], "allreduce 1 MB x4", "time_p50", "s", CMP_LOWER, false, 0.012), 0);
	/* a[1] has the group but no network share on eth0@h2: 0; a[2] has no such group: left out */
	assert_int_equal(cmp_run__obs(&a[2], "eth0@h2", "drops_per_gb", "1/GB", CMP_LOWER, false, 12), 0);
	assert_int_equal(cmp_run__obs(&b[0], "allreduce 1 MB x4", "time_p50", "s", CMP_LOWER, false, 0.020), 0);
	assert_int_equal(cmp_run__obs(&b[0], "eth0@h2", "drops_per_gb", "1/GB", CMP_LOWER, false, 0), 0);
	assert_int_equal(cmp_run__obs(&b[1], "allreduce 1 MB x4", "time_p50", "s", CMP_LOWER, false, 0.022), 0);
	assert_int_equal(cmp_metrics__pair(a, N(a), b, N(b), &o, &v, &n), 0);
	assert_int_equal(n, 3);
	/* in the order they first appear */
	assert_string_equal(v[0].name, "time_p50");
	assert_string_equal(v[1].name, "network_share");
	assert_string_equal(v[2].name, "drops_per_gb");

	x = metric(v, n, "allreduce 1 MB x4", "time_p50");
	assert_non_null(x);
	assert_int_equal(x->na, 2);
	assert_int_equal(x->nb, 2);
	assert_true(x->a[0] == 0.010 && x->a[1] == 0.012 && x->b[0] == 0.020 && x->b[1] == 0.022);
	assert_true(fabs(x->a_med - 0.011) < 1e-12 && fabs(x->b_med - 0.021) < 1e-12);
	assert_true(fabs(x->delta - 0.010) < 1e-12);
	assert_false(x->significant); /* 2 against 2 runs: p >= 1/3 */

	x = metric(v, n, "allreduce 1 MB x4 via eth0@h2", "network_share");
	assert_non_null(x);
	assert_int_equal(x->na, 2); /* a[0] 0.3, a[1] 0 (zero-filled), a[2] left out */
	assert_true(x->a[0] == 0.3 && x->a[1] == 0);
	assert_int_equal(x->nb, 2); /* both of B have the group */
	assert_true(x->b[0] == 0 && x->b[1] == 0);

	x = metric(v, n, "eth0@h2", "drops_per_gb");
	assert_non_null(x);
	assert_int_equal(x->na, 1); /* not zero-filled: only the runs that have it */
	assert_int_equal(x->nb, 1);
	cmp_metrics__free(v, n);
	runs_free(a, N(a));
	runs_free(b, N(b));
}

static struct cmp_metric with(double *a, size_t na, double *b, size_t nb, unsigned better)
{
	struct cmp_metric m;

	memset(&m, 0, sizeof(m));
	strcpy(m.group, "g");
	strcpy(m.name, "x");
	m.unit = "count";
	m.better = better;
	m.a = a;
	m.na = na;
	m.b = b;
	m.nb = nb;
	return m;
}

static void test_significance(void **state)
{
	double a5[] = { 1, 2, 3, 4, 5 }, b5[] = { 6, 7, 8, 9, 10 };
	double a4[] = { 3, 1, 4, 2 }, b4[] = { 7, 9, 8, 6 };
	double mix_a[] = { 1, 3, 5, 7 }, mix_b[] = { 2, 4, 6, 8 };
	double z4[] = { 0, 0, 0, 0 }, d4[] = { 5, 3, 8, 1 };
	double same[] = { 2, 2, 2 };
	struct cmp_opts o = opts();
	struct cmp_metric m;

	(void)state;
	/* separated, 5 against 5: the exact p is 2 / C(10, 5) = 2 / 252 */
	m = with(a5, 5, b5, 5, CMP_LOWER);
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_true(m.tested);
	assert_true(fabs(m.p - 2.0 / 252) < 1e-12);
	assert_true(m.significant);
	assert_true(m.ci_lo > 0 && m.ci_hi >= m.ci_lo);
	assert_true(fabs(m.delta - 5) < 1e-12);
	assert_true(fabs(m.delta_pct - 5.0 / 3 * 100) < 1e-9);
	assert_int_equal(m.direction, -1); /* higher, and lower is better: worse */
	m = with(a5, 5, b5, 5, CMP_HIGHER);
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_int_equal(m.direction, 1);
	m = with(a5, 5, b5, 5, CMP_NEUTRAL);
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_true(m.significant);
	assert_int_equal(m.direction, 0); /* significant, neither better nor worse */

	/* 4 against 4 separated: 2 / C(8, 4) = 2 / 70, under 0.05; not under 0.01 */
	m = with(a4, 4, b4, 4, CMP_LOWER);
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_true(fabs(m.p - 2.0 / 70) < 1e-12);
	assert_true(m.significant);
	o.alpha = 0.01;
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_false(m.significant);
	assert_int_equal(m.direction, 0);
	o = opts();

	/* interleaved: not significant, "~" */
	m = with(mix_a, 4, mix_b, 4, CMP_LOWER);
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_true(m.p > 0.5);
	assert_false(m.significant);

	/* all zero against positive (ties: the normal approximation), lower in A */
	m = with(d4, 4, z4, 4, CMP_LOWER);
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_true(m.p < 0.05);
	assert_true(m.significant && m.ci_hi < 0);
	assert_int_equal(m.direction, 1);

	/* identical: p 1, interval [0, 0], delta 0, no percentage of a 0 base */
	m = with(same, 3, same, 3, CMP_LOWER);
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_true(m.p == 1 && m.ci_lo == 0 && m.ci_hi == 0 && m.delta == 0);
	assert_false(m.significant);
	m = with(z4, 4, z4, 4, CMP_LOWER);
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_true(isnan(m.delta_pct));

	/* a side without values: not tested */
	m = with(a5, 5, b5, 0, CMP_LOWER);
	assert_int_equal(cmp_metrics__stats(&m, &o), 0);
	assert_false(m.tested);
	assert_false(m.significant);
	assert_true(isnan(m.p));

	/* the seed decides the interval: the same twice */
	{
		double lo, hi;

		m = with(mix_a, 4, b4, 4, CMP_LOWER);
		assert_int_equal(cmp_metrics__stats(&m, &o), 0);
		lo = m.ci_lo;
		hi = m.ci_hi;
		assert_int_equal(cmp_metrics__stats(&m, &o), 0);
		assert_true(lo == m.ci_lo && hi == m.ci_hi);
	}
}

static void setting(struct cmp_run *r, const char *obj, const char *cls, const char *key, const char *v, bool set)
{
	assert_int_equal(cmp_run__setting(r, obj, cls, key, v, set, false), 0);
}

/* A run of the lab: the tbf limit on both ends of a wire, the hosts' congestion control and their sockets'. */
static void lab_run(struct cmp_run *r, const char *limit, const char *cc, const char *sock_cc)
{
	memset(r, 0, sizeof(*r));
	r->have_config = true;
	r->path = strdup("run.ftr");
	setting(r, "qdisc tbf 1: on eth0@h2", "qdisc tbf 1:", "limit_bytes", limit, false);
	setting(r, "qdisc tbf 1: on p2@sw", "qdisc tbf 1:", "limit_bytes", limit, false);
	setting(r, "qdisc tbf 1: on eth0@h2", "qdisc tbf 1:", "rate_bps", "100000000", false);
	setting(r, "netns h1", "sysctl", "net.ipv4.tcp_congestion_control", cc, false);
	setting(r, "netns h2", "sysctl", "net.ipv4.tcp_congestion_control", cc, false);
	setting(r, "sockets in h2", "sockets", "cc", sock_cc, true);
	setting(r, "sockets in h2", "sockets", "cc", sock_cc, true); /* two sockets: one set */
	assert_int_equal(cmp_config__finish(r), 0);
}

static struct cmp *sides(struct cmp_run *a, size_t na, struct cmp_run *b, size_t nb)
{
	struct cmp *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->opts = opts();
	c->a.runs = a;
	c->a.nruns = na;
	c->b.runs = b;
	c->b.nruns = nb;
	return c;
}

static void test_config_diff(void **state)
{
	struct cmp_run *a = calloc(2, sizeof(*a)), *b = calloc(2, sizeof(*b));
	struct cmp *c;

	(void)state;
	/* one knob on two objects */
	lab_run(&a[0], "30720", "reno", "reno");
	lab_run(&a[1], "30720", "reno", "reno");
	lab_run(&b[0], "2097152", "reno", "reno");
	lab_run(&b[1], "2097152", "reno", "reno");
	c = sides(a, 2, b, 2);
	assert_int_equal(cmp_config__diff(c), 0);
	assert_int_equal(c->ndiffs, 2);
	assert_int_equal(c->nknobs, 1);
	assert_int_equal(c->nknobs_counted, 1);
	assert_string_equal(c->knobs[0].cls, "qdisc tbf 1:");
	assert_string_equal(c->knobs[0].key, "limit_bytes");
	assert_string_equal(c->knobs[0].a, "30720");
	assert_string_equal(c->knobs[0].b, "2097152");
	assert_string_equal(c->knobs[0].objects, "eth0@h2, p2@sw");
	assert_int_equal(c->nwarnings, 0);
	cmp__free(c);

	/* the default and the sockets: one knob counted, the sockets' derived; a set merged */
	a = calloc(2, sizeof(*a));
	b = calloc(1, sizeof(*b));
	lab_run(&a[0], "30720", "reno", "reno");
	lab_run(&a[1], "30720", "reno", "cubic"); /* one socket asked for cubic */
	lab_run(&b[0], "30720", "bbr", "bbr");
	c = sides(a, 2, b, 1);
	assert_int_equal(cmp_config__diff(c), 0);
	assert_int_equal(c->nknobs, 2);
	assert_int_equal(c->nknobs_counted, 1);
	for (size_t i = 0; i < c->nknobs; i++) {
		const struct cmp_knob *k = &c->knobs[i];

		if (!strcmp(k->cls, "sockets")) {
			assert_true(k->derived);
			assert_string_equal(k->a, "cubic,reno"); /* the union of A's runs */
			assert_string_equal(k->b, "bbr");
		} else {
			assert_false(k->derived);
			assert_string_equal(k->key, "net.ipv4.tcp_congestion_control");
			assert_string_equal(k->objects, "h1, h2");
		}
	}
	assert_int_equal(c->nwarnings, 0); /* sets may differ between runs */
	cmp__free(c);

	/* two knobs, and a side whose runs disagree: warned */
	a = calloc(2, sizeof(*a));
	b = calloc(1, sizeof(*b));
	lab_run(&a[0], "30720", "reno", "reno");
	lab_run(&a[1], "61440", "reno", "reno");
	lab_run(&b[0], "2097152", "bbr", "bbr");
	c = sides(a, 2, b, 1);
	assert_int_equal(cmp_config__diff(c), 0);
	assert_int_equal(c->nknobs_counted, 2);
	assert_true(c->nwarnings >= 2);
	{
		bool disagree = false, several = false;

		for (size_t i = 0; i < c->nwarnings; i++) {
			disagree |= strstr(c->warnings[i], "runs of side A differ") != NULL;
			several |= strstr(c->warnings[i], "differ in 2 knobs") != NULL;
		}
		assert_true(disagree);
		assert_true(several);
	}
	cmp__free(c);
}

static void shaped(struct cmp_run *r, const char *group, uint32_t ranks)
{
	memset(r, 0, sizeof(*r));
	r->path = strdup(group);
	r->groups = calloc(1, sizeof(*r->groups));
	assert_non_null(r->groups);
	r->ngroups = r->cap_groups = 1;
	strcpy(r->groups[0].name, group);
	r->nranks = ranks;
	assert_int_equal(cmp_run__obs(r, group, "time_p50", "s", CMP_LOWER, false, 0.01), 0);
}

static void test_shapes(void **state)
{
	struct cmp_opts o = opts();
	struct cmp_run *a, *b;
	struct cmp *c = NULL;
	char err[512];

	(void)state;
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	shaped(&a[0], "allreduce 1.0 MB x4", 4);
	shaped(&b[0], "allreduce 2.0 MB x4", 4);
	assert_int_equal(cmp__build(&o, a, 1, b, 1, &c, err, sizeof(err)), -EMLINK);
	assert_null(c);
	assert_non_null(strstr(err, "differ in shape"));
	assert_non_null(strstr(err, "--force"));

	o.force = true;
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	shaped(&a[0], "allreduce 1.0 MB x4", 4);
	shaped(&b[0], "allreduce 1.0 MB x4", 3); /* ranks differ */
	assert_int_equal(cmp__build(&o, a, 1, b, 1, &c, err, sizeof(err)), 0);
	assert_non_null(c);
	assert_true(c->shape_differs);
	assert_true(c->nwarnings >= 1 && strstr(c->warnings[0], "differ in shape"));
	cmp__free(c);

	/* the same shape: no warning about it */
	o.force = false;
	a = calloc(1, sizeof(*a));
	b = calloc(1, sizeof(*b));
	shaped(&a[0], "allreduce 1.0 MB x4", 4);
	shaped(&b[0], "allreduce 1.0 MB x4", 4);
	assert_int_equal(cmp__build(&o, a, 1, b, 1, &c, err, sizeof(err)), 0);
	assert_false(c->shape_differs);
	assert_int_equal(c->nmetrics, 1);
	/* one run a side: that nothing measured once per run can be significant is said */
	{
		bool said = false;

		for (size_t i = 0; i < c->nwarnings; i++)
			said |= strstr(c->warnings[i], "1 and 1 runs: a metric measured once per run cannot "
							"differ significantly") != NULL;
		if (!said)
			fail_msg("no warning that 1 against 1 run cannot be significant (%zu warnings; alpha %f)",
				 c->nwarnings, o.alpha);
	}
	cmp__free(c);
}

/* ---- retransmits per link: the flows a link carries ---- */

#define MS 1000000ull
#define S0 (1000ull * MS)
#define BIN 100000ull
enum { NH1 = 4026532101u, NH2, NH3, NSW = 4026532199u };

/* One direction of a wire: FROM's tx and TO's rx, the same bytes in 10 bins. */
static void wire_bins(struct model *m, uint32_t ns_from, uint32_t if_from, uint32_t ns_to, uint32_t if_to,
		      uint64_t bytes)
{
	for (uint64_t k = 0; k < 10; k++) {
		uint64_t b = bytes + k * 1000 * (bytes > 100000); /* a shape of its own per wire */

		rec_bin(m, 0, ns_from, if_from, FT_DIR_TX, S0 + k * BIN, b, (uint32_t)(b / 1500 + 1), 0);
		rec_bin(m, 0, ns_to, if_to, FT_DIR_RX, S0 + k * BIN, b, (uint32_t)(b / 1500 + 1), 0);
	}
}

static struct ft_flow flow4(uint8_t from, uint16_t sport, uint8_t to, uint16_t dport, uint32_t netns)
{
	struct ft_flow f;

	memset(&f, 0, sizeof(f));
	f.family = 4;
	f.proto = 6;
	f.saddr[0] = 10; f.saddr[3] = from;
	f.daddr[0] = 10; f.daddr[3] = to;
	f.sport = sport;
	f.dport = dport;
	f.netns = netns;
	f.ifindex = 2;
	return f;
}

static double obs_of(const struct cmp_run *r, const char *group, const char *name)
{
	for (size_t i = 0; i < r->nobs; i++)
		if (!strcmp(r->obs[i].group, group) && !strcmp(r->obs[i].name, name))
			return r->obs[i].v;
	return NAN;
}

/*
 * Three hosts (ranks 0-2, eth0 each) on switch ports p1-p3.  h1 sends to h2
 * (p1 -> p2) and retransmits 6 segments; h3 sends to h2 too (p3 -> p2),
 * clean.  The retransmits are h1's flow's: on eth0@h1 and p1@sw (the
 * sender's wire) and on p2@sw and eth0@h2 (the receiver's), never on p3@sw
 * or eth0@h3, which carry none of its bytes.  Counted on the sender's
 * interface alone, they would leave the bottleneck port p2@sw at 0.
 */
static void test_retrans_per_link(void **state)
{
	struct ft_file_header h = rec_file_header(S0, BIN);
	struct model *m = model__new(&h, NULL);
	struct corr_opts o;
	struct corr *c = NULL;
	struct cmp_run r;
	const char *carries[] = { "eth0@h1", "p1@sw", "p2@sw", "eth0@h2" }, *clear[] = { "eth0@h3", "p3@sw" };
	const uint32_t hns[3] = { NH1, NH2, NH3 };

	(void)state;
	assert_non_null(m);
	rec_slot(m, 1, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE, "allreduce");
	for (uint32_t i = 0; i < 3; i++) {
		char ns[4], port[4];

		snprintf(ns, sizeof(ns), "h%u", i + 1);
		snprintf(port, sizeof(port), "p%u", i + 1);
		rec_iface(m, hns[i], 2, "eth0", ns, 10000, 0);
		rec_iface(m, NSW, 11 + i, port, "sw", 10000, 0);
		rec_call(m, 1, 100 + i, hns[i], S0 + 1 * MS, S0 + 2 * MS, 1024, 4, 0x44000000ull, 1);
	}
	wire_bins(m, NH1, 2, NSW, 11, 1000000);  /* h1 -> p1 */
	wire_bins(m, NSW, 11, NH1, 2, 20000);    /* its ACKs */
	wire_bins(m, NSW, 12, NH2, 2, 1500000);  /* p2 -> h2: h1's and h3's */
	wire_bins(m, NH2, 2, NSW, 12, 30000);
	wire_bins(m, NH3, 2, NSW, 13, 500000);   /* h3 -> p3 */
	wire_bins(m, NSW, 13, NH3, 2, 10000);
	for (int k = 0; k < 6; k++)
		rec_retrans(m, flow4(1, 40000, 2, 5201, NH1), S0 + (2 + (uint64_t)k) * BIN, FT_RTX_FAST);
	rec_sample(m, flow4(3, 40001, 2, 5201, NH3), 100, 10);
	rec_sample(m, flow4(2, 5201, 1, 40000, NH2), 100, 10); /* the receiver's end: where 10.0.0.2 sits */
	rec_end(m, S0 + 20 * BIN);
	assert_int_equal(model__finish(m), 0);
	corr_opts__init(&o);
	assert_int_equal(corr__build(m, &o, &c), 0);
	memset(&r, 0, sizeof(r));
	assert_int_equal(cmp_extract__net(&r, m, c), 0);
	for (size_t i = 0; i < N(carries); i++) {
		double v = obs_of(&r, carries[i], "retrans_per_gb");

		if (!(v > 0))
			fail_msg("%s carries h1's flow: retrans_per_gb %g, want > 0", carries[i], v);
		assert_true(obs_of(&r, carries[i], "fast_per_gb") > 0);
	}
	for (size_t i = 0; i < N(clear); i++)
		if (obs_of(&r, clear[i], "retrans_per_gb") != 0)
			fail_msg("%s carries none of h1's flow: retrans_per_gb %g, want 0", clear[i],
				 obs_of(&r, clear[i], "retrans_per_gb"));
	/* the job's: every flow's retransmits once, over every link's bytes */
	assert_true(obs_of(&r, "all links", "retrans_per_gb") > 0);
	cmp__run_free(&r);
	corr__free(c);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_significance),
		cmocka_unit_test(test_config_diff),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_retrans_per_link),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
