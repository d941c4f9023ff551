/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The time budget in the report: where the time in collectives went
 * (correlate.h, struct corr_budget and corr_job_budget), each collective's
 * (its JSON "budget" member) and the job's ("budget" at the top, and the
 * text's "Time budget" section).  Read from the correlator, computed there once.
 */
#ifndef FABTRACE_REPORT_BUDGET_H
#define FABTRACE_REPORT_BUDGET_H

#include <stdio.h>
#include "lib/json.h"
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"

/* The "budget" member of one collective's JSON object. */
void report_budget__instance_json(struct json *j, const struct model *m, const struct corr *c,
				  const struct corr_instance *in);
/* The job's "budget" member of the report (null without collectives). */
void report_budget__json(struct json *j, const struct model *m, const struct corr *c);
/* The text's "Time budget" section (nothing without collectives). */
void report_budget__text(FILE *f, const struct model *m, const struct corr *c);

#endif
