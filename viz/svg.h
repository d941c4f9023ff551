/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of the SVG renderer only (viz__svg, viz/svg.c): the
 * page's geometry, its state, the pixel-column helpers and the merging of
 * sub-pixel rectangles, and the rows each file draws.  Calls run one way:
 * svg.c calls the rows, the rows and svg.c call svg_draw.c, which calls
 * none of them.
 *   svg.c         viz__svg: the document, header lines, axis, legend
 *   svg_ranks.c   the collectives row and the rank rows (flame-style)
 *   svg_fabric.c  fabric tracks (throughput, queues, counters) and the
 *                 network event rows
 *   svg_draw.c    helpers (text, numbers, merged rectangles)
 */
#ifndef FABTRACE_VIZ_SVG_H
#define FABTRACE_VIZ_SVG_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "viz/common.h"

#define W 1600.0
#define LG 210.0                /* label gutter */
#define PW (W - LG - 30.0)      /* plot width */
#define NCOL ((size_t)1360)      /* pixel columns of the plot (= PW) */
#define LEVEL_H 16.0
#define TRACK_H 40.0
#define CTR_TRACK_H 28.0
#define MAX_CTR_TRACKS 12

struct svg {
	FILE *f;                    /* the body (a memory stream) */
	const struct model *m;
	const struct corr *c;
	uint64_t from, to;
	double y;
	double axis_top, axis_bottom;
	double fabric_top;
};

static inline double xt(const struct svg *s, uint64_t t)
{
	if (t <= s->from)
		return LG;
	if (t >= s->to)
		return LG + PW;
	return LG + (double)(t - s->from) * PW / (double)(s->to - s->from);
}

static inline int col_of(const struct svg *s, uint64_t t)
{
	int c = (int)floor(xt(s, t) - LG);

	return c < 0 ? 0 : (size_t)c >= NCOL ? (int)NCOL - 1 : c;
}

/* svg_draw.c */
void svg_text_fit(FILE *f, const char *s, double width);
const char *svg_fmt_count(double v, char *buf, size_t len);
void svg_dur_str(uint64_t ns, char *buf, size_t len);

/* merging of sub-pixel rectangles (svg_draw.c) */
#define LOD_FILLS 8
#define LOD_RUN_PX 3.0          /* a merged run is at most this wide, so colours still vary along */

struct lod {
	bool on;
	bool worst;                 /* colour by the worst verdict (collectives row), else by the longest total */
	double x0, x1, y, h;
	unsigned count;
	const char *fill[LOD_FILLS];
	double w[LOD_FILLS];        /* summed widths per fill */
	int nf;
	unsigned verdicts[CORR_NVERDICTS];
};

void svg_lod_flush(struct svg *s, struct lod *l, const char *what);
/* True when the rectangle [x0, x1] is merged into L (then not drawn by the caller). */
bool svg_lod_take(struct svg *s, struct lod *l, double x0, double x1, double y, double h, const char *fill,
		  const char *what);

/* svg_ranks.c */
void svg_collectives(struct svg *s);
int svg_ranks(struct svg *s, const struct viz_hosts *hosts);

/* svg_fabric.c: COLS has room for NCOL values (qdisc tracks: two arrays) */
int svg_iface_tracks(struct svg *s, double *cols);
void svg_qdisc_tracks(struct svg *s, double *bl, double *sj);
void svg_counter_tracks(struct svg *s, double *v);
int svg_event_rows(struct svg *s, const struct viz_hosts *hosts);

#endif
