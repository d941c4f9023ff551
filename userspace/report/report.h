/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `fabtrace report`: the text and JSON summaries of a model (userspace/model/model.h).
 * cmd_report() (commands.h) parses the command line, loads the capture and
 * calls report__write(); tests call report__write() on a model built in memory.
 * report__write() (report_write.c) writes the sections of report_text.h or
 * report_json.h, with the headline, counters and hosts sections.
 * The JSON document is described in docs/report-json.md.
 */
#ifndef FABTRACE_REPORT_H
#define FABTRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"

enum report_sort {
	REPORT_SORT_BYTES = 0, /* bursts by bytes, then peak */
	REPORT_SORT_PEAK,      /* by peak rate, then bytes */
	REPORT_SORT_TIME,      /* by start */
};

struct report_opts {
	bool json;
	bool pretty;           /* JSON: indented */
	bool brief;            /* the headline alone (text), or schema + headline (JSON) */
	unsigned top;          /* bursts and slowest collectives shown; 0 = all */
	enum report_sort sort;
	const char *path;      /* shown in the header */
	enum corr_phases_mode phases; /* used when corr is NULL */
	const struct corr_opts *corr; /* correlator options; NULL = defaults with `phases` */
	const struct corr *built;     /* the model's correlation, already built (then corr and phases are unused) */
};

/*
 * Write the report of a finished model (it runs the correlator,
 * userspace/correlate/correlate.h, for the phase sections).  0 or -errno (write
 * error, -ENOMEM).
 */
int report__write(FILE *out, const struct model *m, const struct report_opts *o);

#endif
