// SPDX-License-Identifier: GPL-2.0-or-later
/* libibverbs port queries for the counter sampler (see verbs.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "verbs.h"
#include "../bpf/fabtrace.h"

struct verbs {
	struct ibv_device **list;
	int n;
	struct ibv_context **ctx;   /* opened on first use */
};

unsigned verbs__width_lanes(unsigned active_width)
{
	switch (active_width) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

uint32_t verbs__lane_mbps(unsigned active_speed)
{
	/*
	 * ibv_port_attr.active_speed.  This libibverbs (rdma-core 44) has no
	 * active_speed_ex, so XDR and later read 0 here and the caller falls
	 * back on the sysfs rate, which the kernel computes for every speed.
	 */
	switch (active_speed) {
	case 1: return 2500;     /* SDR */
	case 2: return 5000;     /* DDR */
	case 4:                  /* QDR */
	case 8: return 10000;    /* FDR10 */
	case 16: return 14000;   /* FDR */
	case 32: return 25000;   /* EDR */
	case 64: return 50000;   /* HDR */
	case 128: return 100000; /* NDR */
	default: return 0;
	}
}

struct verbs *verbs__open(void)
{
	struct verbs *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->list = ibv_get_device_list(&v->n);
	if (!v->list || v->n <= 0) {
		verbs__close(v);
		return NULL;
	}
	v->ctx = calloc((size_t)v->n, sizeof(struct ibv_context *));
	if (!v->ctx) {
		verbs__close(v);
		return NULL;
	}
	return v;
}

void verbs__close(struct verbs *v)
{
	if (!v)
		return;
	for (int i = 0; v->ctx && i < v->n; i++)
		if (v->ctx[i])
			ibv_close_device(v->ctx[i]);
	free(v->ctx);
	if (v->list)
		ibv_free_device_list(v->list);
	free(v);
}

static uint32_t mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 256u << (m - IBV_MTU_256) : 0;
}

int verbs__port(struct verbs *v, const char *dev, uint32_t port, struct verbs_port *out)
{
	struct ibv_port_attr pa;
	struct ibv_gid_entry gid;
	int idx, rc;

	memset(out, 0, sizeof(*out));
	if (!v)
		return -ENODEV;
	if (port == 0 || port > UINT8_MAX)
		return -EINVAL;
	for (idx = 0; idx < v->n; idx++)
		if (!strcmp(ibv_get_device_name(v->list[idx]), dev))
			break;
	if (idx == v->n)
		return -ENODEV;
	if (!v->ctx[idx]) {
		errno = 0;
		v->ctx[idx] = ibv_open_device(v->list[idx]);
		if (!v->ctx[idx])
			return errno ? -errno : -ENODEV;
	}
	memset(&pa, 0, sizeof(pa));
	rc = ibv_query_port(v->ctx[idx], (uint8_t)port, &pa);
	if (rc)
		return rc > 0 ? -rc : -EIO;
	out->state = (uint8_t)pa.state;
	out->phys_state = pa.phys_state;
	out->link_layer = pa.link_layer == IBV_LINK_LAYER_ETHERNET ? FT_LL_ETHERNET
			  : pa.link_layer == IBV_LINK_LAYER_INFINIBAND ? FT_LL_IB
			  : FT_LL_UNKNOWN;
	out->width = (uint8_t)verbs__width_lanes(pa.active_width);
	out->rate_mbps = out->width * verbs__lane_mbps(pa.active_speed);
	out->active_mtu = mtu_bytes(pa.active_mtu);
	/* GID 0 of a RoCE port names its netdev; IB ports have none */
	memset(&gid, 0, sizeof(gid));
	if (ibv_query_gid_ex(v->ctx[idx], port, 0, &gid, 0) == 0)
		out->ndev_ifindex = gid.ndev_ifindex;
	return 0;
}
