// SPDX-License-Identifier: GPL-2.0-or-later
/* The flight recorder's summaries (userspace/history/): a line written and read
 * back, bad lines refused, day files appended whole and deleted by age. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "userspace/history/history.h"

#define DAY 86400ll
#define T0 1764547200ll /* 2025-12-01T00:00:00Z */

static struct hist_line sample(void)
{
	struct hist_line l;

	memset(&l, 0, sizeof(l));
	l.wall_ns = T0 * 1000000000ll + 123456789;
	strcpy(l.op, "allreduce");
	l.seq = 42;
	strcpy(l.comm, "0x44000000");
	l.size_bytes = 1 << 20;
	l.nranks = 4;
	l.members = 3;
	l.partial = true;
	l.span_ns = 267000000;
	strcpy(l.verdict, "rank");
	l.total_ns = 267000000;
	l.waiting_ns = 151000000;
	l.waiting_rank = 2;
	l.usual_ns = 76000000;
	l.network_ns = 40000000;
	strcpy(l.link, "eth0@\"h2\"");
	strcpy(l.why, "retransmits,straggler,slow");
	strcpy(l.seg, "seg-00000042-20251201T000000Z.ftr");
	l.start_rel_ns = -5;
	return l;
}

static void line_round_trip(void **state)
{
	struct hist_line l = sample(), r;
	char buf[HIST_LINE_MAX];
	int n = hist_line__format(&l, buf, sizeof(buf));

	(void)state;
	assert_true(n > 0);
	assert_int_equal(buf[n - 1], '\n');
	assert_ptr_equal(strchr(buf, '\n'), buf + n - 1); /* one line */
	assert_int_equal(hist_line__parse(buf, &r), 0);
	assert_int_equal(r.wall_ns, l.wall_ns);
	assert_string_equal(r.op, "allreduce");
	assert_int_equal(r.seq, 42);
	assert_true(r.partial);
	assert_false(r.open);
	assert_string_equal(r.verdict, "rank");
	assert_int_equal(r.waiting_ns, 151000000);
	assert_int_equal(r.waiting_rank, 2);
	assert_int_equal(r.usual_ns, 76000000);
	assert_int_equal(r.network_ns, 40000000);
	assert_string_equal(r.link, "eth0@\"h2\"");
	assert_string_equal(r.why, "retransmits,straggler,slow");
	assert_string_equal(r.seg, l.seg);
	assert_int_equal(r.start_rel_ns, -5);
	/* no waiting rank, no link: null, read back as none */
	l.waiting_rank = -1;
	l.link[0] = 0;
	l.why[0] = 0;
	assert_true(hist_line__format(&l, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "\"waiting_rank\":null"));
	assert_int_equal(hist_line__parse(buf, &r), 0);
	assert_int_equal(r.waiting_rank, -1);
	assert_string_equal(r.link, "");
	assert_string_equal(r.why, "");
	/* too small a buffer: refused, not cut */
	assert_int_equal(hist_line__format(&l, buf, 40), -1);
}

static void line_bad(void **state)
{
	struct hist_line l = sample(), r;
	char buf[HIST_LINE_MAX];
	int n = hist_line__format(&l, buf, sizeof(buf));

	(void)state;
	assert_int_equal(hist_line__parse("", &r), -1);
	assert_int_equal(hist_line__parse("not json", &r), -1);
	assert_int_equal(hist_line__parse("{\"wall_ns\": 1, \"op\": tru", &r), -1);
	assert_int_equal(hist_line__parse("{\"wall_ns\": 1}", &r), -1); /* required fields missing */
	buf[n / 2] = 0; /* cut short by a crash */
	assert_int_equal(hist_line__parse(buf, &r), -1);
	hist_line__format(&l, buf, sizeof(buf));
	*strstr(buf, "\"seq\":42") = 'x';
	assert_int_equal(hist_line__parse(buf, &r), -1);
	hist_line__format(&l, buf, sizeof(buf));
	memcpy(strstr(buf, "\"seq\":42"), "\"seq\":-4", 8); /* a negative count */
	assert_int_equal(hist_line__parse(buf, &r), -1);
	/* an unknown key is skipped (a later writer's field) */
	assert_int_equal(hist_line__parse("{\"x\":1.5,\"wall_ns\":1,\"op\":\"a\",\"seq\":1,\"verdict\":\"ok\","
					  "\"total_ns\":1,\"waiting_ns\":0,\"usual_ns\":1,\"network_ns\":0,"
					  "\"unexplained_ns\":0,\"new\":\"y\"}\n", &r), 0);
}

static void day_files(void **state)
{
	char name[64];

	(void)state;
	hist_store__day_name(T0 * 1000000000ll, name, sizeof(name));
	assert_string_equal(name, "2025-12-01.jsonl");
	hist_store__day_name((T0 + DAY - 1) * 1000000000ll, name, sizeof(name));
	assert_string_equal(name, "2025-12-01.jsonl");
	hist_store__day_name((T0 + DAY) * 1000000000ll, name, sizeof(name));
	assert_string_equal(name, "2025-12-02.jsonl");
	/* kept 7 days: the day ending at now - 7d goes, the next one stays */
	assert_true(hist_store__expired("2025-12-01.jsonl", T0 + 8 * DAY, 7 * DAY));
	assert_false(hist_store__expired("2025-12-01.jsonl", T0 + 8 * DAY - 1, 7 * DAY));
	assert_false(hist_store__expired("2025-12-02.jsonl", T0 + 8 * DAY, 7 * DAY));
	assert_false(hist_store__expired("2025-12-01.jsonl", T0 + 800 * DAY, 0)); /* no bound */
	assert_false(hist_store__expired("notes.txt", T0 + 800 * DAY, DAY));
	assert_false(hist_store__expired("2025-13-01.jsonl", T0 + 800 * DAY, DAY));
	assert_false(hist_store__expired("2025-12-01.jsonl.bak", T0 + 800 * DAY, DAY));
}

static void append_and_retain(void **state)
{
	char dir[] = "/tmp/ft-hist-XXXXXX", err[256], text[3 * HIST_LINE_MAX], p[256], line[HIST_LINE_MAX];
	struct hist_line l = sample(), r;
	size_t off[3], k = 0;
	int64_t wall[3];
	FILE *f;
	int n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(hist_store__mkdir(dir, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++) { /* two on Dec 1, one on Dec 2 */
		l.wall_ns = (T0 + (i == 2 ? DAY : (int64_t)i * 60)) * 1000000000ll;
		l.seq = (uint64_t)i;
		off[i] = k;
		wall[i] = l.wall_ns;
		k += (size_t)hist_line__format(&l, text + k, sizeof(text) - k);
	}
	assert_int_equal(hist_store__append(dir, text, off, wall, 3, err, sizeof(err)), 0);
	assert_int_equal(hist_store__append(dir, text, off, wall, 1, err, sizeof(err)), 0); /* appends */
	snprintf(p, sizeof(p), "%s/summaries/2025-12-01.jsonl", dir);
	f = fopen(p, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		assert_int_equal(hist_line__parse(line, &r), 0);
		assert_int_equal(r.seq, (uint64_t)(n < 2 ? n : 0));
		n++;
	}
	fclose(f);
	assert_int_equal(n, 3);
	assert_int_equal(hist_store__retain(dir, T0 + 8 * DAY, 7 * DAY), 1); /* Dec 1 only */
	assert_int_equal(access(p, F_OK), -1);
	snprintf(p, sizeof(p), "%s/summaries/2025-12-02.jsonl", dir);
	assert_int_equal(access(p, F_OK), 0);
	assert_int_equal(hist_store__retain(dir, T0 + 9 * DAY, 7 * DAY), 1);
	assert_int_equal(unlink(p), -1);
	snprintf(p, sizeof(p), "%s/summaries", dir);
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* A day file that is a FIFO is skipped, not waited on forever; a line dated before 1970 (damaged)
 * is skipped, not put in a bucket by an overflowing subtraction. */
static void read_odd_files(void **state)
{
	char dir[64] = "/tmp/ft-test-hist-odd.XXXXXX", p[128], buf[4096], *out = NULL;
	struct hist_read_opts o = { .bucket_ns = 3600ull * 1000000000ull, .top = 10 };
	struct hist_line l = sample();
	size_t outlen = 0;
	FILE *f, *mem;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(p, sizeof(p), "%s/summaries", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/summaries/2025-12-01.jsonl", dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	snprintf(p, sizeof(p), "%s/summaries/2025-12-02.jsonl", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	assert_true(hist_line__format(&l, buf, sizeof(buf)) > 0);
	fputs(buf, f);
	l.wall_ns = INT64_MIN;
	assert_true(hist_line__format(&l, buf, sizeof(buf)) > 0);
	fputs(buf, f);
	fclose(f);
	mem = open_memstream(&out, &outlen);
	assert_non_null(mem);
	alarm(20); /* a reader blocked on the FIFO fails the test instead of hanging it */
	assert_int_equal(hist__read(dir, &o, mem), 0);
	alarm(0);
	fclose(mem);
	assert_non_null(strstr(out, "allreduce"));
	assert_null(strstr(out, "1677-")); /* INT64_MIN's date */
	assert_null(strstr(out, "2262-"));
	free(out);
	snprintf(buf, sizeof(buf), "rm -rf '%s'", dir);
	assert_int_equal(system(buf), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(line_round_trip),
		cmocka_unit_test(line_bad),
		cmocka_unit_test(day_files),
		cmocka_unit_test(append_and_retain),
		cmocka_unit_test(read_odd_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
