// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the flight recorder (docs/flight-recorder.md): the
 * retention arithmetic, rate policies and snapshot windows
 * (userspace/record/flight_policy.c), the segment files and their
 * lost counts (flight_file.c), the preamble cache (flight_cache.c) and the
 * ring in a directory (flight_ring.c).
 */
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
#include <sys/stat.h>
#include <cmocka.h>

#define TMPDIR_NAME "flight"
#include "tests/unit/tmpdir.h"
#include "probes/cfg_rec.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/trigger.h"
#include "userspace/record/flight_cache.h"
#include "userspace/record/flight_file.h"
#include "userspace/record/flight_policy.h"
#include "userspace/record/flight_ring.h"

#define S 1000000000ull

/* ---- retention ---- */

static void test_retain_time(void **state)
{
	/* five 10 s segments ending at 10..50 s; keep 25 s */
	struct flight_seg_span segs[5];
	struct flight_limits l = { .keep_ns = 25 * S };

	(void)state;
	for (int i = 0; i < 5; i++)
		segs[i] = (struct flight_seg_span){ (uint64_t)i * 10 * S, (uint64_t)(i + 1) * 10 * S, 100, false };
	/* at 55 s: the segment ending at 10 s is 45 s old; the ones after it
	 * (from 10 s) still cover 45 s >= 25: it goes; so does the one ending
	 * at 20 (35 s); the one ending at 30 is 25 s old: the rest from 30 s
	 * cover exactly 25 s, so it goes too; the one ending at 40 stays */
	assert_int_equal(flight_retain_drop(segs, 5, 0, 55 * S, &l), 3);
	/* at 50 s: ages 40, 30, 20 -> two go */
	assert_int_equal(flight_retain_drop(segs, 5, 0, 50 * S, &l), 2);
	/* nothing old enough */
	assert_int_equal(flight_retain_drop(segs, 5, 0, 30 * S, &l), 0);
	/* a pinned one stops retention there, even when younger ones are old enough */
	segs[1].pinned = true;
	assert_int_equal(flight_retain_drop(segs, 5, 0, 55 * S, &l), 1);
	segs[0].pinned = true;
	assert_int_equal(flight_retain_drop(segs, 5, 0, 55 * S, &l), 0);
}

static void test_retain_size_files(void **state)
{
	struct flight_seg_span segs[4] = {
		{ 0, 1, 400, false }, { 1, 2, 300, false }, { 2, 3, 200, false }, { 3, 4, 100, false },
	};
	struct flight_limits l = { .keep_bytes = 700 };

	(void)state;
	/* 1000 bytes closed + 50 open > 700: 400 goes (650 left) */
	assert_int_equal(flight_retain_drop(segs, 4, 50, 10, &l), 1);
	/* the open segment counts: with 400 open, 400 + 300 go (700 left) */
	assert_int_equal(flight_retain_drop(segs, 4, 400, 10, &l), 2);
	/* within the bound: nothing */
	l.keep_bytes = 1100;
	assert_int_equal(flight_retain_drop(segs, 4, 100, 10, &l), 0);
	/* at most 2 closed files */
	l = (struct flight_limits){ .max_files = 2 };
	assert_int_equal(flight_retain_drop(segs, 4, 0, 10, &l), 2);
	/* no bound at all: nothing goes */
	l = (struct flight_limits){ 0 };
	assert_int_equal(flight_retain_drop(segs, 4, 1u << 30, 1000 * S, &l), 0);
	/* the first bound that holds keeps it: time alone allows, size does not */
	l = (struct flight_limits){ .keep_ns = 1, .keep_bytes = 10000 };
	assert_int_equal(flight_retain_drop(segs, 4, 0, 100, &l), 4);
}

static void test_seg_bytes(void **state)
{
	struct flight_limits l = { .keep_bytes = 1000 };

	(void)state;
	assert_int_equal(flight_seg_bytes(0, &l), 250);     /* a quarter of the bound */
	assert_int_equal(flight_seg_bytes(100, &l), 100);   /* asked for less */
	assert_int_equal(flight_seg_bytes(900, &l), 250);   /* asked for more than a quarter */
	l.keep_bytes = 0;
	assert_int_equal(flight_seg_bytes(0, &l), 0);       /* no size bound */
	assert_int_equal(flight_seg_bytes(64, &l), 64);
}

/* ---- rate policies ---- */

static void test_rate(void **state)
{
	struct flight_rate r = { 0 };
	char buf[32];
	int allowed = 0;

	(void)state;
	assert_int_equal(flight_rate__parse("every:3", &r), 0);
	assert_int_equal(r.kind, FLIGHT_RATE_EVERY);
	assert_string_equal(flight_rate__name(&r, buf, sizeof(buf)), "every:3");
	for (uint64_t k = 1; k <= 9; k++)
		if (flight_rate__allows(&r, k)) {
			assert_int_equal(k % 3, 0);
			allowed++;
		}
	assert_int_equal(allowed, 3);
	assert_int_equal(flight_rate__parse("once-after:2", &r), 0);
	assert_string_equal(flight_rate__name(&r, buf, sizeof(buf)), "once-after:2");
	assert_false(flight_rate__allows(&r, 1));
	assert_true(flight_rate__allows(&r, 2));
	assert_false(flight_rate__allows(&r, 3));
	assert_false(flight_rate__allows(&r, 4));
	r = (struct flight_rate){ FLIGHT_RATE_ALL, 0 };
	assert_true(flight_rate__allows(&r, 1) && flight_rate__allows(&r, 7));
	/* bad ones, unchanged */
	r = (struct flight_rate){ FLIGHT_RATE_EVERY, 5 };
	assert_int_equal(flight_rate__parse("every:0", &r), -EINVAL);
	assert_int_equal(flight_rate__parse("every:", &r), -EINVAL);
	assert_int_equal(flight_rate__parse("every:2x", &r), -EINVAL);
	assert_int_equal(flight_rate__parse("sometimes:2", &r), -EINVAL);
	assert_int_equal(flight_rate__parse("once-after:-1", &r), -EINVAL);
	assert_int_equal(r.n, 5);
}

static void test_rules(void **state)
{
	struct flight_rules *r = calloc(1, sizeof(*r));
	char name[16];

	(void)state;
	assert_non_null(r);
	assert_int_equal(flight_rules__fire(r, "SIGUSR1"), 1);
	assert_int_equal(flight_rules__fire(r, "fabtrace trigger"), 1);
	assert_int_equal(flight_rules__fire(r, "SIGUSR1"), 2);
	assert_int_equal(flight_rules__fire(r, "fabtrace trigger"), 2);
	assert_int_equal(flight_rules__fire(r, "SIGUSR1"), 3);
	/* more rules than the table: the rest share its last entry, still counted */
	for (int i = 0; i < FLIGHT_MAX_RULES + 5; i++) {
		snprintf(name, sizeof(name), "rule%d", i);
		assert_true(flight_rules__fire(r, name) >= 1);
	}
	assert_int_equal(r->n, FLIGHT_MAX_RULES);
	assert_int_equal(flight_rules__fire(r, "SIGUSR1"), 4);
	free(r);
}

/* ---- snapshot windows ---- */

static const struct flight_policy pol = { .pre_ns = 30 * S, .post_ns = 10 * S, .max_ns = 60 * S };

static void test_window_open_extend(void **state)
{
	struct flight_window w = { 0 };

	(void)state;
	assert_int_equal(flight_window__trigger(&w, &pol, 100 * S, 100 * S, true), FT_TRIGA_SNAPSHOT);
	assert_int_equal(w.snap, 1);
	assert_true(w.active);
	assert_int_equal(w.from_ns, 70 * S);
	assert_int_equal(w.to_ns, 110 * S);
	/* inside the post-window: the same snapshot, later end */
	assert_int_equal(flight_window__trigger(&w, &pol, 105 * S, 105 * S, true), FT_TRIGA_EXTENDED);
	assert_int_equal(w.snap, 1);
	assert_int_equal(w.from_ns, 70 * S);
	assert_int_equal(w.to_ns, 115 * S);
	/* again, up to the longest window (70 + 60 = 130) */
	assert_int_equal(flight_window__trigger(&w, &pol, 114 * S, 114 * S, true), FT_TRIGA_EXTENDED);
	assert_int_equal(w.to_ns, 124 * S);
	assert_int_equal(flight_window__trigger(&w, &pol, 123 * S, 123 * S, true), FT_TRIGA_EXTENDED);
	assert_int_equal(w.to_ns, 130 * S);
	assert_int_equal(flight_window__trigger(&w, &pol, 129 * S, 129 * S, true), FT_TRIGA_FULL);
	assert_int_equal(w.to_ns, 130 * S);
	assert_int_equal(w.snap, 1);
	/* due at its end, not before */
	assert_false(flight_window__due(&w, 129 * S));
	assert_true(flight_window__due(&w, 130 * S));
	flight_window__close(&w, 131 * S);
	assert_false(w.active);
	assert_false(flight_window__due(&w, 200 * S));
	/* the next one does not copy what the last one holds */
	assert_int_equal(flight_window__trigger(&w, &pol, 140 * S, 140 * S, true), FT_TRIGA_SNAPSHOT);
	assert_int_equal(w.snap, 2);
	assert_int_equal(w.from_ns, 131 * S);
	assert_int_equal(w.to_ns, 150 * S);
	/* a trigger inside it whose own window ends earlier joins it: not "full",
	 * which is for a snapshot at its longest, and the window stays */
	assert_int_equal(flight_window__trigger(&w, &pol, 135 * S, 136 * S, true), FT_TRIGA_JOINED);
	assert_int_equal(w.snap, 2);
	assert_int_equal(w.from_ns, 131 * S);
	assert_int_equal(w.to_ns, 150 * S);
	/* a trigger a moment before that window's end, handled after it closed:
	 * a window of its own, which holds the trigger's moment (it began at the
	 * last end, after the moment: the recorder printed 5124095 h before) */
	flight_window__close(&w, 150 * S);
	assert_int_equal(flight_window__trigger(&w, &pol, 150 * S - 1000, 150 * S + 1000, true), FT_TRIGA_SNAPSHOT);
	assert_int_equal(w.snap, 3);
	assert_true(w.from_ns <= 150 * S - 1000);
	assert_int_equal(w.from_ns, 150 * S - 1000);
	/* a moment in the past (--at) whose window [T - pre, T + post] the last
	 * saved window holds, handled after it closed: covered, not a file of
	 * the time since (it began after the moment: "0 ns before") */
	{
		struct flight_policy p0 = pol;
		struct flight_window v = { 0 };

		p0.post_ns = 0;
		assert_int_equal(flight_window__trigger(&v, &p0, 100 * S, 100 * S, true), FT_TRIGA_SNAPSHOT);
		flight_window__close(&v, 101 * S);
		assert_int_equal(flight_window__trigger(&v, &p0, 100 * S + 500, 102 * S, true), FT_TRIGA_COVERED);
		assert_int_equal(v.snap, 1);
		assert_false(v.active);
		/* its post-window past the last end: a window of its own, from its moment */
		p0.post_ns = 5 * S;
		assert_int_equal(flight_window__trigger(&v, &p0, 100 * S + 500, 102 * S, true), FT_TRIGA_SNAPSHOT);
		assert_int_equal(v.snap, 2);
		assert_int_equal(v.from_ns, 100 * S + 500);
		assert_int_equal(v.to_ns, 105 * S + 500);
		/* a moment before the last window began is not in it: a window of
		 * its own that holds the moment, at most max_ns long */
		flight_window__close(&v, 106 * S);
		p0.post_ns = 0;
		assert_int_equal(flight_window__trigger(&v, &p0, 90 * S, 200 * S, true), FT_TRIGA_SNAPSHOT);
		assert_int_equal(v.from_ns, 90 * S);
		assert_int_equal(v.to_ns, 150 * S);
	}
}

static void test_window_policy(void **state)
{
	struct flight_policy p = pol;
	struct flight_window w = { 0 };

	(void)state;
	/* held back by the rate policy: nothing changes */
	assert_int_equal(flight_window__trigger(&w, &p, 100 * S, 100 * S, false), FT_TRIGA_RATE);
	assert_int_equal(w.snap, 0);
	assert_false(w.active);
	/* cool-down after a window ends */
	p.cooldown_ns = 20 * S;
	assert_int_equal(flight_window__trigger(&w, &p, 100 * S, 100 * S, true), FT_TRIGA_SNAPSHOT);
	flight_window__close(&w, 110 * S);
	assert_int_equal(flight_window__trigger(&w, &p, 120 * S, 120 * S, true), FT_TRIGA_COOLDOWN);
	assert_int_equal(w.snap, 1);
	assert_int_equal(flight_window__trigger(&w, &p, 130 * S, 130 * S, true), FT_TRIGA_SNAPSHOT);
	assert_int_equal(w.snap, 2);
	/* a window past its end that nobody closed is over: a new one, not an extension */
	w = (struct flight_window){ 0 };
	p.cooldown_ns = 0;
	assert_int_equal(flight_window__trigger(&w, &p, 100 * S, 100 * S, true), FT_TRIGA_SNAPSHOT);
	assert_int_equal(flight_window__trigger(&w, &p, 200 * S, 200 * S, true), FT_TRIGA_SNAPSHOT);
	assert_int_equal(w.snap, 2);
	assert_int_equal(w.from_ns, 170 * S);
	/* a moment asked for in the past: the window reaches its arrival */
	w = (struct flight_window){ 0 };
	assert_int_equal(flight_window__trigger(&w, &p, 100 * S, 125 * S, true), FT_TRIGA_SNAPSHOT);
	assert_int_equal(w.from_ns, 70 * S);
	assert_int_equal(w.to_ns, 125 * S);
	/* ... and never past the longest a snapshot may be */
	w = (struct flight_window){ 0 };
	assert_int_equal(flight_window__trigger(&w, &p, 100 * S, 200 * S, true), FT_TRIGA_SNAPSHOT);
	assert_int_equal(w.to_ns - w.from_ns, 60 * S);
	/* what a saved snapshot holds already is not saved twice */
	w = (struct flight_window){ .snap = 1, .from_ns = 50 * S, .to_ns = 300 * S, .ended_ns = 300 * S };
	assert_int_equal(flight_window__trigger(&w, &p, 100 * S, 100 * S, true), FT_TRIGA_COVERED);
	assert_int_equal(w.snap, 1);
	/* a moment near the clock's zero: the pre-window starts at 0 */
	w = (struct flight_window){ 0 };
	assert_int_equal(flight_window__trigger(&w, &p, 5 * S, 5 * S, true), FT_TRIGA_SNAPSHOT);
	assert_int_equal(w.from_ns, 0);
}

/* ---- files, lost counts ---- */

static struct ft_file_header header(uint64_t start)
{
	struct ft_file_header h = { .start_mono_ns = start, .bin_ns = 100000, .ncpus = 2 };

	memcpy(h.magic, FT_MAGIC, sizeof(h.magic));
	return h;
}

static struct ft_lost lost_rec(uint64_t ts, uint32_t src, uint32_t cpu, uint64_t n)
{
	return (struct ft_lost){ .hdr = { FT_REC_LOST, sizeof(struct ft_lost), 0 }, .ts_ns = ts, .lost = n,
				 .source = src, .cpu = cpu };
}

static void test_lost(void **state)
{
	struct flight_lost seg, snap;
	struct ft_lost l;

	(void)state;
	assert_int_equal(flight_lost__init(&seg), 0);
	assert_int_equal(flight_lost__init(&snap), 0);
	/* segment 1: the recorder's counts as they are */
	l = lost_rec(1, FT_SRC_NET, 1, 5);
	flight_lost__to_segment(&seg, &l);
	assert_int_equal(l.lost, 5);
	flight_lost__rebase(&seg);
	/* segment 2: what was lost since it began */
	l = lost_rec(2, FT_SRC_NET, 1, 12);
	flight_lost__to_segment(&seg, &l);
	assert_int_equal(l.lost, 7);
	l = lost_rec(2, FT_SRC_TCP, 0, 3);
	flight_lost__to_segment(&seg, &l);
	assert_int_equal(l.lost, 3);
	/* a snapshot of segments 1 and 2 adds them up again */
	l = lost_rec(1, FT_SRC_NET, 1, 5);
	flight_lost__to_snapshot(&snap, &l);
	assert_int_equal(l.lost, 5);
	flight_lost__carry(&snap);
	l = lost_rec(2, FT_SRC_NET, 1, 7);
	flight_lost__to_snapshot(&snap, &l);
	assert_int_equal(l.lost, 12);
	l = lost_rec(2, FT_SRC_TCP, 0, 3);
	flight_lost__to_snapshot(&snap, &l);
	assert_int_equal(l.lost, 3);
	/* out of range: left alone */
	l = lost_rec(2, 99, 0, 3);
	flight_lost__to_segment(&seg, &l);
	assert_int_equal(l.lost, 3);
	flight_lost__free(&seg);
	flight_lost__free(&snap);
}

static void test_file(void **state)
{
	struct ft_file_header h = header(5000);
	struct flight_file ff;
	struct ft_iface_bin b = { .hdr = { FT_REC_IFACE_BIN, sizeof(b), 0 }, .start_ns = 4000, .bytes = 10 };
	struct ft_trigger t = { .hdr = { FT_REC_TRIGGER, sizeof(t), 0 }, .mono_ns = 10, .received_ns = 6000 };
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	char err[CAPTURE_ERR_MAX];
	struct stat st;
	int n = 0, ends = 0;

	(void)state;
	assert_int_equal(flight_file__create(&ff, tpath("f.ftr"), &h, err, sizeof(err)), 0);
	/* while it is written, only the .part exists */
	assert_int_equal(stat(tpath("f.ftr"), &st), -1);
	assert_int_equal(stat(tpath("f.ftr.part"), &st), 0);
	assert_int_equal(flight_file__append(&ff, &b.hdr), 0);
	assert_int_equal(flight_file__append(&ff, &t.hdr), 0);
	assert_int_equal(flight_file__finish(&ff, FT_STOP_ROTATED, 7000, FT_FILE_SNAPSHOT, err, sizeof(err)), 0);
	assert_int_equal(stat(tpath("f.ftr.part"), &st), -1);
	assert_int_equal(capture__open(&r, tpath("f.ftr"), err, sizeof(err)), 0);
	/* the header's start is its earliest record (the late bin), not the trigger's asked-for moment */
	assert_int_equal(capture__header(r)->start_mono_ns, 4000);
	assert_int_equal(capture__header(r)->flags, FT_FILE_SNAPSHOT);
	while (capture__next(r, &rec) == 1) {
		n++;
		if (rec->type == FT_REC_END) {
			const struct ft_end *e = (const void *)rec;

			ends++;
			assert_int_equal(e->records, 2);
			assert_int_equal(e->stop_reason, FT_STOP_ROTATED);
			assert_int_equal(e->ts_ns, 7000);
		}
	}
	assert_int_equal(capture__state(r), CAPTURE_OK);
	assert_int_equal(n, 3);
	assert_int_equal(ends, 1);
	capture__free(r);
}

/* ---- the preamble cache ---- */

struct sink {
	uint16_t types[64];
	struct ft_proc procs[4];
	int n, nprocs;
};

static int collect(void *ctx, const struct ft_rec_hdr *rec)
{
	struct sink *s = ctx;

	if (s->n < 64)
		s->types[s->n++] = rec->type;
	if (rec->type == FT_REC_PROC && s->nprocs < 4)
		memcpy(&s->procs[s->nprocs++], rec, sizeof(s->procs[0]));
	return 0;
}

static void test_cache(void **state)
{
	struct flight_cache *c;
	struct ft_host_id hid = { .hdr = { FT_REC_HOST_ID, sizeof(hid), 0 } };
	struct ft_clock clk = { .hdr = { FT_REC_CLOCK, sizeof(clk), 0 }, .mono_ns = 77, .daemons = 3 };
	struct ft_phase_slot slot = { .hdr = { FT_REC_PHASE_SLOT, sizeof(slot), 0 }, .slot = 4 };
	struct ft_probe_info probe = { .hdr = { FT_REC_PROBE, sizeof(probe), 0 }, .id = 1 };
	struct ft_iface_info ifa = { .hdr = { FT_REC_IFACE, sizeof(ifa), 0 }, .netns = 9, .ifindex = 2 };
	struct ft_proc live = { .hdr = { FT_REC_PROC, sizeof(live), 0 }, .ts_ns = 10, .event = FT_PROC_FORK,
				.pid = (uint32_t)getpid() };
	struct ft_proc gone = live;
	struct ft_comm_info ci = { .hdr = { FT_REC_COMM_INFO, sizeof(ci), 0 }, .ts_ns = 11, .pid = live.pid,
				   .rank = 3, .size = 8 };
	struct ft_iface_bin bin = { .hdr = { FT_REC_IFACE_BIN, sizeof(bin), 0 } };
	struct sink s = { 0 };
	struct ft_clock fresh = clk;
	static const uint16_t want[] = { FT_REC_HOST_ID, FT_REC_CLOCK, FT_REC_PROBE, FT_REC_PHASE_SLOT,
					 FT_REC_IFACE, FT_REC_PROC, FT_REC_COMM_INFO };

	(void)state;
	assert_int_equal(flight_cache__new(&c), 0);
	/* in an order unlike the preamble's: the replay puts it right */
	gone.pid = 0x3ffffff0; /* no such process */
	assert_int_equal(flight_cache__note(c, &live.hdr), 0);
	assert_int_equal(flight_cache__note(c, &ci.hdr), 0);
	assert_int_equal(flight_cache__note(c, &gone.hdr), 0);
	assert_int_equal(flight_cache__note(c, &ifa.hdr), 0);
	assert_int_equal(flight_cache__note(c, &slot.hdr), 0);
	assert_int_equal(flight_cache__note(c, &probe.hdr), 0);
	assert_int_equal(flight_cache__note(c, &hid.hdr), 0);
	assert_int_equal(flight_cache__note(c, &clk.hdr), 0);
	assert_int_equal(flight_cache__note(c, &bin.hdr), 0);  /* not repeated */
	/* a newer record of the same thing replaces the older */
	ifa.mtu = 9000;
	assert_int_equal(flight_cache__note(c, &ifa.hdr), 0);
	assert_int_equal(flight_cache__daemons(c), 3);
	fresh.mono_ns = 500;
	assert_int_equal(flight_cache__replay(c, &fresh, 500, collect, &s), 7);
	assert_int_equal(s.n, 7);
	assert_memory_equal(s.types, want, sizeof(want));
	/* the live process, as existing at the segment's start; the gone one dropped */
	assert_int_equal(s.nprocs, 1);
	assert_int_equal(s.procs[0].pid, live.pid);
	assert_int_equal(s.procs[0].event, FT_PROC_EXISTING);
	assert_int_equal(s.procs[0].ts_ns, 500);
	/* its exit: its records go at the next segment */
	live.event = FT_PROC_EXIT;
	assert_int_equal(flight_cache__note(c, &live.hdr), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(flight_cache__replay(c, &fresh, 600, collect, &s), 5);
	assert_int_equal(s.nprocs, 0);
	flight_cache__free(c);
}

/* What a replay gave of the post-window probes' span: its `on` records and their dates. */
struct span_sink {
	int n;
	uint64_t ts, probes;
};

static int collect_span(void *ctx, const struct ft_rec_hdr *rec)
{
	struct span_sink *s = ctx;
	const struct ft_probe_span *r = (const void *)rec;

	if (rec->type == FT_REC_PROBE_SPAN) {
		assert_int_equal(r->on, 1);
		s->n++;
		s->ts = r->ts_ns;
		s->probes = r->probes;
	}
	return 0;
}

/* A segment begun inside a span of --post-probes repeats its `on`, dated at its start; after the `off`, nothing. */
static void test_cache_span(void **state)
{
	const struct ft_probe_span on1 = { .hdr = { FT_REC_PROBE_SPAN, sizeof(on1), 0 }, .ts_ns = 40, .probes = 0x18,
					   .on = 1, .snapshot = 2 };
	struct ft_probe_span again = on1, off0 = on1, off1 = on1, on2 = on1;
	struct ft_clock clk = { .hdr = { FT_REC_CLOCK, sizeof(clk), 0 } };
	struct span_sink s = { 0 };
	struct flight_cache *c;

	(void)state;
	off0.on = off1.on = 0;
	off0.ts_ns = 30;
	again.ts_ns = 50;
	off1.ts_ns = 70;
	on2.ts_ns = 90;
	assert_int_equal(flight_cache__new(&c), 0);
	/* an `off` first (nothing open): nothing to forget */
	assert_int_equal(flight_cache__note(c, &off0.hdr), 0);
	assert_int_equal(flight_cache__replay(c, &clk, 35, collect_span, &s), 1); /* the clock alone */
	assert_int_equal(s.n, 0);
	assert_int_equal(flight_cache__note(c, &on1.hdr), 0);
	assert_int_equal(flight_cache__replay(c, &clk, 50, collect_span, &s), 2);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ts, 50);
	assert_int_equal(s.probes, 0x18);
	/* the replayed `on`, noted again as the segment passes through the sink, stays one */
	memset(&s, 0, sizeof(s));
	assert_int_equal(flight_cache__note(c, &again.hdr), 0);
	assert_int_equal(flight_cache__replay(c, &clk, 60, collect_span, &s), 2);
	assert_int_equal(s.n, 1);
	assert_int_equal(flight_cache__note(c, &off1.hdr), 0);
	memset(&s, 0, sizeof(s));
	assert_int_equal(flight_cache__replay(c, &clk, 80, collect_span, &s), 1);
	assert_int_equal(s.n, 0);
	/* a second span after it */
	assert_int_equal(flight_cache__note(c, &on2.hdr), 0);
	assert_int_equal(flight_cache__replay(c, &clk, 95, collect_span, &s), 2);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.ts, 95);
	flight_cache__free(c);
}

/* What a replay gave of the configuration: each setting's key=value@ts. */
struct cfg_sink {
	char got[8][96];
	int n;
};

static int collect_cfg(void *ctx, const struct ft_rec_hdr *rec)
{
	struct cfg_sink *s = ctx;
	const char *k, *v;

	if (rec->type == FT_REC_CONFIG && s->n < 8 && !cfgrec__parse(rec, &k, &v))
		snprintf(s->got[s->n++], sizeof(s->got[0]), "%s=%s@%llu", k, v,
			 (unsigned long long)((const struct ft_config *)(const void *)rec)->ts_ns);
	return 0;
}

/* Every segment carries the settings (issue 34): the latest value of each, a rank's while its process lives. */
static void test_cache_config(void **state)
{
	_Alignas(8) uint8_t b[5][CFGREC_MAX];
	struct ft_config ns = { .ts_ns = 5, .scope = FT_CFG_NETNS, .netns = 9 };
	struct ft_config flow = { .ts_ns = 6, .scope = FT_CFG_FLOW, .netns = 9, .flow = { .sport = 1, .dport = 2 } };
	struct ft_config rank = { .ts_ns = 7, .scope = FT_CFG_RANK, .id = (uint32_t)getpid() };
	struct ft_config dead = rank;
	struct ft_clock clk = { .hdr = { FT_REC_CLOCK, sizeof(clk), 0 } };
	struct ft_config *r;
	struct cfg_sink s = { 0 };
	struct flight_cache *c;

	(void)state;
	assert_int_equal(flight_cache__new(&c), 0);
	dead.id = 0x3ffffff0; /* no such process */
	assert_int_equal(flight_cache__note(c, &cfgrec__build(b[0], &ns, "net.ipv4.tcp_ecn", "1")->hdr), 0);
	assert_int_equal(flight_cache__note(c, &cfgrec__build(b[1], &flow, "cc", "cubic")->hdr), 0);
	assert_int_equal(flight_cache__note(c, &cfgrec__build(b[2], &rank, "NCCL_ALGO", "Ring")->hdr), 0);
	assert_int_equal(flight_cache__note(c, &cfgrec__build(b[3], &dead, "NCCL_ALGO", "Tree")->hdr), 0);
	/* the value at the stop replaces the first */
	ns.ts_ns = 50;
	assert_int_equal(flight_cache__note(c, &cfgrec__build(b[4], &ns, "net.ipv4.tcp_ecn", "2")->hdr), 0);
	/* shorter than its struct: damaged, not kept, not counted as memory */
	r = cfgrec__build(b[4], &ns, "net.core.somaxconn", "4096");
	r->hdr.size = 16;
	assert_int_equal(flight_cache__note(c, &r->hdr), -EINVAL);
	assert_int_equal(flight_cache__dropped(c), 0);
	assert_int_equal(flight_cache__replay(c, &clk, 500, collect_cfg, &s), 3); /* the clock, two settings */
	assert_int_equal(s.n, 2);
	/* as they stand when the segment begins, dated at its start; no socket's, no dead rank's */
	assert_string_equal(s.got[0], "net.ipv4.tcp_ecn=2@500");
	assert_string_equal(s.got[1], "NCCL_ALGO=Ring@500");
	flight_cache__free(c);
}

/* ---- the ring in a directory ---- */

static void test_ring(void **state)
{
	struct flight_limits l = { .max_files = 2 };
	struct ft_file_header h = header(0);
	struct flight_ring *r = NULL, *r2 = NULL;
	struct ft_lost lost = lost_rec(0, FT_SRC_NET, 0, 0);
	char err[CAPTURE_ERR_MAX], dir[256], path[PATH_MAX];
	struct stat st;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "%s", tpath("ring"));
	assert_int_equal(mkdir(dir, 0700), 0);
	/* an empty directory: nothing adopted, the first segment numbered 1 */
	assert_int_equal(flight_ring__open(&r, dir, &l, err, sizeof(err)), 0);
	assert_int_equal(flight_ring__count(r), 0);
	assert_int_equal(flight_ring__retain(r, 10 * S), 0);
	flight_ring__free(r);
	r = NULL;
	/* a killed recorder's segment that holds no record (killed before its header was whole): removed */
	snprintf(path, sizeof(path), "%s/seg-00000009-20260101T000000Z.ftr.part", dir);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	/* one that holds a record: renamed into place and counted */
	{
		struct capture_writer *w = NULL;

		snprintf(path, sizeof(path), "%s/seg-00000007-20260101T000000Z.ftr.part", dir);
		assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
		assert_int_equal(capture__append(w, &lost.hdr), 0);
		assert_int_equal(capture__close(w), 0);
	}
	assert_int_equal(flight_ring__open(&r, dir, &l, err, sizeof(err)), 0);
	assert_int_equal(flight_ring__adopted(r), 1);
	snprintf(path, sizeof(path), "%s/seg-00000009-20260101T000000Z.ftr.part", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/seg-00000009-20260101T000000Z.ftr", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/seg-00000007-20260101T000000Z.ftr", dir);
	assert_int_equal(stat(path, &st), 0);
	/* one directory, one recorder */
	assert_int_equal(flight_ring__open(&r2, dir, &l, err, sizeof(err)), -EWOULDBLOCK);
	assert_non_null(strstr(err, "another flight recorder"));
	flight_ring__free(r2);
	/* three segments, numbered after the adopted one; lost counts per segment */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(flight_ring__begin(r, &h, (uint64_t)(i + 1) * S, err, sizeof(err)), 0);
		lost.lost = (uint64_t)(i + 1) * 10;
		lost.ts_ns = (uint64_t)(i + 1) * S;
		assert_int_equal(flight_ring__append(r, &lost.hdr), 0);
		assert_int_equal(flight_ring__end(r, FT_STOP_ROTATED, (uint64_t)(i + 2) * S, err, sizeof(err)), 0);
	}
	assert_int_equal(flight_ring__count(r), 4);
	assert_int_equal(flight_ring__seg(r, 1)->seq, 8);
	assert_int_equal(flight_ring__seg(r, 3)->seq, 10);
	/* at most two: the adopted one and the first of ours go, oldest first */
	assert_int_equal(flight_ring__retain(r, 10 * S), 2);
	assert_int_equal(flight_ring__count(r), 2);
	assert_int_equal(flight_ring__seg(r, 0)->seq, 9);
	assert_int_equal(stat(path, &st), -1);
	/* the last segment lost 10 events of its own (30 - 20) */
	{
		struct capture_reader *cr = NULL;
		const struct ft_rec_hdr *rec;
		uint64_t last = ~0ull;

		assert_int_equal(capture__open(&cr, flight_ring__path(r, flight_ring__seg(r, 1), path, sizeof(path)),
					       err, sizeof(err)), 0);
		assert_int_equal(capture__header(cr)->flags, FT_FILE_SEGMENT);
		while (capture__next(cr, &rec) == 1)
			if (rec->type == FT_REC_LOST)
				last = ((const struct ft_lost *)(const void *)rec)->lost;
		assert_int_equal(last, 10);
		capture__free(cr);
	}
	flight_ring__free(r);
	/* a missing directory is made where its parent exists; one whose parent is
	 * missing is an error; so is a file where the directory should be */
	assert_int_equal(flight_ring__open(&r, tpath("made"), &l, err, sizeof(err)), 0);
	flight_ring__free(r);
	assert_int_equal(stat(tpath("made"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(flight_ring__open(&r, tpath("nope/dir"), &l, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "create the directory"));
	flight_ring__free(r);
	fd = open(tpath("afile"), O_CREAT | O_WRONLY, 0600);
	close(fd);
	assert_int_equal(flight_ring__open(&r, tpath("afile"), &l, err, sizeof(err)), -ENOTDIR);
	flight_ring__free(r);
}

/* The actions' names and words: the control socket's answers name an action,
 * `fabtrace trigger` and info say it in the same words from the one table */
static void test_action_names(void **state)
{
	struct ft_trigger t = { .snapshot = 3 };
	char buf[96];

	(void)state;
	for (uint32_t a = FT_TRIGA_SNAPSHOT; a <= FT_TRIGA_JOINED; a++) {
		assert_string_not_equal(trigger__action_name(a), "unknown");
		assert_int_equal(trigger__action_by_name(trigger__action_name(a)), a);
	}
	assert_int_equal(trigger__action_by_name("unknown"), 0);
	assert_int_equal(trigger__action_by_name(""), 0);
	assert_int_equal(trigger__action_by_name("snapshots"), 0);
	t.action = FT_TRIGA_SNAPSHOT;
	assert_string_equal(trigger__action_text(&t, buf, sizeof(buf)), "opened snapshot 3");
	t.action = FT_TRIGA_FULL;
	assert_string_equal(trigger__action_text(&t, buf, sizeof(buf)), "inside the window (at its longest) of snapshot 3");
	t.action = FT_TRIGA_COVERED; /* no snapshot of its own: no number */
	assert_string_equal(trigger__action_text(&t, buf, sizeof(buf)), "already covered by a saved snapshot");
	t.action = FT_TRIGA_RATE;
	assert_string_equal(trigger__action_text(&t, buf, sizeof(buf)), "held back by the rate policy");
	t.action = 99;
	assert_string_equal(trigger__action_text(&t, buf, sizeof(buf)), "unknown action 99");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retain_time),
		cmocka_unit_test(test_retain_size_files),
		cmocka_unit_test(test_seg_bytes),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_window_open_extend),
		cmocka_unit_test(test_window_policy),
		cmocka_unit_test(test_action_names),
		cmocka_unit_test(test_lost),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cache_config),
		cmocka_unit_test(test_cache_span),
		cmocka_unit_test(test_ring),
	};

	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
