/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hosts of a merged capture (fabtrace merge) in a report: each host's
 * clock offset, drift and uncertainty, and a warning where a rank-bound
 * verdict rests on a skew smaller than the clocks' uncertainty (such a
 * skew is not evidence of a straggler).  docs/multihost.md.
 */
#ifndef FABTRACE_REPORT_HOSTS_H
#define FABTRACE_REPORT_HOSTS_H

#include <stdio.h>
#include "userspace/correlate/correlate.h"
#include "lib/json.h"
#include "userspace/model/model.h"

/* Nothing is written for a capture that is not merged. */
void report_hosts__text(FILE *f, const char *path, const struct model *m, const struct corr *c);
void report_hosts__json(struct json *j, const char *path, const struct model *m, const struct corr *c);

#endif
