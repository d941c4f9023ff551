/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer first: the few lines that open a report (text, JSON, HTML) and
 * say what the capture shows -- the verdict counts, where the blame falls
 * (a link and its queue, or a rank), the worst collectives with cause, place
 * and time, and in one line whether the data is whole.  Without collective
 * phases it names the worst queue, the drops and the retransmits instead.
 */
#ifndef FABTRACE_REPORT_HEADLINE_H
#define FABTRACE_REPORT_HEADLINE_H

#include <stdio.h>
#include "userspace/correlate/correlate.h"
#include "probes/base/json.h"
#include "userspace/model/model.h"

#define HEADLINE_MAX_LINES 15  /* the first screen: issue's limit, title included */
#define HEADLINE_WORST 3       /* worst collectives named */

struct headline {
	char lines[HEADLINE_MAX_LINES][240];
	size_t nlines;
	/* the worst collectives: instance indices into corr.instances, slowest first */
	uint32_t worst[HEADLINE_WORST];
	size_t nworst;
	const char *conservation;  /* "ok", "ok_skipped", "mismatch", "unchecked" */
};

/* Build the headline of M (C may be NULL: no phases).  PATH names the capture in the title. */
void headline__build(struct headline *h, const struct model *m, const struct corr *c, const char *path);
/* Its lines, one per line, then a blank line. */
void headline__text(FILE *f, const struct headline *h);
/* The "headline" member of the report's JSON object. */
void headline__json(struct json *j, const struct headline *h, const struct model *m, const struct corr *c);

#endif
