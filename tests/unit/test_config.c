// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for the configuration records (issue 34): the qdisc parser on
 * netlink messages built here as the kernel's dump functions write them
 * (this kernel has only tbf, htb, pfifo_head_drop and mq: fq_codel, red,
 * codel, fq, pie and netem exist here only as these messages), the link
 * parser, the sysctl reader on a tree made here, the INET_DIAG parser, the
 * environment filter, the NIC reader on the sysfs fixture
 * (tests/fixtures/sysfs: no RDMA NIC exists here), the record's build and
 * checks, the model's store and its lookups, and `info`'s section.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/if_link.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <cmocka.h>

#include "lib/json.h"
#include "probes/cfg_rec.h"
#include "probes/iface_config.h"
#include "probes/procenv.h"
#include "probes/qdisc_config.h"
#include "probes/qdisc_stats.h"
#include "probes/sockdiag.h"
#include "probes/sysctl_config.h"
#include "probes/tcp_mib.h"
#include "rdma/nic_config.h"
#include "userspace/capture/capture.h"
#include "userspace/cli/info_config.h"
#include "userspace/model/model.h"
#include "userspace/model/model_config.h"
#include "tests/unit/jsoncheck.h"

#define TMPDIR_NAME "config"
#include "tests/unit/tmpdir.h"
#include "tests/unit/sysfs_fixture.h"

static char fixture[PATH_MAX]; /* tests/fixtures/sysfs */

/* ---- netlink messages, built as the kernel builds them ---- */

struct msg {
	union {
		struct nlmsghdr h;
		char buf[4096];
	} u;
};

static struct nlmsghdr *msg_start(struct msg *m, uint16_t type, const void *body, size_t blen)
{
	memset(m, 0, sizeof(*m));
	m->u.h.nlmsg_type = type;
	m->u.h.nlmsg_len = NLMSG_LENGTH(blen);
	memcpy(NLMSG_DATA(&m->u.h), body, blen);
	m->u.h.nlmsg_len = NLMSG_ALIGN(m->u.h.nlmsg_len);
	return &m->u.h;
}

static struct rtattr *put_attr(struct nlmsghdr *h, uint16_t type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_ALIGN(a->rta_len);
	return a;
}

static void put_u32(struct nlmsghdr *h, uint16_t type, uint32_t v)
{
	put_attr(h, type, &v, sizeof(v));
}

static void put_str(struct nlmsghdr *h, uint16_t type, const char *s)
{
	put_attr(h, type, s, strlen(s) + 1);
}

static struct rtattr *nest_begin(struct nlmsghdr *h, uint16_t type)
{
	return put_attr(h, type, NULL, 0);
}

static void nest_end(struct nlmsghdr *h, struct rtattr *a)
{
	a->rta_len = (unsigned short)((char *)h + h->nlmsg_len - (char *)a);
}

static struct nlmsghdr *qdisc_msg(struct msg *m, const char *kind, uint32_t handle, uint32_t parent)
{
	struct tcmsg tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = 7, .tcm_handle = handle, .tcm_parent = parent };
	struct nlmsghdr *h = msg_start(m, RTM_NEWQDISC, &tc, sizeof(tc));

	put_str(h, TCA_KIND, kind);
	return h;
}

/* What a parse or a reader gave: "key=value" lines (errors as key=!errno), and the last qdisc. */
struct got {
	char text[8192];
	size_t len;
	int n;
	struct qdisc_desc d;
	int stop_after;     /* > 0: return -ECANCELED after this many */
};

static int got_kv(void *ctx, const char *key, const char *value, int err)
{
	struct got *g = ctx;

	if (value)
		g->len += (size_t)snprintf(g->text + g->len, sizeof(g->text) - g->len, "%s=%s\n", key, value);
	else
		g->len += (size_t)snprintf(g->text + g->len, sizeof(g->text) - g->len, "%s=!%d\n", key, -err);
	g->n++;
	return g->stop_after && g->n >= g->stop_after ? -ECANCELED : 0;
}

static int got_qkv(void *ctx, const struct qdisc_desc *d, const char *key, const char *value)
{
	struct got *g = ctx;

	g->d = *d;
	return got_kv(ctx, key, value, 0);
}

static void has(const struct got *g, const char *line)
{
	char want[512];

	snprintf(want, sizeof(want), "%s\n", line);
	if (!strstr(g->text, want)) {
		print_error("missing '%s' in:\n%s", line, g->text);
		fail();
	}
}

static void lacks(const struct got *g, const char *key)
{
	char want[128];

	snprintf(want, sizeof(want), "%s=", key);
	if (strstr(g->text, want)) {
		print_error("unexpected '%s' in:\n%s", key, g->text);
		fail();
	}
}

/* ---- qdiscs ---- */

static void test_qdisc_fq_codel(void **state)
{
	struct msg m;
	struct got g = {0};
	struct nlmsghdr *h = qdisc_msg(&m, "fq_codel", 0x10000, TC_H_ROOT);
	struct rtattr *o = nest_begin(h, TCA_OPTIONS);

	(void)state;
	/* fq_codel_dump(): target/interval in us, ECN, CE threshold only when set */
	put_u32(h, TCA_FQ_CODEL_TARGET, 5000);
	put_u32(h, TCA_FQ_CODEL_LIMIT, 10240);
	put_u32(h, TCA_FQ_CODEL_INTERVAL, 100000);
	put_u32(h, TCA_FQ_CODEL_ECN, 1);
	put_u32(h, TCA_FQ_CODEL_QUANTUM, 1514);
	put_u32(h, TCA_FQ_CODEL_DROP_BATCH_SIZE, 64);
	put_u32(h, TCA_FQ_CODEL_MEMORY_LIMIT, 33554432);
	put_u32(h, TCA_FQ_CODEL_FLOWS, 1024);
	put_u32(h, TCA_FQ_CODEL_CE_THRESHOLD, 1000);
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "kind=fq_codel");
	has(&g, "target_us=5000");
	has(&g, "interval_us=100000");
	has(&g, "limit_pkts=10240");
	has(&g, "ecn=on");
	has(&g, "ce_threshold_us=1000");
	has(&g, "quantum_bytes=1514");
	has(&g, "flows=1024");
	has(&g, "memory_limit_bytes=33554432");
	assert_int_equal(g.n, 10);
	assert_int_equal(g.d.ifindex, 7);
	assert_int_equal(g.d.handle, 0x10000);
	assert_int_equal(g.d.parent, TC_H_ROOT);
	assert_false(g.d.is_class);
	assert_string_equal(g.d.kind, "fq_codel");

	/* ECN off, no CE threshold (not dumped when unset) */
	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "fq_codel", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_OPTIONS);
	put_u32(h, TCA_FQ_CODEL_ECN, 0);
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "ecn=off");
	lacks(&g, "ce_threshold_us");
}

static void test_qdisc_red(void **state)
{
	struct msg m;
	struct got g = {0};
	struct nlmsghdr *h = qdisc_msg(&m, "red", 0x20000, 0x10001);
	struct tc_red_qopt r = { .limit = 400000, .qth_min = 30000, .qth_max = 90000, .Wlog = 9, .Plog = 13,
				 .flags = TC_RED_ECN | TC_RED_ADAPTATIVE };
	struct nla_bitfield32 bf = { .value = TC_RED_NODROP, .selector = TC_RED_NODROP };
	uint32_t max_p = 0x40000000; /* 0.25 */
	struct rtattr *o = nest_begin(h, TCA_OPTIONS);

	(void)state;
	put_attr(h, TCA_RED_PARMS, &r, sizeof(r));
	put_u32(h, TCA_RED_MAX_P, max_p);
	put_attr(h, TCA_RED_FLAGS, &bf, sizeof(bf));
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "kind=red");
	has(&g, "limit_bytes=400000");
	has(&g, "min_bytes=30000");
	has(&g, "max_bytes=90000");
	has(&g, "probability=0.25");
	has(&g, "ecn=on");
	has(&g, "adaptive=on");
	has(&g, "harddrop=off");
	has(&g, "nodrop=on"); /* from the bitfield, the newer place of the flags */
	assert_int_equal(g.d.parent, 0x10001);

	/* the same without ECN */
	memset(&g, 0, sizeof(g));
	r.flags = 0;
	h = qdisc_msg(&m, "red", 0x20000, 0x10001);
	o = nest_begin(h, TCA_OPTIONS);
	put_attr(h, TCA_RED_PARMS, &r, sizeof(r));
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "ecn=off");
	lacks(&g, "probability");
}

static void test_qdisc_tbf_htb(void **state)
{
	struct msg m;
	struct got g = {0};
	struct nlmsghdr *h = qdisc_msg(&m, "tbf", 0x10000, TC_H_ROOT);
	/* tc qdisc add ... tbf rate 20mbit burst 10kb limit 30000: 2.5e6 B/s, 4.096 ms = 64000 ticks of 64 ns */
	struct tc_tbf_qopt t = { .rate = { .rate = 2500000 }, .limit = 30000, .buffer = 64000 };
	struct rtattr *o = nest_begin(h, TCA_OPTIONS);
	uint64_t r64 = 12500000000ull; /* 100 Gbit/s: above what the u32 holds */

	(void)state;
	put_attr(h, TCA_TBF_PARMS, &t, sizeof(t));
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "rate_bps=20000000");
	has(&g, "burst_bytes=10240");
	has(&g, "limit_bytes=30000");
	lacks(&g, "peakrate_bps");

	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "tbf", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_OPTIONS);
	t.rate.rate = UINT32_MAX;
	put_attr(h, TCA_TBF_PARMS, &t, sizeof(t));
	put_attr(h, TCA_TBF_RATE64, &r64, sizeof(r64));
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "rate_bps=100000000000");

	/* an htb class: RTM_NEWTCLASS, rate and ceil, 64-bit ceil */
	{
		struct tcmsg tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = 3, .tcm_handle = 0x10010, .tcm_parent = 0x10000 };
		struct tc_htb_opt ho = { .rate = { .rate = 12500000 }, .ceil = { .rate = 25000000 }, .buffer = 1024,
					 .cbuffer = 512, .quantum = 200000, .prio = 1 };
		uint64_t ceil64 = 50000000000ull;

		memset(&g, 0, sizeof(g));
		h = msg_start(&m, RTM_NEWTCLASS, &tc, sizeof(tc));
		put_str(h, TCA_KIND, "htb");
		o = nest_begin(h, TCA_OPTIONS);
		put_attr(h, TCA_HTB_PARMS, &ho, sizeof(ho));
		put_attr(h, TCA_HTB_CEIL64, &ceil64, sizeof(ceil64));
		nest_end(h, o);
		assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
		assert_true(g.d.is_class);
		assert_int_equal(g.d.handle, 0x10010);
		has(&g, "rate_bps=100000000");
		has(&g, "ceil_bps=400000000000");
		has(&g, "burst_bytes=819"); /* 1024 ticks x 64 ns at 12.5 MB/s */
		has(&g, "quantum_bytes=200000");
		has(&g, "prio=1");
	}
	/* an htb qdisc: its defaults */
	{
		struct tc_htb_glob gl = { .version = 3, .rate2quantum = 10, .defcls = 0x10 };

		memset(&g, 0, sizeof(g));
		h = qdisc_msg(&m, "htb", 0x10000, TC_H_ROOT);
		o = nest_begin(h, TCA_OPTIONS);
		put_attr(h, TCA_HTB_INIT, &gl, sizeof(gl));
		put_u32(h, TCA_HTB_DIRECT_QLEN, 1000);
		nest_end(h, o);
		assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
		has(&g, "r2q=10");
		has(&g, "default_class=10");
		has(&g, "direct_qlen_pkts=1000");
	}
}

static void test_qdisc_others(void **state)
{
	struct msg m;
	struct got g = {0};
	struct nlmsghdr *h;
	struct rtattr *o;
	struct tc_fifo_qopt f = { .limit = 10 };
	struct tc_netem_qopt ne = { .latency = 0, .limit = 1000, .loss = 42949673 /* 1 % */ };
	int64_t lat = 20000000, jit = 1000000;
	char raw[256];

	(void)state;
	/* the fifos: options are the struct itself */
	h = qdisc_msg(&m, "pfifo_head_drop", 0x100000, 0x10001);
	put_attr(h, TCA_OPTIONS, &f, sizeof(f));
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "limit_pkts=10");
	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "bfifo", 0x100000, 0x10001);
	f.limit = 30000;
	put_attr(h, TCA_OPTIONS, &f, sizeof(f));
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "limit_bytes=30000");
	lacks(&g, "limit_pkts");

	/* codel and pie: ECN, a CE threshold */
	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "codel", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_OPTIONS);
	put_u32(h, TCA_CODEL_TARGET, 5000);
	put_u32(h, TCA_CODEL_ECN, 1);
	put_u32(h, TCA_CODEL_CE_THRESHOLD, 2500);
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "ecn=on");
	has(&g, "ce_threshold_us=2500");
	has(&g, "target_us=5000");
	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "pie", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_OPTIONS);
	put_u32(h, TCA_PIE_TARGET, 15000);
	put_u32(h, TCA_PIE_ECN, 1);
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "ecn=on");
	has(&g, "target_us=15000");

	/* fq: a CE threshold of ~0 is "unset"; the flow max rate in bytes/s */
	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "fq", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_OPTIONS);
	put_u32(h, TCA_FQ_PLIMIT, 10000);
	put_u32(h, TCA_FQ_CE_THRESHOLD, UINT32_MAX);
	put_u32(h, TCA_FQ_FLOW_MAX_RATE, 125000000);
	put_u32(h, TCA_FQ_LOW_RATE_THRESHOLD, UINT32_MAX);
	put_attr(h, TCA_FQ_HORIZON_DROP, "\1", 1);
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "limit_pkts=10000");
	has(&g, "ce_threshold_us=off");
	has(&g, "maxrate_bps=1000000000");
	has(&g, "low_rate_threshold_bps=unlimited");
	has(&g, "horizon_drop=on");

	/* netem: the struct, then attributes (64-bit latency in ns) */
	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "netem", 0x10000, TC_H_ROOT);
	memset(raw, 0, sizeof(raw));
	memcpy(raw, &ne, sizeof(ne));
	{
		size_t off = NLMSG_ALIGN(sizeof(ne));
		struct rtattr *a = (struct rtattr *)(raw + off);
		uint32_t ecn = 1;

		a->rta_type = TCA_NETEM_LATENCY64;
		a->rta_len = RTA_LENGTH(8);
		memcpy(RTA_DATA(a), &lat, 8);
		off += RTA_ALIGN(a->rta_len);
		a = (struct rtattr *)(raw + off);
		a->rta_type = TCA_NETEM_JITTER64;
		a->rta_len = RTA_LENGTH(8);
		memcpy(RTA_DATA(a), &jit, 8);
		off += RTA_ALIGN(a->rta_len);
		a = (struct rtattr *)(raw + off);
		a->rta_type = TCA_NETEM_ECN;
		a->rta_len = RTA_LENGTH(4);
		memcpy(RTA_DATA(a), &ecn, 4);
		off += RTA_ALIGN(a->rta_len);
		put_attr(h, TCA_OPTIONS, raw, off);
	}
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "limit_pkts=1000");
	has(&g, "delay_us=20000");
	has(&g, "jitter_us=1000");
	has(&g, "loss_pct=1");
	has(&g, "ecn=on");

	/* mq has no options; an unknown kind gives its kind alone */
	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "mq", 0, TC_H_ROOT);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	assert_int_equal(g.n, 1);
	has(&g, "kind=mq");
	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "newkind", 0x10000, TC_H_ROOT);
	put_u32(h, TCA_OPTIONS, 5);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	assert_int_equal(g.n, 1);
}

/* A root qdisc's own counters: TCA_STATS2 (with the 64-bit packet count where given), the
 * older TCA_STATS, not the root or another interface, a damaged nest. */
static void test_qdisc_stats(void **state)
{
	struct msg m;
	struct nlmsghdr *h;
	struct rtattr *o;
	struct qdisc_stats q;
	struct gnet_stats_basic b = { .bytes = 123456789012ull, .packets = 1000 };
	struct gnet_stats_queue qs = { .qlen = 3, .backlog = 4500, .drops = 17, .requeues = 2, .overlimits = 99 };
	struct tc_stats old = { .bytes = 5000, .packets = 50, .drops = 5, .overlimits = 6 };
	uint64_t pkt64 = 5000000000ull;

	(void)state;
	h = qdisc_msg(&m, "tbf", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_STATS2);
	put_attr(h, TCA_STATS_BASIC, &b, sizeof(b));
	put_attr(h, TCA_STATS_QUEUE, &qs, sizeof(qs));
	nest_end(h, o);
	assert_int_equal(qdisc_stats__parse(h, 7, &q), 0);
	assert_string_equal(q.kind, "tbf");
	assert_int_equal(q.handle, 0x10000);
	assert_int_equal(q.v[QS_SENT_BYTES], 123456789012ull);
	assert_int_equal(q.v[QS_SENT_PACKETS], 1000);
	assert_int_equal(q.v[QS_DROPS], 17);
	assert_int_equal(q.v[QS_OVERLIMITS], 99);
	assert_int_equal(q.v[QS_REQUEUES], 2);
	/* past 2^32 packets the kernel adds the 64-bit count */
	h = qdisc_msg(&m, "mq", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_STATS2);
	put_attr(h, TCA_STATS_BASIC, &b, sizeof(b));
	put_attr(h, TCA_STATS_PKT64, &pkt64, sizeof(pkt64));
	nest_end(h, o);
	assert_int_equal(qdisc_stats__parse(h, 7, &q), 0);
	assert_int_equal(q.v[QS_SENT_PACKETS], 5000000000ull);
	/* the older struct */
	h = qdisc_msg(&m, "pfifo_fast", 0x10000, TC_H_ROOT);
	put_attr(h, TCA_STATS, &old, sizeof(old));
	assert_int_equal(qdisc_stats__parse(h, 7, &q), 0);
	assert_int_equal(q.v[QS_SENT_BYTES], 5000);
	assert_int_equal(q.v[QS_DROPS], 5);
	/* a child qdisc, another interface: not this root */
	h = qdisc_msg(&m, "pfifo", 0x20000, 0x10001);
	assert_int_equal(qdisc_stats__parse(h, 7, &q), 1);
	h = qdisc_msg(&m, "tbf", 0x10000, TC_H_ROOT);
	assert_int_equal(qdisc_stats__parse(h, 8, &q), 1);
	assert_int_equal(qdisc_stats__parse(h, 0, &q), 0);   /* 0: any interface's root, named */
	assert_int_equal(q.ifindex, 7);
	/* a nest that runs past the message */
	h = qdisc_msg(&m, "tbf", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_STATS2);
	put_attr(h, TCA_STATS_BASIC, &b, sizeof(b));
	((struct rtattr *)RTA_DATA(o))->rta_len = 300;
	nest_end(h, o);
	assert_int_equal(qdisc_stats__parse(h, 7, &q), -EINVAL);
}

static void test_qdisc_bad(void **state)
{
	struct msg m;
	struct got g = {0};
	struct nlmsghdr *h;
	struct ifinfomsg ifi = {0};
	struct rtattr *o;

	(void)state;
	/* not a qdisc message, or one without a kind: nothing */
	h = msg_start(&m, RTM_NEWLINK, &ifi, sizeof(ifi));
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 1);
	h = qdisc_msg(&m, "x", 0, 0);
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)); /* the kind cut off */
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 1);
	assert_int_equal(g.n, 0);
	/* an attribute that runs past the message */
	h = qdisc_msg(&m, "fq_codel", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_OPTIONS);
	put_u32(h, TCA_FQ_CODEL_ECN, 1);
	nest_end(h, o);
	o->rta_len += 64;
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), -EINVAL);
	/* a nested attribute that runs past its nest */
	h = qdisc_msg(&m, "fq_codel", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_OPTIONS);
	put_u32(h, TCA_FQ_CODEL_ECN, 1);
	((struct rtattr *)RTA_DATA(o))->rta_len = 200;
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), -EINVAL);
	/* a kind without its NUL is bounded by its payload */
	memset(&g, 0, sizeof(g));
	h = qdisc_msg(&m, "tbf", 0x10000, TC_H_ROOT);
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	put_attr(h, TCA_KIND, "pfifoXXXXXXXXXXXXXXXXXXXXXXXXXXXX", 33);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), 0);
	has(&g, "kind=pfifoXXXXXXXXXX");
	/* the callback's non-zero stops the parse and comes back */
	memset(&g, 0, sizeof(g));
	g.stop_after = 2;
	h = qdisc_msg(&m, "fq_codel", 0x10000, TC_H_ROOT);
	o = nest_begin(h, TCA_OPTIONS);
	put_u32(h, TCA_FQ_CODEL_TARGET, 1);
	put_u32(h, TCA_FQ_CODEL_LIMIT, 2);
	put_u32(h, TCA_FQ_CODEL_ECN, 1);
	nest_end(h, o);
	assert_int_equal(qdisc_config__parse(h, got_qkv, &g), -ECANCELED);
	assert_int_equal(g.n, 2);
}

static void test_handle_str(void **state)
{
	char b[24];

	(void)state;
	assert_string_equal(qdisc_config__handle_str(TC_H_ROOT, b, sizeof(b)), "root");
	assert_string_equal(qdisc_config__handle_str(0x10000, b, sizeof(b)), "1:");
	assert_string_equal(qdisc_config__handle_str(0x10010, b, sizeof(b)), "1:10");
	/* compare's names: a handle the kernel picked (8000: and up) by its place, a user's as it is */
	assert_string_equal(qdisc_config__stable_handle(0x10000, TC_H_ROOT, b, sizeof(b)), "1:");
	assert_string_equal(qdisc_config__stable_handle(0x808c0000, TC_H_ROOT, b, sizeof(b)), "root");
	assert_string_equal(qdisc_config__stable_handle(0x808d0000, TC_H_ROOT, b, sizeof(b)), "root");
	assert_string_equal(qdisc_config__stable_handle(0x80020000, 0x80010003, b, sizeof(b)), "at :3");
	assert_string_equal(qdisc_config__stable_handle(0x80020000, 0x10010, b, sizeof(b)), "at 1:10");
	assert_string_equal(qdisc_config__stable_handle(0x80010010, 0x80010000, b, sizeof(b)), ":10");
	assert_string_equal(qdisc_config__stable_handle(TC_H_INGRESS, TC_H_ROOT, b, sizeof(b)), "ingress");
	assert_string_equal(qdisc_config__handle_str(0x8001a, b, sizeof(b)), "8:1a");
	assert_string_equal(qdisc_config__handle_str(0, b, sizeof(b)), "none");
}

/* ---- links ---- */

static void test_link(void **state)
{
	struct msg m;
	struct got g = {0};
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = 2 };
	struct nlmsghdr *h = msg_start(&m, RTM_NEWLINK, &ifi, sizeof(ifi));
	struct rtattr *li;

	(void)state;
	put_str(h, IFLA_IFNAME, "eth0");
	put_u32(h, IFLA_MTU, 9000);
	put_u32(h, IFLA_TXQLEN, 1000);
	put_u32(h, IFLA_NUM_TX_QUEUES, 8);
	put_u32(h, IFLA_GSO_MAX_SIZE, 65536);
	put_u32(h, IFLA_GRO_MAX_SIZE, 185000);
	put_str(h, IFLA_QDISC, "mq");
	li = nest_begin(h, IFLA_LINKINFO);
	put_str(h, IFLA_INFO_KIND, "veth");
	nest_end(h, li);
	assert_int_equal(iface_config__parse_link(h, got_kv, &g), 0);
	has(&g, "mtu=9000");
	has(&g, "txqlen=1000");
	has(&g, "tx_queues=8");
	has(&g, "gso_max_size=65536");
	has(&g, "gro_max_size=185000");
	has(&g, "qdisc=mq");
	has(&g, "link_kind=veth");
	assert_int_equal(g.n, 7);
	h = msg_start(&m, RTM_NEWQDISC, &ifi, sizeof(ifi));
	assert_int_equal(iface_config__parse_link(h, got_kv, &g), 1);
}

/* ---- sysctls ---- */

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_sysctls(void **state)
{
	struct got g = {0};
	char root[256], p[PATH_MAX];

	(void)state;
	snprintf(root, sizeof(root), "%s", tpath("procsys"));
	snprintf(p, sizeof(p), "%s/net", root);
	assert_int_equal(mkdir(root, 0755) | mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/net/ipv4", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/net/core", root);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/net/ipv4/tcp_congestion_control", root);
	write_file(p, "cubic\n");
	snprintf(p, sizeof(p), "%s/net/ipv4/tcp_rmem", root);
	write_file(p, "4096\t131072\t6291456\n");
	snprintf(p, sizeof(p), "%s/net/ipv4/tcp_ecn", root);
	write_file(p, "1\n");
	snprintf(p, sizeof(p), "%s/net/core/default_qdisc", root);
	write_file(p, "fq_codel\n");
	/* a directory where a value should be: cannot be read (EISDIR) */
	snprintf(p, sizeof(p), "%s/net/ipv4/tcp_ecn_fallback", root);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(sysctl_config__read(root, got_kv, &g), 0);
	has(&g, "net.ipv4.tcp_congestion_control=cubic");
	has(&g, "net.ipv4.tcp_rmem=4096 131072 6291456");
	has(&g, "net.ipv4.tcp_ecn=1");
	has(&g, "net.core.default_qdisc=fq_codel");
	has(&g, "net.ipv4.tcp_ecn_fallback=!21"); /* EISDIR */
	assert_int_equal(g.n, 5); /* the others are absent: left out */
	/* the table names what docs/configuration.md promises */
	assert_true(sysctl_config__count() >= 20);
	for (size_t i = 0; i < sysctl_config__count(); i++)
		assert_true(!strncmp(sysctl_config__name(i), "net.", 4));
	assert_null(sysctl_config__name(sysctl_config__count()));
	/* the real /proc/sys of this namespace: the congestion control is one the kernel has */
	memset(&g, 0, sizeof(g));
	assert_int_equal(sysctl_config__read(NULL, got_kv, &g), 0);
	assert_non_null(strstr(g.text, "net.ipv4.tcp_congestion_control="));
}

/* ---- sockets ---- */

static struct nlmsghdr *diag_msg(struct msg *m, int family, const char *cc, uint8_t options)
{
	struct inet_diag_msg d = { .idiag_family = (uint8_t)family, .idiag_state = 1 };
	struct nlmsghdr *h;
	struct tcp_info ti = { .tcpi_options = options };

	d.id.idiag_sport = htons(40000);
	d.id.idiag_dport = htons(5201);
	d.id.idiag_cookie[0] = 0x11223344;
	d.id.idiag_cookie[1] = 0x55;
	if (family == AF_INET) {
		inet_pton(AF_INET, "198.18.0.1", d.id.idiag_src);
		inet_pton(AF_INET, "198.18.0.2", d.id.idiag_dst);
	} else {
		inet_pton(AF_INET6, "fd00::1", d.id.idiag_src);
		inet_pton(AF_INET6, "fd00::2", d.id.idiag_dst);
	}
	h = msg_start(m, SOCK_DIAG_BY_FAMILY, &d, sizeof(d));
	put_attr(h, INET_DIAG_INFO, &ti, sizeof(ti));
	if (cc)
		put_str(h, INET_DIAG_CONG, cc);
	return h;
}

static void test_sockdiag(void **state)
{
	struct msg m;
	struct sockdiag_sock s;
	const uint8_t v4[4] = { 198, 18, 0, 1 };

	(void)state;
	assert_int_equal(sockdiag__parse(diag_msg(&m, AF_INET, "bbr", TCPI_OPT_ECN | TCPI_OPT_SACK), 77, &s), 0);
	assert_int_equal(s.flow.family, 4);
	assert_int_equal(s.flow.proto, 6);
	assert_int_equal(s.flow.sport, 40000); /* host order, as the TCP records */
	assert_int_equal(s.flow.dport, 5201);
	assert_int_equal(s.flow.netns, 77);
	assert_int_equal(s.flow.ifindex, 0);
	assert_memory_equal(s.flow.saddr, v4, 4);
	assert_int_equal(s.flow.saddr[4], 0); /* IPv4: the rest of the field zero */
	assert_int_equal(s.flow.daddr[3], 2);
	assert_true(s.cookie == 0x5511223344ull);
	assert_string_equal(s.cc, "bbr");
	assert_true(s.have_info);
	assert_true(s.ecn);
	assert_false(s.ecn_seen);
	assert_int_equal(sockdiag__parse(diag_msg(&m, AF_INET6, "cubic", TCPI_OPT_SACK), 77, &s), 0);
	assert_int_equal(s.flow.family, 6);
	assert_int_equal(s.flow.saddr[0], 0xfd);
	assert_int_equal(s.flow.saddr[15], 1);
	assert_string_equal(s.cc, "cubic");
	assert_false(s.ecn);
	/* no congestion control told (an older kernel, no privilege): "" */
	assert_int_equal(sockdiag__parse(diag_msg(&m, AF_INET, NULL, TCPI_OPT_ECN_SEEN | TCPI_OPT_ECN), 1, &s), 0);
	assert_string_equal(s.cc, "");
	assert_true(s.ecn_seen);
	/* cut short, another family, another message */
	{
		struct nlmsghdr *h = diag_msg(&m, AF_INET, "bbr", 0);

		h->nlmsg_len = NLMSG_LENGTH(sizeof(struct inet_diag_msg) - 4);
		assert_int_equal(sockdiag__parse(h, 1, &s), -EINVAL);
		assert_int_equal(sockdiag__parse(diag_msg(&m, AF_UNIX, "bbr", 0), 1, &s), 1);
		h = diag_msg(&m, AF_INET, "bbr", 0);
		h->nlmsg_type = NLMSG_DONE;
		assert_int_equal(sockdiag__parse(h, 1, &s), 1);
	}
}

/* ---- a namespace's TCP counters: when its sockets need a dump ---- */

static void test_tcp_mib(void **state)
{
	/* this kernel's /proc/net/snmp, cut to the lines around TCP */
	static const char snmp[] =
		"Icmp: InMsgs InErrors\n"
		"Icmp: 3 0\n"
		"Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
		"CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
		"Tcp: 1 200 120000 -1 4711 815 3 2 6 123456 654321 7 0 9 0\n"
		"Udp: InDatagrams NoPorts\n"
		"Udp: 5 1\n";
	struct tcp_mib m, a, b;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd, lst, cli, acc;

	(void)state;
	assert_int_equal(tcp_mib__parse(snmp, &m), 0);
	assert_true(m.active_opens == 4711 && m.passive_opens == 815 && m.curr_estab == 6);
	/* a header without its values, a value that is no number, a field missing */
	assert_int_equal(tcp_mib__parse("Tcp: ActiveOpens PassiveOpens CurrEstab\n", &m), -EINVAL);
	assert_int_equal(tcp_mib__parse("Tcp: ActiveOpens PassiveOpens CurrEstab\nTcp: 1 x 2\n", &m), -EINVAL);
	assert_int_equal(tcp_mib__parse("Tcp: ActiveOpens PassiveOpens\nTcp: 1 2\n", &m), -EINVAL);
	assert_int_equal(tcp_mib__parse("Udp: ActiveOpens\nXTcp: 1\n", &m), -EINVAL);
	assert_int_equal(tcp_mib__parse("", &m), -EINVAL);
	/* one connection over lo moves them (others' may too: only growth is asked) */
	fd = tcp_mib__open();
	assert_true(fd >= 0);
	lst = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lst >= 0);
	assert_int_equal(bind(lst, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lst, 1), 0);
	assert_int_equal(getsockname(lst, (struct sockaddr *)&sa, &len), 0);
	assert_int_equal(tcp_mib__read(fd, &a), 0);
	cli = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(cli >= 0);
	assert_int_equal(connect(cli, (struct sockaddr *)&sa, sizeof(sa)), 0);
	acc = accept(lst, NULL, NULL);
	assert_true(acc >= 0);
	assert_int_equal(tcp_mib__read(fd, &b), 0);
	assert_true(b.active_opens > a.active_opens && b.passive_opens > a.passive_opens);
	assert_true(tcp_mib__changed(&a, &b));
	a = b;
	assert_false(tcp_mib__changed(&a, &b));
	a.curr_estab--;
	assert_true(tcp_mib__changed(&a, &b));
	close(acc);
	close(cli);
	close(lst);
	close(fd);
}

/* ---- a rank's environment ---- */

static void test_env(void **state)
{
	static const char env[] = "PATH=/usr/bin\0NCCL_ALGO=Ring\0NCCLX=1\0GLOO_SOCKET_IFNAME=eth0\0"
				  "NCCL_=x\0TORCH_NCCL_ASYNC_ERROR_HANDLING=1\0UCX_TLS=tcp\0RANK=3\0NCCL_DEBUG=";
	struct got g = {0};

	(void)state;
	/* the last variable is cut where the read ended: its value is empty */
	assert_int_equal(procenv__parse_config(env, sizeof(env) - 1, got_kv, &g), 5);
	has(&g, "NCCL_ALGO=Ring");
	has(&g, "GLOO_SOCKET_IFNAME=eth0");
	has(&g, "TORCH_NCCL_ASYNC_ERROR_HANDLING=1");
	has(&g, "UCX_TLS=tcp");
	has(&g, "NCCL_DEBUG=");
	lacks(&g, "NCCLX");
	lacks(&g, "PATH");
	lacks(&g, "RANK");
	lacks(&g, "NCCL_"); /* no name after the prefix; "NCCL_ALGO=" etc. do not match "NCCL_=" */
	/* order kept: as the environment lists them */
	assert_true(strstr(g.text, "NCCL_ALGO") < strstr(g.text, "UCX_TLS"));
	memset(&g, 0, sizeof(g));
	g.stop_after = 1;
	assert_int_equal(procenv__parse_config(env, sizeof(env) - 1, got_kv, &g), -ECANCELED);
	assert_int_equal(g.n, 1);
}

/* This process's own environment, read back from /proc. */
static void test_env_self(void **state)
{
	struct got g = {0};
	bool ranked = true;

	(void)state;
	setenv("NCCL_TEST_CONFIG_VAR", "7", 1); /* not in /proc/self/environ: that is the exec's */
	assert_true(procenv__config(getpid(), got_kv, &g, &ranked) >= 0);
	lacks(&g, "NCCL_TEST_CONFIG_VAR");
	assert_int_equal(procenv__config(-5, got_kv, &g, &ranked), -ENOENT);
	assert_false(ranked);
}

/* ---- the NIC's settings, on the sysfs fixture ---- */

static int nic_kv(void *ctx, const char *netdev, const char *key, const char *value, int err)
{
	struct got *g = ctx;
	char k[512];

	snprintf(k, sizeof(k), "%s:%s", netdev, key);
	return got_kv(g, k, value, err);
}

static void test_nic(void **state)
{
	struct got g = {0};
	int n;

	(void)state;
	n = nic_config__read(fixture, nic_kv, &g);
	print_message("%d settings\n", n);
	assert_int_equal(n, g.n);
	/* MLNX_OFED's sysfs: DCQCN per priority, CNP DSCP and 802.1p priority */
	has(&g, "enp1s0f0np0:ecn/roce_np/enable/3=1");
	has(&g, "enp1s0f0np0:ecn/roce_np/enable/0=0");
	has(&g, "enp1s0f0np0:ecn/roce_rp/enable/3=1");
	has(&g, "enp1s0f0np0:ecn/roce_np/cnp_dscp=48");
	has(&g, "enp1s0f0np0:ecn/roce_np/cnp_802p_prio=6");
	has(&g, "enp1s0f0np0:ecn/roce_rp/rpg_ai_rate=5");
	has(&g, "enp1s0f0np0:ecn/roce_rp/initial_alpha_value=1023");
	/* trust and PFC; a value over two lines made one */
	has(&g, "enp1s0f0np0:qos/trust=dscp");
	has(&g, "enp1s0f0np0:qos/pfc=0 0 0 1 0 0 0 0");
	has(&g, "enp1s0f0np0:qos/prio2buffer=prio2buffer: 0 0 0 1 0 0 0 0");
	/* mlx5 debugfs of the PCI device behind the netdev (its `device` link) */
	has(&g, "enp1s0f0np0:cc_params/np_cnp_dscp=48");
	has(&g, "enp1s0f0np0:cc_params/rp_hai_rate=50");
	/* a debugfs device no netdev leads to: named by its PCI address */
	has(&g, "0000:02:00.0:cc_params/np_cnp_dscp=26");
	lacks(&g, "0000:01:00.0:cc_params");
	/* 8 + 8 enable files, 3 + 16 parameters, 4 qos, 20 + 2 debugfs */
	assert_int_equal(n, 61);
	/* a root without any: none */
	memset(&g, 0, sizeof(g));
	assert_int_equal(nic_config__read(tpath("empty"), nic_kv, &g), 0);
	/* the walk stops at the callback's non-zero */
	memset(&g, 0, sizeof(g));
	g.stop_after = 3;
	assert_int_equal(nic_config__read(fixture, nic_kv, &g), -ECANCELED);
	assert_int_equal(g.n, 3);
}

/* ---- the record ---- */

static void test_record(void **state)
{
	uint64_t buf[CFGREC_MAX / 8 + 1];
	struct ft_config p = { .scope = FT_CFG_QDISC, .netns = 5, .id = 2, .handle = 0x10000, .parent = TC_H_ROOT };
	struct ft_config *c;
	const char *k, *v;
	char longv[FT_CFG_VALUE_MAX + 100];

	(void)state;
	strcpy(p.object, "tbf");
	c = cfgrec__build(buf, &p, "limit_bytes", "30000");
	assert_int_equal(c->hdr.type, FT_REC_CONFIG);
	assert_int_equal(c->hdr.size % 8, 0);
	assert_int_equal(c->hdr.size, (sizeof(*c) + 12 + 6 + 7) & ~7u);
	assert_int_equal(cfgrec__parse(&c->hdr, &k, &v), 0);
	assert_string_equal(k, "limit_bytes");
	assert_string_equal(v, "30000");
	assert_int_equal(c->handle, 0x10000);
	/* NULL value: ""; long ones cut */
	c = cfgrec__build(buf, &p, "x", NULL);
	assert_int_equal(cfgrec__parse(&c->hdr, &k, &v), 0);
	assert_string_equal(v, "");
	memset(longv, 'a', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	c = cfgrec__build(buf, &p, longv, longv);
	assert_int_equal(cfgrec__parse(&c->hdr, &k, &v), 0);
	assert_int_equal(strlen(k), FT_CFG_KEY_MAX);
	assert_int_equal(strlen(v), FT_CFG_VALUE_MAX);
	assert_true(c->hdr.size <= CFGREC_MAX);
	/* damaged: lengths past the end, a NUL inside, none at the end, too short */
	c = cfgrec__build(buf, &p, "key", "value");
	c->value_len = 200;
	assert_int_equal(cfgrec__parse(&c->hdr, &k, &v), -EINVAL);
	c = cfgrec__build(buf, &p, "key", "value");
	((char *)(c + 1))[1] = '\0';
	assert_int_equal(cfgrec__parse(&c->hdr, &k, &v), -EINVAL);
	c = cfgrec__build(buf, &p, "key", "value");
	((char *)(c + 1))[3] = 'x';
	assert_int_equal(cfgrec__parse(&c->hdr, &k, &v), -EINVAL);
	c = cfgrec__build(buf, &p, "key", "value");
	c->hdr.size = sizeof(*c) - 8;
	assert_int_equal(cfgrec__parse(&c->hdr, &k, &v), -EINVAL);
	assert_string_equal(cfgrec__scope_name(FT_CFG_NIC), "nic");
	assert_null(cfgrec__scope_name(FT_CFG_SCOPE_MAX));
	/* the capture reader knows its name and least size */
	assert_string_equal(capture__rec_name(FT_REC_CONFIG), "config");
	assert_int_equal(capture__rec_size(FT_REC_CONFIG), sizeof(struct ft_config));
}

/* ---- the model's store ---- */

#define HOST_NS 100
#define H1_NS 101
#define H2_NS 102
#define H3_NS 103

struct feed {
	uint64_t buf[CFGREC_MAX / 8 + 1];
	uint64_t ts;
};

static const struct ft_rec_hdr *rec(struct feed *f, struct ft_config p, const char *key, const char *value)
{
	p.ts_ns = ++f->ts * 1000;
	return &cfgrec__build(f->buf, &p, key, value)->hdr;
}

static struct ft_flow flow_of(uint32_t netns, uint16_t sport)
{
	struct ft_flow fl = { .family = 4, .proto = 6, .netns = netns, .sport = sport, .dport = 5201 };

	inet_pton(AF_INET, "198.18.0.1", fl.saddr);
	inet_pton(AF_INET, "198.18.0.2", fl.daddr);
	return fl;
}

/* What a recording of a lab writes: host, two namespaces (one differs, one not), one unreadable. */
static int feed_lab(int (*add)(void *ctx, const struct ft_rec_hdr *r), void *ctx)
{
	struct feed f = {0};
	struct ft_config host = { .scope = FT_CFG_NETNS, .flags = FT_CFGF_HOST, .netns = HOST_NS };
	struct ft_config h1 = { .scope = FT_CFG_NETNS, .netns = H1_NS }, h2 = h1, h3 = h1;
	struct ft_config ifc = { .scope = FT_CFG_IFACE, .netns = H1_NS, .id = 2 };
	struct ft_config q = { .scope = FT_CFG_QDISC, .netns = H1_NS, .id = 2, .handle = 0x10000, .parent = TC_H_ROOT };
	struct ft_config fl = { .scope = FT_CFG_FLOW, .netns = H1_NS }, fl2;
	struct ft_config rank = { .scope = FT_CFG_RANK, .id = 4242 };
	struct ft_config nic = { .scope = FT_CFG_NIC };
	int ret = 0;

	h2.netns = H2_NS;
	h3.netns = H3_NS;
	strcpy(h1.object, "labh1");
	strcpy(h2.object, "labh2");
	strcpy(h3.object, "labh3");
	strcpy(ifc.object, "eth0");
	strcpy(q.object, "tbf");
	strcpy(rank.object, "allreduce");
	strcpy(nic.object, "enp1s0f0np0");
	fl.flow = flow_of(H1_NS, 40000);
	fl.flow.ifindex = 9; /* as a TCP record may name it: lookups ignore it */
	fl2 = fl;
	fl2.flow = flow_of(H1_NS, 40001);
	ret = ret ?: add(ctx, rec(&f, host, "net.ipv4.tcp_congestion_control", "bbr"));
	ret = ret ?: add(ctx, rec(&f, host, "net.ipv4.tcp_ecn", "2"));
	ret = ret ?: add(ctx, rec(&f, h1, "net.ipv4.tcp_congestion_control", "cubic"));
	ret = ret ?: add(ctx, rec(&f, h1, "sysctls_differing", "1"));
	ret = ret ?: add(ctx, rec(&f, h2, "sysctls_differing", "0"));
	h3.flags = FT_CFGF_UNKNOWN;
	ret = ret ?: add(ctx, rec(&f, h3, "sysctls_differing", "cannot read: Operation not permitted"));
	ret = ret ?: add(ctx, rec(&f, ifc, "mtu", "1500"));
	ret = ret ?: add(ctx, rec(&f, ifc, "tso", "off"));
	ret = ret ?: add(ctx, rec(&f, q, "kind", "tbf"));
	ret = ret ?: add(ctx, rec(&f, q, "limit_bytes", "30000"));
	ret = ret ?: add(ctx, rec(&f, q, "rate_bps", "20000000"));
	ret = ret ?: add(ctx, rec(&f, fl, "cc", "cubic"));
	ret = ret ?: add(ctx, rec(&f, fl, "ecn", "off"));
	ret = ret ?: add(ctx, rec(&f, fl2, "cc", "bbr"));
	ret = ret ?: add(ctx, rec(&f, fl2, "ecn", "on"));
	ret = ret ?: add(ctx, rec(&f, rank, "NCCL_ALGO", "Ring"));
	ret = ret ?: add(ctx, rec(&f, rank, "env_vars", "1"));
	ret = ret ?: add(ctx, rec(&f, nic, "ecn/roce_np/cnp_dscp", "48"));
	/* at the stop: the tbf's limit was changed meanwhile; an unreadable re-read changes nothing */
	ret = ret ?: add(ctx, rec(&f, q, "limit_bytes", "60000"));
	q.flags = FT_CFGF_UNKNOWN;
	ret = ret ?: add(ctx, rec(&f, q, "rate_bps", "cannot read: No such device"));
	return ret;
}

static int add_to_store(void *ctx, const struct ft_rec_hdr *r)
{
	return model_config__add(ctx, r);
}

static void test_store(void **state)
{
	struct model_config *c = model_config__new();
	struct ft_flow probe = flow_of(H1_NS, 40001);
	const struct model_cfg *v;
	bool unknown;
	size_t n;
	uint64_t buf[CFGREC_MAX / 8 + 1];
	struct ft_config bad = { .scope = FT_CFG_IFACE };
	struct ft_config *b;

	(void)state;
	assert_non_null(c);
	assert_int_equal(feed_lab(add_to_store, c), 0);
	/* a damaged record is counted, not kept */
	b = cfgrec__build(buf, &bad, "k", "v");
	b->key_len = 60;
	assert_int_equal(model_config__add(c, &b->hdr), 0);
	assert_int_equal(model_config__finish(c), 0);
	assert_int_equal(model_config__damaged(c), 1);
	assert_int_equal(model_config__unknown(c), 1); /* h3's; the failed re-read is dropped */
	v = model_config__all(c, &n);
	assert_int_equal(n, 18);
	for (size_t i = 1; i < n; i++) /* sorted: scope first */
		assert_true(v[i - 1].scope <= v[i].scope);
	/* sysctls: the namespace's own, else the host's where it was read, unknown where it could not be */
	assert_string_equal(model_config__sysctl(c, H1_NS, "net.ipv4.tcp_congestion_control", NULL), "cubic");
	assert_string_equal(model_config__sysctl(c, H1_NS, "net.ipv4.tcp_ecn", NULL), "2");
	assert_string_equal(model_config__sysctl(c, H2_NS, "net.ipv4.tcp_congestion_control", NULL), "bbr");
	assert_string_equal(model_config__sysctl(c, HOST_NS, "net.ipv4.tcp_congestion_control", NULL), "bbr");
	assert_null(model_config__sysctl(c, H3_NS, "net.ipv4.tcp_ecn", &unknown));
	assert_true(unknown);
	assert_null(model_config__sysctl(c, 999, "net.ipv4.tcp_ecn", &unknown)); /* never read */
	assert_false(unknown);
	assert_null(model_config__sysctl(c, HOST_NS, "net.core.nope", NULL));
	assert_int_equal(model_config__host_netns(c), HOST_NS);
	/* interfaces, qdiscs: the last value; the change is kept */
	assert_string_equal(model_config__iface(c, H1_NS, 2, "tso"), "off");
	assert_null(model_config__iface(c, H1_NS, 3, "tso"));
	assert_string_equal(model_config__qdisc(c, H1_NS, 2, 0x10000, "limit_bytes"), "60000");
	assert_string_equal(model_config__qdisc(c, H1_NS, 2, 0x10000, "rate_bps"), "20000000");
	assert_null(model_config__qdisc(c, H1_NS, 2, 0x20000, "limit_bytes"));
	v = model_config__of(c, FT_CFG_QDISC, H1_NS, 2, &n);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].key, "limit_bytes")) {
			assert_true(v[i].changed);
			assert_string_equal(v[i].value, "30000");
			assert_string_equal(v[i].last, "60000");
			assert_true(v[i].last_ns > v[i].first_ns);
		} else {
			assert_false(v[i].changed);
		}
	/* flows: by their key, the interface index ignored */
	assert_string_equal(model_config__flow(c, &probe, "cc"), "bbr");
	assert_string_equal(model_config__flow(c, &probe, "ecn"), "on");
	probe.ifindex = 3;
	probe.sport = 40000;
	assert_string_equal(model_config__flow(c, &probe, "cc"), "cubic");
	probe.sport = 1;
	assert_null(model_config__flow(c, &probe, "cc"));
	/* environment: set, unset, not read */
	assert_string_equal(model_config__env(c, 4242, "NCCL_ALGO"), "Ring");
	assert_null(model_config__env(c, 4242, "NCCL_PROTO"));
	assert_true(model_config__env_read(c, 4242));
	assert_false(model_config__env_read(c, 1));
	model_config__free(c);
	/* lookups before finish, and on no store, find nothing */
	c = model_config__new();
	assert_int_equal(feed_lab(add_to_store, c), 0);
	assert_null(model_config__iface(c, H1_NS, 2, "tso"));
	model_config__free(c);
	assert_null(model_config__iface(NULL, H1_NS, 2, "tso"));
}

/* The model keeps the store: a capture written here, loaded, looked up through model__config_*. */
static int add_to_capture(void *ctx, const struct ft_rec_hdr *r)
{
	return capture__append(ctx, r);
}

static void write_capture(const char *path, uint32_t version)
{
	struct ft_file_header h = { .version = version, .bin_ns = 100000, .start_mono_ns = 1, .ncpus = 1 };
	struct ft_end end = { .hdr = { FT_REC_END, sizeof(end), 0 }, .ts_ns = 100000 };
	struct capture_writer *w;
	char err[256];

	unlink(path);
	assert_int_equal(capture__create(&w, path, &h, (uid_t)-1, (gid_t)-1, err, sizeof(err)), 0);
	assert_int_equal(feed_lab(add_to_capture, w), 0);
	assert_int_equal(capture__append(w, &end), 0);
	assert_int_equal(capture__close(w), 0);
}

static void test_model(void **state)
{
	struct model_opts o;
	struct model *m;
	struct ft_flow fl = flow_of(H1_NS, 40000);
	char err[256];

	(void)state;
	write_capture(tpath("lab.ftr"), 0);
	model_opts__init(&o);
	assert_int_equal(model__load(tpath("lab.ftr"), &o, &m, err, sizeof(err)), 0);
	assert_non_null(m->config);
	assert_string_equal(model__config_qdisc(m, H1_NS, 2, 0x10000, "limit_bytes"), "60000");
	assert_string_equal(model__config_sysctl(m, H2_NS, "net.ipv4.tcp_congestion_control"), "bbr");
	assert_string_equal(model__config_iface(m, H1_NS, 2, "mtu"), "1500");
	assert_string_equal(model__config_flow(m, &fl, "cc"), "cubic");
	assert_string_equal(model__config_env(m, 4242, "NCCL_ALGO"), "Ring");
	model__free(m);
	/* a window keeps the configuration (it describes the whole capture) */
	o.window = true;
	o.window_from_ns = 50000;
	o.window_to_ns = 60000;
	assert_int_equal(model__load(tpath("lab.ftr"), &o, &m, err, sizeof(err)), 0);
	assert_string_equal(model__config_sysctl(m, H1_NS, "net.ipv4.tcp_congestion_control"), "cubic");
	model__free(m);
	/* a version 1 capture has none: an older fabtrace would count them as unknown */
	write_capture(tpath("v1.ftr"), 1);
	model_opts__init(&o);
	assert_int_equal(model__load(tpath("v1.ftr"), &o, &m, err, sizeof(err)), 0);
	assert_null(m->config);
	assert_null(model__config_sysctl(m, H1_NS, "net.ipv4.tcp_ecn"));
	model__free(m);
}

/* ---- info's section ---- */

static int add_to_info(void *ctx, const struct ft_rec_hdr *r)
{
	info_config__add(ctx, r);
	return 0;
}

static void test_info(void **state)
{
	struct model_config *c = NULL;
	char *text = NULL, *js = NULL;
	size_t tlen = 0, jlen = 0;
	FILE *f;
	struct json j;

	(void)state;
	/* nothing for a capture without configuration */
	f = open_memstream(&text, &tlen);
	info_config__print(NULL, f);
	fclose(f);
	assert_int_equal(tlen, 0);
	free(text);
	assert_int_equal(feed_lab(add_to_info, &c), 0);
	f = open_memstream(&text, &tlen);
	info_config__print(c, f);
	fclose(f);
	print_message("%s", text);
	assert_non_null(strstr(text, "configuration:\n"));
	assert_non_null(strstr(text, "netns labh1 (101): 1 sysctl differs from the host's:"));
	assert_non_null(strstr(text, "netns labh2 (102): the host's sysctls"));
	assert_non_null(strstr(text, "netns labh3 (103): sysctls unknown (cannot read: Operation not permitted)"));
	assert_non_null(strstr(text, "interface eth0@labh1 (ifindex 2): mtu 1500, tso off"));
	assert_non_null(strstr(text, "qdisc tbf 1: (root)  limit_bytes 30000, rate_bps 20000000"));
	assert_non_null(strstr(text, "TCP sockets: 2 (cubic 1, ECN on 0; bbr 1, ECN on 1)"));
	assert_non_null(strstr(text, "process 4242 (allreduce): NCCL_ALGO=Ring"));
	assert_non_null(strstr(text, "NIC enp1s0f0np0:"));
	assert_non_null(strstr(text, "qdisc tbf 1: parent root on eth0 limit_bytes: 30000 -> 60000"));
	assert_non_null(strstr(text, "could not be read: 1"));
	free(text);

	f = open_memstream(&js, &jlen);
	json_init(&j, f, true);
	json_object_begin(&j);
	info_config__json(c, &j);
	json_object_end(&j);
	json_finish(&j);
	fclose(f);
	assert_true(json_valid(js));
	assert_non_null(strstr(js, "\"net.ipv4.tcp_congestion_control\": \"cubic\""));
	assert_non_null(strstr(js, "\"sysctls_differing\": 1"));
	assert_non_null(strstr(js, "\"kind\": \"tbf\""));
	assert_non_null(strstr(js, "\"handle\": \"1:\""));
	assert_non_null(strstr(js, "\"limit_bytes\": \"30000\""));
	assert_non_null(strstr(js, "\"from\": \"30000\""));
	assert_non_null(strstr(js, "\"to\": \"60000\""));
	assert_non_null(strstr(js, "\"flow\": \"198.18.0.1:40001 -> 198.18.0.2:5201\""));
	assert_non_null(strstr(js, "\"NCCL_ALGO\": \"Ring\""));
	assert_non_null(strstr(js, "\"ecn/roce_np/cnp_dscp\": \"48\""));
	assert_null(strstr(js, "\"env_vars\"")); /* the marker is not a variable */
	free(js);
	model_config__free(c);
}

/* ---- setup ---- */

static int setup_all(void **state)
{
	return setup_dir(state) ? -1 : sysfs_fixture_find(fixture, "test_config");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qdisc_fq_codel),
		cmocka_unit_test(test_qdisc_red),
		cmocka_unit_test(test_qdisc_tbf_htb),
		cmocka_unit_test(test_qdisc_others),
		cmocka_unit_test(test_qdisc_bad),
		cmocka_unit_test(test_qdisc_stats),
		cmocka_unit_test(test_handle_str),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_sysctls),
		cmocka_unit_test(test_sockdiag),
		cmocka_unit_test(test_tcp_mib),
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_env_self),
		cmocka_unit_test(test_nic),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_store),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_info),
	};

	return cmocka_run_group_tests(tests, setup_all, teardown_dir);
}
