/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The counter sampler's records (RDMA ports, counter groups, samples,
 * sampler events) turned into per-counter growth and spikes.  A lower
 * piece of the model: it knows nothing of struct model.  The model
 * (model_add.c, model_finish.c) feeds it the records, takes its arrays
 * into struct model at finish and maps their netdevs to interfaces.
 */
#ifndef FABTRACE_MODEL_COUNTERS_H
#define FABTRACE_MODEL_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"

/* ---- counter sampler (rdma/): RDMA ports, counter groups, NIC stats ---- */
/* ("model.X" below: the array X of struct model, struct model_ctr_out's here) */

/* One RDMA port (FT_REC_RDMA_PORT); sorted by port_id. */
struct model_rdma_port {
	struct ft_rdma_port rec;    /* as recorded */
	uint32_t iface;             /* index into model.ifaces of its netdev, UINT32_MAX none */
	uint32_t pad;
};

/* A group of counters read together (FT_REC_CTR_GROUP); sorted by group id. */
struct model_ctr_group {
	uint32_t group, kind;       /* enum ft_ctr_kind */
	uint32_t port;              /* index into model.rdma_ports, UINT32_MAX none */
	uint32_t iface;             /* index into model.ifaces (ethtool netdev or the port's), UINT32_MAX */
	uint32_t netns, ifindex;    /* that netdev (0 = none: a node-wide IB port) */
	uint64_t period_ns;
	char label[48];
	size_t first_series, nseries; /* slice of model.ctr_series (by index in the group) */
	const uint64_t *times;      /* read times of its samples, sorted */
	size_t nsamples;
	uint64_t read_ns_sum, read_ns_max; /* sampler cost */
};

/* One counter of a group, with its growth over the capture. */
struct model_ctr_series {
	uint32_t group;             /* index into model.ctr_groups */
	uint32_t index;             /* position in the group's samples */
	uint16_t cls, flags;        /* enum ft_ctr_class, enum ft_ctr_flags */
	uint32_t pad;
	char name[56];
	uint64_t first, last;       /* first and last raw value read (FT_CTR_NA if none) */
	uint64_t total;             /* growth over the capture, scaled (x4 applied) */
	uint32_t wraps, resets, na; /* intervals that wrapped / reset / had N/A */
	uint32_t pad2;
	double peak_rate;           /* highest growth per second over one interval */
	uint64_t peak_ns;           /* end of that interval */
	size_t first_pt, npts;      /* slice of model.ctr_points (intervals with growth) */
};

/* Growth of one counter over one sample interval (only intervals that grew or were odd). */
struct model_ctr_point {
	uint64_t start_ns, end_ns;  /* previous read .. this read */
	uint64_t delta;             /* scaled */
	uint32_t series;            /* index into model.ctr_series */
	uint32_t dflags;            /* enum ctr_delta_flags */
};

/*
 * A spike: consecutive intervals of a congestion, pause, retransmission or
 * discard counter growing at >= model_opts.spike_rate per second (gaps up
 * to two periods merged).  Sorted by (start, series).
 */
struct model_ctr_event {
	uint32_t series;            /* index into model.ctr_series */
	uint32_t nintervals;
	uint64_t start_ns, end_ns;
	uint64_t delta;             /* growth inside it, scaled */
	double peak_rate;           /* per second */
};

/* Sampler events (FT_REC_SAMPLER) as recorded, by time. */
struct model_sampler_ev {
	struct ft_sampler_event rec;
};

/* The loaded arrays, sorted and indexed (owned by the ctr_load, but events: the caller frees them). */
struct model_ctr_out {
	struct model_rdma_port *ports; size_t nports;        /* by port_id */
	struct model_ctr_group *groups; size_t ngroups;      /* by group id */
	struct model_ctr_series *series; size_t nseries;     /* by (group, index) */
	struct model_ctr_point *points; size_t npoints;      /* by (series, start) */
	struct model_ctr_event *events; size_t nevents;      /* by (start, series) */
	struct model_sampler_ev *sampler_evs; size_t nsampler_evs; /* by time */
};

struct ctr_load;

struct ctr_load *model_ctr__new(void);
void model_ctr__free(struct ctr_load *c);
/* One record, checked against its type (records.h); other types than the
 * sampler's are left alone.  0, -ENOMEM. */
int model_ctr__add(struct ctr_load *c, const struct ft_rec_hdr *rec);
/*
 * Sort, index, derive rates and spikes (at >= SPIKE_RATE per second) into
 * OUT, also on failure (what was done so far).  The iface fields of ports
 * and groups are left UINT32_MAX: the caller maps netns/ifindex.  0 or -ENOMEM.
 */
int model_ctr__finish(struct ctr_load *c, double spike_rate, struct model_ctr_out *out);

/* Growth per second of one point (over at least the hw_counters lifespan). */
double model_ctr__point_rate(const struct model_rdma_port *ports, const struct model_ctr_group *groups,
			     const struct model_ctr_series *series, const struct model_ctr_point *pt);
/* Growth of series S inside [FROM, TO), its POINTS prorated by their overlap. */
double model_ctr__growth(const struct model_ctr_series *s, const struct model_ctr_point *points,
			 uint64_t from, uint64_t to);
/* Classes whose spikes are events: congestion, pause, retransmission, discard. */
bool model__ctr_spike_class(unsigned cls);
const char *model__ctr_kind_name(unsigned kind);    /* "counters", "hw_counters", "ethtool", "qdisc" */
const char *model__link_layer_name(unsigned ll);    /* "InfiniBand", "RoCE", "unknown" */

#endif
