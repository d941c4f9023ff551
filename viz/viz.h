/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Renderers of the fabric model: they read the model (userspace/model/model.h)
 * and the correlator's result (userspace/correlate/correlate.h), never the capture.
 *
 * Every renderer writes to a FILE opened by the caller (fabtrace report
 * writes to a temporary file and renames it, so a failed render never
 * leaves a half-written file).  Output is deterministic: stable ordering
 * and fixed float formatting, so golden tests can compare bytes.
 * Each returns 0 or -errno.
 */
#ifndef FABTRACE_VIZ_H
#define FABTRACE_VIZ_H

#include <stdint.h>
#include <stdio.h>
#include "userspace/model/model.h"
#include "userspace/correlate/correlate.h"

enum viz_weight {
	VIZ_WEIGHT_TIME = 0,        /* folded stacks weighted by ns */
	VIZ_WEIGHT_BYTES,           /* ... by bytes */
};

struct viz_ctx {
	const struct model *m;
	const struct corr *c;       /* may have no ranks (no phase probes) */
	uint64_t from_ns, to_ns;    /* window (CLOCK_MONOTONIC); 0,0 = renderer's default */
	enum viz_weight weight;
};

int viz__html(const struct viz_ctx *v, FILE *f);
int viz__svg(const struct viz_ctx *v, FILE *f);
int viz__perfetto(const struct viz_ctx *v, FILE *f);
int viz__speedscope(const struct viz_ctx *v, FILE *f);
int viz__folded(const struct viz_ctx *v, FILE *f);

/* compare --html: the comparison of runs A and B (userspace/compare/compare.h) as one page. */
struct cmp;
int viz__compare_html(const struct cmp *c, FILE *f);

#endif
