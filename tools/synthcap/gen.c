// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * synthcap's writer (synthcap.h): records out through the real capture
 * writer, as one host's recorder would have written them with --only-host;
 * the jitter (splitmix64, the same everywhere), sets of sequence numbers,
 * flows.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tools/synthcap/synthcap.h"

static uint64_t rnd(struct gen *g)
{
	/* splitmix64: tiny, good enough for jitter, and the same everywhere */
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t jitter(struct gen *g, uint64_t max)
{
	return max ? rnd(g) % max : 0;
}

bool in_set(const struct seqset *s, uint64_t seq)
{
	if (!s->a || seq < s->a)
		return false;
	if (s->every)
		return (seq - s->a) % s->every == 0;
	return seq <= s->b;
}

static int rec_host(const struct gen *g, const struct ft_rec_hdr *h)
{
	uint32_t ns = 0, pid = 0;

	switch (h->type) {
	case FT_REC_IFACE_BIN: ns = ((const struct ft_iface_bin *)(const void *)h)->netns; break;
	case FT_REC_QDISC_BIN: ns = ((const struct ft_qdisc_bin *)(const void *)h)->netns; break;
	case FT_REC_DROP: ns = ((const struct ft_drop *)(const void *)h)->netns; break;
	case FT_REC_RETRANS: ns = ((const struct ft_retrans *)(const void *)h)->flow.netns; break;
	case FT_REC_CONG_STATE: ns = ((const struct ft_cong_state *)(const void *)h)->flow.netns; break;
	case FT_REC_TCP_SAMPLE: ns = ((const struct ft_tcp_sample *)(const void *)h)->flow.netns; break;
	case FT_REC_PHASE: ns = ((const struct ft_phase *)(const void *)h)->netns; break;
	case FT_REC_REQ_DONE: pid = ((const struct ft_req_done *)(const void *)h)->pid; break;
	case FT_REC_COMM_INFO: pid = ((const struct ft_comm_info *)(const void *)h)->pid; break;
	case FT_REC_PROC: ns = ((const struct ft_proc *)(const void *)h)->netns; break;
	case FT_REC_SOCK_OWNER: ns = ((const struct ft_sock_owner *)(const void *)h)->flow.netns; break;
	case FT_REC_IFACE: ns = ((const struct ft_iface_info *)(const void *)h)->netns; break;
	case FT_REC_IFACE_STATS: ns = ((const struct ft_iface_stats *)(const void *)h)->netns; break;
	case FT_REC_CE_FLOW: ns = ((const struct ft_ce_flow *)(const void *)h)->flow.netns; break;
	case FT_REC_RDMA_PORT: ns = ((const struct ft_rdma_port *)(const void *)h)->netdev_netns; break;
	case FT_REC_CTR_GROUP: ns = ((const struct ft_ctr_group *)(const void *)h)->netns; break;
	/* counter names and samples: the host of their group (group_id) */
	case FT_REC_CTR_NAME: return group_host(g, ((const struct ft_ctr_name *)(const void *)h)->group);
	case FT_REC_CTR_SAMPLE: return group_host(g, ((const struct ft_ctr_sample *)(const void *)h)->group);
	default: return -1;
	}
	if (ns > NETNS0 && ns <= NETNS0 + g->o.hosts)
		return (int)(ns - NETNS0 - 1);
	if (pid >= 4000 && pid < 4000 + g->o.hosts * g->o.rpp)
		return (int)((pid - 4000) / g->o.rpp);
	return -1;
}

void emit(struct gen *g, const void *rec)
{
	int ret, rh;

	if (g->err)
		return;
	/* --only-host: as that host's own recorder would have written it */
	if (g->o.only_host && (rh = rec_host(g, rec)) >= 0 && (unsigned)rh != g->o.only_host - 1)
		return;
	ret = capture__append(g->w, rec);
	if (ret) {
		g->err = ret;
		return;
	}
	g->records++;
}

struct ft_flow flow_of(unsigned h, unsigned nh)
{
	struct ft_flow f;

	memset(&f, 0, sizeof(f));
	f.family = 4;
	f.proto = 6;
	f.saddr[0] = 198; f.saddr[1] = 18; f.saddr[3] = (uint8_t)(h + 1);
	f.daddr[0] = 198; f.daddr[1] = 18; f.daddr[3] = (uint8_t)((h + 1) % nh + 1);
	f.sport = (uint16_t)(40000 + h);
	f.dport = 5000;
	f.netns = host_netns(h);
	f.ifindex = 2;
	return f;
}
