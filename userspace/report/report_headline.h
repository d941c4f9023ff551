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
#include "lib/json.h"
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
/* One collective as the headline names it: "allreduce #25 at +2.430 s (...), 33.0 ms: RANK rank 7 ... late". */
const char *headline__instance(const struct model *m, const struct corr *c, const struct corr_instance *in,
			       char *buf, size_t len);
/*
 * Where an instance's blame falls: its link and queue ("link eth0@h2 (tbf 1:)")
 * when network-bound, else its straggler's label.
 */
const char *headline__place(const struct corr *c, const struct corr_instance *in, char *buf, size_t len);
/* Its lines, one per line, then a blank line. */
void headline__text(FILE *f, const struct headline *h);
/* The "headline" member of the report's JSON object. */
void headline__json(struct json *j, const struct headline *h, const struct model *m, const struct corr *c);

#endif
