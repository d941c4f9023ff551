/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the renderers (viz/ files): the window, hosts, per-rank items
 * (steps, named phases, calls and their wait/transfer sub-phases) packed
 * into properly nested lanes, the network cause of a collective, the
 * colour-blind-safe palette and small output helpers.
 */
#ifndef FABTRACE_VIZ_COMMON_H
#define FABTRACE_VIZ_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "viz/viz.h"

/*
 * Okabe & Ito's palette (distinguishable with every common colour-vision
 * deficiency), by meaning.  Shapes and labels carry the same information.
 */
#define VIZ_C_BLACK     "#000000"
#define VIZ_C_ORANGE    "#E69F00"   /* wait: a rank waiting for a later one */
#define VIZ_C_SKY       "#56B4E9"   /* named phases */
#define VIZ_C_GREEN     "#009E73"   /* clean transfer, verdict ok */
#define VIZ_C_YELLOW    "#F0E442"
#define VIZ_C_BLUE      "#0072B2"   /* collective calls, TX */
#define VIZ_C_VERMILION "#D55E00"   /* network evidence, verdict network */
#define VIZ_C_PURPLE    "#CC79A7"   /* a late rank, verdict rank */
#define VIZ_C_GREY      "#999999"   /* unknown, other calls */
#define VIZ_C_LIGHT     "#DDDDDD"   /* steps */

const char *viz__verdict_colour(enum corr_verdict v);

/* The window [*from, *to): explicit (v->from_ns/to_ns), else the whole capture,
 * or with FOCUS the slowest collective with one span of context on each side. */
void viz__window(const struct viz_ctx *v, bool focus, uint64_t *from, uint64_t *to);


/* Hosts: the ranks' and the traced interfaces' hosts, sorted by name. */
struct viz_hosts {
	char (*name)[64];
	size_t n;
};
int viz__hosts(const struct viz_ctx *v, struct viz_hosts *h);
void viz__hosts_free(struct viz_hosts *h);
/* Index of NAME, or h->n when absent. */
size_t viz__host_index(const struct viz_hosts *h, const char *name);

/* "rank 3 (h2)" or "pid 1234 (h2)". */
const char *viz__rank_label(const struct corr *c, uint32_t r, char *buf, size_t len);

enum viz_item_kind {
	VIZ_STEP = 0,       /* marker step span */
	VIZ_MARK,           /* marker named phase */
	VIZ_CALL,           /* a traced library call (collective or not) */
	VIZ_WAIT,           /* sub-phase: in the collective, waiting for the last rank to enter */
	VIZ_XFER,           /* sub-phase: every rank in, until this rank's exit */
};

struct viz_item {
	uint64_t start, end;        /* clipped to the window */
	uint32_t kind;              /* enum viz_item_kind */
	uint32_t ref;               /* VIZ_STEP/MARK: span index; else call index */
	uint32_t depth;             /* natural depth: spans by nesting, calls below them */
	uint32_t parent;            /* item index, UINT32_MAX none */
	uint32_t lane;              /* by viz__lanes(): 0 nests on the rank's thread */
};

/* Items of rank R overlapping [from, to), sorted by (start, end desc, depth).  *out NULL when none. */
int viz__rank_items(const struct corr *c, uint32_t r, uint64_t from, uint64_t to,
		    struct viz_item **out, size_t *n);
/*
 * Pack sorted items into lanes, each properly nested (an item lies inside
 * or after every item still open in its lane); an item tries its parent's
 * lane first.  Returns the number of lanes, or -ENOMEM.
 */
int viz__lanes(struct viz_item *it, size_t n);
/* viz__rank_items() packed by viz__lanes(): the number of lanes, or -ENOMEM (then *out is NULL). */
int viz__rank_lanes(const struct corr *c, uint32_t r, uint64_t from, uint64_t to,
		    struct viz_item **out, size_t *n);
/* Would an interval [start, end) show in the window (the rule viz__rank_items() applies)? */
bool viz__visible(uint64_t start, uint64_t end, uint64_t from, uint64_t to);
/*
 * Walk the items of lane LANE in order, properly nested: OPEN at an item's
 * start, CLOSE at its end (inner items close first).
 */
void viz__walk_lane(const struct viz_item *it, size_t n, uint32_t lane,
		    void (*open)(void *arg, const struct viz_item *it),
		    void (*close)(void *arg, const struct viz_item *it), void *arg);
/* Display name of an item into BUF: "step 7", "compute", "allreduce", "wait", "transfer". */
const char *viz__item_name(const struct corr *c, const struct viz_item *it, char *buf, size_t len);
/* Op name of a call (the slot's name for generic probes). */
const char *viz__call_op(const struct corr *c, const struct corr_call *k);
/* K's op as an index into the op names followed by the named --phase slots'
 * names (viz__custom_names): a custom call is its slot's name, not "custom". */
uint32_t viz__call_op_index(const struct model *m, const struct corr_call *k);
/* Calls FN with each named --phase slot's name, in the order of viz__call_op_index. */
void viz__custom_names(const struct model *m, void (*fn)(void *ctx, const char *name), void *ctx);

/*
 * Where the time of a sub-phase went: for VIZ_XFER the network evidence of
 * the call's collective ("queue eth0@h2", "drops eth0@h2", "retrans", "ce",
 * "cnp", "pause", "rdma-loss") or "clean"; for VIZ_WAIT "rank-late" (waiting
 * for a rank that was late by itself) or that evidence when the lateness was
 * carried over from a slow network.
 */
const char *viz__cause(const struct corr *c, const struct corr_call *k, unsigned kind, char *buf, size_t len);

/* "10.0.0.1:40000 -> 10.0.0.2:5201" ([v6]:port for IPv6). */
/* Collective frame: "allreduce 1.05 MB" (nccl-tests size, else the call's bytes), or the op alone. */
const char *viz__coll_name(const struct corr *c, const struct corr_call *k, char *buf, size_t len);

/* Seconds relative to the capture start, exactly: "1.234567" (or "-0.000100"). */
const char *viz__secs(const struct model *m, uint64_t ts, char *buf, size_t len);

/* XML text/attribute escaping. */
void viz__xml(FILE *f, const char *s);

#endif
