// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Qdisc and class parameters from rtnetlink (qdisc_config.h): one parser
 * per kind whose TCA_OPTIONS is a struct (tbf, htb, the fifos, prio, sfq,
 * red, netem), and a table of attribute -> key for the kinds whose options
 * are plain attributes (fq_codel, codel, fq, pie, fq_pie, cake).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "probes/netns.h"
#include "probes/qdisc_config.h"
#include "lib/util.h"

#define MAX_ATTR 32

/* One parse: where its settings go, and the first failure of KV. */
struct qparse {
	const struct qdisc_desc *d;
	qdisc_kv_fn kv;
	void *ctx;
	int ret;
};

static void put(struct qparse *q, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(struct qparse *q, const char *key, const char *fmt, ...)
{
	char v[128];
	va_list ap;

	if (q->ret)
		return;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	q->ret = q->kv(q->ctx, q->d, key, v);
}

static void put_onoff(struct qparse *q, const char *key, int on)
{
	put(q, key, "%s", on ? "on" : "off");
}

/* An attribute's payload as a u32/u64 (0 and false when too short or absent). */
static int get_u32(const struct rtattr *a, uint32_t *v)
{
	if (!a || RTA_PAYLOAD(a) < sizeof(*v))
		return 0;
	memcpy(v, RTA_DATA(a), sizeof(*v));
	return 1;
}

static int get_u64(const struct rtattr *a, uint64_t *v)
{
	if (!a || RTA_PAYLOAD(a) < sizeof(*v))
		return 0;
	memcpy(v, RTA_DATA(a), sizeof(*v));
	return 1;
}

/* Bytes a shaper lets through at RATE (bytes/s) in BUFFER psched ticks (64 ns each). */
static uint64_t burst_bytes(uint64_t rate, uint32_t buffer)
{
	return (uint64_t)llround((double)rate * ((double)buffer * 64.0) / 1e9);
}

/* ---- kinds whose options are one struct ---- */

static int parse_tbf(struct qparse *q, const void *opt, size_t len)
{
	const struct rtattr *tb[TCA_TBF_MAX + 1];
	struct tc_tbf_qopt p;
	uint64_t rate, prate;

	if (netns__attrs(opt, len, tb, TCA_TBF_MAX))
		return -EINVAL;
	if (!tb[TCA_TBF_PARMS] || RTA_PAYLOAD(tb[TCA_TBF_PARMS]) < sizeof(p))
		return 0;
	memcpy(&p, RTA_DATA(tb[TCA_TBF_PARMS]), sizeof(p));
	if (!get_u64(tb[TCA_TBF_RATE64], &rate))
		rate = p.rate.rate;
	if (!get_u64(tb[TCA_TBF_PRATE64], &prate))
		prate = p.peakrate.rate;
	put(q, "rate_bps", "%llu", (unsigned long long)rate * 8);
	put(q, "burst_bytes", "%llu", (unsigned long long)burst_bytes(rate, p.buffer));
	put(q, "limit_bytes", "%u", p.limit);
	if (prate) {
		put(q, "peakrate_bps", "%llu", (unsigned long long)prate * 8);
		put(q, "mtu_bytes", "%u", p.mtu);
	}
	return 0;
}

static int parse_htb(struct qparse *q, const void *opt, size_t len)
{
	const struct rtattr *tb[TCA_HTB_MAX + 1];
	uint64_t rate, ceil;
	uint32_t v;

	if (netns__attrs(opt, len, tb, TCA_HTB_MAX))
		return -EINVAL;
	if (!q->d->is_class) {
		struct tc_htb_glob g;

		if (tb[TCA_HTB_INIT] && RTA_PAYLOAD(tb[TCA_HTB_INIT]) >= sizeof(g)) {
			memcpy(&g, RTA_DATA(tb[TCA_HTB_INIT]), sizeof(g));
			put(q, "r2q", "%u", g.rate2quantum);
			put(q, "default_class", "%x", g.defcls); /* tc's "default 10" is minor 0x10 */
		}
		if (get_u32(tb[TCA_HTB_DIRECT_QLEN], &v))
			put(q, "direct_qlen_pkts", "%u", v);
		return 0;
	}
	struct tc_htb_opt o;

	if (!tb[TCA_HTB_PARMS] || RTA_PAYLOAD(tb[TCA_HTB_PARMS]) < sizeof(o))
		return 0;
	memcpy(&o, RTA_DATA(tb[TCA_HTB_PARMS]), sizeof(o));
	if (!get_u64(tb[TCA_HTB_RATE64], &rate))
		rate = o.rate.rate;
	if (!get_u64(tb[TCA_HTB_CEIL64], &ceil))
		ceil = o.ceil.rate;
	put(q, "rate_bps", "%llu", (unsigned long long)rate * 8);
	put(q, "ceil_bps", "%llu", (unsigned long long)ceil * 8);
	put(q, "burst_bytes", "%llu", (unsigned long long)burst_bytes(rate, o.buffer));
	put(q, "cburst_bytes", "%llu", (unsigned long long)burst_bytes(ceil, o.cbuffer));
	put(q, "quantum_bytes", "%u", o.quantum);
	put(q, "prio", "%u", o.prio);
	put(q, "level", "%u", o.level);
	return 0;
}

static int parse_fifo(struct qparse *q, const void *opt, size_t len)
{
	struct tc_fifo_qopt f;

	if (len < sizeof(f))
		return 0;
	memcpy(&f, opt, sizeof(f));
	put(q, strcmp(q->d->kind, "bfifo") ? "limit_pkts" : "limit_bytes", "%u", f.limit);
	return 0;
}

static int parse_prio(struct qparse *q, const void *opt, size_t len)
{
	struct tc_prio_qopt p;
	char map[3 * (TC_PRIO_MAX + 1) + 1];
	size_t off = 0;

	if (len < sizeof(p))
		return 0;
	memcpy(&p, opt, sizeof(p));
	for (int i = 0; i <= TC_PRIO_MAX; i++)
		off += (size_t)snprintf(map + off, sizeof(map) - off, "%s%u", i ? " " : "", p.priomap[i]);
	put(q, "bands", "%d", p.bands);
	put(q, "priomap", "%s", map);
	return 0;
}

static int parse_sfq(struct qparse *q, const void *opt, size_t len)
{
	struct tc_sfq_qopt_v1 v;

	if (len < sizeof(v.v0))
		return 0;
	memset(&v, 0, sizeof(v));
	memcpy(&v, opt, len < sizeof(v) ? len : sizeof(v));
	put(q, "quantum_bytes", "%u", v.v0.quantum);
	put(q, "perturb_s", "%d", v.v0.perturb_period);
	put(q, "limit_pkts", "%u", v.v0.limit);
	put(q, "divisor", "%u", v.v0.divisor);
	put(q, "flows", "%u", v.v0.flows);
	if (len >= sizeof(v)) {
		put(q, "depth_pkts", "%u", v.depth);
		put_onoff(q, "headdrop", v.headdrop);
		put_onoff(q, "ecn", v.flags & TC_RED_ECN);
	}
	return 0;
}

static int parse_red(struct qparse *q, const void *opt, size_t len)
{
	const struct rtattr *tb[TCA_RED_MAX + 1];
	struct tc_red_qopt r;
	uint32_t max_p, flags;

	if (netns__attrs(opt, len, tb, TCA_RED_MAX))
		return -EINVAL;
	if (!tb[TCA_RED_PARMS] || RTA_PAYLOAD(tb[TCA_RED_PARMS]) < sizeof(r))
		return 0;
	memcpy(&r, RTA_DATA(tb[TCA_RED_PARMS]), sizeof(r));
	flags = r.flags;
	if (tb[TCA_RED_FLAGS] && RTA_PAYLOAD(tb[TCA_RED_FLAGS]) >= sizeof(struct nla_bitfield32)) {
		struct nla_bitfield32 bf;

		memcpy(&bf, RTA_DATA(tb[TCA_RED_FLAGS]), sizeof(bf));
		flags |= bf.value;
	}
	put(q, "limit_bytes", "%u", r.limit);
	put(q, "min_bytes", "%u", r.qth_min);
	put(q, "max_bytes", "%u", r.qth_max);
	if (get_u32(tb[TCA_RED_MAX_P], &max_p))
		put(q, "probability", "%.6g", max_p / 4294967296.0);
	put_onoff(q, "ecn", flags & TC_RED_ECN);
	put_onoff(q, "harddrop", flags & TC_RED_HARDDROP);
	put_onoff(q, "adaptive", flags & TC_RED_ADAPTATIVE);
	put_onoff(q, "nodrop", flags & TC_RED_NODROP);
	return 0;
}

static int parse_netem(struct qparse *q, const void *opt, size_t len)
{
	const struct rtattr *tb[TCA_NETEM_MAX + 1];
	struct tc_netem_qopt n;
	size_t skip = NLMSG_ALIGN(sizeof(n));
	uint64_t lat, jit, rate;
	uint32_t ecn;

	if (len < sizeof(n))
		return 0;
	memcpy(&n, opt, sizeof(n));
	/* the nested attributes follow the struct */
	if (netns__attrs((const char *)opt + (len < skip ? len : skip), len < skip ? 0 : len - skip, tb, TCA_NETEM_MAX))
		return -EINVAL;
	if (!get_u64(tb[TCA_NETEM_LATENCY64], &lat))
		lat = (uint64_t)n.latency * 64; /* psched ticks */
	if (!get_u64(tb[TCA_NETEM_JITTER64], &jit))
		jit = (uint64_t)n.jitter * 64;
	put(q, "limit_pkts", "%u", n.limit);
	put(q, "delay_us", "%llu", (unsigned long long)(lat / 1000));
	put(q, "jitter_us", "%llu", (unsigned long long)(jit / 1000));
	put(q, "loss_pct", "%.6g", n.loss / 4294967296.0 * 100);
	if (get_u64(tb[TCA_NETEM_RATE64], &rate) ||
	    (tb[TCA_NETEM_RATE] && RTA_PAYLOAD(tb[TCA_NETEM_RATE]) >= sizeof(struct tc_netem_rate) &&
	     (rate = ((const struct tc_netem_rate *)RTA_DATA(tb[TCA_NETEM_RATE]))->rate)))
		put(q, "rate_bps", "%llu", (unsigned long long)rate * 8);
	if (get_u32(tb[TCA_NETEM_ECN], &ecn))
		put_onoff(q, "ecn", ecn);
	return 0;
}

/* ---- kinds whose options are plain attributes: a table each ---- */

enum fmt {
	F_U32,          /* the number */
	F_ONOFF,        /* a u32 switch */
	F_ONOFF8,       /* a u8 switch */
	F_BPS32,        /* u32 bytes/s as bits/s; ~0 unlimited */
	F_BPS64,        /* u64 bytes/s as bits/s */
	F_THRESH_US,    /* u32 µs; ~0 (fq: the threshold unset) is off */
	F_S32,
};

struct attr_key {
	uint16_t type;
	uint8_t fmt;
	const char *key;
};

static const struct attr_key fq_codel_keys[] = {
	{ TCA_FQ_CODEL_TARGET, F_U32, "target_us" },
	{ TCA_FQ_CODEL_INTERVAL, F_U32, "interval_us" },
	{ TCA_FQ_CODEL_LIMIT, F_U32, "limit_pkts" },
	{ TCA_FQ_CODEL_FLOWS, F_U32, "flows" },
	{ TCA_FQ_CODEL_QUANTUM, F_U32, "quantum_bytes" },
	{ TCA_FQ_CODEL_MEMORY_LIMIT, F_U32, "memory_limit_bytes" },
	{ TCA_FQ_CODEL_DROP_BATCH_SIZE, F_U32, "drop_batch" },
	{ TCA_FQ_CODEL_ECN, F_ONOFF, "ecn" },
	{ TCA_FQ_CODEL_CE_THRESHOLD, F_THRESH_US, "ce_threshold_us" },
};

static const struct attr_key codel_keys[] = {
	{ TCA_CODEL_TARGET, F_U32, "target_us" },
	{ TCA_CODEL_INTERVAL, F_U32, "interval_us" },
	{ TCA_CODEL_LIMIT, F_U32, "limit_pkts" },
	{ TCA_CODEL_ECN, F_ONOFF, "ecn" },
	{ TCA_CODEL_CE_THRESHOLD, F_THRESH_US, "ce_threshold_us" },
};

static const struct attr_key fq_keys[] = {
	{ TCA_FQ_PLIMIT, F_U32, "limit_pkts" },
	{ TCA_FQ_FLOW_PLIMIT, F_U32, "flow_limit_pkts" },
	{ TCA_FQ_QUANTUM, F_U32, "quantum_bytes" },
	{ TCA_FQ_INITIAL_QUANTUM, F_U32, "initial_quantum_bytes" },
	{ TCA_FQ_RATE_ENABLE, F_ONOFF, "rate_enable" },
	{ TCA_FQ_FLOW_MAX_RATE, F_BPS32, "maxrate_bps" },
	{ TCA_FQ_BUCKETS_LOG, F_U32, "buckets_log" },
	{ TCA_FQ_FLOW_REFILL_DELAY, F_U32, "refill_delay_us" },
	{ TCA_FQ_LOW_RATE_THRESHOLD, F_BPS32, "low_rate_threshold_bps" },
	{ TCA_FQ_CE_THRESHOLD, F_THRESH_US, "ce_threshold_us" },
	{ TCA_FQ_TIMER_SLACK, F_U32, "timer_slack_ns" },
	{ TCA_FQ_HORIZON, F_U32, "horizon_us" },
	{ TCA_FQ_HORIZON_DROP, F_ONOFF8, "horizon_drop" },
};

static const struct attr_key pie_keys[] = {
	{ TCA_PIE_TARGET, F_U32, "target_us" },
	{ TCA_PIE_LIMIT, F_U32, "limit_pkts" },
	{ TCA_PIE_TUPDATE, F_U32, "tupdate_us" },
	{ TCA_PIE_ALPHA, F_U32, "alpha" },
	{ TCA_PIE_BETA, F_U32, "beta" },
	{ TCA_PIE_ECN, F_ONOFF, "ecn" },
	{ TCA_PIE_BYTEMODE, F_ONOFF, "bytemode" },
	{ TCA_PIE_DQ_RATE_ESTIMATOR, F_ONOFF, "dq_rate_estimator" },
};

static const struct attr_key fq_pie_keys[] = {
	{ TCA_FQ_PIE_LIMIT, F_U32, "limit_pkts" },
	{ TCA_FQ_PIE_FLOWS, F_U32, "flows" },
	{ TCA_FQ_PIE_TARGET, F_U32, "target_us" },
	{ TCA_FQ_PIE_TUPDATE, F_U32, "tupdate_us" },
	{ TCA_FQ_PIE_ALPHA, F_U32, "alpha" },
	{ TCA_FQ_PIE_BETA, F_U32, "beta" },
	{ TCA_FQ_PIE_QUANTUM, F_U32, "quantum_bytes" },
	{ TCA_FQ_PIE_MEMORY_LIMIT, F_U32, "memory_limit_bytes" },
	{ TCA_FQ_PIE_ECN_PROB, F_U32, "ecn_prob_pct" },
	{ TCA_FQ_PIE_ECN, F_ONOFF, "ecn" },
	{ TCA_FQ_PIE_BYTEMODE, F_ONOFF, "bytemode" },
	{ TCA_FQ_PIE_DQ_RATE_ESTIMATOR, F_ONOFF, "dq_rate_estimator" },
};

/* cake marks ECN-capable packets always: it has no switch for it */
static const struct attr_key cake_keys[] = {
	{ TCA_CAKE_BASE_RATE64, F_BPS64, "bandwidth_bps" },
	{ TCA_CAKE_RTT, F_U32, "rtt_us" },
	{ TCA_CAKE_TARGET, F_U32, "target_us" },
	{ TCA_CAKE_MEMORY, F_U32, "memory_limit_bytes" },
	{ TCA_CAKE_DIFFSERV_MODE, F_U32, "diffserv_mode" },
	{ TCA_CAKE_FLOW_MODE, F_U32, "flow_mode" },
	{ TCA_CAKE_OVERHEAD, F_S32, "overhead_bytes" },
	{ TCA_CAKE_MPU, F_U32, "mpu_bytes" },
	{ TCA_CAKE_AUTORATE, F_ONOFF, "autorate" },
	{ TCA_CAKE_NAT, F_ONOFF, "nat" },
	{ TCA_CAKE_WASH, F_ONOFF, "wash" },
	{ TCA_CAKE_INGRESS, F_ONOFF, "ingress" },
	{ TCA_CAKE_ACK_FILTER, F_U32, "ack_filter" },
	{ TCA_CAKE_SPLIT_GSO, F_ONOFF, "split_gso" },
};

static void put_attr(struct qparse *q, const struct attr_key *k, const struct rtattr *a)
{
	uint32_t v;
	uint64_t w;

	if (k->fmt == F_BPS64) {
		if (get_u64(a, &w))
			put(q, k->key, "%llu", (unsigned long long)w * 8);
		return;
	}
	if (k->fmt == F_ONOFF8) {
		if (a && RTA_PAYLOAD(a) >= 1)
			put_onoff(q, k->key, *(const uint8_t *)RTA_DATA(a));
		return;
	}
	if (!get_u32(a, &v))
		return;
	switch (k->fmt) {
	case F_ONOFF: put_onoff(q, k->key, v != 0); break;
	case F_BPS32:
		if (v == UINT32_MAX)
			put(q, k->key, "unlimited");
		else
			put(q, k->key, "%llu", (unsigned long long)v * 8);
		break;
	case F_THRESH_US:
		if (v == UINT32_MAX)
			put(q, k->key, "off");
		else
			put(q, k->key, "%u", v);
		break;
	case F_S32: put(q, k->key, "%d", (int32_t)v); break;
	default: put(q, k->key, "%u", v); break;
	}
}

static int parse_table(struct qparse *q, const void *opt, size_t len, const struct attr_key *keys, size_t n)
{
	const struct rtattr *tb[MAX_ATTR + 1];

	if (netns__attrs(opt, len, tb, MAX_ATTR))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (keys[i].type <= MAX_ATTR && tb[keys[i].type])
			put_attr(q, &keys[i], tb[keys[i].type]);
	return 0;
}

/* ---- the kinds ---- */

struct kind {
	const char *kind;
	int (*parse)(struct qparse *q, const void *opt, size_t len); /* NULL: KEYS */
	const struct attr_key *keys;
	size_t nkeys;
};

#define TABLE(k) NULL, (k), sizeof(k) / sizeof((k)[0])
static const struct kind kinds[] = {
	{ "tbf", parse_tbf, NULL, 0 },
	{ "htb", parse_htb, NULL, 0 },
	{ "pfifo", parse_fifo, NULL, 0 },
	{ "bfifo", parse_fifo, NULL, 0 },
	{ "pfifo_head_drop", parse_fifo, NULL, 0 },
	{ "prio", parse_prio, NULL, 0 },
	{ "pfifo_fast", parse_prio, NULL, 0 },
	{ "sfq", parse_sfq, NULL, 0 },
	{ "red", parse_red, NULL, 0 },
	{ "netem", parse_netem, NULL, 0 },
	{ "fq_codel", TABLE(fq_codel_keys) },
	{ "codel", TABLE(codel_keys) },
	{ "fq", TABLE(fq_keys) },
	{ "pie", TABLE(pie_keys) },
	{ "fq_pie", TABLE(fq_pie_keys) },
	{ "cake", TABLE(cake_keys) },
};

int qdisc_config__parse(const struct nlmsghdr *h, qdisc_kv_fn kv, void *ctx)
{
	const struct tcmsg *tc = NLMSG_DATA(h);
	const struct rtattr *tb[TCA_MAX + 1];
	struct qdisc_desc d = {0};
	struct qparse q = { &d, kv, ctx, 0 };
	const void *opt = NULL;
	size_t optlen = 0;

	if ((h->nlmsg_type != RTM_NEWQDISC && h->nlmsg_type != RTM_NEWTCLASS) ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*tc)))
		return 1;
	if (netns__attrs(TCA_RTA(tc), h->nlmsg_len - NLMSG_LENGTH(sizeof(*tc)), tb, TCA_MAX))
		return -EINVAL;
	if (!tb[TCA_KIND] || !RTA_PAYLOAD(tb[TCA_KIND]))
		return 1;
	d.ifindex = (uint32_t)tc->tcm_ifindex;
	d.handle = tc->tcm_handle;
	d.parent = tc->tcm_parent;
	d.is_class = h->nlmsg_type == RTM_NEWTCLASS;
	/* not NUL-terminated when damaged: bounded by its payload */
	snprintf(d.kind, sizeof(d.kind), "%.*s", (int)strnlen(RTA_DATA(tb[TCA_KIND]), RTA_PAYLOAD(tb[TCA_KIND])),
		 (const char *)RTA_DATA(tb[TCA_KIND]));
	put(&q, "kind", "%s", d.kind);
	if (tb[TCA_OPTIONS]) {
		opt = RTA_DATA(tb[TCA_OPTIONS]);
		optlen = RTA_PAYLOAD(tb[TCA_OPTIONS]);
	}
	for (size_t i = 0; opt && !q.ret && i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		int ret;

		if (strcmp(kinds[i].kind, d.kind) != 0)
			continue;
		ret = kinds[i].parse ? kinds[i].parse(&q, opt, optlen)
				     : parse_table(&q, opt, optlen, kinds[i].keys, kinds[i].nkeys);
		if (ret)
			return ret;
		break;
	}
	return q.ret;
}

/* ---- the dumps ---- */

struct dump {
	uint32_t ifindex;
	qdisc_kv_fn kv;
	void *ctx;
};

static int dump_msg(struct nlmsghdr *h, void *arg)
{
	struct dump *w = arg;
	const struct tcmsg *tc = NLMSG_DATA(h);
	int ret;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*tc)) || (uint32_t)tc->tcm_ifindex != w->ifindex)
		return 0;
	ret = qdisc_config__parse(h, w->kv, w->ctx);
	return ret == 1 || ret == -EINVAL ? 0 : ret; /* a damaged message costs its own settings */
}

int qdisc_config__dump(int nl_fd, uint32_t ifindex, qdisc_kv_fn kv, void *ctx)
{
	struct tcmsg tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = (int)ifindex };
	struct dump w = { ifindex, kv, ctx };
	int ret = netns__dump(nl_fd, RTM_GETQDISC, &tc, sizeof(tc), dump_msg, &w);

	/* classes are dumped per device */
	return ret ? ret : netns__dump(nl_fd, RTM_GETTCLASS, &tc, sizeof(tc), dump_msg, &w);
}

/* The qdiscs that send a packet which finds them empty at once, past their
 * enqueue and dequeue (the kernel's TCQ_F_CAN_BYPASS: pfifo_fast always,
 * pfifo and bfifo with any limit that fits a packet). */
static const char *const bypass_kinds[] = { "pfifo_fast", "pfifo", "bfifo" };

struct bypass_scan {
	struct { uint32_t handle, parent; char kind[16]; } q[64];
	int n;
};

static int bypass_kv(void *arg, const struct qdisc_desc *d, const char *key, const char *value)
{
	struct bypass_scan *b = arg;

	(void)value;
	if (d->is_class || strcmp(key, "kind") != 0 || b->n >= (int)(sizeof(b->q) / sizeof(b->q[0])))
		return 0;
	b->q[b->n].handle = d->handle;
	b->q[b->n].parent = d->parent;
	str_copy(b->q[b->n].kind, d->kind, sizeof(b->q[b->n].kind));
	b->n++;
	return 0;
}

static bool kind_bypasses(const char *kind)
{
	for (size_t i = 0; i < sizeof(bypass_kinds) / sizeof(bypass_kinds[0]); i++)
		if (!strcmp(kind, bypass_kinds[i]))
			return true;
	return false;
}

int qdisc_config__can_bypass(int nl_fd, uint32_t ifindex)
{
	struct bypass_scan b = { .n = 0 };
	int ret = qdisc_config__dump(nl_fd, ifindex, bypass_kv, &b);

	if (ret)
		return ret;
	for (int i = 0; i < b.n; i++) {
		if (b.q[i].parent != TC_H_ROOT)
			continue;
		if (kind_bypasses(b.q[i].kind))
			return 1;
		if (strcmp(b.q[i].kind, "mq") != 0 && strcmp(b.q[i].kind, "mqprio") != 0 &&
		    strcmp(b.q[i].kind, "taprio") != 0)
			continue;
		/* a multiqueue root: its children are the transmit queues' qdiscs */
		for (int c = 0; c < b.n; c++)
			if (c != i && b.q[c].parent != TC_H_ROOT && b.q[c].parent != TC_H_INGRESS &&
			    TC_H_MAJ(b.q[c].parent) == TC_H_MAJ(b.q[i].handle) && kind_bypasses(b.q[c].kind))
				return 1;
	}
	return 0;
}

/* A major the kernel picked (qdisc_alloc_handle(): 0x8000 and up; ffff is
 * root's and ingress's). */
static bool auto_major(uint32_t handle)
{
	uint32_t major = TC_H_MAJ(handle) >> 16;

	return major >= 0x8000 && major != 0xffff;
}

const char *qdisc_config__stable_handle(uint32_t handle, uint32_t parent, char *buf, size_t len)
{
	char p[24];

	if (!auto_major(handle))
		return qdisc_config__handle_str(handle, buf, len);
	if (TC_H_MIN(handle)) /* a class: its qdisc's picked major left out */
		snprintf(buf, len, ":%x", TC_H_MIN(handle));
	else if (parent == TC_H_ROOT)
		snprintf(buf, len, "root");
	else if (auto_major(parent))
		snprintf(buf, len, "at :%x", TC_H_MIN(parent));
	else
		snprintf(buf, len, "at %s", qdisc_config__handle_str(parent, p, sizeof(p)));
	return buf;
}

const char *qdisc_config__handle_str(uint32_t handle, char *buf, size_t len)
{
	if (handle == TC_H_ROOT)
		snprintf(buf, len, "root");
	else if (handle == TC_H_INGRESS)
		snprintf(buf, len, "ingress");
	else if (handle == TC_H_UNSPEC)
		snprintf(buf, len, "none");
	else if (TC_H_MIN(handle))
		snprintf(buf, len, "%x:%x", TC_H_MAJ(handle) >> 16, TC_H_MIN(handle));
	else
		snprintf(buf, len, "%x:", TC_H_MAJ(handle) >> 16);
	return buf;
}
