/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The counter sections of `fabtrace report` (userspace/report/report_counters.c). */
#ifndef FABTRACE_REPORT_COUNTERS_H
#define FABTRACE_REPORT_COUNTERS_H

#include <stdio.h>
#include "userspace/correlate/correlate.h"
#include "lib/json.h"
#include "userspace/model/model.h"

/* RDMA ports, counters that moved, spikes (at most TOP, 0 = all), sampler cost; nothing without counters. */
void report_ctr__text(FILE *f, const struct model *m, unsigned top);
/* "rdma_ports", "counter_groups", "counter_spikes", "sampler_events" members. */
void report_ctr__json(struct json *j, const struct model *m);
/* Counter members of an instance's "evidence" object. */
void report_ctr__evidence_json(struct json *j, const struct model *m, const struct corr_evidence *ev);

#endif
