// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for the capture writer and reader (userspace/capture/capture_write.c,
 * capture_read.c) and the record types' table and visitor (records.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <cmocka.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/probe_coverage.h"
#include "userspace/capture/records.h"

#define TMPDIR_NAME "capture"
#include "tests/unit/tmpdir.h"

static void make_header(struct ft_file_header *h)
{
	memset(h, 0, sizeof(*h));
	h->start_mono_ns = 1000000000ull;
	h->realtime_offset_ns = 1700000000ll * 1000000000ll;
	h->boottime_offset_ns = 12345;
	h->bin_ns = 20000;
	h->probes = 0x1f;
	h->ncpus = 2;
	h->flags = 0;
	strcpy(h->hostname, "testhost");
	strcpy(h->kernel, "6.1.0-test");
	strcpy(h->tool_version, "0.1.0");
	strcpy(h->command, "fabtrace record -i lab1/veth0 -d 1s");
}

static const uint16_t known_types[] = {
	FT_REC_IFACE_BIN, FT_REC_QDISC_BIN, FT_REC_DROP, FT_REC_RETRANS,
	FT_REC_CONG_STATE, FT_REC_TCP_SAMPLE, FT_REC_IFACE, FT_REC_IFACE_STATS,
	FT_REC_CE_FLOW, FT_REC_LOST, FT_REC_DROP_REASON, FT_REC_PROBE,
};
#define NKNOWN (sizeof(known_types) / sizeof(known_types[0]))

/* Deterministic pseudo-random record number i (any known type but END). */
static size_t gen_record(uint64_t i, uint8_t *buf)
{
	uint16_t type = known_types[i % NKNOWN];
	size_t size = capture__rec_size(type);
	struct ft_rec_hdr h = { .type = type, .size = (uint16_t)size, .cpu = (uint32_t)(i % 7) };
	uint64_t x = i * 0x9e3779b97f4a7c15ull + 1;

	assert_true(size >= sizeof(h));
	for (size_t k = sizeof(h); k < size; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* half compressible, half noise */
		buf[k] = (k & 1) ? (uint8_t)x : (uint8_t)i;
	}
	memcpy(buf, &h, sizeof(h));
	return size;
}

static void append_end(struct capture_writer *w, uint64_t records)
{
	struct ft_end e;

	memset(&e, 0, sizeof(e));
	e.hdr.type = FT_REC_END;
	e.hdr.size = sizeof(e);
	e.ts_ns = 2000000000ull;
	e.records = records;
	e.stop_reason = FT_STOP_DURATION;
	assert_int_equal(capture__append(w, &e), 0);
}

/* Write `n` generated records plus END to path. */
/* N generated records and END, in format VERSION (0: the current one) */
static void write_capture_version(const char *path, uint64_t n, uint32_t version)
{
	struct capture_writer *w;
	struct ft_file_header h;
	uint8_t buf[256];
	char err[256];

	make_header(&h);
	h.version = version;
	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	for (uint64_t i = 0; i < n; i++) {
		gen_record(i, buf);
		assert_int_equal(capture__append(w, buf), 0);
	}
	append_end(w, n);
	assert_int_equal(capture__close(w), 0);
}

static void write_capture(const char *path, uint64_t n)
{
	write_capture_version(path, n, 0);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc((size_t)n + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void spit(const char *path, const void *data, size_t len)
{
	FILE *f;

	unlink(path);
	f = fopen(path, "wb");
	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* Block boundaries found by an independent walk of the framing. */
struct layout {
	size_t nblocks;
	size_t off[64];      /* block start */
	size_t end[64];      /* block end */
	uint32_t nrec[64];
};

static void walk_layout(const uint8_t *p, size_t len, struct layout *l)
{
	size_t off = sizeof(struct ft_file_header);

	memset(l, 0, sizeof(*l));
	while (off + sizeof(struct ft_block_header) <= len) {
		struct ft_block_header bh;

		memcpy(&bh, p + off, sizeof(bh));
		assert_int_equal(bh.magic, FT_BLOCK_MAGIC);
		assert_true(l->nblocks < 64);
		l->off[l->nblocks] = off;
		off += sizeof(bh) + bh.clen;
		l->end[l->nblocks] = off;
		l->nrec[l->nblocks] = bh.nrec;
		l->nblocks++;
	}
	assert_int_equal(off, len);
}

/* ------------------------------------------------------------------ */

static void test_rec_table(void **state)
{
	(void)state;
	assert_int_equal(capture__rec_size(FT_REC_IFACE_BIN), sizeof(struct ft_iface_bin));
	assert_int_equal(capture__rec_size(FT_REC_PROBE), sizeof(struct ft_probe_info));
	assert_int_equal(capture__rec_size(FT_REC_END), sizeof(struct ft_end));
	assert_int_equal(capture__rec_size(FT_REC_COVERAGE), sizeof(struct ft_coverage));
	assert_int_equal(sizeof(struct ft_coverage) % 8, 0);
	assert_string_equal(capture__rec_name(FT_REC_COVERAGE), "coverage");
	assert_int_equal(capture__rec_size(0), 0);
	assert_int_equal(capture__rec_size(999), 0);
	assert_string_equal(capture__rec_name(FT_REC_IFACE_BIN), "iface_bin");
	assert_string_equal(capture__rec_name(FT_REC_QDISC_BIN), "qdisc_bin");
	assert_string_equal(capture__rec_name(FT_REC_DROP), "drop");
	assert_string_equal(capture__rec_name(FT_REC_RETRANS), "retrans");
	assert_string_equal(capture__rec_name(FT_REC_CONG_STATE), "cong_state");
	assert_string_equal(capture__rec_name(FT_REC_TCP_SAMPLE), "tcp_sample");
	assert_string_equal(capture__rec_name(FT_REC_IFACE), "iface");
	assert_string_equal(capture__rec_name(FT_REC_IFACE_STATS), "iface_stats");
	assert_string_equal(capture__rec_name(FT_REC_CE_FLOW), "ce_flow");
	assert_string_equal(capture__rec_name(FT_REC_LOST), "lost");
	assert_string_equal(capture__rec_name(FT_REC_DROP_REASON), "drop_reason");
	assert_string_equal(capture__rec_name(FT_REC_PROBE), "probe");
	assert_string_equal(capture__rec_name(FT_REC_END), "end");
	/* collective phases (issue 3) */
	assert_string_equal(capture__rec_name(FT_REC_PHASE), "phase");
	assert_string_equal(capture__rec_name(FT_REC_REQ_DONE), "req_done");
	assert_string_equal(capture__rec_name(FT_REC_COMM_INFO), "comm_info");
	assert_string_equal(capture__rec_name(FT_REC_PROC), "proc");
	assert_string_equal(capture__rec_name(FT_REC_SOCK_OWNER), "sock_owner");
	assert_string_equal(capture__rec_name(FT_REC_PHASE_SLOT), "phase_slot");
	assert_int_equal(capture__rec_size(FT_REC_PHASE), sizeof(struct ft_phase));
	assert_int_equal(capture__rec_size(FT_REC_PHASE_SLOT), sizeof(struct ft_phase_slot));
	assert_null(capture__rec_name(12));  /* unassigned */
	assert_string_equal(capture__rec_name(FT_REC_RDMA_PORT), "rdma_port");
	assert_string_equal(capture__rec_name(FT_REC_CTR_SAMPLE), "ctr_sample");
	assert_int_equal(capture__rec_size(FT_REC_CTR_SAMPLE), sizeof(struct ft_ctr_sample));
	assert_string_equal(capture__rec_name(FT_REC_CONFIG), "config");
	assert_int_equal(capture__rec_size(FT_REC_CONFIG), sizeof(struct ft_config));
	/* the flight recorder's trigger (issue 33): type 46, 45 being the configuration's (issue 34) */
	assert_int_equal(FT_REC_TRIGGER, 46);
	assert_string_equal(capture__rec_name(FT_REC_TRIGGER), "trigger");
	assert_int_equal(capture__rec_size(FT_REC_TRIGGER), sizeof(struct ft_trigger));
	/* the post-window probes' spans (record --post-probes): type 47 */
	assert_int_equal(FT_REC_PROBE_SPAN, 47);
	assert_string_equal(capture__rec_name(FT_REC_PROBE_SPAN), "probe_span");
	assert_int_equal(capture__rec_size(FT_REC_PROBE_SPAN), sizeof(struct ft_probe_span));
	assert_int_equal(capture__rec_fields(FT_REC_PROBE_SPAN)->time[0], offsetof(struct ft_probe_span, ts_ns));
	/* the ranks' run-queue wait: type 48, its interval's both ends moved by a merge */
	assert_int_equal(FT_REC_SCHED_WAIT, 48);
	assert_string_equal(capture__rec_name(FT_REC_SCHED_WAIT), "sched_wait");
	assert_int_equal(capture__rec_size(FT_REC_SCHED_WAIT), sizeof(struct ft_sched_wait));
	assert_int_equal(capture__rec_fields(FT_REC_SCHED_WAIT)->time[0], offsetof(struct ft_sched_wait, start_ns));
	assert_int_equal(capture__rec_fields(FT_REC_SCHED_WAIT)->time[1], offsetof(struct ft_sched_wait, end_ns));
	assert_int_equal(capture__rec_fields(FT_REC_SCHED_WAIT)->pid[0], offsetof(struct ft_sched_wait, pid));
	assert_int_equal(capture__rec_fields(FT_REC_SCHED_WAIT)->netns, offsetof(struct ft_sched_wait, netns));
	assert_null(capture__rec_name(49));
	assert_string_equal(capture__stop_reason_name(FT_STOP_ROTATED), "rotated");
}

/* What the visitor's callbacks saw. */
struct seen {
	int drops, phases, unknown, samples;
	uint64_t last_ts;
	int stop_at;            /* drops: return 7 from the Nth (0 never) */
};

static int saw_drop(void *ctx, const struct ft_drop *r)
{
	struct seen *s = ctx;

	s->last_ts = r->ts_ns;
	return ++s->drops == s->stop_at ? 7 : 0;
}

static int saw_phase(void *ctx, const struct ft_phase *r)
{
	struct seen *s = ctx;

	s->phases++;
	s->last_ts = r->end_ns;
	return 0;
}

static int saw_sample(void *ctx, const struct ft_ctr_sample *r)
{
	((struct seen *)ctx)->samples += (int)r->n;
	return 0;
}

static int saw_unknown(void *ctx, const struct ft_rec_hdr *r)
{
	((struct seen *)ctx)->unknown += r->type == 200;
	return 0;
}

static const struct capture_visitor seen_visitor = {
	.drop = saw_drop, .phase = saw_phase, .ctr_sample = saw_sample, .unknown = saw_unknown,
};

/* One dispatch: each record to its own callback as its struct, checked once. */
static void test_visitor(void **state)
{
	const char *path = tpath("visit.ftc");
	struct { struct ft_ctr_sample s; uint64_t v[2]; } cs;
	struct { struct ft_rec_hdr hdr; uint8_t x[8]; } unk;
	struct capture_writer *w;
	struct capture_reader *r;
	struct ft_file_header h;
	struct seen s = { 0 };
	struct ft_trigger tr = { 0 };
	struct ft_phase p;
	struct ft_drop d;
	struct ft_lost lo;
	uint64_t t[2];
	char err[256];

	(void)state;
	memset(&d, 0, sizeof(d));
	d.hdr = (struct ft_rec_hdr){ .type = FT_REC_DROP, .size = sizeof(d) };
	d.ts_ns = 111;
	memset(&p, 0, sizeof(p));
	p.hdr = (struct ft_rec_hdr){ .type = FT_REC_PHASE, .size = sizeof(p) };
	p.start_ns = 200;
	p.end_ns = 250;
	memset(&cs, 0, sizeof(cs));
	cs.s.hdr = (struct ft_rec_hdr){ .type = FT_REC_CTR_SAMPLE, .size = sizeof(cs) };
	cs.s.n = 2;
	memset(&unk, 0, sizeof(unk));
	unk.hdr = (struct ft_rec_hdr){ .type = 200, .size = sizeof(unk) };
	memset(&lo, 0, sizeof(lo));
	lo.hdr = (struct ft_rec_hdr){ .type = FT_REC_LOST, .size = sizeof(lo) };

	/* one record at a time (top's live records) */
	assert_int_equal(capture__visit(&seen_visitor, &s, &d.hdr), 0);
	assert_int_equal(capture__visit(&seen_visitor, &s, &p.hdr), 0);
	assert_int_equal(capture__visit(&seen_visitor, &s, &cs.s.hdr), 0);
	assert_int_equal(capture__visit(&seen_visitor, &s, &unk.hdr), 0);
	assert_int_equal(capture__visit(&seen_visitor, &s, &lo.hdr), 0); /* no callback: skipped */
	assert_int_equal(s.drops, 1);
	assert_int_equal(s.phases, 1);
	assert_int_equal(s.last_ts, 250);
	assert_int_equal(s.samples, 2);
	assert_int_equal(s.unknown, 1);
	/* damaged: no callback runs */
	cs.s.n = 3;
	d.hdr.size = 16;
	assert_int_equal(capture__visit(&seen_visitor, &s, &cs.s.hdr), -EINVAL);
	assert_int_equal(capture__visit(&seen_visitor, &s, &d.hdr), -EINVAL);
	assert_int_equal(s.samples, 2);
	assert_int_equal(s.drops, 1);
	cs.s.n = 2;
	d.hdr.size = sizeof(d);

	/* where the times are */
	assert_int_equal(capture__rec_times(&p.hdr, t), 2);
	assert_int_equal(t[0], 200);
	assert_int_equal(t[1], 250);
	assert_int_equal(capture__rec_times(&d.hdr, t), 1);
	assert_int_equal(t[0], 111);
	assert_int_equal(capture__rec_times(&unk.hdr, t), 0);
	/* a trigger: its moment and when the recorder had it (the window is retime.c's) */
	tr.hdr = (struct ft_rec_hdr){ .type = FT_REC_TRIGGER, .size = sizeof(tr) };
	tr.mono_ns = 300;
	tr.received_ns = 310;
	tr.from_ns = 100;
	assert_int_equal(capture__rec_times(&tr.hdr, t), 2);
	assert_int_equal(t[0], 300);
	assert_int_equal(t[1], 310);
	assert_int_equal(capture__rec_fields(FT_REC_TRIGGER)->pid[0], offsetof(struct ft_trigger, sender_pid));
	assert_true(capture__rec_fields(FT_REC_IFACE_BIN)->bin);
	assert_false(capture__rec_fields(FT_REC_PHASE)->bin);

	/* a capture: every record to its callback, until one says stop */
	make_header(&h);
	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	for (int i = 0; i < 3; i++) {
		d.ts_ns = 1000 + (uint64_t)i;
		assert_int_equal(capture__append(w, &d), 0);
		assert_int_equal(capture__append(w, &unk), 0);
	}
	append_end(w, 6);
	assert_int_equal(capture__close(w), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(capture__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(capture__visit_reader(r, &seen_visitor, &s), 0);
	assert_int_equal(capture__state(r), CAPTURE_OK);
	assert_int_equal(s.drops, 3);
	assert_int_equal(s.unknown, 3);
	assert_int_equal(s.last_ts, 1002);
	capture__free(r);
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	assert_int_equal(capture__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(capture__visit_reader(r, &seen_visitor, &s), 7);
	assert_int_equal(s.last_ts, 1001);
	assert_int_equal(s.unknown, 1);
	capture__free(r);
}

/* A probe's coverage summed over hosts, and the one state info and the report say. */
static void test_probe_coverage(void **state)
{
	struct ft_coverage h1 = { .probe = FT_PROBE_IFACE_RX, .known = 1, .hits = 100, .runs = 90 };
	struct ft_coverage h2 = { .probe = FT_PROBE_IFACE_RX, .known = 1, .hits = 50, .runs = 60 };
	struct ft_coverage nk = { .probe = FT_PROBE_DROP, .known = 0, .runs = 7 };
	struct capture_cov c[2] = { { .probe = FT_PROBE_IFACE_RX }, { .probe = FT_PROBE_DROP } };
	uint64_t skipped;
	size_t unknown;

	(void)state;
	assert_int_equal(capture__cov_state(c, 0, &skipped, &unknown), CAPTURE_COV_UNKNOWN);
	assert_string_equal(capture__cov_state_name(CAPTURE_COV_UNKNOWN), "unknown");
	/* each host's own shortfall: the second's runs over hits hide none of the first's */
	capture__cov_add(&c[0], true, &h1);
	capture__cov_add(&c[0], false, &h2);
	assert_int_equal(c[0].hits, 150);
	assert_int_equal(c[0].runs, 150);
	assert_int_equal(c[0].skipped, 10);
	assert_int_equal(capture__cov_state(c, 1, &skipped, &unknown), CAPTURE_COV_INCOMPLETE);
	assert_int_equal(skipped, 10);
	assert_string_equal(capture__cov_state_name(CAPTURE_COV_INCOMPLETE), "incomplete");
	/* nothing skipped, one probe not counted: partial */
	c[0] = (struct capture_cov){ .probe = FT_PROBE_IFACE_RX };
	capture__cov_add(&c[0], true, &h2);
	capture__cov_add(&c[1], true, &nk);
	assert_int_equal(capture__cov_state(c, 2, &skipped, &unknown), CAPTURE_COV_PARTIAL);
	assert_int_equal(unknown, 1);
	assert_int_equal(skipped, 0);
	assert_int_equal(capture__cov_state(c, 1, &skipped, &unknown), CAPTURE_COV_COMPLETE);
	/* a host whose hits were not counted makes the sum unknown */
	capture__cov_add(&c[0], false, &nk);
	assert_int_equal(c[0].known, 0);
	assert_int_equal(c[0].skipped, 0);
	assert_string_equal(capture__cov_state_name(CAPTURE_COV_PARTIAL), "partial");
	assert_string_equal(capture__cov_state_name(CAPTURE_COV_COMPLETE), "complete");
}

#define NREC_BIG 12000ull /* ~900 KB of records: at least 3 blocks */

static void test_round_trip(void **state)
{
	const char *path = tpath("rt.ftc");
	const struct ft_file_header *rh;
	const struct ft_rec_hdr *rec;
	struct capture_reader *r;
	struct ft_file_header h;
	uint8_t want[256];
	uint64_t n = 0, seen[64] = { 0 };
	char err[256];
	struct stat st;
	int ret;

	(void)state;
	write_capture(path, NREC_BIG);

	assert_int_equal(capture__open(&r, path, err, sizeof(err)), 0);
	rh = capture__header(r);
	make_header(&h);
	assert_memory_equal(rh->magic, FT_MAGIC, 8);
	assert_int_equal(rh->version, FT_FORMAT_VERSION);
	assert_int_equal(rh->header_size, sizeof(struct ft_file_header));
	assert_int_equal(rh->start_mono_ns, h.start_mono_ns);
	assert_int_equal(rh->realtime_offset_ns, h.realtime_offset_ns);
	assert_int_equal(rh->boottime_offset_ns, h.boottime_offset_ns);
	assert_int_equal(rh->bin_ns, h.bin_ns);
	assert_int_equal(rh->probes, h.probes);
	assert_int_equal(rh->ncpus, h.ncpus);
	assert_string_equal(rh->hostname, "testhost");
	assert_string_equal(rh->kernel, "6.1.0-test");
	assert_string_equal(rh->tool_version, "0.1.0");
	assert_string_equal(rh->command, h.command);

	while ((ret = capture__next(r, &rec)) == 1) {
		assert_true(((uintptr_t)rec & 7) == 0);
		if (rec->type == FT_REC_END) {
			const struct ft_end *e = (const void *)rec;

			assert_int_equal(e->records, NREC_BIG);
			assert_int_equal(e->ts_ns, 2000000000ull);
			break;
		}
		size_t sz = gen_record(n, want);

		assert_int_equal(rec->size, sz);
		assert_memory_equal(rec, want, sz);
		seen[rec->type % 64]++;
		n++;
	}
	assert_int_equal(ret, 1);
	assert_int_equal(n, NREC_BIG);
	for (size_t i = 0; i < NKNOWN; i++)
		assert_true(seen[known_types[i] % 64] > 0);
	/* after END: end of data, state complete */
	assert_int_equal(capture__next(r, &rec), 0);
	assert_int_equal(capture__state(r), CAPTURE_OK);
	assert_string_equal(capture__error(r), "");
	assert_true(capture__blocks(r) >= 3);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(capture__good_offset(r), (uint64_t)st.st_size);
	capture__free(r);
}

static void test_writer_counters(void **state)
{
	const char *path = tpath("cnt.ftc");
	struct capture_writer *w;
	struct ft_file_header h;
	uint8_t buf[256];
	char err[256];
	struct stat st;

	(void)state;
	make_header(&h);
	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	/* the crc was filled in for the caller and matches a recomputation */
	{
		struct ft_file_header t = h;

		t.crc = 0;
		assert_int_equal(h.crc, (uint32_t)crc32(0, (const Bytef *)&t, sizeof(t)));
	}
	assert_int_equal(capture__bytes(w), sizeof(struct ft_file_header));
	for (uint64_t i = 0; i < 10; i++) {
		gen_record(i, buf);
		assert_int_equal(capture__append(w, buf), 0);
	}
	/* still in memory */
	assert_int_equal(capture__records(w), 0);
	assert_int_equal(capture__flush(w), 0);
	assert_int_equal(capture__records(w), 10);
	assert_true(capture__bytes(w) > sizeof(struct ft_file_header) + sizeof(struct ft_block_header));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((uint64_t)st.st_size, capture__bytes(w));
	/* flush with nothing pending writes nothing */
	assert_int_equal(capture__flush(w), 0);
	assert_int_equal((uint64_t)st.st_size, capture__bytes(w));
	assert_string_equal(capture__last_error(w), "");
	assert_int_equal(capture__close(w), 0);
}

static void test_append_validation(void **state)
{
	const char *path = tpath("val.ftc");
	struct capture_writer *w;
	struct ft_file_header h;
	struct ft_drop d;
	struct { struct ft_rec_hdr hdr; uint8_t x[8]; } small;
	char err[256];

	(void)state;
	make_header(&h);
	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	memset(small.x, 0, sizeof(small.x));
	small.hdr.type = 200;
	small.hdr.size = 4; /* smaller than the record header */
	small.hdr.cpu = 0;
	assert_int_equal(capture__append(w, &small), -EINVAL);
	memset(&d, 0, sizeof(d));
	d.hdr.type = FT_REC_DROP;
	d.hdr.size = 16; /* known type, shorter than its struct */
	assert_int_equal(capture__append(w, &d), -EINVAL);
	/* nor a counter sample that does not hold its values: no reader would take it */
	{
		struct { struct ft_ctr_sample s; uint64_t v[2]; } cs;

		memset(&cs, 0, sizeof(cs));
		cs.s.hdr = (struct ft_rec_hdr){ .type = FT_REC_CTR_SAMPLE, .size = sizeof(cs) };
		cs.s.n = 3;
		assert_int_equal(capture__append(w, &cs), -EINVAL);
		cs.s.n = 2;
		assert_int_equal(capture__append(w, &cs), 0);
	}
	/* a rejected record does not poison the writer */
	d.hdr.size = sizeof(d);
	assert_int_equal(capture__append(w, &d), 0);
	assert_int_equal(capture__close(w), 0);
}

static void test_unknown_type_skipped(void **state)
{
	const char *path = tpath("unk.ftc");
	const struct ft_rec_hdr *rec;
	struct capture_reader *r;
	struct capture_writer *w;
	struct ft_file_header h;
	struct { struct ft_rec_hdr hdr; uint8_t data[16]; } unk;
	struct { struct ft_rec_hdr hdr; uint8_t data[5]; } odd;
	struct ft_lost lost;
	char err[256];

	(void)state;
	make_header(&h);
	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	memset(unk.data, 0xab, sizeof(unk.data));
	unk.hdr.type = 200;
	unk.hdr.size = sizeof(unk);
	unk.hdr.cpu = 1;
	assert_int_equal(capture__append(w, &unk), 0);
	memset(&odd, 0xcd, sizeof(odd));
	odd.hdr.type = 201;
	odd.hdr.size = 13; /* not a multiple of 8: padded */
	odd.hdr.cpu = 0;
	assert_int_equal(capture__append(w, &odd), 0);
	memset(&lost, 0, sizeof(lost));
	lost.hdr.type = FT_REC_LOST;
	lost.hdr.size = sizeof(lost);
	lost.lost = 42;
	lost.source = FT_SRC_TCP;
	lost.cpu = 1;
	assert_int_equal(capture__append(w, &lost), 0);
	append_end(w, 3);
	assert_int_equal(capture__close(w), 0);

	assert_int_equal(capture__open(&r, path, err, sizeof(err)), 0);
	assert_int_equal(capture__next(r, &rec), 1);
	assert_int_equal(rec->type, 200);
	assert_int_equal(rec->size, sizeof(unk));
	assert_memory_equal(rec, &unk, sizeof(unk));
	assert_int_equal(capture__next(r, &rec), 1);
	assert_int_equal(rec->type, 201);
	assert_int_equal(rec->size, 16);
	assert_memory_equal((const uint8_t *)rec + 8, odd.data, 5);
	for (int i = 13; i < 16; i++)
		assert_int_equal(((const uint8_t *)rec)[i], 0);
	/* the record after the unknown ones is intact */
	assert_int_equal(capture__next(r, &rec), 1);
	assert_int_equal(rec->type, FT_REC_LOST);
	assert_int_equal(((const struct ft_lost *)rec)->lost, 42);
	assert_int_equal(((const struct ft_lost *)rec)->source, FT_SRC_TCP);
	assert_int_equal(capture__next(r, &rec), 1);
	assert_int_equal(rec->type, FT_REC_END);
	assert_int_equal(capture__next(r, &rec), 0);
	assert_int_equal(capture__state(r), CAPTURE_OK);
	capture__free(r);
}

/* Read everything; returns records before the end, sets *state. */
static uint64_t drain(const char *path, int *open_ret, enum capture_state *st,
		      char *msg, size_t msglen, bool *saw_end)
{
	const struct ft_rec_hdr *rec;
	struct capture_reader *r;
	uint64_t n = 0;
	char err[256];
	int ret;

	*saw_end = false;
	*open_ret = capture__open(&r, path, err, sizeof(err));
	if (*open_ret < 0) {
		assert_null(r);
		assert_true(err[0] != '\0');
		snprintf(msg, msglen, "%s", err);
		return 0;
	}
	while ((ret = capture__next(r, &rec)) == 1) {
		assert_true(rec->size >= sizeof(*rec));
		if (rec->type == FT_REC_END)
			*saw_end = true;
		else
			n++;
	}
	assert_true(ret == 0 || ret == -1);
	*st = capture__state(r);
	if (ret == -1)
		assert_int_equal(*st, CAPTURE_CORRUPT);
	else
		assert_true(*st == CAPTURE_OK || *st == CAPTURE_TRUNCATED);
	snprintf(msg, msglen, "%s", capture__error(r));
	/* further calls stay at the end */
	assert_int_equal(capture__next(r, &rec), ret == 1 ? 0 : ret);
	capture__free(r);
	return n;
}

static void check_cut(const uint8_t *file, size_t len, const struct layout *l, size_t cut)
{
	const char *path = tpath("cut.ftc");
	enum capture_state st = CAPTURE_OK;
	char msg[512];
	uint64_t n, expect = 0;
	size_t complete = 0, boundary = sizeof(struct ft_file_header);
	bool saw_end;
	int oret;

	spit(path, file, cut);
	n = drain(path, &oret, &st, msg, sizeof(msg), &saw_end);
	if (cut < sizeof(struct ft_file_header)) {
		assert_true(oret < 0);
		if (cut < 8)
			assert_non_null(strstr(msg, "not a fabtrace capture"));
		else
			assert_int_equal(oret, -EBADMSG);
		return;
	}
	assert_int_equal(oret, 0);
	for (size_t b = 0; b < l->nblocks; b++) {
		if (l->end[b] <= cut) {
			expect += l->nrec[b];
			complete++;
			boundary = l->end[b];
		}
	}
	if (cut == len) {
		assert_int_equal(st, CAPTURE_OK);
		assert_true(saw_end);
		expect--; /* END is not counted in n */
		assert_int_equal(n, expect);
		return;
	}
	assert_int_equal(st, CAPTURE_TRUNCATED);
	assert_false(saw_end);
	assert_int_equal(n, expect);
	if (cut == boundary) {
		assert_non_null(strstr(msg, "without an end record"));
	} else {
		char want[128];

		snprintf(want, sizeof(want), "partial block at offset %zu ", boundary);
		assert_non_null(strstr(msg, want));
		snprintf(want, sizeof(want), "%zu complete %s readable", complete,
			 complete == 1 ? "block is" : "blocks are");
		assert_non_null(strstr(msg, want));
	}
}

static void test_truncated(void **state)
{
	const char *path = tpath("trunc-src.ftc");
	struct layout l;
	uint8_t *file;
	size_t len, hs = sizeof(struct ft_file_header), bh = sizeof(struct ft_block_header);

	(void)state;
	write_capture(path, NREC_BIG);
	file = slurp(path, &len);
	walk_layout(file, len, &l);
	assert_true(l.nblocks >= 3);

	/* inside the header */
	size_t hcuts[] = { 0, 1, 4, 7, 8, 12, 16, 100, hs - 4, hs - 1 };
	for (size_t i = 0; i < sizeof(hcuts) / sizeof(hcuts[0]); i++)
		check_cut(file, len, &l, hcuts[i]);
	/* at the end of the header: no block at all */
	check_cut(file, len, &l, hs);
	for (size_t b = 0; b < l.nblocks; b++) {
		/* inside the block header, inside the payload, at the boundary */
		check_cut(file, len, &l, l.off[b] + 1);
		check_cut(file, len, &l, l.off[b] + 4);
		check_cut(file, len, &l, l.off[b] + bh - 1);
		check_cut(file, len, &l, l.off[b] + bh);
		check_cut(file, len, &l, l.off[b] + bh + 1);
		check_cut(file, len, &l, (l.off[b] + l.end[b]) / 2);
		check_cut(file, len, &l, l.end[b] - 1);
		check_cut(file, len, &l, l.end[b]);
	}
	/* and a sweep over the whole file */
	for (size_t cut = 0; cut <= len; cut += 4099)
		check_cut(file, len, &l, cut);
	free(file);
}

static void expect_corrupt(const char *path, size_t block_off, const char *what,
			   uint64_t records_before)
{
	enum capture_state st;
	char msg[512], want[128];
	bool saw_end;
	int oret;
	uint64_t n;

	n = drain(path, &oret, &st, msg, sizeof(msg), &saw_end);
	assert_int_equal(oret, 0);
	assert_int_equal(st, CAPTURE_CORRUPT);
	assert_int_equal(n, records_before);
	snprintf(want, sizeof(want), "block at offset %zu: ", block_off);
	if (strncmp(msg, want, strlen(want)) != 0 || !strstr(msg + strlen(want), what))
		fail_msg("error \"%s\" is not \"%s...%s...\"", msg, want, what);
}

static void test_corrupt_payload(void **state)
{
	const char *src = tpath("corrupt-src.ftc");
	const char *path = tpath("corrupt.ftc");
	struct layout l;
	uint8_t *file;
	size_t len, bh = sizeof(struct ft_block_header);

	(void)state;
	write_capture(src, NREC_BIG);
	file = slurp(src, &len);
	walk_layout(file, len, &l);
	assert_true(l.nblocks >= 3);

	/* a flipped byte in the second block's payload */
	size_t pos = l.off[1] + bh + (l.end[1] - l.off[1] - bh) / 2;
	file[pos] ^= 0x40;
	spit(path, file, len);
	expect_corrupt(path, l.off[1], "CRC mismatch", l.nrec[0]);
	file[pos] ^= 0x40;

	/* a flipped byte in the first block's header length field */
	file[l.off[0] + 9] ^= 0x01;
	spit(path, file, len);
	expect_corrupt(path, l.off[0], "", 0);
	file[l.off[0] + 9] ^= 0x01;

	/* bad block magic in the third block */
	file[l.off[2]] ^= 0xff;
	spit(path, file, len);
	expect_corrupt(path, l.off[2], "bad block magic", (uint64_t)l.nrec[0] + l.nrec[1]);
	file[l.off[2]] ^= 0xff;

	/* the last byte of the file (in the last payload) */
	file[len - 1] ^= 0x01;
	spit(path, file, len);
	{
		uint64_t before = 0;

		for (size_t b = 0; b + 1 < l.nblocks; b++)
			before += l.nrec[b];
		expect_corrupt(path, l.off[l.nblocks - 1], "CRC mismatch", before);
	}
	file[len - 1] ^= 0x01;
	free(file);
}

/* Compress LEN bytes as CODEC into a new buffer; its size in *clen. */
static uint8_t *encode(uint32_t codec, const void *payload, size_t len, size_t *clen)
{
	size_t cap = compressBound((uLong)len) + ZSTD_compressBound(len) + 64;
	uint8_t *z = malloc(cap);

	assert_non_null(z);
	if (codec == FT_CODEC_ZSTD) {
		*clen = ZSTD_compress(z, cap, payload, len, 1);
		assert_false(ZSTD_isError(*clen));
	} else {
		uLongf zl = (uLongf)cap;

		assert_int_equal(compress2(z, &zl, payload, (uLong)len, 1), Z_OK);
		*clen = zl;
	}
	return z;
}

/* Append a block of CODEC with a valid CRC around an arbitrary payload. */
static void put_block_codec(FILE *f, const void *payload, uint32_t ulen, uint32_t nrec,
			    uint32_t ulen_claim, uint32_t clen_claim, uint32_t codec)
{
	struct ft_block_header bh;
	size_t clen;
	uint8_t *z = encode(codec == FT_CODEC_ZSTD ? FT_CODEC_ZSTD : FT_CODEC_ZLIB, payload, ulen, &clen);
	uLong crc;

	memset(&bh, 0, sizeof(bh));
	bh.magic = FT_BLOCK_MAGIC;
	bh.clen = clen_claim ? clen_claim : (uint32_t)clen;
	bh.ulen = ulen_claim ? ulen_claim : ulen;
	bh.nrec = nrec;
	bh.codec = codec;
	crc = crc32(0, (const Bytef *)&bh, sizeof(bh));
	crc = crc32(crc, z, (uInt)clen);
	bh.crc = (uint32_t)crc;
	assert_int_equal(fwrite(&bh, sizeof(bh), 1, f), 1);
	assert_int_equal(fwrite(z, 1, clen, f), clen);
	free(z);
}

static void put_block(FILE *f, const void *payload, uint32_t ulen, uint32_t nrec,
		      uint32_t ulen_claim, uint32_t clen_claim)
{
	put_block_codec(f, payload, ulen, nrec, ulen_claim, clen_claim, FT_CODEC_ZLIB);
}

static FILE *start_file_version(const char *path, uint32_t version)
{
	struct ft_file_header h;
	FILE *f;

	make_header(&h);
	memcpy(h.magic, FT_MAGIC, 8);
	h.version = version;
	h.header_size = sizeof(h);
	h.crc = 0;
	h.crc = (uint32_t)crc32(0, (const Bytef *)&h, sizeof(h));
	unlink(path);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(&h, sizeof(h), 1, f), 1);
	return f;
}

static FILE *start_file(const char *path)
{
	return start_file_version(path, FT_FORMAT_VERSION);
}

static void test_corrupt_records(void **state)
{
	const char *path = tpath("crafted.ftc");
	const size_t b0 = sizeof(struct ft_file_header);
	uint8_t payload[256];
	struct ft_rec_hdr rh;
	struct ft_lost lost;
	FILE *f;

	(void)state;
	memset(&lost, 0, sizeof(lost));
	lost.hdr.type = FT_REC_LOST;
	lost.hdr.size = sizeof(lost);

	/* a good block followed by one whose record is smaller than a header */
	memset(payload, 0, sizeof(payload));
	memcpy(payload, &lost, sizeof(lost));
	rh = (struct ft_rec_hdr){ .type = 200, .size = 4 };
	memcpy(payload + 32, &rh, sizeof(rh));
	f = start_file(path);
	put_block(f, &lost, sizeof(lost), 1, 0, 0);
	put_block(f, payload, 40, 2, 0, 0);
	fclose(f);
	{
		struct layout l;
		size_t len;
		uint8_t *file = slurp(path, &len);

		walk_layout(file, len, &l);
		free(file);
		expect_corrupt(path, l.off[1], "record at payload offset 32 has bad size 4", 1);
	}

	/* record size running past the block */
	rh = (struct ft_rec_hdr){ .type = 200, .size = 64 };
	memcpy(payload + 32, &rh, sizeof(rh));
	f = start_file(path);
	put_block(f, payload, 40, 2, 0, 0);
	fclose(f);
	expect_corrupt(path, b0, "runs past the block", 0);

	/* record size not a multiple of 8 */
	rh = (struct ft_rec_hdr){ .type = 200, .size = 12 };
	memcpy(payload + 32, &rh, sizeof(rh));
	f = start_file(path);
	put_block(f, payload, 48, 2, 0, 0);
	fclose(f);
	expect_corrupt(path, b0, "bad size 12", 0);

	/* a known type shorter than its struct */
	rh = (struct ft_rec_hdr){ .type = FT_REC_QDISC_BIN, .size = 16 };
	memcpy(payload + 32, &rh, sizeof(rh));
	f = start_file(path);
	put_block(f, payload, 48, 2, 0, 0);
	fclose(f);
	expect_corrupt(path, b0, "qdisc_bin record at payload offset 32 is 16 bytes", 0);

	/* a counter sample whose size does not hold its n values (report refused
	 * such a capture while info called it complete) */
	{
		struct ft_ctr_sample s;

		memset(&s, 0, sizeof(s));
		s.hdr = (struct ft_rec_hdr){ .type = FT_REC_CTR_SAMPLE, .size = sizeof(s) };
		s.n = 3;
		memset(payload, 0, sizeof(payload));
		memcpy(payload, &lost, sizeof(lost));
		memcpy(payload + 32, &s, sizeof(s));
		f = start_file(path);
		put_block(f, payload, 64, 2, 0, 0);
		fclose(f);
		expect_corrupt(path, b0, "ctr_sample record at payload offset 32 is 32 bytes, expected 56", 0);
	}
	/* a counter group past the limits of a group */
	{
		struct ft_ctr_group g;

		memset(&g, 0, sizeof(g));
		g.hdr = (struct ft_rec_hdr){ .type = FT_REC_CTR_GROUP, .size = sizeof(g) };
		g.group = 7;
		g.ncounters = CAPTURE_MAX_CTR_COUNTERS + 1;
		f = start_file(path);
		put_block(f, &g, sizeof(g), 1, 0, 0);
		fclose(f);
		expect_corrupt(path, b0, "ctr_group record at payload offset 0 names group 7 of 65537 counters", 0);
	}

	/* nrec disagrees with the payload */
	f = start_file(path);
	put_block(f, &lost, sizeof(lost), 2, 0, 0);
	fclose(f);
	expect_corrupt(path, b0, "holds 1 records, header says 2", 0);

	/* ulen larger than the limit */
	f = start_file(path);
	put_block(f, &lost, sizeof(lost), 1, FT_BLOCK_MAX_ULEN + 1, 0);
	fclose(f);
	expect_corrupt(path, b0, "length", 0);

	/* ulen claims more than the payload inflates to */
	f = start_file(path);
	put_block(f, &lost, sizeof(lost), 1, 64, 0);
	fclose(f);
	expect_corrupt(path, b0, "payload is 32 bytes, header says 64", 0);

	/* ulen claims less: zlib runs out of room */
	f = start_file(path);
	put_block(f, &lost, sizeof(lost), 1, 16, 0);
	fclose(f);
	expect_corrupt(path, b0, "zlib error", 0);

	/* clen beyond the limit */
	f = start_file(path);
	put_block(f, &lost, sizeof(lost), 1, 0, FT_BLOCK_MAX_ULEN + 1);
	fclose(f);
	expect_corrupt(path, b0, "compressed length", 0);

	/* stray bytes after the zlib stream, inside clen and the CRC */
	{
		struct ft_block_header bh;
		uint8_t z[256];
		uLongf zlen = sizeof(z) - 4;
		uLong crc;

		assert_int_equal(compress2(z, &zlen, (const Bytef *)&lost, sizeof(lost), 1), Z_OK);
		memset(z + zlen, 0x77, 4);
		memset(&bh, 0, sizeof(bh));
		bh.magic = FT_BLOCK_MAGIC;
		bh.clen = (uint32_t)zlen + 4;
		bh.ulen = sizeof(lost);
		bh.nrec = 1;
		crc = crc32(0, (const Bytef *)&bh, sizeof(bh));
		bh.crc = (uint32_t)crc32(crc, z, bh.clen);
		f = start_file(path);
		assert_int_equal(fwrite(&bh, sizeof(bh), 1, f), 1);
		assert_int_equal(fwrite(z, 1, bh.clen, f), bh.clen);
		fclose(f);
		expect_corrupt(path, b0, "4 stray bytes", 0);
	}

	/* valid CRC over bytes that are not zlib */
	{
		struct ft_block_header bh;
		uint8_t junk[32];
		uLong crc;

		memset(junk, 0x5a, sizeof(junk));
		memset(&bh, 0, sizeof(bh));
		bh.magic = FT_BLOCK_MAGIC;
		bh.clen = sizeof(junk);
		bh.ulen = 64;
		bh.nrec = 1;
		crc = crc32(0, (const Bytef *)&bh, sizeof(bh));
		bh.crc = (uint32_t)crc32(crc, junk, sizeof(junk));
		f = start_file(path);
		assert_int_equal(fwrite(&bh, sizeof(bh), 1, f), 1);
		assert_int_equal(fwrite(junk, sizeof(junk), 1, f), 1);
		fclose(f);
		expect_corrupt(path, b0, "zlib error", 0);
	}
}

/* zstd blocks (format version 2) are checked as strictly as zlib ones. */
static void test_zstd_blocks(void **state)
{
	const char *path = tpath("zstd.ftc");
	const size_t b0 = sizeof(struct ft_file_header);
	enum capture_state st;
	struct ft_lost lost;
	char msg[512];
	bool saw_end;
	int oret;
	FILE *f;

	(void)state;
	memset(&lost, 0, sizeof(lost));
	lost.hdr.type = FT_REC_LOST;
	lost.hdr.size = sizeof(lost);

	/* a good one reads */
	f = start_file(path);
	put_block_codec(f, &lost, sizeof(lost), 1, 0, 0, FT_CODEC_ZSTD);
	fclose(f);
	assert_int_equal(drain(path, &oret, &st, msg, sizeof(msg), &saw_end), 1);
	assert_int_equal(oret, 0);
	assert_int_equal(st, CAPTURE_TRUNCATED); /* no end record, nothing wrong */

	/* ulen claims more, or less, than the frame says it holds */
	f = start_file(path);
	put_block_codec(f, &lost, sizeof(lost), 1, 64, 0, FT_CODEC_ZSTD);
	fclose(f);
	expect_corrupt(path, b0, "payload is 32 bytes, header says 64", 0);
	f = start_file(path);
	put_block_codec(f, &lost, sizeof(lost), 1, 16, 0, FT_CODEC_ZSTD);
	fclose(f);
	expect_corrupt(path, b0, "payload is 32 bytes, header says 16", 0);

	/* an unknown codec; zstd in a version 1 capture */
	f = start_file(path);
	put_block_codec(f, &lost, sizeof(lost), 1, 0, 0, 7);
	fclose(f);
	expect_corrupt(path, b0, "unknown codec 7 in a version 2 capture", 0);
	f = start_file_version(path, 1);
	put_block_codec(f, &lost, sizeof(lost), 1, 0, 0, FT_CODEC_ZSTD);
	fclose(f);
	expect_corrupt(path, b0, "unknown codec 1 in a version 1 capture", 0);

	/* stray bytes after the frame; bytes that are no frame; a frame that
	 * does not state its size (each inside clen and the CRC) */
	{
		struct ft_block_header bh;
		uint8_t z[256], junk[32];
		size_t zlen;
		ZSTD_CCtx *c = ZSTD_createCCtx();
		const struct {
			const uint8_t *p;
			size_t len;
			const char *what;
		} bad[] = {
			{ z, 0, "4 stray bytes" },
			{ junk, sizeof(junk), "zstd error" },
			{ z, 0, "without its content size" },
		};

		memset(junk, 0x5a, sizeof(junk));
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			size_t len = bad[i].len;

			if (bad[i].p == z) {
				assert_non_null(c);
				assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, i != 0 ? 0 : 1)));
				/* streaming with no pledged size leaves the size out */
				if (i == 0) {
					zlen = ZSTD_compress2(c, z, sizeof(z) - 4, &lost, sizeof(lost));
				} else {
					ZSTD_outBuffer out = { z, sizeof(z), 0 };
					ZSTD_inBuffer in = { &lost, sizeof(lost), 0 };

					assert_int_equal(ZSTD_compressStream2(c, &out, &in, ZSTD_e_end), 0);
					zlen = out.pos;
				}
				assert_false(ZSTD_isError(zlen));
				len = zlen;
				if (i == 0) {
					memset(z + zlen, 0x77, 4);
					len += 4;
				}
			}
			memset(&bh, 0, sizeof(bh));
			bh.magic = FT_BLOCK_MAGIC;
			bh.clen = (uint32_t)len;
			bh.ulen = sizeof(lost);
			bh.nrec = 1;
			bh.codec = FT_CODEC_ZSTD;
			bh.crc = (uint32_t)crc32(crc32(0, (const Bytef *)&bh, sizeof(bh)), bad[i].p, (uInt)len);
			f = start_file(path);
			assert_int_equal(fwrite(&bh, sizeof(bh), 1, f), 1);
			assert_int_equal(fwrite(bad[i].p, 1, len, f), len);
			fclose(f);
			expect_corrupt(path, b0, bad[i].what, 0);
		}
		ZSTD_freeCCtx(c);
	}
}

/* V1 (a version 1 capture) and V2 (version 2) hold the same N records, in order. */
static void assert_same_records(const char *v1, const char *v2, uint64_t n)
{
	struct capture_reader *r1, *r2;
	const struct ft_rec_hdr *a, *b;
	char err[256];
	uint64_t got = 0;
	int ra;

	assert_int_equal(capture__open(&r1, v1, err, sizeof(err)), 0);
	assert_int_equal(capture__header(r1)->version, 1);
	assert_int_equal(capture__open(&r2, v2, err, sizeof(err)), 0);
	assert_int_equal(capture__header(r2)->version, FT_FORMAT_VERSION);
	for (;;) {
		ra = capture__next(r1, &a);
		assert_int_equal(capture__next(r2, &b), ra);
		if (ra != 1)
			break;
		assert_int_equal(a->size, b->size);
		assert_memory_equal(a, b, a->size);
		got++;
	}
	assert_int_equal(ra, 0);
	assert_int_equal(got, n);
	assert_int_equal(capture__state(r1), CAPTURE_OK);
	capture__free(r1);
	capture__free(r2);
}

/*
 * The writer's blocks are zstd; a version 1 capture (zlib blocks, as
 * fabtrace wrote before) of the same records reads record for record the same.
 */
static void test_version1_zlib(void **state)
{
	const char *v2 = tpath("v2.ftc"), *v1 = tpath("v1.ftc");
	struct ft_file_header h;
	struct layout l;
	uint8_t *file, *raw;
	size_t len;
	FILE *f;

	(void)state;
	write_capture(v2, NREC_BIG);
	file = slurp(v2, &len);
	walk_layout(file, len, &l);
	assert_true(l.nblocks >= 3);
	memcpy(&h, file, sizeof(h));
	assert_int_equal(h.version, 2);
	f = start_file_version(v1, 1);
	raw = malloc(FT_BLOCK_MAX_ULEN);
	assert_non_null(raw);
	for (size_t b = 0; b < l.nblocks; b++) {
		struct ft_block_header bh;
		size_t got;

		memcpy(&bh, file + l.off[b], sizeof(bh));
		assert_int_equal(bh.codec, FT_CODEC_ZSTD);
		got = ZSTD_decompress(raw, FT_BLOCK_MAX_ULEN, file + l.off[b] + sizeof(bh), bh.clen);
		assert_int_equal(got, bh.ulen);
		put_block(f, raw, bh.ulen, bh.nrec, 0, 0);
	}
	fclose(f);
	free(raw);
	free(file);

	assert_same_records(v1, v2, NREC_BIG + 1); /* and the end record */
}

/*
 * Asked for version 1 (for a fabtrace older than version 2), the writer
 * writes a version 1 header and zlib blocks only, which zlib itself
 * inflates, holding the same records as a version 2 capture of them; a
 * version it cannot write is refused and leaves no file.
 */
static void test_write_version1(void **state)
{
	const char *v1 = tpath("w1.ftc"), *v2 = tpath("w2.ftc"), *v9 = tpath("w9.ftc");
	struct capture_writer *w = (void *)1;
	struct ft_file_header h;
	struct layout l;
	uint8_t *file, *raw;
	char err[256];
	size_t len;

	(void)state;
	write_capture_version(v1, NREC_BIG, 1);
	write_capture_version(v2, NREC_BIG, 0);
	file = slurp(v1, &len);
	walk_layout(file, len, &l);
	assert_true(l.nblocks >= 3);
	memcpy(&h, file, sizeof(h));
	assert_int_equal(h.version, 1);
	raw = malloc(FT_BLOCK_MAX_ULEN);
	assert_non_null(raw);
	for (size_t i = 0; i < l.nblocks; i++) {
		struct ft_block_header bh;
		uLongf dlen = FT_BLOCK_MAX_ULEN;

		memcpy(&bh, file + l.off[i], sizeof(bh));
		assert_int_equal(bh.codec, FT_CODEC_ZLIB);
		assert_int_equal(uncompress(raw, &dlen, file + l.off[i] + sizeof(bh), bh.clen), Z_OK);
		assert_int_equal(dlen, bh.ulen);
	}
	free(raw);
	free(file);

	assert_same_records(v1, v2, NREC_BIG + 1);

	make_header(&h);
	h.version = FT_FORMAT_VERSION + 1;
	assert_int_equal(capture__create(&w, v9, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), -EINVAL);
	assert_null(w);
	assert_non_null(strstr(err, "cannot write capture format version 3; this fabtrace writes 1 or 2"));
	assert_int_equal(access(v9, F_OK), -1);
}

static void test_header_checks(void **state)
{
	const char *path = tpath("hdr.ftc");
	struct capture_reader *r = (void *)1;
	struct ft_file_header h;
	char err[256];
	int ret;

	(void)state;
	/* newer version, with a valid CRC */
	make_header(&h);
	memcpy(h.magic, FT_MAGIC, 8);
	h.version = FT_FORMAT_VERSION + 1;
	h.header_size = sizeof(h);
	h.crc = 0;
	h.crc = (uint32_t)crc32(0, (const Bytef *)&h, sizeof(h));
	spit(path, &h, sizeof(h));
	ret = capture__open(&r, path, err, sizeof(err));
	assert_int_equal(ret, -EPROTONOSUPPORT);
	assert_null(r);
	assert_non_null(strstr(err,
		"capture format version 3 is newer than this fabtrace supports (2); upgrade fabtrace"));

	/* a newer version is reported even when the rest of the header differs */
	h.version = 7;
	spit(path, &h, 16);
	assert_int_equal(capture__open(&r, path, err, sizeof(err)), -EPROTONOSUPPORT);
	assert_non_null(strstr(err, "version 7 is newer"));

	/* not a capture */
	spit(path, "hello world, this is not a capture file at all", 46);
	assert_int_equal(capture__open(&r, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a fabtrace capture"));
	spit(path, "", 0);
	assert_int_equal(capture__open(&r, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a fabtrace capture"));

	/* a bad header CRC */
	h.version = 1;
	h.crc = 0;
	h.crc = (uint32_t)crc32(0, (const Bytef *)&h, sizeof(h));
	h.hostname[0] ^= 1;
	spit(path, &h, sizeof(h));
	assert_int_equal(capture__open(&r, path, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "CRC"));

	/* a wrong header size */
	h.hostname[0] ^= 1;
	h.header_size = 100;
	h.crc = 0;
	h.crc = (uint32_t)crc32(0, (const Bytef *)&h, sizeof(h));
	spit(path, &h, sizeof(h));
	assert_int_equal(capture__open(&r, path, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "header size"));

	/* missing file */
	assert_int_equal(capture__open(&r, tpath("does-not-exist"), err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "does-not-exist"));

	/* a directory */
	assert_true(capture__open(&r, tmpdir, err, sizeof(err)) < 0);
	assert_true(err[0] != '\0');
}

static void test_symlink_refused(void **state)
{
	const char *target = tpath("target");
	const char *link = tpath("link.ftc");
	const char *dangling = tpath("dangling.ftc");
	struct capture_writer *w = (void *)1;
	struct ft_file_header h;
	char err[256];
	size_t len;
	uint8_t *p;

	(void)state;
	spit(target, "precious", 8);
	unlink(link);
	assert_int_equal(symlink(target, link), 0);
	make_header(&h);
	assert_int_equal(capture__create(&w, link, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)),
			 -ELOOP);
	assert_null(w);
	assert_non_null(strstr(err, "symbolic link"));
	p = slurp(target, &len);
	assert_int_equal(len, 8);
	assert_memory_equal(p, "precious", 8);
	free(p);

	/* a dangling symlink must not create its target */
	unlink(dangling);
	assert_int_equal(symlink(tpath("nowhere"), dangling), 0);
	assert_int_equal(capture__create(&w, dangling, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)),
			 -ELOOP);
	assert_int_equal(access(tpath("nowhere"), F_OK), -1);

	/* a directory or a fifo is refused */
	assert_int_equal(capture__create(&w, tmpdir, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)),
			 -EEXIST);
	assert_non_null(strstr(err, "not a regular file"));
	unlink(tpath("fifo"));
	assert_int_equal(mkfifo(tpath("fifo"), 0600), 0);
	assert_int_equal(capture__create(&w, tpath("fifo"), &h, (uid_t)-1, (gid_t)-1, err,
					 sizeof(err)), -EEXIST);
}

static void test_mode_and_replace(void **state)
{
	const char *path = tpath("mode.ftc");
	struct capture_writer *w;
	struct ft_file_header h;
	char err[256];
	struct stat st;
	mode_t old = umask(0);

	(void)state;
	/* an existing regular file of ours, with loose permissions, is replaced */
	spit(path, "old contents", 12);
	assert_int_equal(chmod(path, 0666), 0);
	make_header(&h);
	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	assert_int_equal(capture__close(w), 0);
	umask(old);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, sizeof(struct ft_file_header));
	assert_int_equal(st.st_uid, geteuid());
}

/* A capture being written says so to its readers, and is not replaced by a second writer. */
static void test_being_recorded(void **state)
{
	const char *path = tpath("live.ftr");
	struct capture_writer *w, *w2 = NULL;
	struct capture_reader *r;
	const struct ft_rec_hdr *rec;
	struct ft_file_header h;
	char err[256];

	(void)state;
	make_header(&h);
	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	assert_int_equal(capture__flush(w), 0);
	assert_int_equal(capture__open(&r, path, err, sizeof(err)), 0);
	while (capture__next(r, &rec) == 1)
		;
	assert_int_equal(capture__state(r), CAPTURE_TRUNCATED);
	assert_non_null(strstr(capture__error(r), "still being recorded"));
	capture__free(r);
	make_header(&h);
	assert_int_equal(capture__create(&w2, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), -EBUSY);
	assert_null(w2);
	assert_non_null(strstr(err, "another fabtrace is recording into it"));
	assert_int_equal(capture__close(w), 0);

	/* closed (without an END record: cut short, not being recorded), and a
	 * new recording may replace it */
	assert_int_equal(capture__open(&r, path, err, sizeof(err)), 0);
	while (capture__next(r, &rec) == 1)
		;
	assert_int_equal(capture__state(r), CAPTURE_TRUNCATED);
	assert_null(strstr(capture__error(r), "still being recorded"));
	assert_non_null(strstr(capture__error(r), "recording was interrupted"));
	capture__free(r);
	make_header(&h);
	assert_int_equal(capture__create(&w2, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	assert_int_equal(capture__close(w2), 0);
}

static void test_chown(void **state)
{
	const char *path = tpath("owned.ftc");
	struct capture_writer *w;
	struct ft_file_header h;
	char err[256];
	struct stat st;

	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	make_header(&h);
	assert_int_equal(capture__create(&w, path, &h, 12345, 23456, err, sizeof(err)), 0);
	assert_int_equal(capture__close(w), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_uid, 12345);
	assert_int_equal(st.st_gid, 23456);
	/* root may replace a file that belongs to the capture's owner */
	assert_int_equal(capture__create(&w, path, &h, 12345, 23456, err, sizeof(err)), 0);
	assert_int_equal(capture__close(w), 0);
	/* but not one of someone else */
	assert_int_equal(chown(path, 54321, 54321), 0);
	assert_int_equal(capture__create(&w, path, &h, 12345, 23456, err, sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "belongs to uid 54321"));
}

/* Big incompressible records so that block sizes are predictable. */
struct big_rec {
	struct ft_rec_hdr hdr;
	uint8_t data[65528 - 8];
};

static void fill_big(struct big_rec *b, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;

	b->hdr.type = 250;
	b->hdr.size = sizeof(*b);
	b->hdr.cpu = 0;
	for (size_t i = 0; i < sizeof(b->data); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b->data[i] = (uint8_t)x;
	}
}

/* Write until the file system refuses; check the file stays valid. */
static void write_until_error(const char *path, int want_errno)
{
	struct capture_writer *w;
	struct ft_file_header h;
	struct big_rec *b = malloc(sizeof(*b));
	char err[256];
	struct stat st;
	uint64_t good, recs;
	int ret = 0, i;

	assert_non_null(b);
	make_header(&h);
	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	for (i = 0; i < 64 && ret == 0; i++) {
		fill_big(b, (uint32_t)i);
		ret = capture__append(w, b);
	}
	assert_int_equal(ret, -want_errno);
	/* sticky */
	fill_big(b, 99);
	assert_int_equal(capture__append(w, b), -want_errno);
	assert_int_equal(capture__flush(w), -want_errno);
	assert_non_null(strstr(capture__last_error(w), strerror(want_errno)));
	assert_null(strchr(capture__last_error(w), '\n'));
	good = capture__bytes(w);
	recs = capture__records(w);
	assert_true(recs > 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((uint64_t)st.st_size, good);
	assert_int_equal(capture__close(w), -want_errno);
	free(b);

	/* the file is a valid, truncated capture of whole blocks */
	{
		enum capture_state cs;
		char msg[512];
		bool saw_end;
		int oret;
		uint64_t n = drain(path, &oret, &cs, msg, sizeof(msg), &saw_end);

		assert_int_equal(oret, 0);
		assert_int_equal(cs, CAPTURE_TRUNCATED);
		assert_int_equal(n, recs);
		assert_non_null(strstr(msg, "without an end record"));
	}
}

static void test_write_error_fsize(void **state)
{
	struct rlimit old, lim;
	void (*oldsig)(int);

	(void)state;
	/* RLIMIT_FSIZE: writes past it fail with EFBIG (short write first) */
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	oldsig = signal(SIGXFSZ, SIG_IGN);
	lim = old;
	lim.rlim_cur = 700 * 1024; /* room for 2 blocks of ~256 KiB, not 3 */
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	write_until_error(tpath("efbig.ftc"), EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, oldsig);
}

static void test_write_error_enospc(void **state)
{
	const char *mnt = tpath("small-tmpfs");
	char path[PATH_MAX];

	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	assert_int_equal(mkdir(mnt, 0700), 0);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=600k") < 0) {
		rmdir(mnt);
		skip();
		return;
	}
	snprintf(path, sizeof(path), "%s/full.ftc", mnt);
	write_until_error(path, ENOSPC);
}

/* Also after a failed assertion: a tmpfs left mounted outlives the test run. */
static int unmount_small_tmpfs(void **state)
{
	(void)state;
	umount2(tpath("small-tmpfs"), MNT_DETACH);
	rmdir(tpath("small-tmpfs"));
	return 0;
}

/* Random mutations must never crash the reader (a poor man's fuzzer). */
static void test_mutations(void **state)
{
	const char *src = tpath("mut-src.ftc");
	const char *path = tpath("mut.ftc");
	uint8_t *file, *copy;
	size_t len;
	uint32_t x = 12345;

	(void)state;
	write_capture(src, 300);
	file = slurp(src, &len);
	copy = malloc(len);
	assert_non_null(copy);
	for (int iter = 0; iter < 400; iter++) {
		enum capture_state st;
		char msg[512];
		bool saw_end;
		int oret;
		size_t cut = len;

		memcpy(copy, file, len);
		for (int k = 0; k < 1 + iter % 4; k++) {
			x = x * 1103515245u + 12345u;
			/* bias towards the block header area */
			size_t pos = (iter & 1) ? sizeof(struct ft_file_header) + (x >> 8) % 24
						: (x >> 8) % len;
			copy[pos] ^= (uint8_t)(1u << (x % 8));
		}
		if (iter % 5 == 0) {
			x = x * 1103515245u + 12345u;
			cut = (x >> 4) % (len + 1);
		}
		spit(path, copy, cut);
		(void)drain(path, &oret, &st, msg, sizeof(msg), &saw_end);
	}
	free(copy);
	free(file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rec_table),
		cmocka_unit_test(test_visitor),
		cmocka_unit_test(test_probe_coverage),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_writer_counters),
		cmocka_unit_test(test_append_validation),
		cmocka_unit_test(test_unknown_type_skipped),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt_payload),
		cmocka_unit_test(test_corrupt_records),
		cmocka_unit_test(test_zstd_blocks),
		cmocka_unit_test(test_version1_zlib),
		cmocka_unit_test(test_write_version1),
		cmocka_unit_test(test_header_checks),
		cmocka_unit_test(test_symlink_refused),
		cmocka_unit_test(test_mode_and_replace),
		cmocka_unit_test(test_being_recorded),
		cmocka_unit_test(test_chown),
		cmocka_unit_test(test_write_error_fsize),
		cmocka_unit_test_teardown(test_write_error_enospc, unmount_small_tmpfs),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
