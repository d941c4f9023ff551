// SPDX-License-Identifier: GPL-2.0-or-later
/* A root qdisc's own counters from rtnetlink (qdisc_stats.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "lib/util.h"
#include "probes/netns.h"
#include "probes/qdisc_stats.h"

const char *const qdisc_stats_names[QS_MAX] = {
	[QS_SENT_BYTES] = "qdisc_sent_bytes", [QS_SENT_PACKETS] = "qdisc_sent_packets",
	[QS_DROPS] = "qdisc_drops", [QS_OVERLIMITS] = "qdisc_overlimits", [QS_REQUEUES] = "qdisc_requeues",
};

/* A struct of SIZE bytes from A (its payload may be longer: newer kernels add fields). */
static const void *payload(const struct rtattr *a, size_t size)
{
	return a && RTA_PAYLOAD(a) >= size ? RTA_DATA(a) : NULL;
}

int qdisc_stats__parse(const struct nlmsghdr *h, uint32_t ifindex, struct qdisc_stats *out)
{
	const struct tcmsg *tc = NLMSG_DATA(h);
	const struct rtattr *tb[TCA_MAX + 1], *st[TCA_STATS_MAX + 1];
	struct qdisc_stats q;

	if (h->nlmsg_type != RTM_NEWQDISC || h->nlmsg_len < NLMSG_LENGTH(sizeof(*tc)) ||
	    (ifindex && (uint32_t)tc->tcm_ifindex != ifindex) || tc->tcm_parent != TC_H_ROOT)
		return 1;
	if (netns__attrs(TCA_RTA(tc), h->nlmsg_len - NLMSG_LENGTH(sizeof(*tc)), tb, TCA_MAX))
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	q.ifindex = (uint32_t)tc->tcm_ifindex;
	q.handle = tc->tcm_handle;
	if (tb[TCA_KIND])
		snprintf(q.kind, sizeof(q.kind), "%.*s",
			 (int)strnlen(RTA_DATA(tb[TCA_KIND]), RTA_PAYLOAD(tb[TCA_KIND])), (const char *)RTA_DATA(tb[TCA_KIND]));
	/* attribute payloads are 4-byte aligned: the structs with a u64 are copied out */
	if (tb[TCA_STATS2]) {
		const void *b, *qs;
		uint64_t pkt64;

		if (netns__attrs(RTA_DATA(tb[TCA_STATS2]), RTA_PAYLOAD(tb[TCA_STATS2]), st, TCA_STATS_MAX))
			return -EINVAL;
		/* the basic struct is 12 bytes of data, padded to 16 in the attribute */
		b = payload(st[TCA_STATS_BASIC], offsetof(struct gnet_stats_basic, packets) + sizeof(uint32_t));
		qs = payload(st[TCA_STATS_QUEUE], sizeof(struct gnet_stats_queue));
		if (b) {
			struct gnet_stats_basic bs = { 0 };
			uint32_t packets;

			memcpy(&bs.bytes, (const char *)b + offsetof(struct gnet_stats_basic, bytes), sizeof(bs.bytes));
			memcpy(&packets, (const char *)b + offsetof(struct gnet_stats_basic, packets), sizeof(packets));
			q.v[QS_SENT_BYTES] = bs.bytes;
			q.v[QS_SENT_PACKETS] = packets;
		}
		/* the 64-bit packet count where the kernel gives it (the basic one wraps at 2^32) */
		if (payload(st[TCA_STATS_PKT64], sizeof(pkt64))) {
			memcpy(&pkt64, RTA_DATA(st[TCA_STATS_PKT64]), sizeof(pkt64));
			q.v[QS_SENT_PACKETS] = pkt64;
		}
		if (qs) {
			struct gnet_stats_queue qq;

			memcpy(&qq, qs, sizeof(qq));
			q.v[QS_DROPS] = qq.drops;
			q.v[QS_OVERLIMITS] = qq.overlimits;
			q.v[QS_REQUEUES] = qq.requeues;
		}
	} else if (tb[TCA_STATS] && payload(tb[TCA_STATS], sizeof(struct tc_stats))) {
		struct tc_stats ts;

		memcpy(&ts, RTA_DATA(tb[TCA_STATS]), sizeof(ts));
		q.v[QS_SENT_BYTES] = ts.bytes;
		q.v[QS_SENT_PACKETS] = ts.packets;
		q.v[QS_DROPS] = ts.drops;
		q.v[QS_OVERLIMITS] = ts.overlimits;
	}
	*out = q;
	return 0;
}

static int dump_msg(struct nlmsghdr *h, void *arg)
{
	struct qdisc_roots *r = arg;
	struct qdisc_stats q;

	/* an interface without a queue (noqueue) has none to read */
	if (qdisc_stats__parse(h, 0, &q) || !strcmp(q.kind, "noqueue"))
		return 0;
	if (grow_array((void **)&r->v, &r->cap, r->n + 1, sizeof(*r->v)))
		return -ENOMEM;
	r->v[r->n++] = q;
	return 0;
}

int qdisc_stats__dump(int nl_fd, struct qdisc_roots *r)
{
	struct tcmsg tc = { .tcm_family = AF_UNSPEC };
	int ret;

	r->n = 0;
	ret = netns__dump(nl_fd, RTM_GETQDISC, &tc, sizeof(tc), dump_msg, r);
	if (ret)
		r->n = 0;
	return ret;
}

const struct qdisc_stats *qdisc_stats__find(const struct qdisc_roots *r, uint32_t ifindex)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].ifindex == ifindex)
			return &r->v[i];
	return NULL;
}

void qdisc_roots__free(struct qdisc_roots *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}
