/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The counter sampler: RDMA ports (libibverbs discovery, sysfs counters and
 * hw_counters) and NIC statistics (ETHTOOL_GSTATS) of the traced
 * interfaces, read on the recorder's timer and written into the capture as
 * FT_REC_RDMA_PORT / FT_REC_CTR_GROUP / FT_REC_CTR_NAME once, then one
 * FT_REC_CTR_SAMPLE per group and read (bpf/fabtrace.h).
 *
 * Raw values go into the capture; deltas, wrap and reset handling and the
 * x4 scaling are done when reading (rdma/counters.h), so a capture keeps
 * what the hardware said.
 *
 * The recorder drives it:
 *   sampler__open()      discover ports and netdevs, open the counter files,
 *                        set hw_counters/lifespan if asked
 *   sampler__describe()  emit the port, group and name records
 *   sampler__sample()    on every timer tick: read every group, emit samples,
 *                        measure the cost, back off when over budget
 *   sampler__close()     restore lifespan, emit the closing events, free
 */
#ifndef FABTRACE_SAMPLER_H
#define FABTRACE_SAMPLER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../bpf/fabtrace.h"

/* Callback that appends one record to the capture; non-zero stops the caller. */
typedef int (*sampler_emit_fn)(void *ctx, const struct ft_rec_hdr *rec);

/* A netdev whose ethtool statistics are sampled (the recorder's traced interfaces). */
struct sampler_netdev {
	uint32_t netns, ifindex;   /* netns inode number, as in FT_REC_IFACE */
	int ioctl_fd;              /* AF_INET datagram socket inside that netns */
	int nl_fd;                 /* rtnetlink socket inside it: its root qdisc's counters; -1 none */
	char name[16];
	char label[48];            /* "eth0@h1" */
};

struct sampler_opts {
	const char *sysfs_root;    /* NULL: $FABTRACE_SYSFS_ROOT, else "/sys" */
	uint64_t period_ns;        /* default 10 ms */
	const char *devices;       /* comma list of "mlx5_0" or "mlx5_0:1"; NULL = all */
	const char *rdma_filter;   /* comma list of globs on counter names; NULL or "all" = all counters */
	const char *nic_filter;    /* comma list of globs on ethtool names; NULL = default set
				    * (ctr__default_nic_filter), "all" or "*" = every stat */
	bool no_rdma, no_nic;
	uint32_t lifespan_ms;      /* >0: set hw_counters/lifespan for the recording (<= 10000) */
	double budget;             /* max share of one core (default 0.05); over it the period doubles */
	const struct sampler_netdev *netdevs; /* ethtool targets */
	size_t nnetdevs;
	/* resolve a RoCE netdev name to (netns, ifindex); may be NULL */
	int (*resolve_netdev)(void *ctx, const char *name, uint32_t *netns, uint32_t *ifindex);
	void *resolve_ctx;
};

void sampler_opts__init(struct sampler_opts *o);

struct sampler;

/*
 * Open the sampler.  Never fails because there is no RDMA device: then
 * sampler__nports() is 0 and sampler__rdma_status() says why.  Fails
 * (-errno, message in ERR) on bad options (unknown device asked for with
 * -D, a bad filter, budget <= 0) or when lifespan cannot be set (anything
 * already set is put back).  Netdevs without ethtool stats, or none that
 * the filter selects, get no group.  Groups are numbered 0..n-1: per port
 * counters/ then hw_counters/ (files sorted by name), then one per netdev;
 * a group of more than 8000 counters is split ("mlx5_0/1", "mlx5_0/1#2").
 */
int sampler__open(const struct sampler_opts *o, struct sampler **out, char *err, size_t errlen);
/*
 * Emit every FT_REC_RDMA_PORT, FT_REC_CTR_GROUP (each followed by its
 * FT_REC_CTR_NAME records), then FT_SAMPLER_LIFESPAN_SET per port whose
 * lifespan was changed.  0, or what a failing emit returned.
 */
int sampler__describe(struct sampler *s, sampler_emit_fn emit, void *ctx);
/*
 * Read every group once and emit the samples: ts_ns is NOW (CLOCK_MONOTONIC
 * ns) plus how far into this call the group's read began.  A group that
 * cannot be read (a netdev gone, a read error; "N/A" text is not one) gets
 * FT_CTR_NA values and one FT_SAMPLER_READ_ERROR when it goes bad, not one
 * per read.  Then the cost check: over the budget the period doubles (up
 * to 1 s) with an FT_SAMPLER_BACKOFF; nothing is printed.  0, or what a
 * failing emit returned.
 */
int sampler__sample(struct sampler *s, uint64_t now_ns, sampler_emit_fn emit, void *ctx);
/* Current period (it grows when the sampler backs off): the recorder re-arms its timer from it. */
uint64_t sampler__period_ns(const struct sampler *s);
size_t sampler__nports(const struct sampler *s);
size_t sampler__ngroups(const struct sampler *s);
/*
 * One line for the user: "RDMA: 2 ports (mlx5_0/1 RoCE eth0 100 Gb/s,
 * mlx5_1/1 IB 200 Gb/s), 53 counters, 10 ms period" or why it is off.
 */
const char *sampler__rdma_status(const struct sampler *s);
/* Sampling cost so far: reads, total and max ns per read. */
void sampler__cost(const struct sampler *s, uint64_t *reads, uint64_t *total_ns, uint64_t *max_ns);
/*
 * Restore lifespan (FT_SAMPLER_LIFESPAN_RESTORED, or READ_ERROR if that
 * fails), emit FT_SAMPLER_COST when there were groups (EMIT may be NULL),
 * close the files, free.
 */
void sampler__close(struct sampler *s, sampler_emit_fn emit, void *ctx);

#endif
