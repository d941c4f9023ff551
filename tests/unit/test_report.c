// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for `fabtrace report`: the text and JSON reports of a small
 * model built in memory (report__write(), userspace/report/: key values,
 * JSON validity, golden files), and cmd_report (userspace/cli/report.c) end
 * to end on capture files (exit codes, errors).
 *
 * Golden files: tests/fixtures/report_small.{txt,json}.  After an intended
 * change of the output, regenerate them with FT_UPDATE_GOLDEN=1 and review
 * the diff.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "userspace/capture/capture.h"
#include "userspace/cli/commands.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"
#include "lib/util.h"
#include "jsoncheck.h"
#include "records.h"

#define MS 1000000ull
#define S0 (1000ull * MS)
#define BIN MS
#define FULL 125000ull
#define NS1 4026532000u
#define NS2 4026532001u

#ifndef FIXTURES
#define FIXTURES "tests/fixtures"
#endif

static struct ft_file_header mkhdr(void)
{
	struct ft_file_header h = rec_file_header(S0, BIN);

	/* as recorded: every probe but qdisc_dequeue (see the PROBE records) */
	h.probes = ((1ull << FT_PROBE_MAX) - 1) & ~(1ull << FT_PROBE_QDISC_DEQ);
	snprintf(h.tool_version, sizeof(h.tool_version), "0.1.0");
	snprintf(h.command, sizeof(h.command), "fabtrace record -d 10ms");
	return h;
}

/* Records of the small scenario, handed to FN one by one (model__add or capture__append). */
typedef int (*sink_fn)(void *ctx, const struct ft_rec_hdr *rec);
/* the whole record, not just its header, is read (as cppcheck must know) */
#define EMIT(r) fn(ctx, (const struct ft_rec_hdr *)(const void *)&(r))

static void scenario(sink_fn fn, void *ctx, uint64_t lost_net, bool end)
{
	struct ft_iface_info ii;
	struct ft_iface_bin b;
	struct ft_iface_stats st;
	struct ft_qdisc_bin q;
	struct ft_drop d;
	struct ft_drop_reason dr;
	struct ft_retrans r;
	struct ft_cong_state cs;
	struct ft_ce_flow ce;
	struct ft_lost l;
	struct ft_probe_info pi;
	struct ft_flow fl;

	REC_HDR(pi, FT_REC_PROBE);
	pi.id = FT_PROBE_IFACE_TX; pi.attached = 1;
	snprintf(pi.name, sizeof(pi.name), "iface_tx");
	snprintf(pi.hook, sizeof(pi.hook), "tp_btf/net_dev_start_xmit");
	assert_int_equal(EMIT(pi), 0);
	pi.id = FT_PROBE_QDISC_DEQ; pi.attached = 0;
	snprintf(pi.name, sizeof(pi.name), "qdisc_deq"); /* an old spelling: the report says qdisc_dequeue */
	snprintf(pi.why, sizeof(pi.why), "no BTF for qdisc_dequeue");
	assert_int_equal(EMIT(pi), 0);

	REC_HDR(ii, FT_REC_IFACE);
	ii.netns = NS1; ii.ifindex = 2; ii.mtu = 1500; ii.speed_mbps = 100; ii.tx_rate_kbps = 100000;
	ii.flags = FT_IFACE_UP | FT_IFACE_TRACED;
	snprintf(ii.name, sizeof(ii.name), "eth0");
	snprintf(ii.netns_name, sizeof(ii.netns_name), "h1");
	snprintf(ii.kind, sizeof(ii.kind), "veth");
	assert_int_equal(EMIT(ii), 0);
	ii.netns = NS2; ii.ifindex = 3; ii.tx_rate_kbps = 0; ii.speed_mbps = 1000;
	snprintf(ii.netns_name, sizeof(ii.netns_name), "h2");
	assert_int_equal(EMIT(ii), 0);

	REC_HDR(st, FT_REC_IFACE_STATS);
	st.netns = NS1; st.ifindex = 2; st.phase = FT_STATS_START;
	st.tx_bytes = 1000; st.tx_packets = 10; st.rx_bytes = 50; st.rx_packets = 1;
	assert_int_equal(EMIT(st), 0);
	st.netns = NS2; st.ifindex = 3;
	st.tx_bytes = 0; st.tx_packets = 0; st.rx_bytes = 0; st.rx_packets = 0;
	assert_int_equal(EMIT(st), 0);

	REC_HDR(dr, FT_REC_DROP_REASON);
	dr.reason = 5;
	snprintf(dr.name, sizeof(dr.name), "QDISC_DROP");
	assert_int_equal(EMIT(dr), 0);

	/* eth0@h1 TX, 100 Mbit/s tbf: 12500 B per bin is full; burst of 2 bins at +2 ms */
	REC_HDR(b, FT_REC_IFACE_BIN);
	b.netns = NS1; b.ifindex = 2; b.dir = FT_DIR_TX;
	b.hdr.cpu = 1; b.start_ns = S0 + 3 * BIN; b.bytes = 12000; b.pkts = 8;
	assert_int_equal(EMIT(b), 0);
	b.hdr.cpu = 0; b.start_ns = S0 + 2 * BIN; b.bytes = 12500; b.pkts = 9;
	assert_int_equal(EMIT(b), 0);
	b.hdr.cpu = 0; b.start_ns = S0 + 0 * BIN; b.bytes = 500; b.pkts = 1;
	assert_int_equal(EMIT(b), 0);
	b.hdr.cpu = 0; b.start_ns = S0 + 7 * BIN; b.bytes = 7000; b.pkts = 5; /* 56 %: single-bin burst */
	assert_int_equal(EMIT(b), 0);
	/* eth0@h2 RX (1 Gbit/s): quiet, some CE */
	b.netns = NS2; b.ifindex = 3; b.dir = FT_DIR_RX;
	b.hdr.cpu = 1; b.start_ns = S0 + 2 * BIN; b.bytes = 30000; b.pkts = 20; b.ce_pkts = 4;
	assert_int_equal(EMIT(b), 0);
	b.hdr.cpu = 0; b.start_ns = S0 + 2 * BIN; b.bytes = 2000; b.pkts = 2; b.ce_pkts = 0;
	assert_int_equal(EMIT(b), 0);

	REC_HDR(q, FT_REC_QDISC_BIN);
	q.netns = NS1; q.ifindex = 2; q.handle = 0x10000; q.parent = 0xffffffff;
	snprintf(q.kind, sizeof(q.kind), "tbf");
	q.start_ns = S0 + 2 * BIN; q.max_backlog = 30000; q.max_qlen = 20; q.enq_pkts = 9; q.enq_bytes = 13000;
	q.sojourn_sum_ns = 900000; q.sojourn_cnt = 9; q.sojourn_max_ns = 250000; q.drops = 10;
	assert_int_equal(EMIT(q), 0);
	q.start_ns = S0 + 3 * BIN; q.max_backlog = 45000; q.max_qlen = 30; q.enq_pkts = 8; q.enq_bytes = 12000;
	q.sojourn_sum_ns = 1600000; q.sojourn_cnt = 8; q.sojourn_max_ns = 400000; q.drops = 12;
	assert_int_equal(EMIT(q), 0);

	REC_HDR(d, FT_REC_DROP);
	d.netns = NS1; d.ifindex = 2; d.reason = 5; d.ts_ns = S0 + 3 * BIN + 10;
	assert_int_equal(EMIT(d), 0);
	d.ts_ns = S0 + 3 * BIN + 20;
	assert_int_equal(EMIT(d), 0);
	d.netns = 0; d.ifindex = 0; d.reason = 99; d.ts_ns = S0 + 4 * BIN;
	assert_int_equal(EMIT(d), 0);

	memset(&fl, 0, sizeof(fl));
	fl.family = 4; fl.proto = 6; fl.netns = NS1;
	fl.saddr[0] = 10; fl.saddr[3] = 1; fl.daddr[0] = 10; fl.daddr[3] = 2;
	fl.sport = 40000; fl.dport = 5201;
	REC_HDR(r, FT_REC_RETRANS);
	r.flow = fl; r.trigger = FT_RTX_FAST; r.ts_ns = S0 + 4 * BIN;
	assert_int_equal(EMIT(r), 0);
	r.trigger = FT_RTX_RTO; r.ts_ns = S0 + 6 * BIN;
	assert_int_equal(EMIT(r), 0);
	r.ts_ns = S0 + 8 * BIN;
	assert_int_equal(EMIT(r), 0);
	REC_HDR(cs, FT_REC_CONG_STATE);
	cs.flow = fl; cs.old_state = 0; cs.new_state = 3; cs.ts_ns = S0 + 4 * BIN;
	assert_int_equal(EMIT(cs), 0);

	REC_HDR(ce, FT_REC_CE_FLOW);
	ce.flow = fl; ce.flow.netns = NS2; ce.ce_pkts = 4; ce.first_ns = S0 + 2 * BIN; ce.last_ns = S0 + 3 * BIN;
	assert_int_equal(EMIT(ce), 0);

	REC_HDR(l, FT_REC_LOST);
	l.source = FT_SRC_NET; l.cpu = 0; l.lost = lost_net ? 1 : 0; l.ts_ns = S0 + 5 * BIN;
	assert_int_equal(EMIT(l), 0);
	l.lost = lost_net; l.ts_ns = S0 + 9 * BIN;
	assert_int_equal(EMIT(l), 0);
	l.source = FT_SRC_TCP; l.cpu = 1; l.lost = lost_net ? 1 : 0;
	assert_int_equal(EMIT(l), 0);

	/* stop counters: eth0@h1 TX exact (32000 binned), RX 50 B unbinned; eth0@h2 RX 5000 B short */
	REC_HDR(st, FT_REC_IFACE_STATS);
	st.netns = NS1; st.ifindex = 2; st.phase = FT_STATS_STOP;
	st.tx_bytes = 1000 + 32000; st.tx_packets = 10 + 23; st.rx_bytes = 100; st.rx_packets = 2;
	assert_int_equal(EMIT(st), 0);
	st.netns = NS2; st.ifindex = 3;
	st.rx_bytes = 37000; st.rx_packets = 25; st.tx_bytes = 0; st.tx_packets = 0;
	assert_int_equal(EMIT(st), 0);

	if (end) {
		struct ft_end e;

		REC_HDR(e, FT_REC_END);
		e.ts_ns = S0 + 10 * BIN;
		e.stop_reason = FT_STOP_DURATION;
		assert_int_equal(EMIT(e), 0);
	}
}

static int sink_model(void *ctx, const struct ft_rec_hdr *rec)
{
	return model__add(ctx, rec);
}

static int sink_capture(void *ctx, const struct ft_rec_hdr *rec)
{
	return capture__append(ctx, rec);
}

static struct model *small_model(uint64_t lost_net, bool end)
{
	struct ft_file_header h = mkhdr();
	struct model *m = model__new(&h, NULL);

	assert_non_null(m);
	scenario(sink_model, m, lost_net, end);
	assert_int_equal(model__finish(m), 0);
	if (!end) {
		m->truncated = true;
		snprintf(m->truncated_why, sizeof(m->truncated_why), "test: no end record");
	}
	return m;
}

static char *render_with(const struct model *m, const struct report_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__write(f, m, o), 0);
	fclose(f);
	return buf;
}

static char *render(const struct model *m, bool json, bool pretty, unsigned top)
{
	struct report_opts o = { .json = json, .pretty = pretty, .top = top, .path = "small.ftr" };

	return render_with(m, &o);
}

#define HAS(hay, needle) do { \
	if (!strstr((hay), (needle))) \
		fail_msg("missing: %s", (needle)); \
} while (0)

/* ---- tests ---- */

static void test_validator_rejects(void **state)
{
	(void)state;
	assert_true(json_valid("{\"a\": [1, -2.5, \"x\", null, true]}\n"));
	assert_false(json_valid("{\"a\": 1,}"));
	assert_false(json_valid("{\"a\": nan}"));
	assert_false(json_valid("{\"a\": 1} {"));
}

static void test_json_values(void **state)
{
	struct model *m = small_model(3, true);
	char *s = render(m, true, true, 10);

	(void)state;
	assert_true(json_valid(s));
	HAS(s, "\"schema\": \"fabtrace-report/1\"");
	HAS(s, "\"host\": \"testhost\"");
	HAS(s, "\"start_wall\": \"2023-11-14T22:13:21.000000Z\"");
	HAS(s, "\"duration_ns\": 10000000");
	HAS(s, "\"bin_ns\": 1000000");
	HAS(s, "\"state\": \"complete\"");
	/* lost: net cpu0 cumulative 1 then 3 -> 3, tcp 1 */
	HAS(s, "\"total_lost\": 4");
	HAS(s, "\"net\": 3");
	HAS(s, "\"tcp\": 1");
	HAS(s, "events were lost");
	/* eth0@h1 TX: 100 Mbit/s tbf; 32000 B; peak 12500 B per ms = 100 Mbit/s */
	HAS(s, "\"interface\": \"eth0@h1\"");
	HAS(s, "\"capacity_bps\": 100000000,");
	HAS(s, "\"total_bytes\": 32000");
	HAS(s, "\"peak_bps\": 100000000,");
	HAS(s, "\"peak_util\": 1.0000");
	HAS(s, "\"mean_bps\": 25600000,");
	HAS(s, "\"mean_util\": 0.2560");
	HAS(s, "\"capacity_bps\": 100000000,");
	/* honest utilisation: line rate and shaper apart (both 100 Mbit/s here) */
	HAS(s, "\"line_bps\": 100000000,");
	HAS(s, "\"shaper_bps\": 100000000,");
	HAS(s, "\"peak_line_util\": 1.0000");
	/* bursts: +2 ms 2 bins 24500 B, +7 ms 1 bin; sorted by bytes */
	HAS(s, "\"total\": 2,\n    \"shown\": 2");
	HAS(s, "\"start_rel_ns\": 2000000");
	HAS(s, "\"start_wall\": \"2023-11-14T22:13:21.002000Z\"");
	HAS(s, "\"duration_ns\": 2000000");
	HAS(s, "\"total_bytes\": 24500");
	assert_true(strstr(s, "\"total_bytes\": 24500") < strstr(s, "\"total_bytes\": 7000"));
	/* queue */
	HAS(s, "\"handle\": \"1:\"");
	HAS(s, "\"max_backlog_bytes\": 45000");
	HAS(s, "\"max_backlog_pkts\": 30");
	HAS(s, "\"sojourn_mean_ns\": 147058.8");
	HAS(s, "\"sojourn_max_ns\": 400000");
	HAS(s, "\"drops_counter_pkts\": 2");
	HAS(s, "\"drop_records\": 2");
	/* retransmits by trigger */
	HAS(s, "\"rto\": 2");
	HAS(s, "\"fast\": 1");
	HAS(s, "\"trigger\": \"rto\",\n        \"count\": 2");
	HAS(s, "\"saddr\": \"10.0.0.1\"");
	HAS(s, "\"from\": \"open\"");
	HAS(s, "\"to\": \"recovery\"");
	/* drops: named and fallback */
	HAS(s, "\"reason\": \"QDISC_DROP\"");
	HAS(s, "\"reason\": \"reason 99\"");
	/* CE */
	HAS(s, "\"rx_ce_pkts\": 4");
	HAS(s, "\"ce_pkts\": 4");
	/* conservation: exact on h1 TX, RX 50 B missing, h2 RX 5000 B short */
	HAS(s, "\"status\": \"ok\",\n      \"binned_bytes\": 32000");
	HAS(s, "\"diff_bytes\": -5000");
	HAS(s, "\"diff_bytes\": -50");
	HAS(s, "\"status\": \"mismatch\"");
	free(s);

	/* one-line mode is valid too, and deterministic */
	s = render(m, true, false, 10);
	assert_true(json_valid(s));
	HAS(s, "\"total_lost\":4");
	assert_null(strchr(s, '\n') == s + strlen(s) - 1 ? NULL : s);
	{
		char *s2 = render(m, true, false, 10);

		assert_string_equal(s, s2);
		free(s2);
	}
	free(s);
	model__free(m);
}

static void test_zero_lost_always_shown(void **state)
{
	struct model *m = small_model(0, true);
	char *s;

	(void)state;
	s = render(m, true, true, 10);
	assert_true(json_valid(s));
	HAS(s, "\"total_lost\": 0");
	assert_null(strstr(s, "events were lost"));
	free(s);
	s = render(m, false, false, 10);
	HAS(s, "Lost events: 0 lost (net 0, tcp 0, user 0)");
	assert_null(strstr(s, "events were lost"));
	free(s);
	model__free(m);
}

static void test_text_values(void **state)
{
	struct model *m = small_model(3, true);
	char *s = render(m, false, false, 1);

	(void)state;
	HAS(s, "!! WARNING: 4 events were lost");
	HAS(s, "Lost events: 4 lost (net 3, tcp 1, user 0)");
	HAS(s, "net   cpu 0               3");
	HAS(s, "start 2023-11-14T22:13:21.000000Z");
	HAS(s, "capture: complete (stopped by duration)");
	HAS(s, "probe qdisc_dequeue not attached: no BTF for qdisc_dequeue");
	/* top 1: the 2-bin burst, relative and wall clock */
	HAS(s, "Microbursts (bins at >= 50.0% of the line rate, merged across gaps < 1.00 ms): 2, top 1 by bytes");
	HAS(s, "+0.002000 2023-11-14T22:13:21.002000Z");
	assert_null(strstr(s, "+0.007000 2023-11-14T22:13:21.007000Z"));
	HAS(s, "MISMATCH");
	HAS(s, "-5000");
	HAS(s, "QDISC_DROP");
	HAS(s, "reason 99");
	HAS(s, "10.0.0.1:40000 -> 10.0.0.2:5201");
	HAS(s, "open       -> recovery");
	free(s);
	model__free(m);
}

/* A snapshot: a trigger that opened it (a rule's, with a value), one that extended it, one held back,
 * one covered by a saved snapshot (not held back) */
static void test_trigger(void **state)
{
	struct ft_file_header h = mkhdr();
	struct model *m;
	struct ft_trigger t[4];
	char *s;

	(void)state;
	h.flags = FT_FILE_SNAPSHOT;
	m = model__new(&h, NULL);
	assert_non_null(m);
	scenario(sink_model, m, 0, false);
	for (int i = 0; i < 4; i++) {
		memset(&t[i], 0, sizeof(t[i]));
		REC_HDR(t[i], FT_REC_TRIGGER);
		t[i].kind = FT_TRIG_RULE;
		t[i].mono_ns = S0 + (uint64_t)(4 + i) * BIN;
		t[i].realtime_ns = (int64_t)t[i].mono_ns + h.realtime_offset_ns;
		t[i].snapshot = 1;
		t[i].fired = (uint32_t)i + 1;
		snprintf(t[i].unit, sizeof(t[i].unit), "x1000");
		snprintf(t[i].rule, sizeof(t[i].rule), "coll.slow > 3x");
		snprintf(t[i].hostname, sizeof(t[i].hostname), "node17");
	}
	t[0].action = FT_TRIGA_SNAPSHOT;
	t[0].value = 4200;
	t[0].threshold = 3000;
	t[0].from_ns = S0 + 1 * BIN;
	t[0].to_ns = S0 + 9 * BIN;
	snprintf(t[0].reason, sizeof(t[0].reason), "allreduce 17");
	t[1].action = FT_TRIGA_EXTENDED;
	t[1].from_ns = t[0].from_ns;
	t[1].to_ns = S0 + 11 * BIN; /* the window the report gives: as extended */
	t[2].action = FT_TRIGA_RATE;
	t[2].snapshot = 0;
	t[3].action = FT_TRIGA_COVERED;
	t[3].snapshot = 0;
	/* the held-back one first: the report still opens with the one that opened it */
	assert_int_equal(model__add(m, &t[2].hdr), 0);
	assert_int_equal(model__add(m, &t[0].hdr), 0);
	assert_int_equal(model__add(m, &t[1].hdr), 0);
	assert_int_equal(model__add(m, &t[3].hdr), 0);
	assert_int_equal(model__finish(m), 0);
	assert_int_equal(m->ntriggers, 4);
	s = render(m, false, false, 10);
	if (strncmp(s, "Snapshot taken on node17: rule coll.slow > 3x (\"allreduce 17\") at 2023-11-14T22:13:21.004", 86) != 0)
		fail_msg("the report does not open with the trigger: %.200s", s);
	HAS(s, "(+0.004000 s into the capture)");
	HAS(s, "  value 4.20x, threshold 3.00x");
	HAS(s, "  window: 3.00 ms before to 7.00 ms after (snapshot 1, extended)");
	assert_null(strstr(s, "the file begins"));
	assert_null(strstr(s, "the file ends"));
	HAS(s, "  3 more triggers: 1 extended the post-window of snapshot 1, 1 held back by the rate policy, "
	       "1 already covered by a saved snapshot\n");
	free(s);
	s = render(m, true, true, 10);
	assert_true(json_valid(s));
	HAS(s, "\"trigger\": {");
	HAS(s, "\"kind\": \"rule\"");
	HAS(s, "\"action\": \"snapshot\"");
	HAS(s, "\"value\": 4200");
	HAS(s, "\"threshold\": 3000");
	HAS(s, "\"rel_ns\": 4000000");
	HAS(s, "\"from_rel_ns\": 1000000");
	HAS(s, "\"extended_by\": 1");
	HAS(s, "\"action\": \"rate\"");
	/* before the headline */
	assert_true(strstr(s, "\"trigger\"") < strstr(s, "\"headline\""));
	free(s);
	/* a file that holds less than the window: older segments gone (or a later
	 * start), and a recorder stopped 2 s before the window's end */
	for (size_t i = 0; i < m->ntriggers; i++) {
		if (m->triggers[i].action == FT_TRIGA_SNAPSHOT)
			m->triggers[i].from_ns = S0 - 2 * BIN;
		if (m->triggers[i].action == FT_TRIGA_EXTENDED)
			m->triggers[i].to_ns = m->capture_end_ns + 2000000000ULL;
	}
	s = render(m, false, false, 10);
	HAS(s, "  window: 6.00 ms before to 2.00 s after (snapshot 1, extended); the file begins 4.00 ms before it "
	       "(the recording began then, or older segments were no longer kept); the file ends 4.00 ms after it "
	       "(the recording stopped)\n");
	free(s);
	model__free(m);
	/* no trigger, no section: every other report is unchanged */
	m = small_model(0, true);
	s = render(m, true, false, 10);
	assert_null(strstr(s, "\"trigger\":{")); /* retransmits have a "trigger": "rto" key of their own */
	free(s);
	s = render(m, false, false, 10);
	assert_null(strstr(s, "Snapshot taken"));
	free(s);
	model__free(m);
}

/* record --post-probes: the qdisc probes ran in spans only; spans nest (hosts of a merged capture), an open one ends with the capture */
static void test_post_spans(void **state)
{
	struct ft_file_header h = mkhdr();
	struct ft_probe_span sp[5];
	struct ft_end e = { .hdr = { FT_REC_END, sizeof(e), 0 }, .ts_ns = S0 + 10 * BIN };
	const uint64_t q = (1ull << FT_PROBE_QDISC_ENQ) | (1ull << FT_PROBE_QDISC_DEQ);
	const uint64_t on_at[5] = { 2, 3, 5, 6, 7 };
	struct model_span k;
	struct model *m;
	char *s;

	(void)state;
	h.flags = FT_FILE_SEGMENT | FT_FILE_PROFILE_ALWAYS;
	h.probes &= ~q;
	m = model__new(&h, NULL);
	assert_non_null(m);
	for (int i = 0; i < 5; i++) {
		memset(&sp[i], 0, sizeof(sp[i]));
		REC_HDR(sp[i], FT_REC_PROBE_SPAN);
		sp[i].ts_ns = S0 + on_at[i] * BIN;
		sp[i].probes = q;
		/* on, another host's on (a merged capture), off, off: one span; then on (never closed) */
		sp[i].on = i < 2 || i == 4;
		sp[i].snapshot = i < 4 ? 1 : 2;
		sp[i].owners = 1;
		assert_int_equal(model__add(m, &sp[i].hdr), 0);
	}
	assert_int_equal(model__add(m, &e.hdr), 0);
	assert_int_equal(model__finish(m), 0);
	assert_true(model__probe_span(m, 0, &k));
	assert_int_equal(k.from_ns, S0 + 2 * BIN);
	assert_int_equal(k.to_ns, S0 + 6 * BIN);
	assert_int_equal(k.snapshot, 1);
	assert_true(k.owners);
	assert_true(model__probe_span(m, 1, &k));
	assert_int_equal(k.from_ns, S0 + 7 * BIN);
	assert_int_equal(k.to_ns, S0 + 10 * BIN);
	assert_int_equal(k.snapshot, 2);
	assert_false(model__probe_span(m, 2, &k));
	assert_int_equal(model__span_probes(m), q);
	assert_null(model__queues_missing(m));
	s = render(m, false, false, 10);
	HAS(s, "  recorded in post-windows only (--post-probes): 0.0-0.0 s, 0.0-0.0 s; outside them unknown, not 0\n");
	HAS(s, "  no queueing seen in the post-windows");
	HAS(s, "  in post-windows only (--post-probes): qdisc_enqueue qdisc_dequeue socket-owners, 0.0-0.0 s, 0.0-0.0 s\n");
	if (strstr(s, "not recorded: the always profile"))
		fail_msg("the queues are called not recorded: %s", s);
	free(s);
	s = render(m, true, false, 10);
	assert_true(json_valid(s));
	HAS(s, "\"post_probe_spans\":[{\"from_s\":0.002,\"to_s\":0.006,\"snapshot\":1,"
	       "\"probes\":[\"qdisc_enqueue\",\"qdisc_dequeue\"],\"owners\":true},{\"from_s\":0.007,\"to_s\":0.010,\"snapshot\":2,");
	HAS(s, "\"queues_recorded\":true");
	free(s);
	model__free(m);

	/* no span: the always profile's queues are not recorded */
	m = model__new(&h, NULL);
	assert_non_null(m);
	assert_int_equal(model__finish(m), 0);
	assert_false(model__probe_span(m, 0, &k));
	assert_non_null(model__queues_missing(m));
	s = render(m, true, false, 10);
	HAS(s, "\"post_probe_spans\":[]");
	HAS(s, "\"queues_recorded\":false");
	free(s);
	model__free(m);
}

static void test_truncated_banner(void **state)
{
	struct model *m = small_model(0, false);
	char *s;

	(void)state;
	s = render(m, false, false, 10);
	HAS(s, "!! WARNING: capture truncated: test: no end record");
	HAS(s, "capture: TRUNCATED");
	free(s);
	s = render(m, true, true, 10);
	assert_true(json_valid(s));
	HAS(s, "\"state\": \"truncated\"");
	HAS(s, "capture truncated: test: no end record");
	free(s);
	model__free(m);
}

/* The small scenario plus FT_REC_COVERAGE records, given as (probe, known, hits, runs). */
static struct model *coverage_model(const uint64_t (*cov)[4], size_t n)
{
	struct ft_file_header h = mkhdr();
	struct model *m = model__new(&h, NULL);

	assert_non_null(m);
	scenario(sink_model, m, 3, true);
	for (size_t i = 0; i < n; i++) {
		struct ft_coverage c;

		memset(&c, 0, sizeof(c));
		REC_HDR(c, FT_REC_COVERAGE);
		c.probe = (uint32_t)cov[i][0];
		c.known = (uint32_t)cov[i][1];
		c.hits = cov[i][2];
		c.runs = cov[i][3];
		assert_int_equal(model__add(m, &c.hdr), 0);
	}
	assert_int_equal(model__finish(m), 0);
	return m;
}

static void test_coverage(void **state)
{
	static const uint64_t skipped[][4] = {
		{ FT_PROBE_IFACE_TX, 1, 35945, 35909 },  /* 36 skipped */
		{ FT_PROBE_IFACE_RX, 1, 100, 103 },      /* edge jitter: clamped */
		{ FT_PROBE_DROP, 0, 0, 5 },              /* hits not counted */
	};
	static const uint64_t complete[][4] = {
		{ FT_PROBE_IFACE_TX, 1, 500, 500 },
		{ FT_PROBE_IFACE_RX, 1, 7, 9 },
	};
	struct model *m = coverage_model(skipped, 3);
	char *s;

	(void)state;
	s = render(m, false, false, 10);
	HAS(s, "!! WARNING: 4 events were lost");
	HAS(s, "!! WARNING: the kernel skipped 36 probe runs");
	HAS(s, "Lost events: 4 lost (net 3, tcp 1, user 0)");
	HAS(s, "  kernel skipped 36 of 35945 iface_tx probe runs (tracepoint hits the program did not see)");
	/* drop and iface_rx have no probe record here: named from the table all the same */
	HAS(s, "  drop probe coverage unknown (its tracepoint hits were not counted)");
	HAS(s, "  tracepoint hits/program runs: iface_tx 35945/35909, iface_rx 100/103");
	HAS(s, "  probe coverage: incomplete (36 probe runs skipped by the kernel");
	assert_null(strstr(s, "of 100 iface_rx"));
	/* the headline's Data line says what could not be counted (the drop probe's) */
	HAS(s, "kernel skipped 36 probe runs (counted); skipped runs NOT COUNTED for 1 probe;");
	free(s);
	s = render(m, true, true, 10);
	assert_true(json_valid(s));
	HAS(s, "\"total_lost\": 4");          /* skipped runs are not folded in */
	HAS(s, "\"skipped_runs\": 36");
	HAS(s, "\"coverage_status\": \"incomplete\"");
	HAS(s, "\"probe\": \"iface_tx\"");
	HAS(s, "\"hits\": 35945");
	HAS(s, "\"runs\": 35909");
	HAS(s, "\"skipped\": 36");
	HAS(s, "\"hits\": null");
	HAS(s, "the kernel skipped 36 probe runs");
	free(s);
	model__free(m);

	m = coverage_model(complete, 2);
	s = render(m, false, false, 10);
	HAS(s, "  probe coverage: complete (every tracepoint hit ran its program)");
	assert_null(strstr(s, "kernel skipped"));
	assert_null(strstr(s, "NOT COUNTED"));
	free(s);
	s = render(m, true, false, 10);
	assert_true(json_valid(s));
	HAS(s, "\"skipped_runs\":0");
	HAS(s, "\"coverage_status\":\"complete\"");
	free(s);
	model__free(m);

	m = coverage_model(NULL, 0);
	s = render(m, false, false, 10);
	HAS(s, "  probe coverage: unknown (the capture has no coverage counters)");
	free(s);
	s = render(m, true, false, 10);
	HAS(s, "\"coverage_status\":\"unknown\"");
	HAS(s, "\"coverage\":[]");
	free(s);
	model__free(m);
}

static void golden(const char *name, const char *got)
{
	char path[256];
	FILE *f;
	char *want;
	long n;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	const char *update = getenv("FT_UPDATE_GOLDEN");

	if (update && !strcmp(update, "1")) {
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(got, f);
		fclose(f);
		return;
	}
	f = fopen(path, "r");
	if (!f) {
		fail_msg("%s: %s (run from the repository root; FT_UPDATE_GOLDEN=1 creates it)", path,
			 strerror(errno));
		return;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	want = calloc(1, (size_t)n + 1);
	assert_non_null(want);
	assert_int_equal(fread(want, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	bool same = !strcmp(want, got);

	if (!same)
		fprintf(stderr, "---- %s differs; got:\n%s\n", path, got);
	free(want);
	if (!same)
		fail_msg("%s differs from the report (FT_UPDATE_GOLDEN=1 rewrites it)", path);
}

static void test_golden(void **state)
{
	struct model *m = small_model(3, true);
	char *s;

	(void)state;
	s = render(m, true, true, 10);
	golden("report_small.json", s);
	free(s);
	s = render(m, false, false, 10);
	golden("report_small.txt", s);
	free(s);
	model__free(m);
}

/*
 * Collective phases: two ranks (h1, h2) with a step marker around each of
 * three allreduces; allreduces 1 and 2 hit a full tbf queue on h2's uplink
 * (network-bound), allreduce 3 has rank 1 entering 40 ms late on a clean
 * network (rank-bound).  NCCL adds the enqueue-only note when ENQ is set.
 */
static struct model *phase_model(bool nccl)
{
	struct ft_file_header h = mkhdr();
	struct model *m = model__new(&h, NULL);
	const uint64_t world = 0x44000000;

	assert_non_null(m);
	rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
	rec_iface(m, NS2, 2, "eth0", "h2", 10000, 100000);
	rec_reason(m, 5, "QDISC_DROP");
	rec_slot(m, 1, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE, "allreduce");
	rec_slot(m, 2, FT_LIB_MARKER, FT_OP_STEP, FT_SLOT_MARKER, "step");
	if (nccl)
		rec_slot(m, 3, FT_LIB_NCCL, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE | FT_SLOT_ENQUEUE_ONLY, "allreduce");
	for (uint32_t r = 0; r < 2; r++) {
		rec_comm_info(m, 100 + r, world, (int32_t)r, 2, S0);
		rec_proc(m, 100 + r, 99, NS1 + r, FT_PROC_EXISTING, S0, "allreduce");
	}
	for (uint64_t s = 1; s <= 3; s++) {
		uint64_t t = S0 + s * 100 * MS;

		for (uint32_t r = 0; r < 2; r++) {
			uint64_t late = s == 3 && r == 1 ? 40 * MS : (uint64_t)r * 100000;

			rec_marker(m, 2, 100 + r, t - MS, 1, s, NULL);
			rec_call(m, 1, 100 + r, NS1 + r, t + late, t + 45 * MS, 262144, 4, world, s);
			rec_marker(m, 2, 100 + r, t + 50 * MS, 0, s, NULL);
		}
		rec_bin(m, 0, NS2, 2, FT_DIR_TX, t + 42 * MS, 12500, 9, 0);
		rec_bin(m, 0, NS1, 2, FT_DIR_RX, t + 42 * MS, 12500, 9, 0);
		if (s < 3) {
			/* #1, #2: h2's data leaves at its shaper's 100 Mbit/s for 40 ms, behind a queue */
			for (uint64_t b = 1; b <= 40; b++)
				rec_bin(m, 0, NS2, 2, FT_DIR_TX, t + b * MS, 12500, 9, 0);
			rec_qbin(m, 0, NS2, 2, 0x10000, t + 2 * MS, 30000, 20, 2000000, 20, 2500000, 20, 30000, 0);
			rec_drop(m, t + 3 * MS, NS2, 2, 5);
		}
	}
	if (nccl)
		rec_call(m, 3, 100, NS1, S0 + 450 * MS, S0 + 450 * MS + 20000, 1024, 4, 0x7f0000001000ull, 1);
	rec_end(m, S0 + 500 * MS);
	assert_int_equal(model__finish(m), 0);
	return m;
}

static void test_phase_sections(void **state)
{
	struct model *m = phase_model(false);
	char *s;

	(void)state;
	s = render(m, false, false, 10);
	HAS(s, "Collective phases (phase probes): 18 records, 2 ranks, 6 calls, 3 collective instances");
	HAS(s, "Collectives by op");
	HAS(s, "  allreduce          2    1.05 MB      3");
	HAS(s, "Ranks (wait");
	HAS(s, "    0        allreduce 3 (3.15 MB)");
	HAS(s, "Steps (marker API): 3");
	HAS(s, "\n  1             +0.099000    51.0 ms    51.0 ms     2\n      allreduce #1 comm 0x44000000: 45.0 ms, network\n");
	HAS(s, "Slowest collectives (by span): 3; verdicts: network 2, rank 1, unknown 0, ok 0");
	HAS(s, "network-bound: link eth0@h2 (tbf 1:): queueing 2.50 ms (backlog 30.0 kB, sojourn max 2.50 ms), "
	    "1 congestion drops (QDISC_DROP 1), peak 100 Mbit/s (1.0% of the line rate) on eth0@h2 tx; "
	    "39.9 ms of 45.0 ms (89%) the network's: shaper 100 Mbit/s on eth0@h2 (about 37.6 ms), queueing 2.50 ms "
	    "on eth0@h2 (tbf 1:), 1 congestion drops on eth0@h2; transfer 44.9 ms, 39.9 ms over its usual 5.00 ms; "
	    "entry skew 100 us");
	/* #3, the clean one, is its group's usual: the rank waited for, and nothing else */
	HAS(s, "rank-bound: rank 1 (pid 101, h2): 40.0 ms of 45.0 ms (89%) waiting for it; transfer 5.00 ms, at its usual; "
	    "network clean");
	/* the job's time budget: its shares sum to the time in collectives */
	HAS(s, "\nTime budget (where the time in collectives went; docs/verdicts.md):\n"
	    "  total                      135 ms\n"
	    "  waiting for ranks         40.2 ms  29.8%\n"
	    "    rank 1 (pid 101, h2)                        40.2 ms\n");
	assert_null(strstr(s, "Inferred phases"));
	assert_null(strstr(s, "NCCL calls mark enqueue"));
	HAS(s, "Lost events: 0 lost (net 0, tcp 0, user 0, phase 0)");
	free(s);

	s = render(m, true, true, 2);
	assert_true(json_valid(s));
	HAS(s, "\"source\": \"probes\"");
	HAS(s, "\"phase\": 0");
	/* per-rank counts and bytes per op */
	HAS(s, "\"ops\": [\n        {\n          \"op\": \"allreduce\",\n          \"name\": \"allreduce\",\n"
	       "          \"calls\": 3,\n          \"bytes\": 3145728,");
	/* the slowest two (top 2): network-bound, naming the link and the queue */
	HAS(s, "\"total\": 3,\n    \"shown\": 2");
	HAS(s, "\"verdict\": \"network\"");
	HAS(s, "\"link\": \"eth0@h2\",\n          \"qdisc\": \"tbf 1:\"");
	HAS(s, "\"why\": [\n          \"queue\",\n          \"drops\",\n          \"saturated\",\n          \"slow\"\n        ]");
	HAS(s, "\"reason\": \"QDISC_DROP\"");
	/* all instances, with the rank-bound one's straggler */
	HAS(s, "\"straggler_rank\": 1,\n        \"straggler_pid\": 101");
	HAS(s, "\"verdict\": \"rank\"");
	HAS(s, "\"times_last\": 3");
	/* steps with their collectives */
	HAS(s, "\"step\": 3,");
	HAS(s, "\"collectives\": [\n          {\n            \"id\": 2,\n            \"op\": \"allreduce\",\n            \"seq\": 3");
	HAS(s, "\"enabled\": false");
	free(s);
	/* one-line JSON stays valid and deterministic */
	s = render(m, true, false, 0);
	assert_true(json_valid(s));
	{
		char *s2 = render(m, true, false, 0);

		assert_string_equal(s, s2);
		free(s2);
	}
	free(s);
	model__free(m);

	/* NCCL: the note in every view */
	m = phase_model(true);
	s = render(m, false, false, 10);
	HAS(s, "!! NOTE: NCCL calls mark enqueue, not completion");
	HAS(s, "!! NCCL calls mark enqueue, not completion");
	HAS(s, "(enqueue only)");
	free(s);
	s = render(m, true, false, 10);
	assert_true(json_valid(s));
	HAS(s, "\"enqueue_only\":true");
	HAS(s, "\"warnings\":[\"NCCL calls mark enqueue, not completion");
	free(s);
	model__free(m);
}

/* --phases inferred on a capture with probes: inferred phases, compared with the real windows. */
static void test_phases_modes(void **state)
{
	struct model *m = phase_model(false);
	struct report_opts o = { .json = true, .top = 10, .path = "p.ftr", .phases = CORR_PHASES_INFERRED };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(report__write(f, m, &o), 0);
	fclose(f);
	assert_true(json_valid(buf));
	HAS(buf, "\"mode\":\"inferred\",\"source\":\"inferred\"");
	HAS(buf, "\"ranks\":[]");
	HAS(buf, "\"enabled\":true,\"label\":\"inferred\"");
	HAS(buf, "\"comparison\":{\"real_windows\":3,");
	free(buf);
	model__free(m);
}

/* ---- cmd_report end to end ---- */

static char tmpdir[64];

static void write_capture(const char *path, bool end)
{
	struct ft_file_header h = mkhdr();
	struct capture_writer *w = NULL;
	char err[256];

	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	scenario(sink_capture, w, 3, end);
	assert_int_equal(capture__close(w), 0);
}

/* Run cmd_report with stdout and stderr captured; returns the exit status. */
static int run(char **out, char **errout, int argc, ...)
{
	char *argv[16];
	char po[128], pe[128];
	va_list ap;
	int so, se, fo, fe, rc;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	snprintf(po, sizeof(po), "%s/out", tmpdir);
	snprintf(pe, sizeof(pe), "%s/err", tmpdir);
	fflush(stdout);
	fflush(stderr);
	so = dup(1);
	se = dup(2);
	fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	fe = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(so >= 0 && se >= 0 && fo >= 0 && fe >= 0);
	dup2(fo, 1);
	dup2(fe, 2);
	util_set_json(false);
	rc = cmd_report(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so); close(se); close(fo); close(fe);
	util_set_json(false);
	for (int k = 0; k < 2; k++) {
		char **dst = k ? errout : out;
		FILE *f = fopen(k ? pe : po, "r");
		long n;

		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		*dst = calloc(1, (size_t)n + 1);
		assert_non_null(*dst);
		if (n)
			assert_int_equal(fread(*dst, 1, (size_t)n, f), (size_t)n);
		fclose(f);
	}
	return rc;
}

static void test_cmd_report(void **state)
{
	char ok[128], tr[128], missing[128];
	char *o, *e;

	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ft_test_report.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(ok, sizeof(ok), "%s/ok.ftr", tmpdir);
	snprintf(tr, sizeof(tr), "%s/trunc.ftr", tmpdir);
	snprintf(missing, sizeof(missing), "%s/missing.ftr", tmpdir);
	write_capture(ok, true);
	write_capture(tr, false);

	assert_int_equal(run(&o, &e, 3, "report", "--json", ok), 0);
	assert_true(json_valid(o));
	HAS(o, "\"total_lost\":4");
	HAS(o, "\"state\":\"complete\"");
	free(o); free(e);

	assert_int_equal(run(&o, &e, 2, "report", ok), 0);
	HAS(o, "Lost events: 4 lost");
	HAS(o, "capture: complete");
	free(o); free(e);

	/* truncated: readable part + warning, exit 0 */
	assert_int_equal(run(&o, &e, 2, "report", tr), 0);
	HAS(o, "!! WARNING: capture truncated");
	HAS(e, "fabtrace: warning: report: ");
	free(o); free(e);
	assert_int_equal(run(&o, &e, 3, "report", "--json", tr), 0);
	assert_true(json_valid(o));
	HAS(o, "\"state\":\"truncated\"");
	free(o); free(e);

	/* corrupt: one error line naming the offset, exit 1; JSON stays JSON */
	{
		FILE *f = fopen(ok, "r+b");
		long sz;
		int c;

		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		sz = ftell(f);
		fseek(f, sz - 3, SEEK_SET);
		c = fgetc(f);
		fseek(f, sz - 3, SEEK_SET);
		fputc(c ^ 0x5a, f);
		fclose(f);
	}
	assert_int_equal(run(&o, &e, 2, "report", ok), 1);
	assert_string_equal(o, "");
	HAS(e, "fabtrace: report: ");
	HAS(e, "offset");
	assert_true(strchr(e, '\n') == e + strlen(e) - 1);
	free(o); free(e);
	assert_int_equal(run(&o, &e, 3, "report", "--json", ok), 1);
	assert_true(json_valid(o));
	HAS(o, "\"error\":");
	HAS(o, "offset");
	free(o); free(e);

	assert_int_equal(run(&o, &e, 2, "report", missing), 1);
	HAS(e, "fabtrace: report: ");
	HAS(e, "missing.ftr");
	free(o); free(e);

	/* usage errors */
	assert_int_equal(run(&o, &e, 1, "report"), 2);
	HAS(e, "no capture file given");
	free(o); free(e);
	assert_int_equal(run(&o, &e, 4, "report", "--threshold", "abc", tr), 2);
	HAS(e, "--threshold");
	free(o); free(e);
	assert_int_equal(run(&o, &e, 4, "report", "--json", "--bogus", tr), 2);
	assert_true(json_valid(o));
	free(o); free(e);
	assert_int_equal(run(&o, &e, 2, "report", "--help"), 0);
	HAS(o, "Examples:");
	free(o); free(e);

	/* phase options */
	assert_int_equal(run(&o, &e, 4, "report", "--phases", "bogus", tr), 2);
	HAS(e, "--phases 'bogus': not a mode; give auto, probes or inferred");
	free(o); free(e);
	assert_int_equal(run(&o, &e, 4, "report", "--skew", "0", tr), 2);
	HAS(e, "--skew");
	free(o); free(e);
	assert_int_equal(run(&o, &e, 4, "report", "--slow", "0.5", tr), 2);
	HAS(e, "--slow");
	free(o); free(e);
	assert_int_equal(run(&o, &e, 13, "report", "--json", "--phases", "probes", "--queue-delay", "2ms",
			     "--skew", "70", "--skew-min", "3ms", "--slow", "3", tr), 0);
	HAS(o, "\"mode\":\"probes\",\"source\":\"none\"");
	HAS(o, "\"queue_delay_ns\":2000000,\"util\":0.9000,\"skew_frac\":0.7000,\"skew_min_ns\":3000000,"
	    "\"slow_factor\":3.0000");
	HAS(o, "\"inferred_phases\":{\"enabled\":false");
	free(o); free(e);
	assert_int_equal(run(&o, &e, 5, "report", "--infer-gap", "5ms", "--json", tr), 0);
	HAS(o, "\"gap_ns\":5000000");
	free(o); free(e);

	/* options reach the model */
	assert_int_equal(run(&o, &e, 7, "report", "--json", "--threshold", "90", "--top", "1", tr), 0);
	HAS(o, "\"burst_threshold_util\":0.9000");
	HAS(o, "\"total\":1,\"shown\":1");
	free(o); free(e);

	unlink(ok);
	unlink(tr);
	snprintf(ok, sizeof(ok), "%s/out", tmpdir);
	unlink(ok);
	snprintf(ok, sizeof(ok), "%s/err", tmpdir);
	unlink(ok);
	rmdir(tmpdir);
}


static char *render_brief(const struct model *m, bool json)
{
	struct report_opts o = { .json = json, .brief = true, .top = 10, .path = "run.ftr" };

	return render_with(m, &o);
}

/* The answer first: verdicts, blame, worst collectives and data quality within 15 lines. */
static void test_headline(void **state)
{
	struct model *m = phase_model(false);
	char *s, *b, *blank;
	size_t lines = 0;

	(void)state;
	s = render(m, false, false, 10);
	blank = strstr(s, "\n\n");
	assert_non_null(blank);
	for (const char *p = s; p < blank; p++)
		lines += *p == '\n';
	assert_true(lines + 1 <= 15);
	/* the answer comes before any detail section */
	assert_true(strstr(s, "Answer: of 3 collectives, 2 network-bound, 1 rank-bound, 0 unknown, 0 ok") < blank);
	HAS(s, "\n  network-bound: 2 on link eth0@h2 (tbf 1:)\n");
	HAS(s, "\n  rank-bound:    1 by rank 1 (pid 101, h2)\n");
	HAS(s, "\nTime in collectives 135 ms: waiting 30% (rank 1 (pid 101, h2) 40.2 ms), usual 11%, network 59% "
	    "(eth0@h2 (tbf 1:) 79.8 ms), unexplained 0%\n");
	HAS(s, "NETWORK link eth0@h2 (tbf 1:): 39.9 ms of 45.0 ms (89%): shaper 100 Mbit/s, queueing 2.50 ms, 1 congestion drops");
	HAS(s, "RANK 40.0 ms of 45.0 ms (89%) waiting for rank 1 (pid 101, h2); transfer 5.00 ms");
	HAS(s, "Data: capture complete; no events lost");
	assert_true(strstr(s, "Worst collectives") < blank);
	assert_true(strstr(s, "\nCapture: small.ftr\n") > blank);

	/* --brief: the headline alone, byte for byte the same lines */
	b = render_brief(m, false);
	assert_null(strstr(b, "Capture:"));
	assert_null(strstr(b, "Interfaces"));
	assert_int_equal(strncmp(b + strlen("fabtrace report: run.ftr"), s + strlen("fabtrace report: small.ftr"),
				 (size_t)(blank - s) - strlen("fabtrace report: small.ftr")), 0);
	free(b);
	free(s);

	/* JSON: the same answer, structured */
	s = render(m, true, true, 10);
	assert_true(json_valid(s));
	HAS(s, "\"headline\": {");
	HAS(s, "\"conservation\": \"unchecked\"");
	HAS(s, "\"verdict\": \"network\",");
	HAS(s, "\"link\": \"eth0@h2\",");
	HAS(s, "\"queue\": \"tbf 1:\",");
	HAS(s, "\"verdict\": \"rank\",");
	HAS(s, "\"straggler_rank\": 1,");
	free(s);
	s = render_brief(m, true);
	assert_true(json_valid(s));
	HAS(s, "\"headline\":{\"lines\":[\"fabtrace report: run.ftr");
	assert_null(strstr(s, "\"interfaces\""));
	free(s);
	model__free(m);
}

/* The blame line names two places and counts the rest as ranks (or links), not "elsewhere". */
static void test_headline_other_ranks(void **state)
{
	struct ft_file_header h = mkhdr();
	struct model *m = model__new(&h, NULL);
	const uint64_t world = 0x44000000;
	char *s;

	(void)state;
	assert_non_null(m);
	rec_slot(m, 1, FT_LIB_MPI, FT_OP_ALLREDUCE, FT_SLOT_COLLECTIVE, "allreduce");
	for (uint32_t r = 0; r < 4; r++) {
		rec_iface(m, NS1 + r, 2, "eth0", "h", 10000, 0);
		rec_comm_info(m, 100 + r, world, (int32_t)r, 4, S0);
		rec_proc(m, 100 + r, 99, NS1 + r, FT_PROC_EXISTING, S0, "allreduce");
	}
	/* 12 all-reduces of 5 ms; rank 1 enters 40 ms late in #2 and #4, rank 2 in #6, rank 3 in #8 */
	for (uint64_t s2 = 1; s2 <= 12; s2++) {
		uint64_t t = S0 + s2 * 100 * MS;
		int late_rank = s2 == 2 || s2 == 4 ? 1 : s2 == 6 ? 2 : s2 == 8 ? 3 : -1;

		for (uint32_t r = 0; r < 4; r++)
			rec_call(m, 1, 100 + r, NS1 + r, t + ((int)r == late_rank ? 40 * MS : 0),
				 t + ((late_rank >= 0) ? 45 * MS : 5 * MS), 262144, 4, world, s2);
	}
	rec_end(m, S0 + 1400 * MS);
	assert_int_equal(model__finish(m), 0);
	s = render(m, false, false, 10);
	HAS(s, "\n  rank-bound:    2 by rank 1 (pid 101, ");
	HAS(s, ", 1 by other ranks\n");
	assert_null(strstr(s, "elsewhere"));
	free(s);
	model__free(m);
}

/* Without phases the headline names the network's worst: queue, drops, retransmits, busiest link. */
static void test_headline_network_only(void **state)
{
	struct model *m = small_model(3, true);
	char *s = render(m, false, false, 10);

	(void)state;
	HAS(s, "Answer: no collective phases in this capture (no phase probes: --no-phases, or no MPI");
	HAS(s, "  worst queue: tbf 1: on eth0@h1, sojourn up to 400 us, backlog up to 45.0 kB at +0.003000 s");
	HAS(s, "  drops: 2 congestion, 1 other; retransmits: 3 (rto 2, fast 1, tail-loss probes 0)");
	HAS(s, "Data: capture complete; 4 events LOST (ring buffer full); conservation MISMATCH on 1");
	free(s);
	model__free(m);

	/* phase probes on a library, but no call: not "turn them on" */
	{
		struct ft_file_header h = mkhdr();

		m = model__new(&h, NULL);
		assert_non_null(m);
		scenario(sink_model, m, 3, true);
		rec_slot(m, 0, FT_LIB_MPI, FT_OP_ALLREDUCE, 0, "Allreduce");
		assert_int_equal(model__finish(m), 0);
		s = render(m, false, false, 10);
		HAS(s, "Answer: no collective phases in this capture (the phase probes saw no collective call)");
		free(s);
		model__free(m);
	}
	/* --no-probes bins: no busiest link at "0 bit/s" */
	{
		struct ft_file_header h = mkhdr();

		h.probes &= ~((1ull << FT_PROBE_IFACE_TX) | (1ull << FT_PROBE_IFACE_RX));
		m = model__new(&h, NULL);
		assert_non_null(m);
		scenario(sink_model, m, 0, true);
		assert_int_equal(model__finish(m), 0);
		s = render(m, false, false, 10);
		HAS(s, "  busiest link: not known (interface bins not recorded: --no-probes bins)");
		free(s);
		model__free(m);
	}
	/* traffic only on a link of unknown capacity (lo), an idle one with a speed beside it */
	{
		struct ft_file_header h = mkhdr();

		m = model__new(&h, NULL);
		assert_non_null(m);
		rec_iface(m, NS1, 1, "lo", "h1", 0, 0);
		rec_iface(m, NS1, 2, "eth0", "h1", 10000, 0);
		for (uint64_t i = 0; i < 50; i++)
			rec_bin(m, 0, NS1, 1, FT_DIR_TX, S0 + i * BIN, 100000, 10, 0);
		assert_int_equal(model__finish(m), 0);
		s = render(m, false, false, 10);
		HAS(s, "  busiest link: lo@h1 tx at ");
		HAS(s, " sustained (its capacity is not known)");
		assert_null(strstr(s, "busiest link: none"));
		free(s);
		model__free(m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_validator_rejects),
		cmocka_unit_test(test_json_values),
		cmocka_unit_test(test_zero_lost_always_shown),
		cmocka_unit_test(test_text_values),
		cmocka_unit_test(test_truncated_banner),
		cmocka_unit_test(test_trigger),
		cmocka_unit_test(test_post_spans),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_phase_sections),
		cmocka_unit_test(test_phases_modes),
		cmocka_unit_test(test_cmd_report),
		cmocka_unit_test(test_headline),
		cmocka_unit_test(test_headline_network_only),
		cmocka_unit_test(test_headline_other_ranks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
