// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for userspace/live/rules*.c, the flight recorder's triggers by
 * rule and by the job: the syntax, and synthetic records in, firings out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "userspace/live/rules.h"

#define T0 1000000000000ull
#define MS 1000000ull
#define SEC 1000000000ull
#define NS1 4026531840u
#define REC(r, t) do { memset(&(r), 0, sizeof(r)); (r).hdr.type = (t); (r).hdr.size = sizeof(r); } while (0)
#define FEED(rs, r) assert_int_equal(rules__sink((rs), (const struct ft_rec_hdr *)(const void *)&(r)), 0)

struct fired {
	int n;
	struct flight_trigger t[16];
	char rule[16][64], reason[16][128], unit[16][16];
};

static void on_fire(void *ctx, const struct flight_trigger *t)
{
	struct fired *f = ctx;

	if (f->n == 16)
		fail_msg("too many firings");
	f->t[f->n] = *t;
	snprintf(f->rule[f->n], sizeof(f->rule[0]), "%s", t->rule);
	snprintf(f->reason[f->n], sizeof(f->reason[0]), "%s", t->reason ? t->reason : "");
	snprintf(f->unit[f->n], sizeof(f->unit[0]), "%s", t->unit ? t->unit : "");
	f->n++;
}

static struct rules *make(const char *const *texts, int n, struct fired *f)
{
	struct rule r[RULES_MAX];
	char err[256];
	struct rules *rs;

	for (int i = 0; i < n; i++)
		if (rules__parse(&r[i], texts[i], err, sizeof(err)))
			fail_msg("'%s': %s", texts[i], err);
	memset(f, 0, sizeof(*f));
	rs = rules__new(r, n, 100000, on_fire, f);
	assert_non_null(rs);
	return rs;
}

static void test_parse(void **state)
{
	struct rule r;
	char err[256];

	(void)state;
	assert_int_equal(rules__parse(&r, "link.drops>100/s  over 2s on h2/eth0", err, sizeof(err)), 0);
	assert_int_equal(r.metric, RM_LINK_DROPS);
	assert_int_equal(r.op, ROP_GT);
	assert_int_equal(r.threshold, 100);
	assert_int_equal(r.over_ns, 2 * SEC);
	assert_true(r.on);
	assert_string_equal(r.on_netns, "h2");
	assert_string_equal(r.on_iface, "eth0");
	assert_string_equal(r.text, "link.drops > 100/s over 2s on h2/eth0");
	assert_int_equal(rules__parse(&r, "coll.slow >= 2.5x", err, sizeof(err)), 0);
	assert_int_equal(r.op, ROP_GE);
	assert_int_equal(r.threshold, 2500);
	assert_int_equal(rules__parse(&r, "queue.sojourn > 2ms", err, sizeof(err)), 0);
	assert_int_equal(r.threshold, 2 * MS);
	assert_int_equal(rules__parse(&r, "job.exit", err, sizeof(err)), 0);
	assert_int_equal(r.op, ROP_NE);
	assert_int_equal(r.threshold, 0);
	assert_int_equal(rules__parse(&r, "lost > 0", err, sizeof(err)), 0);
	assert_int_equal(rules__parse(&r, "job.timeout", err, sizeof(err)), 0);
	assert_string_equal(rules__unit_name(RM_COLL_SLOW), "x1000");

	/* bad ones: an error that names what is wrong */
	assert_int_equal(rules__parse(&r, "link.drops > 100", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a rate"));
	assert_int_equal(rules__parse(&r, "link.loss > 1/s", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a metric"));
	assert_int_equal(rules__parse(&r, "rank.late", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "needs a threshold"));
	assert_int_equal(rules__parse(&r, "rank.late > 5ms on eth0", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a rank; give rank:N"));
	assert_int_equal(rules__parse(&r, "rank.late > 5ms on rank:-1", err, sizeof(err)), -1);
	assert_int_equal(rules__parse(&r, "coll.slow > 3x on rank:", err, sizeof(err)), -1);
	assert_int_equal(rules__parse(&r, "lost > 0 on rank:1", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "takes no 'on'"));
	assert_int_equal(rules__parse(&r, "coll.slow > 3x on rank:12", err, sizeof(err)), 0);
	assert_true(r.on_rank);
	assert_false(r.on);
	assert_int_equal(r.rank, 12);
	assert_string_equal(r.text, "coll.slow > 3x on rank:12");
	assert_int_equal(rules__parse(&r, "rank.late > 20ms", err, sizeof(err)), 0);
	assert_false(r.on_rank);
	assert_int_equal(rules__parse(&r, "link.ce != 1/s", err, sizeof(err)), -1);
	assert_int_equal(rules__parse(&r, "link.ce > 1/s over 1ms", err, sizeof(err)), -1);
	assert_int_equal(rules__parse(&r, "job.timeout > 3", err, sizeof(err)), -1);
	assert_int_equal(rules__parse(&r, "lost > 1 extra", err, sizeof(err)), -1);
	assert_int_equal(rules__parse(&r, "queue.sojourn > 2ms > 3ms", err, sizeof(err)), -1);
	assert_int_equal(rules__parse(&r, "", err, sizeof(err)), -1);
	/* a rule's own rate policy */
	assert_int_equal(rules__parse(&r, "link.drops > 100/s on h2/eth0 policy every:3", err, sizeof(err)), 0);
	assert_true(r.has_rate);
	assert_int_equal(r.rate.kind, FLIGHT_RATE_EVERY);
	assert_int_equal(r.rate.n, 3);
	assert_string_equal(r.text, "link.drops > 100/s on h2/eth0 policy every:3");
	assert_int_equal(rules__parse(&r, "job.exit policy once-after:2", err, sizeof(err)), 0);
	assert_int_equal(r.rate.kind, FLIGHT_RATE_ONCE_AFTER);
	assert_int_equal(rules__parse(&r, "lost > 0", err, sizeof(err)), 0);
	assert_false(r.has_rate);
	assert_int_equal(rules__parse(&r, "lost > 0 policy sometimes", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a rate policy"));
	assert_int_equal(rules__parse(&r, "lost > 0 policy", err, sizeof(err)), -1);
	/* coll.slow's usual over a window */
	assert_int_equal(rules__parse(&r, "coll.slow > 3x usual 10m on rank:2", err, sizeof(err)), 0);
	assert_int_equal(r.usual_ns, 600 * SEC);
	assert_true(r.on_rank);
	assert_string_equal(r.text, "coll.slow > 3x usual 10m on rank:2");
	assert_int_equal(rules__parse(&r, "coll.slow > 3x", err, sizeof(err)), 0);
	assert_int_equal(r.usual_ns, 0);
	assert_int_equal(rules__parse(&r, "link.drops > 1/s usual 1m", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "takes no 'usual'"));
	assert_int_equal(rules__parse(&r, "coll.slow > 3x usual 100ms", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "at least 1s"));
	assert_int_equal(rules__parse(&r, "coll.slow > 3x usual", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "needs a value"));
}

static void iface(struct rules *rs, uint32_t ifindex, const char *name, const char *ns)
{
	struct ft_iface_info r;

	REC(r, FT_REC_IFACE);
	r.netns = NS1;
	r.ifindex = ifindex;
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.netns_name, sizeof(r.netns_name), "%s", ns);
	FEED(rs, r);
}

static void reason(struct rules *rs, uint32_t id, const char *name)
{
	struct ft_drop_reason r;

	REC(r, FT_REC_DROP_REASON);
	r.reason = id;
	snprintf(r.name, sizeof(r.name), "%s", name);
	FEED(rs, r);
}

static void drop(struct rules *rs, uint32_t ifindex, uint32_t why, uint64_t ts)
{
	struct ft_drop r;

	REC(r, FT_REC_DROP);
	r.netns = NS1;
	r.ifindex = ifindex;
	r.reason = why;
	r.ts_ns = ts;
	FEED(rs, r);
}

/* 100 drops/s is crossed once per storm; the other interface, and drops that are not congestion, count not */
static void test_link_drops(void **state)
{
	const char *t[] = { "link.drops > 100/s on sw/p1" };
	struct fired f;
	struct rules *rs = make(t, 1, &f);

	(void)state;
	iface(rs, 2, "p1", "sw");
	iface(rs, 3, "p2", "sw");
	reason(rs, 10, "QDISC_DROP");
	reason(rs, 2, "NOT_SPECIFIED");
	for (int i = 0; i < 500; i++) { /* 500/s for 1 s: on p2, and not congestion on p1 */
		drop(rs, 3, 10, T0 + (uint64_t)i * 2 * MS);
		drop(rs, 2, 2, T0 + (uint64_t)i * 2 * MS);
	}
	assert_int_equal(f.n, 0);
	for (int i = 0; i < 100; i++) /* 100 in 1 s on p1: not over 100/s */
		drop(rs, 2, 10, T0 + 2 * SEC + (uint64_t)i * 10 * MS);
	assert_int_equal(f.n, 0);
	for (int i = 0; i < 1000; i++) /* a storm of 1000/s for 1 s */
		drop(rs, 2, 10, T0 + 5 * SEC + (uint64_t)i * MS);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.t[0].kind, FT_TRIG_RULE);
	assert_string_equal(f.rule[0], "link.drops > 100/s on sw/p1");
	assert_string_equal(f.unit[0], "1/s");
	assert_string_equal(f.reason[0], "p1@sw");
	assert_int_equal(f.t[0].threshold, 100);
	assert_true(f.t[0].value > 100 && f.t[0].value <= 110);
	/* the 101st drop of the window fired it, at its own moment */
	assert_true(f.t[0].at_ns >= T0 + 5 * SEC + 90 * MS && f.t[0].at_ns <= T0 + 5 * SEC + 101 * MS);
	/* quiet for more than the window, then a second storm: a second firing */
	for (int i = 0; i < 1000; i++)
		drop(rs, 2, 10, T0 + 8 * SEC + (uint64_t)i * MS);
	assert_int_equal(f.n, 2);
	assert_true(f.t[1].at_ns > T0 + 8 * SEC);
	assert_int_equal(rules__fired(rs, 0), 2);
	rules__free(rs);
}

static void retrans(struct rules *rs, uint32_t ifindex, uint64_t ts, uint32_t segs, int32_t err)
{
	struct ft_retrans r;

	REC(r, FT_REC_RETRANS);
	r.flow.netns = NS1;
	r.flow.ifindex = ifindex;
	r.ts_ns = ts;
	r.segs = segs;
	r.err = err;
	FEED(rs, r);
}

/* link.retrans counts the segments sent again on the flow's route; an attempt that sent nothing counts not */
static void test_link_retrans(void **state)
{
	const char *t[] = { "link.retrans > 100/s on sw/p1" };
	struct fired f;
	struct rules *rs = make(t, 1, &f);

	(void)state;
	iface(rs, 2, "p1", "sw");
	for (int i = 0; i < 500; i++) /* 1000 failed attempts of 2 segments in 1 s (-EBUSY) */
		retrans(rs, 2, T0 + (uint64_t)i * 2 * MS, 2, -16);
	assert_int_equal(f.n, 0);
	for (int i = 0; i < 100; i++) /* 200 segments in 1 s */
		retrans(rs, 2, T0 + 3 * SEC + (uint64_t)i * 10 * MS, 2, 0);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.rule[0], "link.retrans > 100/s on sw/p1");
	rules__free(rs);
}

static void ctr_group(struct rules *rs, uint32_t group, uint32_t ifindex, const char *label, uint32_t n)
{
	struct ft_ctr_group r;

	REC(r, FT_REC_CTR_GROUP);
	r.group = group;
	r.kind = FT_CTR_PORT_HW;
	r.netns = ifindex ? NS1 : 0;
	r.ifindex = ifindex;
	r.ncounters = n;
	r.period_ns = 100 * MS;
	snprintf(r.label, sizeof(r.label), "%s", label);
	FEED(rs, r);
}

static void ctr_name(struct rules *rs, uint32_t group, uint32_t index, unsigned cls, unsigned flags, const char *name)
{
	struct ft_ctr_name r;

	REC(r, FT_REC_CTR_NAME);
	r.group = group;
	r.index = index;
	r.cls = (uint16_t)cls;
	r.flags = (uint16_t)flags;
	snprintf(r.name, sizeof(r.name), "%s", name);
	FEED(rs, r);
}

static void ctr_sample(struct rules *rs, uint32_t group, uint64_t ts, const uint64_t *v, uint32_t n)
{
	struct {
		struct ft_ctr_sample s;
		uint64_t v[4];
	} r;

	memset(&r, 0, sizeof(r));
	r.s.hdr.type = FT_REC_CTR_SAMPLE;
	r.s.hdr.size = (uint16_t)(sizeof(r.s) + n * sizeof(uint64_t));
	r.s.ts_ns = ts;
	r.s.group = group;
	r.s.n = n;
	memcpy(r.v, v, n * sizeof(uint64_t));
	FEED(rs, r);
}

/*
 * link.cnp and link.pause from the counter sampler's growth: CNPs and
 * ECN-marked packets, pause frames (not pause time), per second on the
 * port's netdev; a counter that resets or wraps adds nothing.
 */
static void test_link_counters(void **state)
{
	const char *t[] = { "link.cnp > 20000/s on h2/roce0", "link.pause > 100/s" };
	struct fired f;
	struct rules *rs = make(t, 2, &f);
	uint64_t v[4] = { 0, 0, 0, 0 };

	(void)state;
	iface(rs, 7, "roce0", "h2");
	ctr_group(rs, 1, 7, "mlx5_0/1", 4);
	ctr_name(rs, 1, 0, FT_CLS_CONGESTION, FT_CTRF_PACKETS, "np_cnp_sent");
	ctr_name(rs, 1, 1, FT_CLS_CONGESTION, FT_CTRF_PACKETS, "np_ecn_marked_roce_packets");
	ctr_name(rs, 1, 2, FT_CLS_PAUSE, FT_CTRF_USEC, "rx_pause_duration");
	ctr_name(rs, 1, 3, FT_CLS_DATA, FT_CTRF_BYTES, "port_xmit_data");
	ctr_group(rs, 2, 0, "mlx5_1/1", 1);   /* no netdev */
	ctr_name(rs, 2, 0, FT_CLS_PAUSE, FT_CTRF_PACKETS, "rx_pause_ctrl_phy");
	/* 10 s at 1000 CNPs + 500 marks per 100 ms (15000/s), pause time and data growing fast */
	for (int i = 0; i <= 100; i++) {
		v[0] = 1000ull * (uint64_t)i;
		v[1] = 500ull * (uint64_t)i;
		v[2] = 90000ull * (uint64_t)i;
		v[3] = 1000000000ull * (uint64_t)i;
		ctr_sample(rs, 1, T0 + (uint64_t)i * 100 * MS, v, 4);
	}
	assert_int_equal(f.n, 0);
	/* a reset of the marks' counter to 0 adds nothing; then a storm of 3000 CNPs per 100 ms */
	v[1] = 0;
	ctr_sample(rs, 1, T0 + 10100 * MS, v, 4);
	for (int i = 102; i <= 120; i++) {
		v[0] += 3000;
		ctr_sample(rs, 1, T0 + (uint64_t)i * 100 * MS, v, 4);
	}
	assert_int_equal(f.n, 1);
	assert_string_equal(f.rule[0], "link.cnp > 20000/s on h2/roce0");
	assert_string_equal(f.reason[0], "roce0@h2");
	assert_true(f.t[0].value > 20000 && f.t[0].value <= 24000);
	/* pause frames on the port without a netdev: 30 per 100 ms is 300/s */
	{
		uint64_t p = 0;

		for (int i = 0; i <= 20; i++, p += 30)
			ctr_sample(rs, 2, T0 + 20 * SEC + (uint64_t)i * 100 * MS, &p, 1);
	}
	assert_int_equal(f.n, 2);
	assert_string_equal(f.rule[1], "link.pause > 100/s");
	assert_string_equal(f.reason[1], "mlx5_1/1");
	rules__free(rs);
}

static void test_sojourn_lost(void **state)
{
	const char *t[] = { "queue.sojourn > 2ms", "lost > 10" };
	struct fired f;
	struct rules *rs = make(t, 2, &f);
	struct ft_qdisc_bin q;
	struct ft_lost l;

	(void)state;
	iface(rs, 2, "p1", "sw");
	REC(q, FT_REC_QDISC_BIN);
	q.netns = NS1;
	q.ifindex = 2;
	q.sojourn_cnt = 3;
	q.start_ns = T0;
	q.sojourn_max_ns = 2 * MS; /* not over */
	FEED(rs, q);
	q.start_ns = T0 + 100 * MS;
	q.sojourn_max_ns = 3 * MS;
	FEED(rs, q);
	q.start_ns = T0 + 200 * MS; /* the same episode */
	FEED(rs, q);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.t[0].value, 3 * MS);
	assert_int_equal(f.t[0].at_ns, T0 + 100 * MS);
	assert_string_equal(f.unit[0], "ns");

	REC(l, FT_REC_LOST); /* cumulative per (source, CPU): 6 + 4 is not over 10, 6 + 5 is */
	l.ts_ns = T0 + SEC;
	l.lost = 6;
	FEED(rs, l);
	l.cpu = 1;
	l.lost = 4;
	FEED(rs, l);
	l.lost = 4; /* no growth */
	FEED(rs, l);
	assert_int_equal(f.n, 1);
	l.lost = 5;
	l.ts_ns = T0 + 2 * SEC;
	FEED(rs, l);
	assert_int_equal(f.n, 2);
	assert_string_equal(f.rule[1], "lost > 10");
	assert_int_equal(f.t[1].value, 11);
	rules__free(rs);
}

static void proc_exit(struct rules *rs, uint32_t pid, int status, uint64_t ts)
{
	struct ft_proc r;

	REC(r, FT_REC_PROC);
	r.pid = pid;
	r.event = FT_PROC_EXIT;
	r.exit_code = status;
	r.ts_ns = ts;
	snprintf(r.comm, sizeof(r.comm), "train");
	FEED(rs, r);
}

static void test_job(void **state)
{
	const char *t[] = { "job.exit", "job.timeout" };
	struct fired f;
	struct rules *rs = make(t, 2, &f);
	struct ft_phase_slot s;
	struct ft_phase p;

	(void)state;
	proc_exit(rs, 100, 0, T0);
	assert_int_equal(f.n, 0);
	proc_exit(rs, 101, 3 << 8, T0 + SEC);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.t[0].kind, FT_TRIG_JOB);
	assert_int_equal(f.t[0].value, 3);
	assert_string_equal(f.reason[0], "pid 101 (train) exited 3");
	rules__stopping(rs); /* what the recorder itself ends at the stop is not the job's failure */
	proc_exit(rs, 102, 15, T0 + 10 * SEC);
	assert_int_equal(f.n, 1);
	proc_exit(rs, 103, 6, T0 + 20 * SEC); /* SIGABRT */
	assert_int_equal(f.n, 2);
	assert_int_equal(f.t[1].value, 134);

	REC(s, FT_REC_PHASE_SLOT);
	s.slot = 4;
	s.lib_kind = FT_LIB_NCCL;
	snprintf(s.symbol, sizeof(s.symbol), "ncclAllReduce");
	FEED(rs, s);
	s.slot = 5;
	snprintf(s.symbol, sizeof(s.symbol), "ncclCommAbort");
	FEED(rs, s);
	REC(p, FT_REC_PHASE);
	p.slot = 4;
	p.pid = 7;
	p.start_ns = T0 + 30 * SEC;
	p.end_ns = p.start_ns + MS;
	FEED(rs, p);
	p.ret = 7; /* ncclInProgress */
	FEED(rs, p);
	assert_int_equal(f.n, 2);
	p.ret = 6; /* ncclRemoteError */
	FEED(rs, p);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.rule[2], "job.timeout");
	assert_int_equal(f.t[2].value, 6);
	p.slot = 5;
	p.ret = 0;
	p.start_ns = p.end_ns = T0 + 40 * SEC;
	FEED(rs, p);
	assert_int_equal(f.n, 4);
	assert_non_null(strstr(f.reason[3], "ncclCommAbort"));
	/* PyTorch's ProcessGroupGloo catching a Gloo timeout; a Gloo collective is no failure */
	REC(s, FT_REC_PHASE_SLOT);
	s.slot = 6;
	s.lib_kind = FT_LIB_GLOO;
	snprintf(s.symbol, sizeof(s.symbol), "gloo::allreduce(gloo::AllreduceOptions const&)");
	snprintf(s.name, sizeof(s.name), "allreduce");
	FEED(rs, s);
	s.slot = 7;
	snprintf(s.symbol, sizeof(s.symbol), "c10d::ProcessGroupGloo::AsyncWork::finishWorkGlooError(std::__exception_ptr::exception_ptr)");
	snprintf(s.name, sizeof(s.name), "gloo_error");
	FEED(rs, s);
	p.slot = 6;
	p.pid = 9;
	p.start_ns = p.end_ns = T0 + 60 * SEC;
	FEED(rs, p);
	assert_int_equal(f.n, 4);
	p.slot = 7;
	p.start_ns = p.end_ns = T0 + 70 * SEC;
	FEED(rs, p);
	assert_int_equal(f.n, 5);
	assert_string_equal(f.rule[4], "job.timeout");
	assert_non_null(strstr(f.reason[4], "pid 9: a Gloo collective failed"));
	assert_int_equal(f.t[4].at_ns, T0 + 70 * SEC);
	/* Gloo's own timeout: the context closing its pairs; the process died inside (open) */
	s.slot = 8;
	snprintf(s.symbol, sizeof(s.symbol), "gloo::transport::tcp::Context::signalException(std::string const&)");
	snprintf(s.name, sizeof(s.name), "gloo_timeout");
	FEED(rs, s);
	p.slot = 8;
	p.flags = FT_PHASE_OPEN;
	p.start_ns = p.end_ns = T0 + 80 * SEC;
	FEED(rs, p);
	assert_int_equal(f.n, 6);
	assert_non_null(strstr(f.reason[5], "pid 9: a Gloo operation timed out"));
	rules__free(rs);
}

/* No job given (the probes follow every process): job.exit watches the processes that made a
 * collective call or told a communicator's rank, not every process of the node that fails */
static void test_job_from_calls(void **state)
{
	const char *t[] = { "job.exit" };
	struct fired f;
	struct rules *rs = make(t, 1, &f);
	struct ft_comm_info ci;
	struct ft_phase p;

	(void)state;
	rules__job_from_calls(rs);
	proc_exit(rs, 100, 1 << 8, T0); /* a grep that found nothing */
	assert_int_equal(f.n, 0);
	REC(p, FT_REC_PHASE);
	p.slot = 3; /* a call of any library: the slot need not be known */
	p.pid = 200;
	p.start_ns = T0 + SEC;
	p.end_ns = p.start_ns + MS;
	FEED(rs, p);
	REC(ci, FT_REC_COMM_INFO);
	ci.pid = 300; /* MPI_Comm_rank, before its first collective returned */
	ci.ts_ns = T0 + SEC;
	FEED(rs, ci);
	proc_exit(rs, 300, 9, T0 + 2 * SEC); /* SIGKILL, not at the stop */
	assert_int_equal(f.n, 1);
	assert_int_equal(f.t[0].value, 137);
	proc_exit(rs, 100, 1 << 8, T0 + 3 * SEC);
	assert_int_equal(f.n, 1);
	proc_exit(rs, 200, 2 << 8, T0 + 4 * SEC);
	assert_int_equal(f.n, 2);
	assert_string_equal(f.reason[1], "pid 200 (train) exited 2");
	rules__free(rs);
}

static void coll(struct rules *rs, uint32_t pid, uint64_t seq, uint64_t start, uint64_t end)
{
	struct ft_phase r;

	REC(r, FT_REC_PHASE);
	r.pid = r.tid = pid;
	r.slot = 1;
	r.seq = seq;
	r.start_ns = start;
	r.end_ns = end;
	r.count = 1024;
	r.dtype_size = 4;
	r.comm = 0x44000000;
	r.netns = NS1;
	r.peer = -1;
	FEED(rs, r);
}

/* MPI's allreduce in slot 1; pids 10 and 11 ranks 0 and 1 of a world of 2; their usual: 10 calls of
 * 1 ms from AT, 10 ms apart.  Returns the moment after them. */
static uint64_t two_ranks(struct rules *rs, uint64_t at)
{
	struct ft_phase_slot s;

	REC(s, FT_REC_PHASE_SLOT);
	s.slot = 1;
	s.op = FT_OP_ALLREDUCE;
	s.lib_kind = FT_LIB_MPI;
	FEED(rs, s);
	for (uint32_t pid = 10; pid < 12; pid++) {
		struct ft_comm_info c;

		REC(c, FT_REC_COMM_INFO);
		c.pid = pid;
		c.comm = 0x44000000;
		c.rank = (int32_t)(pid - 10);
		c.size = 2;
		FEED(rs, c);
	}
	for (uint64_t seq = 1; seq <= 10; seq++, at += 10 * MS) {
		coll(rs, 10, seq, at, at + MS);
		coll(rs, 11, seq, at, at + MS);
	}
	return at;
}

/* Two ranks: 10 allreduces of 1 ms, then one of 5 ms (coll.slow), one where rank 1 enters 30 ms late */
static void test_collectives(void **state)
{
	const char *t[] = { "coll.slow > 3x", "rank.late > 20ms" };
	struct fired f;
	struct rules *rs = make(t, 2, &f);
	uint64_t at = T0;

	(void)state;
	at = two_ranks(rs, at);
	assert_int_equal(f.n, 0);
	coll(rs, 10, 11, at, at + 5 * MS);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.rule[0], "coll.slow > 3x");
	assert_int_equal(f.t[0].value, 5000);
	assert_int_equal(f.t[0].at_ns, at);
	assert_non_null(strstr(f.reason[0], "allreduce"));
	coll(rs, 11, 11, at, at + 5 * MS); /* the same episode */
	assert_int_equal(f.n, 1);
	at += 2 * SEC;
	coll(rs, 10, 12, at, at + 31 * MS);
	coll(rs, 11, 12, at + 30 * MS, at + 31 * MS);
	assert_int_equal(f.n, 3); /* rank 0 waited 31 ms (coll.slow) and rank 1 was late */
	assert_string_equal(f.rule[2], "rank.late > 20ms");
	assert_int_equal(f.t[2].value, 30 * MS);
	assert_int_equal(f.t[2].at_ns, at + 30 * MS);
	assert_non_null(strstr(f.reason[2], "pid 11 (rank 1)"));
	rules__free(rs);
}

/* `on rank:N`: coll.slow judges that rank's calls only, rank.late fires when that rank is the late one */
static void test_collectives_on_rank(void **state)
{
	const char *t[] = { "coll.slow > 3x on rank:1", "rank.late > 20ms on rank:0" };
	struct fired f;
	struct rules *rs = make(t, 2, &f);
	uint64_t at = T0;

	(void)state;
	at = two_ranks(rs, at);
	coll(rs, 10, 11, at, at + 5 * MS); /* rank 0 slow: not the rule's rank */
	assert_int_equal(f.n, 0);
	coll(rs, 11, 11, at, at + 5 * MS); /* rank 1 slow */
	assert_int_equal(f.n, 1);
	assert_string_equal(f.rule[0], "coll.slow > 3x on rank:1");
	assert_int_equal(f.t[0].value, 5000);
	assert_non_null(strstr(f.reason[0], "pid 11"));
	at += 2 * SEC;
	coll(rs, 10, 12, at, at + 31 * MS); /* rank 1 late: not the rank.late rule's rank */
	coll(rs, 11, 12, at + 30 * MS, at + 31 * MS);
	assert_int_equal(f.n, 1);
	at += 2 * SEC;
	coll(rs, 11, 13, at, at + 31 * MS); /* rank 0 late by 30 ms: rank 1 waited (slow) */
	coll(rs, 10, 13, at + 30 * MS, at + 31 * MS);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.rule[1], "coll.slow > 3x on rank:1");
	assert_string_equal(f.rule[2], "rank.late > 20ms on rank:0");
	assert_int_equal(f.t[2].value, 30 * MS);
	assert_non_null(strstr(f.reason[2], "pid 10 (rank 0)"));
	rules__free(rs);
}

/* COUNT calls of pid 10 (rank 0) taking DUR each, STEP apart from AT; the moment after them. */
static uint64_t calls(struct rules *rs, uint64_t *seq, uint64_t at, int count, uint64_t dur, uint64_t step)
{
	for (int i = 0; i < count; i++, at += step)
		coll(rs, 10, ++*seq, at, at + dur);
	return at;
}

/* A factor measured against a usual of 1 ms from the window's bins (to within 1/16). */
static void assert_factor(int64_t value, int64_t exact)
{
	if (value < exact - exact / 16 || value > exact + exact / 16)
		fail_msg("factor %lld, not within 1/16 of %lld", (long long)value, (long long)exact);
}

/* `usual DUR`: the usual holds over the window, where the latest 32 calls' forgets a lasting slowdown */
static void test_coll_usual_window(void **state)
{
	const char *t[] = { "coll.slow > 3x usual 1h", "coll.slow > 3x" };
	struct fired f;
	struct rules *rs = make(t, 2, &f);
	uint64_t at, seq = 10;

	(void)state;
	at = two_ranks(rs, T0) + SEC;
	at = calls(rs, &seq, at, 30, MS, 100 * MS);
	assert_int_equal(f.n, 0);
	at = calls(rs, &seq, at, 20, 4 * MS, 100 * MS); /* one episode of each rule */
	assert_int_equal(f.n, 2);
	assert_string_equal(f.rule[0], "coll.slow > 3x usual 1h");
	assert_factor(f.t[0].value, 4000);
	assert_non_null(strstr(f.reason[0], "its group's usual 1.0"));
	assert_string_equal(f.rule[1], "coll.slow > 3x");
	assert_int_equal(f.t[1].value, 4000);
	/* later, 4 ms again: 50 of the hour's 70 calls took 1 ms, but 20 of the latest 32 took 4 ms */
	calls(rs, &seq, at + 2 * SEC, 1, 4 * MS, 0);
	assert_int_equal(f.n, 3);
	assert_string_equal(f.rule[2], "coll.slow > 3x usual 1h");
	rules__free(rs);
}

/* Calls older than the window are not the usual; fewer than 5 in the window are none */
static void test_coll_usual_expires(void **state)
{
	const char *t[] = { "coll.slow > 3x usual 1s", "coll.slow > 3x" };
	struct fired f;
	struct rules *rs = make(t, 2, &f);
	uint64_t at, seq = 10;

	(void)state;
	at = two_ranks(rs, T0) + 3 * SEC; /* the 1 ms calls left the 1 s window */
	calls(rs, &seq, at, 10, 4 * MS, 20 * MS);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.rule[0], "coll.slow > 3x");
	/* within the window: judged against it once it holds 5 calls */
	rules__free(rs);
	rs = make(t, 1, &f);
	at = two_ranks(rs, T0) + 3 * SEC;
	at = calls(rs, &seq, at, 4, MS, 20 * MS);
	calls(rs, &seq, at, 1, 5 * MS, 0); /* 4 calls: no usual yet */
	assert_int_equal(f.n, 0);
	calls(rs, &seq, at + 20 * MS, 1, 5 * MS, 0); /* 5 calls (4 of 1 ms): 5x */
	assert_int_equal(f.n, 1);
	assert_factor(f.t[0].value, 5000);
	rules__free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_link_drops),
		cmocka_unit_test(test_link_retrans),
		cmocka_unit_test(test_link_counters),
		cmocka_unit_test(test_sojourn_lost),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_job_from_calls),
		cmocka_unit_test(test_collectives),
		cmocka_unit_test(test_collectives_on_rank),
		cmocka_unit_test(test_coll_usual_window),
		cmocka_unit_test(test_coll_usual_expires),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
