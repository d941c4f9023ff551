// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for rdma/counters.c: parsing, classification, deltas, globs. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "rdma/counters.h"

#define TWO32 (1ull << 32)

static void parse_ok(const char *text, uint64_t want)
{
	uint64_t v = 12345;
	int rc = ctr__parse(text, strlen(text), &v);

	if (rc != 0)
		fail_msg("ctr__parse(\"%s\") = %d, want 0", text, rc);
	if (v != want)
		fail_msg("ctr__parse(\"%s\") = %llu, want %llu", text, (unsigned long long)v,
			 (unsigned long long)want);
}

static void parse_err(const char *text, int want)
{
	uint64_t v = 777;
	int rc = ctr__parse(text, strlen(text), &v);

	if (rc != want)
		fail_msg("ctr__parse(\"%s\") = %d, want %d", text, rc, want);
	assert_int_equal(v, 777); /* untouched on error */
}

static void test_parse(void **state)
{
	uint64_t v = 0;

	(void)state;
	parse_ok("123\n", 123);
	parse_ok("0", 0);
	parse_ok("4294967000\n", 4294967000ull);
	parse_ok("93836710250          \n", 93836710250ull); /* fixed-width, space padded */
	parse_ok("  42  ", 42);
	parse_ok("7\r\n", 7);
	parse_ok("0x1f", 31);
	parse_ok("0X1F\n", 31);
	parse_ok("0xffffffffffffffff", UINT64_MAX);
	parse_ok("18446744073709551615", UINT64_MAX);
	parse_ok("007", 7);
	/* N/A-like text: tolerated, reported as no data */
	parse_err("N/A (no PMA)\n", -ENODATA);
	parse_err("N/A (no PMA)", -ENODATA);
	parse_err("N/A\n", -ENODATA);
	parse_err("n/a", -ENODATA);
	/* garbage */
	parse_err("", -EINVAL);
	parse_err("\n", -EINVAL);
	parse_err("   ", -EINVAL);
	parse_err("abc", -EINVAL);
	parse_err("12abc", -EINVAL);
	parse_err("1 2", -EINVAL);
	parse_err("-1", -EINVAL);
	parse_err("+1", -EINVAL);
	parse_err("1.5", -EINVAL);
	parse_err("0x", -EINVAL);
	parse_err("0xg1", -EINVAL);
	parse_err("18446744073709551616", -EINVAL);     /* 2^64 */
	parse_err("0x10000000000000000", -EINVAL);
	parse_err("N", -EINVAL);
	/* only LEN bytes are looked at, and a NUL ends the text */
	assert_int_equal(ctr__parse("123456", 3, &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(ctr__parse("12\0 34", 6, &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(ctr__parse(NULL, 3, &v), -EINVAL);
}

struct cls_case {
	unsigned kind;
	const char *name;
	uint16_t cls, flags;
};

static void test_classify(void **state)
{
	static const struct cls_case cases[] = {
		/* ports/N/counters (PMA) */
		{ FT_CTR_PORT_COUNTERS, "port_xmit_data", FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4 },
		{ FT_CTR_PORT_COUNTERS, "port_rcv_data", FT_CLS_DATA, FT_CTRF_BYTES | FT_CTRF_DIV4 },
		{ FT_CTR_PORT_COUNTERS, "port_xmit_packets", FT_CLS_DATA, FT_CTRF_PACKETS },
		{ FT_CTR_PORT_COUNTERS, "unicast_rcv_packets", FT_CLS_DATA, FT_CTRF_PACKETS },
		{ FT_CTR_PORT_COUNTERS, "multicast_xmit_packets", FT_CLS_DATA, FT_CTRF_PACKETS },
		{ FT_CTR_PORT_COUNTERS, "port_xmit_wait", FT_CLS_CONGESTION, FT_CTRF_TICKS | FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "port_xmit_discards", FT_CLS_DISCARD, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "symbol_error", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "link_downed", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "link_error_recovery", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "port_rcv_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "port_rcv_remote_physical_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "port_rcv_switch_relay_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "local_link_integrity_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "excessive_buffer_overrun_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "VL15_dropped", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "port_xmit_constraint_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		{ FT_CTR_PORT_COUNTERS, "port_rcv_constraint_errors", FT_CLS_LINK_ERR, FT_CTRF_WIDTH32 },
		/* ports/N/hw_counters (mlx5) */
		{ FT_CTR_PORT_HW, "np_cnp_sent", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
		{ FT_CTR_PORT_HW, "rp_cnp_handled", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
		{ FT_CTR_PORT_HW, "rp_cnp_ignored", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
		{ FT_CTR_PORT_HW, "np_ecn_marked_roce_packets", FT_CLS_CONGESTION, FT_CTRF_PACKETS },
		{ FT_CTR_PORT_HW, "out_of_sequence", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "packet_seq_err", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "local_ack_timeout_err", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "implied_nak_seq_err", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "duplicate_request", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "rnr_nak_retry_err", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "roce_adp_retrans", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "roce_adp_retrans_to", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "roce_slow_restart", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "roce_slow_restart_cnps", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "roce_slow_restart_trans", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "req_cqe_error", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "req_transport_retries_exceeded", FT_CLS_RETRANS, 0 },
		{ FT_CTR_PORT_HW, "out_of_buffer", FT_CLS_DISCARD, 0 },
		{ FT_CTR_PORT_HW, "rx_icrc_encapsulated", FT_CLS_LINK_ERR, 0 },
		{ FT_CTR_PORT_HW, "req_cqe_flush_error", FT_CLS_OTHER, 0 },
		{ FT_CTR_PORT_HW, "resp_remote_access_errors", FT_CLS_OTHER, 0 },
		{ FT_CTR_PORT_HW, "rx_write_requests", FT_CLS_OTHER, 0 },
		{ FT_CTR_PORT_HW, "lifespan", FT_CLS_OTHER, 0 },
		/* ethtool (mlx5 names, veth) */
		{ FT_CTR_ETHTOOL, "rx_prio3_pause_duration", FT_CLS_PAUSE, FT_CTRF_USEC },
		{ FT_CTR_ETHTOOL, "tx_global_pause_duration", FT_CLS_PAUSE, FT_CTRF_USEC },
		{ FT_CTR_ETHTOOL, "rx_prio3_pause", FT_CLS_PAUSE, 0 },
		{ FT_CTR_ETHTOOL, "rx_prio3_pause_transition", FT_CLS_PAUSE, 0 },
		{ FT_CTR_ETHTOOL, "tx_pause_ctrl_phy", FT_CLS_PAUSE, 0 },
		{ FT_CTR_ETHTOOL, "tx_pause_storm_error_events", FT_CLS_PAUSE, 0 },
		{ FT_CTR_ETHTOOL, "tx_pause_storm_warning_events", FT_CLS_PAUSE, 0 },
		{ FT_CTR_ETHTOOL, "rx_pfc_frames_pri3", FT_CLS_PAUSE, 0 },
		{ FT_CTR_ETHTOOL, "rx_buffer_passed_thres_phy", FT_CLS_BUFFER, 0 },
		{ FT_CTR_ETHTOOL, "rx_discards_phy", FT_CLS_DISCARD, 0 },
		{ FT_CTR_ETHTOOL, "rx_prio3_buf_discard", FT_CLS_DISCARD, 0 },
		{ FT_CTR_ETHTOOL, "rx_out_of_buffer", FT_CLS_DISCARD, 0 },
		{ FT_CTR_ETHTOOL, "rx_queue_0_drops", FT_CLS_DISCARD, 0 },
		{ FT_CTR_ETHTOOL, "rx_prio3_marked", FT_CLS_CONGESTION, 0 },
		{ FT_CTR_ETHTOOL, "rx_ecn_mark", FT_CLS_CONGESTION, 0 },
		{ FT_CTR_ETHTOOL, "rx_crc_errors_phy", FT_CLS_LINK_ERR, 0 },
		{ FT_CTR_ETHTOOL, "link_down_events_phy", FT_CLS_LINK_ERR, 0 },
		{ FT_CTR_ETHTOOL, "rx_bytes_phy", FT_CLS_DATA, FT_CTRF_BYTES },
		{ FT_CTR_ETHTOOL, "tx_bytes", FT_CLS_DATA, FT_CTRF_BYTES },
		{ FT_CTR_ETHTOOL, "rx_packets_phy", FT_CLS_DATA, FT_CTRF_PACKETS },
		{ FT_CTR_ETHTOOL, "rx_1519_to_2047_bytes_phy", FT_CLS_DATA, FT_CTRF_PACKETS },
		/* unknown */
		{ FT_CTR_ETHTOOL, "peer_ifindex", FT_CLS_OTHER, 0 },
		{ FT_CTR_PORT_COUNTERS, "frobnicate", FT_CLS_OTHER, 0 },
		{ FT_CTR_PORT_HW, "widget_count", FT_CLS_OTHER, 0 },
		{ 99, "np_cnp_sent", FT_CLS_OTHER, 0 },   /* unknown kind */
	};
	uint16_t cls, flags;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cls = 0xffff;
		flags = 0xffff;
		ctr__classify(cases[i].kind, cases[i].name, &cls, &flags);
		if (cls != cases[i].cls || flags != cases[i].flags)
			fail_msg("ctr__classify(%u, %s) = %s/0x%x, want %s/0x%x", cases[i].kind, cases[i].name,
				 ctr__class_name(cls), flags, ctr__class_name(cases[i].cls), cases[i].flags);
	}
	/* the kind matters: an ethtool name is not read with PMA semantics */
	ctr__classify(FT_CTR_ETHTOOL, "port_xmit_data", &cls, &flags);
	assert_false(flags & FT_CTRF_DIV4);
	ctr__classify(FT_CTR_PORT_HW, "port_xmit_wait", &cls, &flags);
	assert_false(flags & FT_CTRF_WIDTH32);
	ctr__classify(FT_CTR_PORT_HW, NULL, &cls, &flags);
	assert_int_equal(cls, FT_CLS_OTHER);
	assert_int_equal(flags, 0);
}

static void test_class_names(void **state)
{
	(void)state;
	assert_string_equal(ctr__class_name(FT_CLS_OTHER), "other");
	assert_string_equal(ctr__class_name(FT_CLS_DATA), "data");
	assert_string_equal(ctr__class_name(FT_CLS_CONGESTION), "congestion");
	assert_string_equal(ctr__class_name(FT_CLS_RETRANS), "retrans");
	assert_string_equal(ctr__class_name(FT_CLS_DISCARD), "discard");
	assert_string_equal(ctr__class_name(FT_CLS_LINK_ERR), "link_err");
	assert_string_equal(ctr__class_name(FT_CLS_PAUSE), "pause");
	assert_string_equal(ctr__class_name(FT_CLS_BUFFER), "buffer");
	assert_string_equal(ctr__class_name(FT_CLS_MAX), "other");
	assert_string_equal(ctr__class_name(1000), "other");
}

static void delta_is(uint64_t prev, uint64_t cur, uint16_t flags, uint64_t want, unsigned want_df)
{
	unsigned df = 0xdead;
	uint64_t d = ctr__delta(prev, cur, flags, &df);

	if (d != want || df != want_df)
		fail_msg("ctr__delta(%llu, %llu, 0x%x) = %llu/0x%x, want %llu/0x%x", (unsigned long long)prev,
			 (unsigned long long)cur, flags, (unsigned long long)d, df, (unsigned long long)want,
			 want_df);
	/* dflags may be NULL */
	assert_int_equal(ctr__delta(prev, cur, flags, NULL), want);
}

static void test_delta(void **state)
{
	(void)state;
	/* normal growth and none */
	delta_is(100, 250, 0, 150, 0);
	delta_is(100, 100, 0, 0, 0);
	delta_is(5000000000ull, 5000000100ull, 0, 100, 0);
	/* 32-bit wrap: known width or seen below 2^32 */
	delta_is(4294967000ull, 100, 0, 396, CTR_DELTA_WRAP32);
	delta_is(4294967000ull, 100, FT_CTRF_WIDTH32, 396, CTR_DELTA_WRAP32);
	delta_is(TWO32 - 1, 7, 0, 8, CTR_DELTA_WRAP32);
	delta_is(TWO32 - (1ull << 30), (1ull << 30) - 1, 0, (1ull << 31) - 1, CTR_DELTA_WRAP32);
	/* ... but not when the wrapped growth would be 2^31 or more: a reset */
	delta_is(TWO32 - (1ull << 30), 1ull << 30, 0, 1ull << 30, CTR_DELTA_RESET);
	delta_is(3000000000ull, 1000000000ull, 0, 1000000000ull, CTR_DELTA_RESET);
	delta_is(1000000, 5, 0, 5, CTR_DELTA_RESET);
	delta_is(42, 0, 0, 0, CTR_DELTA_RESET);
	/* 64-bit wrap */
	delta_is(UINT64_MAX - 10, 5, 0, 16, CTR_DELTA_WRAP64);
	delta_is(UINT64_MAX - 10, 5, FT_CTRF_WIDTH32, 16, CTR_DELTA_WRAP64);
	/* wide counter going back a lot: reset, the growth is the current value */
	delta_is(5000000000ull, 1000, 0, 1000, CTR_DELTA_RESET);
	delta_is(1ull << 40, 1ull << 33, 0, 1ull << 33, CTR_DELTA_RESET);
	/* N/A on either side */
	delta_is(FT_CTR_NA, 100, 0, 0, CTR_DELTA_NA);
	delta_is(100, FT_CTR_NA, 0, 0, CTR_DELTA_NA);
	delta_is(FT_CTR_NA, FT_CTR_NA, FT_CTRF_WIDTH32, 0, CTR_DELTA_NA);
	/* a saturated PMA counter: stuck at 2^32-1 is no growth, reaching it is a lower bound */
	delta_is(TWO32 - 1, TWO32 - 1, FT_CTRF_WIDTH32, 0, CTR_DELTA_SAT);
	delta_is(4294967000ull, TWO32 - 1, FT_CTRF_WIDTH32, 295, CTR_DELTA_SAT);
	delta_is(4294967000ull, TWO32 - 1, 0, 295, 0);
	/* ... and leaving saturation downwards is a clear, not a wrap */
	delta_is(TWO32 - 1, 7, FT_CTRF_WIDTH32, 7, CTR_DELTA_RESET);
}

static void test_scale(void **state)
{
	(void)state;
	assert_int_equal(ctr__scale(1000, FT_CTRF_BYTES | FT_CTRF_DIV4), 4000);
	assert_int_equal(ctr__scale(1000, FT_CTRF_BYTES), 1000);
	assert_int_equal(ctr__scale(1000, 0), 1000);
	assert_int_equal(ctr__scale(0, FT_CTRF_DIV4), 0);
	assert_int_equal(ctr__scale(UINT64_MAX / 4, FT_CTRF_DIV4), (UINT64_MAX / 4) * 4);
	assert_int_equal(ctr__scale(UINT64_MAX / 4 + 1, FT_CTRF_DIV4), UINT64_MAX);
	/* a delta from port_xmit_data classifies and scales to bytes */
	{
		uint16_t cls, flags;
		unsigned df;

		ctr__classify(FT_CTR_PORT_COUNTERS, "port_xmit_data", &cls, &flags);
		assert_int_equal(ctr__scale(ctr__delta(1000, 1250, flags, &df), flags), 1000);
	}
}

static void test_glob(void **state)
{
	(void)state;
	assert_true(ctr__glob_match("a*,b*", "abc"));
	assert_true(ctr__glob_match("a*,b*", "bz"));
	assert_false(ctr__glob_match("a*,b*", "cab"));
	assert_true(ctr__glob_match("np_cnp_sent", "np_cnp_sent"));
	assert_false(ctr__glob_match("np_cnp_sent", "np_cnp_sent2"));
	assert_true(ctr__glob_match(" *pause* , *pfc*", "rx_pfc_frames"));
	assert_true(ctr__glob_match(" *pause* , *pfc*", "tx_pause_ctrl_phy"));
	assert_true(ctr__glob_match("rx_prio[0-3]_pause", "rx_prio3_pause"));
	assert_false(ctr__glob_match("rx_prio[0-3]_pause", "rx_prio4_pause"));
	assert_true(ctr__glob_match("x,,y", "y"));
	assert_true(ctr__glob_match("*", "anything"));
	assert_false(ctr__glob_match("", "x"));
	assert_false(ctr__glob_match(",,,", "x"));
	assert_false(ctr__glob_match(NULL, "x"));
	assert_false(ctr__glob_match("*", NULL));
}

static void test_default_nic_filter(void **state)
{
	static const char *const yes[] = {
		"rx_prio3_pause", "rx_prio3_pause_duration", "tx_pause_ctrl_phy", "rx_global_pause_transition",
		"tx_pause_storm_error_events", "tx_pause_storm_warning_events", "rx_pfc_frames_pri3",
		"rx_buffer_passed_thres_phy", "rx_discards_phy", "tx_discards_phy", "rx_prio3_buf_discard",
		"rx_prio3_cong_discard", "rx_out_of_buffer", "rx_xdp_drop", "rx_queue_0_drops",
		"rx_prio3_marked", "rx_ecn_mark",
	};
	static const char *const no[] = {
		"rx_bytes_phy", "tx_packets", "rx_crc_errors_phy", "peer_ifindex", "rx_csum_none", "ch0_poll",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!ctr__glob_match(ctr__default_nic_filter, yes[i]))
			fail_msg("default NIC filter misses %s", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (ctr__glob_match(ctr__default_nic_filter, no[i]))
			fail_msg("default NIC filter takes %s", no[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_class_names),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_default_nic_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
