// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One name per network probe: the table (probes/probe_names.c) and the
 * readers that run without privileges, each given a capture that spells
 * the probes the old ways ("qdisc_enq", "retrans"): capture__probe_name(),
 * the model and the report's text and JSON, `info --json` on a capture
 * file, top's OpenMetrics labels, and the names --no-probes accepts.
 * `features --json`, `top --json` and `info`/`report` on a real capture:
 * tests/integration/test_probe_names.sh.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "probes/netprobe.h"
#include "probes/probe_names.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/probe_name.h"
#include "userspace/cli/commands.h"
#include "userspace/live/live.h"
#include "userspace/live/metrics.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"
#include "tests/unit/records.h"

#define TMPDIR_NAME "probe-names"
#include "tests/unit/tmpdir.h"

#define S0 1000000000000ull
#define BIN 100000ull
#define UNKNOWN_ID 40u   /* a probe of a newer fabtrace */

/* Other spellings, by id: info's and synthcap's old copies (qdisc_enq,
 * qdisc_deq, retrans), and made-up ones for the rest; what a capture of an
 * old synthcap holds, and what no output may print any more. */
static const char *const stale[FT_PROBE_MAX] = {
	[FT_PROBE_IFACE_TX] = "if_tx", [FT_PROBE_IFACE_RX] = "if_rx",
	[FT_PROBE_QDISC_ENQ] = "qdisc_enq", [FT_PROBE_QDISC_DEQ] = "qdisc_deq",
	[FT_PROBE_DROP] = "skb_drop", [FT_PROBE_RETRANS] = "retrans",
	[FT_PROBE_CONG_STATE] = "cong_st", [FT_PROBE_TCP_SAMPLE] = "tcp_smpl",
};

/* A probe record of ID with NAME, as a recorder writes it. */
static struct ft_probe_info probe_rec(uint32_t id, const char *name)
{
	struct ft_probe_info pi;

	REC_HDR(pi, FT_REC_PROBE);
	pi.id = id;
	pi.attached = 1;
	snprintf(pi.name, sizeof(pi.name), "%s", name);
	snprintf(pi.hook, sizeof(pi.hook), "tp_btf/test");
	return pi;
}

/* Whether S holds `"KEY": "NAME"` or `"KEY":"NAME"` (pretty or not). */
static bool has_kv(const char *s, const char *key, const char *name)
{
	char a[96], b[96];

	snprintf(a, sizeof(a), "\"%s\": \"%s\"", key, name);
	snprintf(b, sizeof(b), "\"%s\":\"%s\"", key, name);
	return strstr(s, a) || strstr(s, b);
}

static void test_table(void **state)
{
	(void)state;
	for (uint32_t id = 0; id < FT_PROBE_MAX; id++) {
		const char *n = probe__name(id);

		assert_non_null(n);
		assert_true(n[0] != '\0');
		/* it must fit the capture's probe record, NUL included */
		assert_true(strlen(n) < sizeof(((struct ft_probe_info *)0)->name));
		for (const char *c = n; *c; c++)
			assert_true(islower((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_');
		assert_int_equal(probe__id(n), (int)id);
		for (uint32_t k = 0; k < id; k++)
			assert_string_not_equal(probe__name(k), n);
		assert_int_equal(probe__id(stale[id]), -1);
	}
	assert_null(probe__name(FT_PROBE_MAX));
	assert_int_equal(probe__id(""), -1);
	/* the spelling that won: netprobe's, as features, top and every capture say */
	assert_string_equal(probe__name(FT_PROBE_QDISC_ENQ), "qdisc_enqueue");
	assert_string_equal(probe__name(FT_PROBE_RETRANS), "retransmit");
}

static void test_capture_name(void **state)
{
	char nb[32], tiny[6];

	(void)state;
	for (uint32_t id = 0; id < FT_PROBE_MAX; id++) {
		assert_string_equal(capture__probe_name(id, stale[id], nb, sizeof(nb)), probe__name(id));
		assert_string_equal(capture__probe_name(id, NULL, nb, sizeof(nb)), probe__name(id));
	}
	/* an id this build does not know: the capture's own name, else a generic one */
	assert_string_equal(capture__probe_name(UNKNOWN_ID, "newprobe", nb, sizeof(nb)), "newprobe");
	assert_string_equal(capture__probe_name(UNKNOWN_ID, "", nb, sizeof(nb)), "probe 40");
	assert_string_equal(capture__probe_name(UNKNOWN_ID, NULL, nb, sizeof(nb)), "probe 40");
	assert_string_equal(capture__probe_name(UNKNOWN_ID, "newprobe", tiny, sizeof(tiny)), "newpr");
}

/* --no-probes takes the table's names, one bit each, and no other spelling. */
static void test_no_probes_names(void **state)
{
	uint64_t mask;

	(void)state;
	for (uint32_t id = 0; id < FT_PROBE_MAX; id++) {
		assert_int_equal(netprobe__parse_families(probe__name(id), &mask), 0);
		assert_int_equal(mask, 1ull << id);
		assert_int_equal(netprobe__parse_families(stale[id], &mask), -EINVAL);
	}
}

/* A model of a capture whose probe records use the stale names, plus one unknown probe. */
static struct model *stale_model(void)
{
	struct ft_file_header h = rec_file_header(S0, BIN);
	struct model *m = model__new(&h, NULL);
	struct ft_probe_info pi;

	assert_non_null(m);
	for (uint32_t id = 0; id < FT_PROBE_MAX; id++) {
		pi = probe_rec(id, stale[id]);
		rec_add(m, pi);
	}
	pi = probe_rec(UNKNOWN_ID, "newprobe");
	rec_add(m, pi);
	rec_end(m, S0 + 10 * BIN);
	assert_int_equal(model__finish(m), 0);
	return m;
}

static char *render_report(const struct model *m, bool json)
{
	struct report_opts o = { .json = json, .top = 10, .path = "names.ftr" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report__write(f, m, &o), 0);
	fclose(f);
	return buf;
}

static void test_model_and_report(void **state)
{
	struct model *m = stale_model();
	char nb[32], line[512] = "  probes:", *json = render_report(m, true), *text = render_report(m, false);

	(void)state;
	for (uint32_t id = 0; id < FT_PROBE_MAX; id++) {
		assert_string_equal(model__probe_name(m, id, nb, sizeof(nb)), probe__name(id));
		if (!has_kv(json, "name", probe__name(id)))
			fail_msg("report --json: no probe named %s", probe__name(id));
		assert_false(has_kv(json, "name", stale[id]));
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " %s", probe__name(id));
	}
	/* the text report's line of attached probes, in id order */
	snprintf(line + strlen(line), sizeof(line) - strlen(line), " newprobe\n");
	if (!strstr(text, line))
		fail_msg("report: no line '%s'", line);
	assert_string_equal(model__probe_name(m, UNKNOWN_ID, nb, sizeof(nb)), "newprobe");
	assert_true(has_kv(json, "name", "newprobe"));
	free(json);
	free(text);
	model__free(m);
}

/* `fabtrace info --json PATH`, its stdout as a string. */
static char *run_info(const char *path)
{
	char *argv[] = { "info", "--json", (char *)path, NULL };
	const char *out = tpath("info.json");
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved;
	char *buf;
	long n;
	FILE *f;

	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, STDOUT_FILENO), STDOUT_FILENO);
	close(fd);
	assert_int_equal(cmd_info(3, argv), 0);
	fflush(stdout);
	assert_int_equal(dup2(saved, STDOUT_FILENO), STDOUT_FILENO);
	close(saved);
	f = fopen(out, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

/* A capture file with stale probe records and a coverage record per probe. */
static void write_capture(const char *path, bool probe_records)
{
	struct ft_file_header h = rec_file_header(S0, BIN);
	struct capture_writer *w;
	struct ft_end end;
	char err[CAPTURE_ERR_MAX];

	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	for (uint32_t id = 0; id < FT_PROBE_MAX; id++) {
		struct ft_probe_info pi = probe_rec(id, stale[id]);
		struct ft_coverage c;

		if (probe_records)
			assert_int_equal(capture__append(w, &pi), 0);
		REC_HDR(c, FT_REC_COVERAGE);
		c.probe = id;
		c.known = 1;
		c.hits = c.runs = 10;
		assert_int_equal(capture__append(w, &c), 0);
	}
	REC_HDR(end, FT_REC_END);
	end.ts_ns = S0 + 10 * BIN;
	assert_int_equal(capture__append(w, &end), 0);
	assert_int_equal(capture__close(w), 0);
}

static void test_info(void **state)
{
	(void)state;
	for (int with_records = 0; with_records < 2; with_records++) {
		const char *path = tpath(with_records ? "records.ftr" : "bitmap.ftr");
		char *s;

		write_capture(path, with_records);
		s = run_info(path);
		for (uint32_t id = 0; id < FT_PROBE_MAX; id++) {
			/* the probes list, from the records or else from the header's bitmap */
			if (!has_kv(s, "name", probe__name(id)))
				fail_msg("info --json (%s): no probe named %s", path, probe__name(id));
			/* the coverage list */
			if (!has_kv(s, "probe", probe__name(id)))
				fail_msg("info --json (%s): no coverage of %s", path, probe__name(id));
			assert_false(has_kv(s, "name", stale[id]));
			assert_false(has_kv(s, "probe", stale[id]));
		}
		free(s);
	}
}

/* top --listen: the probe label of fabtrace_probe_skipped_runs. */
static void test_metrics_labels(void **state)
{
	struct live_opts o;
	struct live *l;
	uint64_t skipped[FT_PROBE_MAX];
	bool known[FT_PROBE_MAX];
	struct metrics_info mi = { .hostname = "h", .refresh_s = 1, .format = METRICS_TEXT };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	live_opts__init(&o, BIN);
	l = live__new(&o, S0);
	assert_non_null(l);
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		skipped[i] = (uint64_t)i + 1;
		known[i] = true;
	}
	live__set_skipped(l, skipped, known);
	live__tick(l, S0 + 1000000000ull);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(metrics__render(l, &mi, f), 0);
	fclose(f);
	for (uint32_t id = 0; id < FT_PROBE_MAX; id++) {
		char want[96];

		snprintf(want, sizeof(want), "fabtrace_probe_skipped_runs_total{probe=\"%s\"} %u\n",
			 probe__name(id), (unsigned)id + 1);
		if (!strstr(buf, want))
			fail_msg("metrics: missing %s", want);
	}
	free(buf);
	live__free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_capture_name),
		cmocka_unit_test(test_no_probes_names),
		cmocka_unit_test(test_model_and_report),
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_metrics_labels),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
