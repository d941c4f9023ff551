// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the counter part of the model (userspace/model/model_counters.c):
 * growth per counter across samples with 32-bit wrap, reset, N/A and the x4
 * scaling of port_xmit_data; only intervals that moved kept as points;
 * spikes as events with the right start, end and growth (merged across a
 * cool interval); rates over at
 * least the hw_counters lifespan; bad records rejected.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rdma/counters.h"
#include "userspace/model/model.h"
#include "records.h"

#define MS 1000000ull
#define S0 (1000ull * MS)
#define NS2 4026532102u
#define P10 (10 * MS)

enum { C_XMIT_DATA, C_XMIT_WAIT, C_SYMBOL_ERR, NPMA };
enum { H_CNP_SENT, H_OOS, H_CNP_HANDLED, NHW };

static struct model *mk(void)
{
	struct ft_file_header h = rec_file_header(S0, 100000);
	struct model *m = model__new(&h, NULL);

	assert_non_null(m);
	return m;
}

static const struct model_ctr_series *series(const struct model *m, const char *label, unsigned kind,
					     const char *name)
{
	for (size_t i = 0; i < m->nctr_series; i++) {
		const struct model_ctr_series *s = &m->ctr_series[i];
		const struct model_ctr_group *g = &m->ctr_groups[s->group];

		if (!strcmp(s->name, name) && !strcmp(g->label, label) && g->kind == kind)
			return s;
	}
	fail_msg("no counter %s %s", label, name);
	return NULL;
}

/*
 * One RoCE port behind eth0 of h2, sampled every 10 ms for 500 ms:
 *   port_xmit_data  +250 raw per interval (x4: 1000 bytes)
 *   port_xmit_wait  starts 296 below 2^32, +1000 per interval: wraps once
 *   symbol_error    N/A in sample 7 (two intervals touch it), else 3
 *   np_cnp_sent     +500 per interval in samples 11..30 (a 200 ms storm at 50k/s)
 *   out_of_sequence 100, then reset to 5 at sample 20, +0 otherwise
 *   rp_cnp_handled  +5 per interval (500/s: below the spike threshold)
 */
static struct model *storm_model(void)
{
	struct model *m = mk();

	rec_iface(m, NS2, 2, "eth0", "h2", 100000, 0);
	rec_rdma_port(m, 0, "mlx5_0", 1, FT_LL_ETHERNET, "eth0", NS2, 2, 10);
	rec_ctr_group(m, 0, FT_CTR_PORT_COUNTERS, 0, 0, 0, NPMA, P10, "mlx5_0/1");
	rec_ctr_name(m, 0, C_XMIT_DATA, FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4, "port_xmit_data");
	rec_ctr_name(m, 0, C_XMIT_WAIT, FT_CLS_CONGESTION, FT_CTRF_WIDTH32 | FT_CTRF_TICKS, "port_xmit_wait");
	rec_ctr_name(m, 0, C_SYMBOL_ERR, FT_CLS_LINK_ERR, FT_CTRF_WIDTH32, "symbol_error");
	rec_ctr_group(m, 1, FT_CTR_PORT_HW, 0, 0, 0, NHW, P10, "mlx5_0/1");
	rec_ctr_name(m, 1, H_CNP_SENT, FT_CLS_CONGESTION, 0, "np_cnp_sent");
	rec_ctr_name(m, 1, H_OOS, FT_CLS_RETRANS, 0, "out_of_sequence");
	rec_ctr_name(m, 1, H_CNP_HANDLED, FT_CLS_CONGESTION, 0, "rp_cnp_handled");
	for (uint64_t k = 0; k <= 50; k++) {
		uint64_t ts = S0 + k * P10;
		uint64_t pma[NPMA], hw[NHW];
		uint64_t storm = k <= 10 ? 0 : k <= 30 ? (k - 10) * 500 : 20 * 500;

		pma[C_XMIT_DATA] = 7 + k * 250;
		pma[C_XMIT_WAIT] = (4294967000ull + k * 1000) & 0xffffffffull;
		pma[C_SYMBOL_ERR] = k == 7 ? FT_CTR_NA : 3;
		hw[H_CNP_SENT] = 42 + storm;
		hw[H_OOS] = k < 20 ? 100 : 5;
		hw[H_CNP_HANDLED] = k * 5;
		rec_ctr_sample(m, 0, ts, 2000 + (uint32_t)k, NPMA, pma);
		rec_ctr_sample(m, 1, ts, 3000, NHW, hw);
	}
	rec_end(m, S0 + 600 * MS);
	assert_int_equal(model__finish(m), 0);
	return m;
}

static void test_growth_wrap_reset_na(void **state)
{
	struct model *m = storm_model();
	const struct model_ctr_series *s;

	(void)state;
	assert_int_equal(m->nrdma_ports, 1);
	assert_int_equal(m->rdma_ports[0].iface, (uint32_t)(model__iface(m, NS2, 2) - m->ifaces));
	assert_int_equal(m->nctr_groups, 2);
	assert_int_equal(m->nctr_series, NPMA + NHW);
	/* a group without its own netdev takes its port's */
	assert_int_equal(m->ctr_groups[0].netns, NS2);
	assert_int_equal(m->ctr_groups[0].nsamples, 51);
	assert_int_equal(m->ctr_groups[0].read_ns_max, 2050);
	assert_int_equal(m->ctr_groups[0].read_ns_sum, 51 * 2000 + 50 * 51 / 2);

	s = series(m, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "port_xmit_data");
	assert_int_equal(s->total, 50 * 250 * 4);     /* octets / 4 scaled back */
	assert_int_equal(s->npts, 50);
	assert_true(fabs(s->peak_rate - 100000.0) < 1e-6);  /* 1000 B per 10 ms */

	s = series(m, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "port_xmit_wait");
	assert_int_equal(s->total, 50 * 1000);
	assert_int_equal(s->wraps, 1);
	assert_int_equal(s->resets, 0);
	assert_int_equal(s->first, 4294967000ull);

	s = series(m, "mlx5_0/1", FT_CTR_PORT_COUNTERS, "symbol_error");
	assert_int_equal(s->total, 0);
	assert_int_equal(s->na, 2);

	s = series(m, "mlx5_0/1", FT_CTR_PORT_HW, "out_of_sequence");
	assert_int_equal(s->resets, 1);
	assert_int_equal(s->total, 5);                /* after a reset the counter counts from 0 */
	assert_int_equal(s->npts, 1);                 /* only the interval that moved */

	s = series(m, "mlx5_0/1", FT_CTR_PORT_HW, "np_cnp_sent");
	assert_int_equal(s->total, 20 * 500);
	assert_int_equal(s->npts, 20);
	assert_int_equal(s->first, 42);
	model__free(m);
}

static void test_spikes(void **state)
{
	struct model *m = storm_model();
	const struct model_ctr_series *cnp;
	const struct model_ctr_event *e = NULL;
	size_t ncnp = 0;

	(void)state;
	cnp = series(m, "mlx5_0/1", FT_CTR_PORT_HW, "np_cnp_sent");
	for (size_t i = 0; i < m->nctr_events; i++) {
		const struct model_ctr_series *s = &m->ctr_series[m->ctr_events[i].series];

		/* rp_cnp_handled at 500/s is below the 1000/s threshold; data is not a spike class */
		assert_string_not_equal(s->name, "rp_cnp_handled");
		assert_string_not_equal(s->name, "port_xmit_data");
		if (s == cnp) {
			e = &m->ctr_events[i];
			ncnp++;
		}
	}
	assert_int_equal(ncnp, 1);
	assert_non_null(e);
	assert_int_equal(e->start_ns, S0 + 10 * P10);
	assert_int_equal(e->end_ns, S0 + 30 * P10);
	assert_int_equal(e->delta, 10000);
	assert_int_equal(e->nintervals, 20);
	assert_true(fabs(e->peak_rate - 50000.0) < 1e-6);
	/* growth inside a window: whole intervals, and half of one prorated */
	assert_true(fabs(model__ctr_growth(m, (size_t)(cnp - m->ctr_series), S0, S0 + 600 * MS) - 10000) < 1e-9);
	assert_true(fabs(model__ctr_growth(m, (size_t)(cnp - m->ctr_series), S0 + 105 * MS, S0 + 110 * MS) -
			 250) < 1e-9);
	assert_true(model__ctr_growth(m, (size_t)(cnp - m->ctr_series), S0 + 301 * MS, S0 + 400 * MS) == 0);
	/* xmit_wait grows steadily at 100k/s: one event over the whole capture */
	model__free(m);
}

/* hw_counters are cached for lifespan ms: a rate is never taken over less than that. */
static void test_lifespan_rate(void **state)
{
	struct model *m = mk();
	uint64_t v;

	(void)state;
	rec_rdma_port(m, 3, "mlx5_1", 1, FT_LL_IB, "", 0, 0, 20);
	rec_ctr_group(m, 0, FT_CTR_PORT_HW, 3, 0, 0, 1, P10, "mlx5_1/1");
	rec_ctr_name(m, 0, 0, FT_CLS_RETRANS, 0, "local_ack_timeout_err");
	v = 0;
	rec_ctr_sample(m, 0, S0, 100, 1, &v);
	v = 100;
	rec_ctr_sample(m, 0, S0 + P10, 100, 1, &v);
	rec_end(m, S0 + 100 * MS);
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->ctr_groups[0].port, 0);
	assert_int_equal(m->ctr_groups[0].netns, 0);  /* IB: no netdev */
	assert_true(fabs(m->ctr_series[0].peak_rate - 5000.0) < 1e-6);  /* 100 per 20 ms, not per 10 */
	assert_int_equal(m->nctr_events, 1);
	model__free(m);
}

/*
 * A storm with one cool interval in it (the driver stalled) is one spike,
 * and its growth counts the cool interval too, and the partly covered
 * interval touching its start; a hot interval more than two periods after
 * the last one starts a new spike.
 */
static void test_spike_merge(void **state)
{
	struct model *m = mk();
	/* growth per 10 ms interval: cool edge, hot, cool (500/s), hot, quiet x3, hot */
	static const uint64_t grow[] = { 7, 100, 5, 100, 0, 0, 0, 100 };
	uint64_t v = 0;

	(void)state;
	rec_ctr_group(m, 0, FT_CTR_ETHTOOL, UINT32_MAX, 0, 0, 1, P10, "eth0");
	rec_ctr_name(m, 0, 0, FT_CLS_PAUSE, FT_CTRF_PACKETS, "rx_pause");
	rec_ctr_sample(m, 0, S0, 1, 1, &v);
	for (size_t k = 0; k < sizeof(grow) / sizeof(grow[0]); k++) {
		v += grow[k];
		rec_ctr_sample(m, 0, S0 + (k + 1) * P10, 1, 1, &v);
	}
	rec_end(m, S0 + 100 * MS);
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->nctr_events, 2);
	assert_int_equal(m->ctr_events[0].start_ns, S0);
	assert_int_equal(m->ctr_events[0].end_ns, S0 + 4 * P10);
	assert_int_equal(m->ctr_events[0].delta, 212);
	assert_int_equal(m->ctr_events[0].nintervals, 2);
	assert_int_equal(m->ctr_events[1].start_ns, S0 + 7 * P10);
	assert_int_equal(m->ctr_events[1].delta, 100);
	model__free(m);
}

static void test_bad_and_orphan_records(void **state)
{
	struct model *m = mk();
	struct {
		struct ft_ctr_sample s;
		uint64_t v[2];
	} r;
	uint64_t v = 5;

	(void)state;
	/* a sample whose size does not hold its values */
	memset(&r, 0, sizeof(r));
	r.s.hdr.type = FT_REC_CTR_SAMPLE;
	r.s.hdr.size = sizeof(r.s) + 8;
	r.s.n = 2;
	assert_int_equal(model__add(m, &r.s.hdr), -EINVAL);
	/* a group record cut short */
	r.s.hdr.type = FT_REC_CTR_GROUP;
	r.s.hdr.size = 16;
	assert_int_equal(model__add(m, &r.s.hdr), -EINVAL);
	/* samples of an undescribed group, and names of unknown indices, are ignored */
	rec_ctr_sample(m, 9, S0, 1, 1, &v);
	rec_ctr_group(m, 0, FT_CTR_ETHTOOL, UINT32_MAX, NS2, 2, 1, P10, "eth0@h2");
	rec_ctr_name(m, 0, 5, FT_CLS_PAUSE, 0, "bogus");
	rec_ctr_name(m, 0, 0, FT_CLS_PAUSE, FT_CTRF_PACKETS, "rx_pause_ctrl_phy");
	rec_ctr_sample(m, 0, S0, 1, 1, &v);
	v = 7;
	rec_ctr_sample(m, 0, S0 + P10, 1, 1, &v);
	rec_end(m, S0 + 100 * MS);
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->nctr_groups, 1);
	assert_int_equal(m->nctr_series, 1);
	assert_int_equal(m->ctr_series[0].total, 2);
	assert_int_equal(m->ctr_groups[0].port, UINT32_MAX);
	assert_int_equal(m->ctr_groups[0].iface, UINT32_MAX);  /* no IFACE record for it */
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_growth_wrap_reset_na),
		cmocka_unit_test(test_spikes),
		cmocka_unit_test(test_lifespan_rate),
		cmocka_unit_test(test_spike_merge),
		cmocka_unit_test(test_bad_and_orphan_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
