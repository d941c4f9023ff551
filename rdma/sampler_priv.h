/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The counter sampler's inside (rdma/sampler.h), shared by its files:
 *   sampler_run.c      open, describe, sample, budget, close; the RDMA groups
 *   sampler_group.c    making a group and its sample record
 *   sampler_netdev.c   a traced netdev's groups: ETHTOOL statistics, and its
 *                      root qdisc's own counters (QDISC, --profile always)
 */
#ifndef FABTRACE_SAMPLER_PRIV_H
#define FABTRACE_SAMPLER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <string.h>

#include "ethtool.h"
#include "ports.h"
#include "probes/qdisc_stats.h"
#include "sampler.h"

#define SAMPLER_MAX_VALUES 8000            /* 32 + 8 * 8000 bytes < 64 KiB */
#define WINDOW_CAP         4096
#define NO_POS             UINT32_MAX

_Static_assert(sizeof(struct ft_ctr_sample) + 8ull * SAMPLER_MAX_VALUES <= UINT16_MAX,
	       "a sample record must fit ft_rec_hdr.size");

struct ctr {
	char name[56];
	uint16_t cls, flags;
	int fd;             /* RDMA: kept open; -1: opened for each read (no descriptors left) */
	uint32_t pos;       /* ETHTOOL: index in the driver's list, NO_POS when it went away */
	uint32_t dup;       /* ETHTOOL: earlier stats with the same name (drivers repeat names) */
};

struct group {
	struct ft_ctr_group rec;
	size_t port;        /* RDMA kinds: index into ports */
	size_t eth;         /* ETHTOOL: index into eth; QDISC: into qd */
	bool first;         /* ETHTOOL: first group of its netdev, which does the ioctls;
			     * QDISC: first of its namespace, which does the dump */
	char dir[PATH_MAX]; /* RDMA kinds: the counters directory */
	struct ctr *ctrs;
	size_t n;
	struct ft_ctr_sample *smp; /* the sample record, values after it */
	bool failing;       /* a READ_ERROR was emitted and reads have not recovered */
};

struct eth_src {
	struct sampler_netdev nd;
	struct ethstats st;
	int err;            /* this tick's read: 0 or -errno */
};

/* A namespace's root qdiscs, read once a period for all its QDISC groups. */
struct qd_src {
	int nl_fd;          /* rtnetlink socket in the namespace */
	struct qdisc_roots roots;
	int err;            /* this period's dump: 0 or -errno */
};

struct cost_pt {
	uint64_t ts, cost;
};

struct sampler {
	char root[PATH_MAX];
	uint64_t period_ns;
	double budget;
	struct port_info *ports;
	size_t nports, ndevs;
	struct group *groups;
	size_t ngroups, gcap;
	size_t kept_fds, max_kept_fds;
	struct eth_src *eth;
	size_t neth;
	struct qd_src *qd;
	size_t nqd;
	bool no_rdma;
	uint64_t reads, total_ns, max_ns;
	struct cost_pt win[WINDOW_CAP];
	size_t win_first, win_n;
	char status[1024];
};

/* A filter that selects every counter: "all" or "*". */
static inline bool sampler_match_all(const char *list)
{
	return list && (!strcmp(list, "all") || !strcmp(list, "*"));
}

/* A new group of N counters (its sample record made), or NULL (ENOMEM). */
struct group *sampler_new_group(struct sampler *s, uint32_t kind, const char *label, size_t n);
/*
 * Chunk K of NSEL counters split into groups of at most SAMPLER_MAX_VALUES:
 * its group, labelled LABEL, then "LABEL#2", ... ("mlx5_0/1#2"), with its
 * counter count in *N; NULL (ENOMEM).  Its counters are the selection's
 * from K * SAMPLER_MAX_VALUES on.
 */
struct group *sampler_new_chunk(struct sampler *s, uint32_t kind, const char *label, size_t k, size_t nsel,
				size_t *n);

/* The ETHTOOL groups of one netdev (none without stats): 0 or -ENOMEM. */
int sampler_add_eth_groups(struct sampler *s, const struct sampler_netdev *nd, const char *filter);
/* The QDISC group of one netdev (none without a root qdisc or a netlink socket): 0 or -ENOMEM. */
int sampler_add_qdisc_group(struct sampler *s, const struct sampler_netdev *nd);
/* Read group GI's values into its sample record: 0 or a positive errno (the values N/A). */
int sampler_read_eth(struct sampler *s, size_t gi);
int sampler_read_qdisc(struct sampler *s, size_t gi);

#endif
