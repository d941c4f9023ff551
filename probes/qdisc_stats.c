// SPDX-License-Identifier: GPL-2.0-or-later
/* A root qdisc's own counters from rtnetlink (qdisc_stats.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

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
	    (uint32_t)tc->tcm_ifindex != ifindex || tc->tcm_parent != TC_H_ROOT)
		return 1;
	if (netns__attrs(TCA_RTA(tc), h->nlmsg_len - NLMSG_LENGTH(sizeof(*tc)), tb, TCA_MAX))
		return -EINVAL;
	memset(&q, 0, sizeof(q));
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

struct dump {
	uint32_t ifindex;
	struct qdisc_stats *out;
	int found;
};

static int dump_msg(struct nlmsghdr *h, void *arg)
{
	struct dump *w = arg;

	if (!w->found && qdisc_stats__parse(h, w->ifindex, w->out) == 0)
		w->found = 1;
	return 0;
}

int qdisc_stats__read(int nl_fd, uint32_t ifindex, struct qdisc_stats *out)
{
	struct tcmsg tc = { .tcm_family = AF_UNSPEC, .tcm_ifindex = (int)ifindex };
	struct dump w;
	int ret;

	memset(out, 0, sizeof(*out));
	w = (struct dump){ ifindex, out, 0 };
	ret = netns__dump(nl_fd, RTM_GETQDISC, &tc, sizeof(tc), dump_msg, &w);

	if (ret)
		return ret;
	/* an interface without a queue (noqueue) has none to read */
	return w.found && strcmp(out->kind, "noqueue") != 0 ? 0 : -ENOENT;
}
