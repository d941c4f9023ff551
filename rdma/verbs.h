/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Port attributes from libibverbs (ibv_query_port, ibv_query_gid_ex), used
 * when the sampler reads the real /sys: they are what applications see and
 * carry the active MTU, which sysfs does not.  Internal to rdma/.
 */
#ifndef FABTRACE_RDMA_VERBS_H
#define FABTRACE_RDMA_VERBS_H

#include <stdint.h>

struct verbs_port {
	uint8_t state, phys_state, link_layer, width; /* link_layer: enum ft_link_layer */
	uint32_t rate_mbps;     /* 0 when the speed code is unknown to this libibverbs */
	uint32_t active_mtu;    /* bytes */
	uint32_t ndev_ifindex;  /* GID 0's netdev (RoCE), 0 unknown */
};

struct verbs;

/* The device list; NULL when libibverbs lists no device. */
struct verbs *verbs__open(void);
/* Query DEV's port PORT: 0, -ENODEV (no such device) or -errno. */
int verbs__port(struct verbs *v, const char *dev, uint32_t port, struct verbs_port *out);
void verbs__close(struct verbs *v);

/* IB encodings (shared with tests): lanes of active_width, Mb/s per lane of active_speed; 0 unknown. */
unsigned verbs__width_lanes(unsigned active_width);
uint32_t verbs__lane_mbps(unsigned active_speed);

#endif
