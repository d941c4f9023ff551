/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sections of the text report, in the order report__write() prints them
 * (userspace/report/report_write.c): the network ones (report_text_net.c), then,
 * after the counters, the collective phases (report_text_phases.c).
 */
#ifndef FABTRACE_REPORT_TEXT_H
#define FABTRACE_REPORT_TEXT_H

#include <stdio.h>
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"

void report_text__header(FILE *f, const struct model *m, const struct report_opts *o);
void report_text__ifaces(FILE *f, const struct model *m);
void report_text__bursts(FILE *f, const struct model *m, const struct report_opts *o);
void report_text__queues(FILE *f, const struct model *m);
void report_text__retrans(FILE *f, const struct model *m, const struct corr *c);
void report_text__cong(FILE *f, const struct model *m);
void report_text__drops(FILE *f, const struct model *m);
void report_text__ce(FILE *f, const struct model *m);
void report_text__conserve(FILE *f, const struct model *m);
/* lost events, then probe coverage */
void report_text__lost(FILE *f, const struct model *m, const struct corr *c);
/* collectives, ranks, steps, the slowest collectives, inferred phases */
void report_text__phases(FILE *f, const struct model *m, const struct corr *c, const struct report_opts *o);

#endif
