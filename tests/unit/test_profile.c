// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe profiles (record --profile, probes/netprobe_profile.c): their
 * names, what the always profile leaves out, which variants each profile
 * may use (the transmit bins' tcx egress program is the always profile's
 * alone, and needs -i), and what the readers say about a capture of the
 * always profile: the report's queue section and headline say sojourn was
 * not recorded (never "none" or 0), the JSON names the profile.  The lab
 * side (what a recording attaches): tests/integration/test_profile_always.sh.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probes/netprobe.h"
#include "probes/netprobe_priv.h"
#include "probes/probe_names.h"
#include "userspace/capture/probe_name.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"
#include "tests/unit/records.h"

#define S0 1000000000000ull
#define BIN 100000ull

static void test_names(void **state)
{
	(void)state;
	for (int p = 0; p < NP_PROFILE_N; p++)
		assert_int_equal(netprobe__profile_parse(netprobe__profile_name(p)), p);
	assert_int_equal(netprobe__profile_parse("full"), NP_PROFILE_FULL);
	assert_int_equal(netprobe__profile_parse("always"), NP_PROFILE_ALWAYS);
	assert_int_equal(netprobe__profile_parse("Always"), -1);
	assert_int_equal(netprobe__profile_parse(""), -1);
	assert_int_equal(netprobe__profile_parse(NULL), -1);
	assert_null(netprobe__profile_name(NP_PROFILE_N));
	assert_null(netprobe__profile_name(-1));
}

static void test_skip(void **state)
{
	uint64_t a = netprobe__profile_skip(NP_PROFILE_ALWAYS);

	(void)state;
	assert_int_equal(netprobe__profile_skip(NP_PROFILE_FULL), 0);
	assert_int_equal(netprobe__profile_skip(NP_PROFILE_N), 0);
	/* left out: the per-packet probes that are not the bins */
	assert_true(a & (1ull << FT_PROBE_QDISC_ENQ));
	assert_true(a & (1ull << FT_PROBE_QDISC_DEQ));
	assert_true(a & (1ull << FT_PROBE_TCP_SAMPLE));
	/* kept: bins, drops with reasons, retransmits, and the congestion-state
	 * changes (per change, and the verdict needs them) */
	assert_false(a & (1ull << FT_PROBE_CONG_STATE));
	assert_false(a & (1ull << FT_PROBE_IFACE_TX));
	assert_false(a & (1ull << FT_PROBE_IFACE_RX));
	assert_false(a & (1ull << FT_PROBE_DROP));
	assert_false(a & (1ull << FT_PROBE_RETRANS));
	assert_true(netprobe__profile_owners(NP_PROFILE_FULL));
	assert_false(netprobe__profile_owners(NP_PROFILE_ALWAYS));
	/* counters every 10 ms for a recording someone started, 100 ms left running */
	assert_true(netprobe__profile_counter_period_ns(NP_PROFILE_FULL) == 10000000ull);
	assert_true(netprobe__profile_counter_period_ns(NP_PROFILE_ALWAYS) == 100000000ull);
	assert_true(netprobe__profile_counter_period_ns(NP_PROFILE_N) == 10000000ull);
	/* the rings drained every 20 ms, and every 100 ms left running */
	assert_int_equal(netprobe__profile_drain_ms(NP_PROFILE_FULL), 20);
	assert_int_equal(netprobe__profile_drain_ms(NP_PROFILE_ALWAYS), 100);
	assert_int_equal(netprobe__profile_drain_ms(-1), 20);
}

/* The first variant of hook H allowed, as the recorder's fast path picks it. */
static const char *first_kind(const struct netp_hook *h, bool tcx)
{
	for (int v = 0; v < 3; v++)
		if (netp_variant_allowed(h, v, tcx))
			return h->kinds[v];
	return NULL;
}

static void test_variants(void **state)
{
	const struct netp_hook *tx = &netp_hooks[FT_PROBE_IFACE_TX], *rx = &netp_hooks[FT_PROBE_IFACE_RX],
			       *rtt = &netp_hooks[FT_PROBE_TCP_SAMPLE];

	(void)state;
	assert_int_equal(tx->id, FT_PROBE_IFACE_TX);
	assert_int_equal(rx->id, FT_PROBE_IFACE_RX);
	assert_int_equal(rtt->id, FT_PROBE_TCP_SAMPLE);
	/* transmit bins and RTT samples: tcx egress where allowed (-i), else the tracepoint */
	assert_string_equal(first_kind(tx, true), "tcx");
	assert_true(netp_hook_egress(tx));
	assert_string_equal(first_kind(tx, false), "tp_btf");
	assert_string_equal(first_kind(rtt, true), "tcx");
	assert_true(netp_hook_egress(rtt));
	assert_string_equal(first_kind(rtt, false), "tp_btf");
	/* receive bins: tcx ingress */
	assert_string_equal(first_kind(rx, true), "tcx");
	assert_false(netp_hook_egress(rx));
	assert_string_equal(first_kind(rx, false), "tp_btf");
	/* the others have no tcx variant */
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if (i != FT_PROBE_IFACE_TX && i != FT_PROBE_IFACE_RX && i != FT_PROBE_TCP_SAMPLE) {
			assert_string_equal(first_kind(&netp_hooks[i], true), first_kind(&netp_hooks[i], false));
			assert_false(netp_hook_egress(&netp_hooks[i]));
		}
	assert_false(netp_variant_allowed(tx, 3, true));
	assert_false(netp_variant_allowed(tx, -1, true));
}

/* A model of a capture with PROBES attached and header FLAGS, no queue bins. */
static struct model *capture_model(uint64_t probes, uint32_t flags)
{
	struct ft_file_header h = rec_file_header(S0, BIN);
	struct model *m;

	h.probes = probes;
	h.flags = flags;
	m = model__new(&h, NULL);
	assert_non_null(m);
	rec_end(m, S0 + 10 * BIN);
	assert_int_equal(model__finish(m), 0);
	return m;
}

static char *render(const struct model *m, bool json)
{
	struct report_opts o = { .json = json, .top = 10, .path = "profile.ftr" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__write(f, m, &o), 0);
	fclose(f);
	return buf;
}

/* Whether JSON holds `"KEY": VALUE` or `"KEY":VALUE` (VALUE as written: "\"always\"", "false"). */
static bool has_kv(const char *json, const char *key, const char *value)
{
	char a[96], b[96];

	snprintf(a, sizeof(a), "\"%s\": %s", key, value);
	snprintf(b, sizeof(b), "\"%s\":%s", key, value);
	return strstr(json, a) || strstr(json, b);
}

static void test_report(void **state)
{
	uint64_t all = (1ull << FT_PROBE_MAX) - 1, always = all & ~netprobe__profile_skip(NP_PROFILE_ALWAYS);
	struct model *ma = capture_model(always, FT_FILE_PROFILE_ALWAYS), *mf = capture_model(all, 0);
	char *ta = render(ma, false), *ja = render(ma, true), *tf = render(mf, false), *jf = render(mf, true);

	(void)state;
	assert_string_equal(capture__profile(&ma->hdr), "always");
	assert_string_equal(capture__profile(&mf->hdr), "full");
	assert_non_null(capture__queues_missing(&ma->hdr));
	assert_null(capture__queues_missing(&mf->hdr));
	/* always: not recorded, never "none" */
	if (!strstr(ta, "\nQueues\n  not recorded: the always profile (--profile always) leaves out the qdisc probes"))
		fail_msg("always: no 'not recorded' queue section in:\n%s", ta);
	assert_non_null(strstr(ta, "queueing not recorded (the always profile"));
	assert_null(strstr(ta, "no queueing seen"));
	assert_non_null(strstr(ta, "  profile: always ("));
	/* the header names what the profile keeps: congestion states among them */
	assert_non_null(strstr(ta, "retransmits, congestion states, CE"));
	assert_null(strstr(ta, "or congestion states"));
	/* the congestion-state changes were traced: none, not "not recorded" */
	assert_non_null(strstr(ta, "\nCongestion state changes: 0\n"));
	assert_null(strstr(ta, "the cong_state probe was not attached"));
	assert_true(has_kv(ja, "profile", "\"always\""));
	assert_true(has_kv(ja, "queues_recorded", "false"));
	/* full, idle: the queues were traced and none waited */
	assert_non_null(strstr(tf, "\nQueues\n  none\n"));
	assert_non_null(strstr(tf, "no queueing seen"));
	assert_null(strstr(tf, "not recorded"));
	assert_null(strstr(tf, "profile: always"));
	assert_true(has_kv(jf, "profile", "\"full\""));
	assert_true(has_kv(jf, "queues_recorded", "true"));
	free(ta);
	free(ja);
	free(tf);
	free(jf);
	model__free(ma);
	model__free(mf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
