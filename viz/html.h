/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of the HTML renderer only (viz__html, docs/timelines.md):
 * its sizes, its state and the writers of the data's sections.
 *   html.c         viz__html: the page (template, CSS, script, data), made
 *                  and measured until it fits HTML_PAGE_TARGET
 *   html_out.c     the data writer: JSON, varint columns, base64 (html_out.h)
 *   html_tracks.c  bin and counter tracks as pyramids, detail windows
 *   html_fabric.c  sections of the capture and the network: meta, names,
 *                  interfaces and qdiscs, flows, events, counters
 *   html_phases.c  sections of the correlator: ranks, calls, spans,
 *                  collectives, their evidence, inferred phases
 */
#ifndef FABTRACE_VIZ_HTML_H
#define FABTRACE_VIZ_HTML_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "viz/html_out.h"
#include "viz/viz.h"

#define HTML_FORMAT          "fabtrace-html-1"
/*
 * Sizes.  Budgets are raw varint bytes (before zlib and base64); the page
 * target is what counts: the issue asks under 20 MB for an hour of 4 hosts
 * at 100 us bins.
 */
#define HTML_PAGE_TARGET     18000000ull
#define HTML_SERIES_RAW      (32ull << 20) /* bin-track pyramids, first try */
#define HTML_DETAIL_RAW      (8ull << 20)  /* exact bins in detail windows, first try */
#define HTML_CTR_RAW         (4ull << 20)  /* counter-rate pyramids */
#define HTML_TRIES           8
#define HTML_TOP_CELLS       2048          /* the coarsest level has at most this many cells */
#define HTML_MAX_LEVEL       48
#define HTML_DETAIL_WINDOWS  1024
#define HTML_EVIDENCE_MAX    500           /* instances with their full evidence */
#define HTML_EVENTS_MAX      1000000       /* per event kind */
#define HTML_CTR_SERIES_MAX  64
#define HTML_ACTIVITY_MAX    200000        /* inferred-phase activity intervals */

struct windows {
	uint64_t *from, *to;    /* absolute, sorted, disjoint */
	size_t n;
};

struct trk; /* html_tracks.c */

struct html {
	const struct viz_ctx *v;
	const struct model *m;
	const struct corr *c;
	const struct corr *pc;       /* c when its probe phases are shown (not --phases inferred), else NULL */
	struct out o;
	struct trk *trks;            /* bin tracks (throughput, queues), then counters */
	size_t ntrks, nbin_trks;
	unsigned kmin, kmin_ctr;
	struct windows win;          /* detail windows (absolute times) */
	uint64_t detail_budget;
	uint64_t series_cost, detail_cost;
	unsigned tries;
	struct vbuf bin;             /* the columns */
	char *evidence;              /* the evidence member's JSON, made once */
	size_t nevidence;
	uint32_t *reasons;           /* distinct drop reasons used */
	size_t nreasons;
};

/* Times relative to the capture start; doubles rounded into the columns' integers. */
static inline uint64_t rel(const struct model *m, uint64_t ts)
{
	return ts > m->start_ns ? ts - m->start_ns : 0;
}

static inline int64_t srel(const struct model *m, uint64_t ts)
{
	return (int64_t)(ts - m->start_ns);
}

static inline uint64_t dround(double v)
{
	if (!(v > 0))
		return 0;
	if (v > 9.0e15)
		return 9000000000000000ull;
	return (uint64_t)llround(v);
}

/* NaN-able non-negative number as round(v * scale) + 1, 0 = NaN. */
static inline uint64_t opt_num(double v, double scale)
{
	if (!isfinite(v))
		return 0;
	return dround(v * scale) + 1;
}

/* html_tracks.c: the tracks and their level of detail */
int html_build_tracks(struct html *h);
void html_series_cost(struct html *h);
int html_build_windows(struct html *h);
void html_put_tracks(struct html *h);

/* html_fabric.c */
void html_put_meta(struct html *h);
void html_put_names(struct html *h);
void html_put_ifaces(struct html *h);
void html_put_flows(struct html *h);
int html_put_events(struct html *h);
void html_put_counters(struct html *h);

/* html_phases.c */
void html_put_ranks(struct html *h);
void html_put_calls(struct html *h);
void html_put_spans(struct html *h);
void html_put_instances(struct html *h);
void html_put_evidence(struct html *h);
void html_put_inferred(struct html *h);

#endif
