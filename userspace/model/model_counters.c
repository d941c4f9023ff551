// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The counter part of the model (model_counters.h, "counter sampler"): RDMA
 * ports, counter groups and their samples turned into per-counter growth.
 * A lower piece: it does not know struct model (model_finish.c takes its
 * arrays and maps netdevs to interfaces).
 *
 * Samples arrive in file order, which is read order per group, so each
 * sample is turned into deltas against the group's previous one as it is
 * loaded (rdma/counters.h does the wrap/reset logic and the x4 scaling).
 * Only intervals in which a counter grew (or wrapped, reset, went N/A) are
 * kept as points: an idle counter costs nothing, so an hour of 100 Hz
 * sampling of a few hundred mostly quiet counters stays small.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/counters.h"
#include "userspace/capture/records.h"
#include "userspace/model/model_counters.h"
#include "lib/util.h"

/* Loading state of one group. */
struct grp_load {
	bool have_rec;
	uint32_t nnames;
	uint32_t *series_of;        /* index in the group -> loading series index, UINT32_MAX */
	uint64_t *prev;             /* previous raw values */
	uint32_t nprev;             /* values in prev (0 = no sample yet) */
	uint64_t prev_ts;
	uint32_t netns, ifindex;    /* from the group record, mapped to an interface at finish */
	uint64_t read_ns_sum;
	uint64_t *times;
	size_t ntimes, cap_times;
};

struct ctr_load {
	struct model_ctr_group *groups;   /* indexed by group id while loading */
	struct grp_load *gl;
	size_t ngroups;                   /* max id + 1 */
	struct model_ctr_series *series;  /* in arrival order */
	size_t nseries, cap_series;
	struct model_ctr_point *points;
	size_t npoints, cap_points;
	struct model_rdma_port *ports;
	size_t nports, cap_ports;
	struct model_sampler_ev *evs;
	size_t nevs, cap_evs;
	uint64_t orphan_samples;          /* samples of a group never described */
};

struct ctr_load *model_ctr__new(void)
{
	return calloc(1, sizeof(struct ctr_load));
}

void model_ctr__free(struct ctr_load *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ngroups; i++) {
		free(c->gl[i].series_of);
		free(c->gl[i].prev);
		free(c->gl[i].times);
	}
	free(c->gl);
	free(c->groups);
	free(c->series);
	free(c->points);
	free(c->ports);
	free(c->evs);
	free(c);
}

/* The group with id ID, created empty on first mention (ids are small and
 * dense: below CAPTURE_MAX_CTR_GROUP, records.h checks). */
static long group_slot(struct ctr_load *c, uint32_t id)
{
	if (id >= c->ngroups) {
		/* both arrays are exactly ngroups long: grow them alike */
		size_t cap[2] = { c->ngroups, c->ngroups };

		if (grow_array((void **)&c->groups, &cap[0], id + 1, sizeof(*c->groups)) ||
		    grow_array((void **)&c->gl, &cap[1], id + 1, sizeof(*c->gl)))
			return -ENOMEM;
		c->ngroups = id + 1;
	}
	return id;
}

static void copy_str(char *dst, size_t n, const char *src, size_t srcn)
{
	size_t l = strnlen(src, srcn);

	if (l >= n)
		l = n - 1;
	memcpy(dst, src, l);
	dst[l] = 0;
}

static int add_port(void *ctx, const struct ft_rdma_port *r)
{
	struct ctr_load *c = ctx;
	struct model_rdma_port *p;

	if (grow_array((void **)&c->ports, &c->cap_ports, c->nports + 1, sizeof(*c->ports)))
		return -ENOMEM;
	p = &c->ports[c->nports++];
	memset(p, 0, sizeof(*p));
	p->rec = *r;
	/* strings from a file: make sure they are terminated */
	p->rec.dev[sizeof(p->rec.dev) - 1] = 0;
	p->rec.netdev[sizeof(p->rec.netdev) - 1] = 0;
	p->rec.rate[sizeof(p->rec.rate) - 1] = 0;
	p->rec.fw_ver[sizeof(p->rec.fw_ver) - 1] = 0;
	p->rec.hca_type[sizeof(p->rec.hca_type) - 1] = 0;
	p->iface = UINT32_MAX;
	return 0;
}

static int add_group(void *ctx, const struct ft_ctr_group *r)
{
	struct ctr_load *c = ctx;
	long i = group_slot(c, r->group);
	struct model_ctr_group *g;
	struct grp_load *gl;

	if (i < 0)
		return (int)i;
	g = &c->groups[i];
	gl = &c->gl[i];
	if (gl->have_rec)
		return 0;   /* a group is described once; a repeat changes nothing */
	gl->series_of = malloc(sizeof(*gl->series_of) * (r->ncounters ? r->ncounters : 1));
	if (!gl->series_of)
		return -ENOMEM;
	for (uint32_t k = 0; k < r->ncounters; k++)
		gl->series_of[k] = UINT32_MAX;
	gl->have_rec = true;
	gl->nnames = r->ncounters;
	g->group = r->group;
	g->kind = r->kind;
	g->port = r->port_id;       /* the port id until finish maps it to an index */
	g->iface = UINT32_MAX;
	g->period_ns = r->period_ns;
	copy_str(g->label, sizeof(g->label), r->label, sizeof(r->label));
	gl->netns = r->netns;
	gl->ifindex = r->ifindex;
	return 0;
}

static int add_name(void *ctx, const struct ft_ctr_name *r)
{
	struct ctr_load *c = ctx;
	struct model_ctr_series *s;
	struct grp_load *gl;

	if (r->group >= c->ngroups || !c->gl[r->group].have_rec)
		return 0;   /* a name before its group: ignored */
	gl = &c->gl[r->group];
	if (r->index >= gl->nnames || gl->series_of[r->index] != UINT32_MAX)
		return 0;
	if (grow_array((void **)&c->series, &c->cap_series, c->nseries + 1, sizeof(*c->series)))
		return -ENOMEM;
	s = &c->series[c->nseries];
	memset(s, 0, sizeof(*s));
	s->group = r->group;
	s->index = r->index;
	s->cls = r->cls < FT_CLS_MAX ? r->cls : FT_CLS_OTHER;
	s->flags = r->flags;
	copy_str(s->name, sizeof(s->name), r->name, sizeof(r->name));
	s->first = s->last = FT_CTR_NA;
	gl->series_of[r->index] = (uint32_t)c->nseries++;
	return 0;
}

static int push_point(struct ctr_load *c, const struct model_ctr_point *pt)
{
	if (grow_array((void **)&c->points, &c->cap_points, c->npoints + 1, sizeof(*c->points)))
		return -ENOMEM;
	c->points[c->npoints++] = *pt;
	return 0;
}

static int add_sample(void *ctx, const struct ft_ctr_sample *r)
{
	struct ctr_load *c = ctx;
	const uint64_t *vals = (const uint64_t *)(r + 1);
	struct model_ctr_group *g;
	struct grp_load *gl;
	uint32_t n = r->n;

	if (r->group >= c->ngroups || !c->gl[r->group].have_rec) {
		c->orphan_samples++;
		return 0;
	}
	g = &c->groups[r->group];
	gl = &c->gl[r->group];
	if (n > gl->nnames)
		n = gl->nnames;
	if (gl->nprev && r->ts_ns < gl->prev_ts)
		return 0;   /* out of order: cannot happen with one writer; ignore */

	if (grow_array((void **)&gl->times, &gl->cap_times, gl->ntimes + 1, sizeof(*gl->times)))
		return -ENOMEM;
	gl->times[gl->ntimes++] = r->ts_ns;
	g->nsamples++;
	if (r->read_ns > g->read_ns_max)
		g->read_ns_max = r->read_ns;
	g->read_ns_sum += r->read_ns;

	if (!gl->prev) {
		gl->prev = calloc(gl->nnames ? gl->nnames : 1, sizeof(*gl->prev));
		if (!gl->prev)
			return -ENOMEM;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t si = gl->series_of[k];
		struct model_ctr_series *s;
		struct model_ctr_point pt;
		unsigned df = 0;
		uint64_t d;

		if (si == UINT32_MAX)
			continue;
		s = &c->series[si];
		if (vals[k] != FT_CTR_NA) {
			if (s->first == FT_CTR_NA)
				s->first = vals[k];
			s->last = vals[k];
		}
		if (!gl->nprev || k >= gl->nprev)
			continue;
		d = ctr__scale(ctr__delta(gl->prev[k], vals[k], s->flags, &df), s->flags);
		if (df & (CTR_DELTA_WRAP32 | CTR_DELTA_WRAP64))
			s->wraps++;
		if (df & CTR_DELTA_RESET)
			s->resets++;
		if (df & CTR_DELTA_NA)
			s->na++;
		if (!d && !df)
			continue;
		s->total += d;
		pt.start_ns = gl->prev_ts;
		pt.end_ns = r->ts_ns;
		pt.delta = d;
		pt.series = si;
		pt.dflags = df;
		if (push_point(c, &pt))
			return -ENOMEM;
	}
	memcpy(gl->prev, vals, sizeof(*vals) * n);
	for (uint32_t k = n; k < gl->nnames; k++)
		gl->prev[k] = FT_CTR_NA;
	gl->nprev = gl->nnames;
	gl->prev_ts = r->ts_ns;
	return 0;
}

static int add_event(void *ctx, const struct ft_sampler_event *r)
{
	struct ctr_load *c = ctx;
	if (grow_array((void **)&c->evs, &c->cap_evs, c->nevs + 1, sizeof(*c->evs)))
		return -ENOMEM;
	c->evs[c->nevs].rec = *r;
	c->evs[c->nevs].rec.msg[sizeof(r->msg) - 1] = 0;
	c->nevs++;
	return 0;
}

int model_ctr__add(struct ctr_load *c, const struct ft_rec_hdr *rec)
{
	static const struct capture_visitor v = {
		.rdma_port = add_port, .ctr_group = add_group, .ctr_name = add_name,
		.ctr_sample = add_sample, .sampler_event = add_event,
	};

	return capture__dispatch(&v, c, rec);
}

/* ---- finish ---- */

static int cmp_port(const void *a, const void *b)
{
	const struct model_rdma_port *x = a, *y = b;

	return x->rec.port_id < y->rec.port_id ? -1 : x->rec.port_id > y->rec.port_id;
}

static int cmp_series(const void *a, const void *b)
{
	const struct model_ctr_series *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_point(const void *a, const void *b)
{
	const struct model_ctr_point *x = a, *y = b;

	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static int cmp_event(const void *a, const void *b)
{
	const struct model_ctr_event *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->series < y->series ? -1 : x->series > y->series;
}

static int cmp_sev(const void *a, const void *b)
{
	const struct model_sampler_ev *x = a, *y = b;

	return x->rec.ts_ns < y->rec.ts_ns ? -1 : x->rec.ts_ns > y->rec.ts_ns;
}

bool model__ctr_spike_class(unsigned cls)
{
	return cls == FT_CLS_CONGESTION || cls == FT_CLS_PAUSE || cls == FT_CLS_RETRANS ||
	       cls == FT_CLS_DISCARD;
}

/*
 * hw_counters are cached by the driver for `lifespan` ms: a read sooner
 * than that returns the old value, so the growth of a short interval may
 * belong to a longer one.  Rates are taken over at least the lifespan.
 */
static uint64_t min_interval_ns(const struct model_rdma_port *ports, const struct model_ctr_group *g)
{
	const struct model_rdma_port *p;
	uint32_t ms;

	if (g->kind != FT_CTR_PORT_HW || g->port == UINT32_MAX)
		return 0;
	p = &ports[g->port];
	ms = p->rec.lifespan_set_ms ? p->rec.lifespan_set_ms : p->rec.lifespan_ms;
	return (uint64_t)ms * 1000000ull;
}

double model_ctr__point_rate(const struct model_rdma_port *ports, const struct model_ctr_group *groups,
			     const struct model_ctr_series *series, const struct model_ctr_point *pt)
{
	const struct model_ctr_series *s = &series[pt->series];
	uint64_t dt = pt->end_ns - pt->start_ns, min = min_interval_ns(ports, &groups[s->group]);

	if (dt < min)
		dt = min;
	return dt ? (double)pt->delta * 1e9 / (double)dt : 0;
}

static double point_rate(const struct model_ctr_out *o, const struct model_ctr_point *pt)
{
	return model_ctr__point_rate(o->ports, o->groups, o->series, pt);
}

static bool point_hot(const struct model_ctr_out *o, double spike_rate, const struct model_ctr_point *pt,
		      double *rate)
{
	*rate = pt->dflags & CTR_DELTA_RESET ? 0 : point_rate(o, pt);
	return *rate >= spike_rate;
}

/*
 * Spikes of one series: runs of hot intervals, merged across cool or quiet
 * gaps of up to two periods, plus the interval touching each end (a storm
 * rarely starts or stops on a sample: its first and last, partly covered
 * intervals look cool but hold part of its growth).
 */
static int series_spikes(struct model_ctr_out *o, double spike_rate, size_t si, size_t *cap)
{
	const struct model_ctr_series *s = &o->series[si];
	const struct model_ctr_point *pts = s->npts ? &o->points[s->first_pt] : NULL; /* may be NULL */
	uint64_t gap = 2 * o->groups[s->group].period_ns;
	size_t n = s->npts, used = 0;
	double rate;

	for (size_t k = 0; k < n;) {
		struct model_ctr_event ev = { .series = (uint32_t)si };
		size_t last = k;

		if (!point_hot(o, spike_rate, &pts[k], &rate)) {
			k++;
			continue;
		}
		ev.start_ns = pts[k].start_ns;
		ev.end_ns = pts[k].end_ns;
		ev.delta = pts[k].delta;
		ev.nintervals = 1;
		ev.peak_rate = rate;
		if (k > used && pts[k - 1].end_ns == pts[k].start_ns && !(pts[k - 1].dflags & CTR_DELTA_RESET)) {
			ev.start_ns = pts[k - 1].start_ns;
			ev.delta += pts[k - 1].delta;
		}
		for (size_t j = k + 1; j < n && pts[j].start_ns <= pts[last].end_ns + gap; j++) {
			if (!point_hot(o, spike_rate, &pts[j], &rate))
				continue;
			for (size_t i = last + 1; i <= j; i++)
				ev.delta += pts[i].delta;  /* the cool ones in between, and this one */
			ev.end_ns = pts[j].end_ns;
			ev.nintervals++;
			if (rate > ev.peak_rate)
				ev.peak_rate = rate;
			last = j;
		}
		used = last + 1;
		if (used < n && pts[used].start_ns == pts[last].end_ns && !(pts[used].dflags & CTR_DELTA_RESET)) {
			ev.end_ns = pts[used].end_ns;
			ev.delta += pts[used].delta;
			used++;
		}
		if (grow_array((void **)&o->events, cap, o->nevents + 1, sizeof(*o->events)))
			return -ENOMEM;
		o->events[o->nevents++] = ev;
		k = used;
	}
	return 0;
}

static int detect_spikes(struct model_ctr_out *o, double spike_rate)
{
	size_t cap = 0;

	for (size_t si = 0; si < o->nseries; si++)
		if (model__ctr_spike_class(o->series[si].cls) && series_spikes(o, spike_rate, si, &cap))
			return -ENOMEM;
	if (o->nevents)
		qsort(o->events, o->nevents, sizeof(*o->events), cmp_event);
	return 0;
}

int model_ctr__finish(struct ctr_load *c, double spike_rate, struct model_ctr_out *out)
{
	uint32_t *remap = NULL;
	size_t ng = 0;

	/* ports (their netdev's interface: the caller's) */
	if (c->nports)
		qsort(c->ports, c->nports, sizeof(*c->ports), cmp_port);
	for (size_t i = 0; i < c->nports; i++)
		c->ports[i].iface = UINT32_MAX;
	out->ports = c->ports;
	out->nports = c->nports;

	/* groups: compact the described ones (ids are dense in practice) */
	remap = malloc(sizeof(*remap) * (c->ngroups ? c->ngroups : 1));
	if (!remap)
		return -ENOMEM;
	for (size_t i = 0; i < c->ngroups; i++) {
		struct model_ctr_group *g = &c->groups[i];
		struct grp_load *gl = &c->gl[i];

		remap[i] = UINT32_MAX;
		if (!gl->have_rec)
			continue;
		g->netns = gl->netns;
		g->ifindex = gl->ifindex;
		g->iface = UINT32_MAX;
		if (g->kind != FT_CTR_ETHTOOL) {
			uint32_t port = UINT32_MAX;

			for (size_t k = 0; k < c->nports; k++)
				if (c->ports[k].rec.port_id == g->port)
					port = (uint32_t)k;
			g->port = port;
			if (!g->netns && port != UINT32_MAX) {
				g->netns = c->ports[port].rec.netdev_netns;
				g->ifindex = c->ports[port].rec.netdev_ifindex;
			}
		} else {
			g->port = UINT32_MAX;
		}
		g->times = gl->times;
		remap[i] = (uint32_t)ng;
		if (ng != i) {
			c->groups[ng] = *g;
			c->gl[ng] = *gl;
			memset(gl, 0, sizeof(*gl));
		}
		ng++;
	}
	out->groups = c->groups;
	out->ngroups = ng;

	/* series by (group, index); points follow their series */
	for (size_t i = 0; i < c->nseries; i++) {
		c->series[i].group = remap[c->series[i].group];
		c->series[i].pad = (uint32_t)i; /* old index through the sort */
	}
	free(remap);
	remap = malloc(sizeof(*remap) * (c->nseries ? c->nseries : 1));
	if (!remap)
		return -ENOMEM;
	if (c->nseries)
		qsort(c->series, c->nseries, sizeof(*c->series), cmp_series);
	for (size_t i = 0; i < c->nseries; i++) {
		remap[c->series[i].pad] = (uint32_t)i;
		c->series[i].pad = 0;
	}
	for (size_t i = 0; i < c->npoints; i++)
		c->points[i].series = remap[c->points[i].series];
	free(remap);
	if (c->npoints)
		qsort(c->points, c->npoints, sizeof(*c->points), cmp_point);
	out->series = c->series;
	out->nseries = c->nseries;
	out->points = c->points;
	out->npoints = c->npoints;
	for (size_t i = 0, k = 0; i < c->nseries; i++) {
		struct model_ctr_series *s = &c->series[i];
		struct model_ctr_group *g = &c->groups[s->group];

		if (g->nseries == 0)
			g->first_series = i;
		g->nseries++;
		s->first_pt = k;
		while (k < c->npoints && c->points[k].series == i)
			k++;
		s->npts = k - s->first_pt;
	}
	for (size_t i = 0; i < c->nseries; i++) {
		struct model_ctr_series *s = &c->series[i];

		for (size_t k = s->first_pt; k < s->first_pt + s->npts; k++) {
			double r;

			if (c->points[k].dflags & CTR_DELTA_RESET)
				continue;
			r = point_rate(out, &c->points[k]);
			if (r > s->peak_rate) {
				s->peak_rate = r;
				s->peak_ns = c->points[k].end_ns;
			}
		}
	}

	if (c->nevs)
		qsort(c->evs, c->nevs, sizeof(*c->evs), cmp_sev);
	out->sampler_evs = c->evs;
	out->nsampler_evs = c->nevs;
	return detect_spikes(out, spike_rate);
}

/* Growth of series S inside [from, to): points prorated by overlap. */
double model_ctr__growth(const struct model_ctr_series *s, const struct model_ctr_point *points,
			 uint64_t from, uint64_t to)
{
	double sum = 0;

	for (size_t k = s->first_pt; k < s->first_pt + s->npts; k++) {
		const struct model_ctr_point *pt = &points[k];
		uint64_t a = pt->start_ns > from ? pt->start_ns : from;
		uint64_t b = pt->end_ns < to ? pt->end_ns : to;

		if (pt->start_ns >= to)
			break;
		if (b <= a)
			continue;
		if (pt->end_ns == pt->start_ns)
			sum += (double)pt->delta;
		else
			sum += (double)pt->delta * (double)(b - a) / (double)(pt->end_ns - pt->start_ns);
	}
	return sum;
}

const char *model__ctr_kind_name(unsigned kind)
{
	switch (kind) {
	case FT_CTR_PORT_COUNTERS: return "counters";
	case FT_CTR_PORT_HW: return "hw_counters";
	case FT_CTR_ETHTOOL: return "ethtool";
	case FT_CTR_QDISC: return "qdisc";
	default: return "unknown";
	}
}

const char *model__link_layer_name(unsigned ll)
{
	switch (ll) {
	case FT_LL_IB: return "InfiniBand";
	case FT_LL_ETHERNET: return "RoCE";
	default: return "unknown";
	}
}
