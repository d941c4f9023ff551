/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of `compare` only (userspace/compare/compare.h): what
 * cmp_run.c calls to reduce one capture to a run.  Calls run one way:
 * cmp_build.c over cmp_run.c and cmp_metrics.c and cmp_config.c;
 * cmp_run.c over the extractors and cmp_config_flat.c.
 */
#ifndef FABTRACE_CMP_PRIV_H
#define FABTRACE_CMP_PRIV_H

#include "userspace/compare/compare.h"
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"

/* The collective groups (op, size, ranks), their times, bandwidth and budget shares; the job's budget. */
int cmp_extract__coll(struct cmp_run *r, const struct model *m, const struct corr *c);
/* Links, queues, counter groups and the job's network totals. */
int cmp_extract__net(struct cmp_run *r, const struct model *m, const struct corr *c);
/* M's configuration as settings named alike across recordings (cmp_config_flat.c). */
int cmp_config__flatten(struct cmp_run *r, const struct model *m);

#endif
