// SPDX-License-Identifier: GPL-2.0-or-later
/* An interface's settings from rtnetlink and the ethtool ioctls (iface_config.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include "probes/iface_config.h"
#include "probes/netns.h"
#include "lib/util.h"

/* Link attributes carried as a u32, and their keys. */
static const struct {
	uint16_t type;
	const char *key;
} link_u32[] = {
	{ IFLA_MTU, "mtu" },
	{ IFLA_TXQLEN, "txqlen" },
	{ IFLA_NUM_TX_QUEUES, "tx_queues" },
	{ IFLA_NUM_RX_QUEUES, "rx_queues" },
	{ IFLA_GSO_MAX_SIZE, "gso_max_size" },
	{ IFLA_GSO_MAX_SEGS, "gso_max_segs" },
	{ IFLA_GRO_MAX_SIZE, "gro_max_size" },
	{ IFLA_TSO_MAX_SIZE, "tso_max_size" },
};

/* A string attribute bounded by its payload. */
static void attr_str(const struct rtattr *a, char *buf, size_t len)
{
	snprintf(buf, len, "%.*s", (int)strnlen(RTA_DATA(a), RTA_PAYLOAD(a)), (const char *)RTA_DATA(a));
}

int iface_config__parse_link(const struct nlmsghdr *h, cfg_kv_fn kv, void *ctx)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct rtattr *tb[IFLA_MAX + 1] = {0}, *rta;
	int left, ret = 0;
	char v[64];

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return 1;
	left = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, left); rta = RTA_NEXT(rta, left))
		if (rta->rta_type <= IFLA_MAX)
			tb[rta->rta_type] = rta;
	if (left >= (int)sizeof(struct rtattr))
		return -EINVAL;
	for (size_t i = 0; !ret && i < sizeof(link_u32) / sizeof(link_u32[0]); i++) {
		const struct rtattr *a = tb[link_u32[i].type];
		uint32_t x;

		if (!a || RTA_PAYLOAD(a) < sizeof(x))
			continue;
		memcpy(&x, RTA_DATA(a), sizeof(x));
		snprintf(v, sizeof(v), "%u", x);
		ret = kv(ctx, link_u32[i].key, v, 0);
	}
	if (!ret && tb[IFLA_QDISC]) {
		attr_str(tb[IFLA_QDISC], v, sizeof(v));
		ret = kv(ctx, "qdisc", v, 0);
	}
	if (!ret && tb[IFLA_LINKINFO]) {
		const struct rtattr *li = RTA_DATA(tb[IFLA_LINKINFO]);
		int ll = (int)RTA_PAYLOAD(tb[IFLA_LINKINFO]);

		for (; RTA_OK(li, ll); li = RTA_NEXT(li, ll))
			if (li->rta_type == IFLA_INFO_KIND) {
				attr_str(li, v, sizeof(v));
				ret = kv(ctx, "link_kind", v, 0);
				break;
			}
	}
	return ret;
}

/* The ethtool offload switches (struct ethtool_value) and their keys; LRO is a flag bit. */
static const struct {
	uint32_t cmd;
	const char *key;
} offloads[] = {
	{ ETHTOOL_GTSO, "tso" },
	{ ETHTOOL_GGSO, "gso" },
	{ ETHTOOL_GGRO, "gro" },
	{ ETHTOOL_GFLAGS, "lro" },
	{ ETHTOOL_GSG, "sg" },
	{ ETHTOOL_GTXCSUM, "tx_checksum" },
	{ ETHTOOL_GRXCSUM, "rx_checksum" },
};

static int read_offloads(int fd, const char *ifname, cfg_kv_fn kv, void *ctx)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < sizeof(offloads) / sizeof(offloads[0]); i++) {
		struct ethtool_value ev = { .cmd = offloads[i].cmd };
		struct ifreq ifr;
		bool on;

		memset(&ifr, 0, sizeof(ifr));
		str_copy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name));
		ifr.ifr_data = (void *)&ev;
		if (ioctl(fd, SIOCETHTOOL, &ifr)) {
			ret = kv(ctx, offloads[i].key, NULL, -errno);
			continue;
		}
		on = offloads[i].cmd == ETHTOOL_GFLAGS ? (ev.data & ETH_FLAG_LRO) != 0 : ev.data != 0;
		ret = kv(ctx, offloads[i].key, on ? "on" : "off", 0);
	}
	return ret;
}

struct link_read {
	uint32_t ifindex;
	cfg_kv_fn kv;
	void *ctx;
	char name[IFNAMSIZ];
	bool found;
};

static int link_msg(struct nlmsghdr *h, void *arg)
{
	struct link_read *r = arg;
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	const struct rtattr *rta;
	int left;

	if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
	    (uint32_t)ifi->ifi_index != r->ifindex || r->found)
		return 0;
	r->found = true;
	left = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)));
	for (rta = IFLA_RTA(ifi); RTA_OK(rta, left); rta = RTA_NEXT(rta, left))
		if (rta->rta_type == IFLA_IFNAME)
			attr_str(rta, r->name, sizeof(r->name));
	left = iface_config__parse_link(h, r->kv, r->ctx);
	return left == -EINVAL ? 0 : left; /* a damaged message costs its own settings */
}

int iface_config__read(int nl_fd, int ioctl_fd, uint32_t ifindex, cfg_kv_fn kv, void *ctx)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct link_read r = { .ifindex = ifindex, .kv = kv, .ctx = ctx };
	int ret = netns__dump(nl_fd, RTM_GETLINK, &ifi, sizeof(ifi), link_msg, &r);

	if (ret)
		return ret;
	if (!r.found || !r.name[0])
		return -ENOENT;
	return read_offloads(ioctl_fd, r.name, kv, ctx);
}
