/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The answer first: the few lines that open a report (text, JSON, HTML) and
 * say what the capture shows -- the verdict counts, where the time in
 * collectives went (the job's time budget), where the blame falls (a link
 * and its queue, or a rank), the worst collectives with cause, place and
 * time, and in one line whether the data is whole.  Without collective
 * phases it names the worst queue, the drops and the retransmits instead.
 *
 * The answer is a structure (struct answer) that the whole-capture report
 * fills from its one correlation and `report --windows` fills window by
 * window and sums; one renderer (headline__lines) writes both.  It keeps
 * labels, not indices, so a window's model can be freed once it is added.
 */
#ifndef FABTRACE_REPORT_HEADLINE_H
#define FABTRACE_REPORT_HEADLINE_H

#include <stdio.h>
#include "userspace/correlate/correlate.h"
#include "lib/json.h"
#include "userspace/model/model.h"

#define HEADLINE_MAX_LINES 15  /* the first screen: issue's limit, title included */
#define HEADLINE_WORST 3       /* worst collectives named */
#define HEADLINE_LINE 240
#define HEADLINE_PLACE 128

struct answer_place {
	char label[HEADLINE_PLACE];
	uint64_t n, ns;
};

struct answer_places {
	struct answer_place *v;
	size_t n, cap;
};

/* A collective named among the worst, kept as text. */
struct answer_worst {
	uint64_t span_ns, first_entry;
	enum corr_verdict verdict;
	uint32_t instance;              /* in the correlation it came from */
	char op[32];
	uint64_t seq;
	int64_t start_rel_ns, start_wall_ns;
	char link[HEADLINE_PLACE];      /* network-bound: its link, else "" */
	char queue[48];                 /* network-bound: its queue, else "" */
	bool have_rank;
	int64_t straggler_rank;         /* when not network-bound and known */
	char cause[HEADLINE_LINE];      /* "NETWORK link eth0@h2 (tbf 1:): ..." */
	char line[HEADLINE_LINE];       /* "allreduce #6 at +3.0 s (...), 989 ms: " + cause */
};

struct answer {
	uint64_t n, verdicts[CORR_NVERDICTS];
	struct answer_places blame[2];  /* [0] network-bound: their links; [1] rank-bound: their ranks */
	struct answer_places late;      /* ranks that entered last: times (n) and how late (ns) */
	struct answer_worst slowest[CORR_NVERDICTS];
	bool have_slowest[CORR_NVERDICTS];
	struct answer_worst top[HEADLINE_WORST]; /* the slowest that are not ok, slowest first */
	size_t ntop;
	bool any_probes, enqueue_only;
	/* the time in collectives, as the job's budget splits it (corr__job_budget) */
	uint64_t total_ns, waiting_ns, expected_ns, network_ns, unexplained_ns;
	struct answer_places waits;     /* ns waited for each rank */
	struct answer_places nets;      /* ns of the network's share on each link */
};

/* Add the collectives of C that begin in [FROM, TO) (absolute ns).  0 or -ENOMEM. */
int answer__add(struct answer *a, const struct model *m, const struct corr *c, uint64_t from, uint64_t to);
/* JOB gains W's.  0 or -ENOMEM. */
int answer__merge(struct answer *job, const struct answer *w);
/* Order the places (most first, then by name) once everything is added. */
void answer__sort(struct answer *a);
void answer__free(struct answer *a);
/* The worst to name: the slowest of each verdict that is not ok, then the slowest; slowest first. */
size_t answer__worst(const struct answer *a, const struct answer_worst **out);

/* What the "Data:" line says. */
struct headline_data {
	bool truncated;
	char truncated_why[256];
	size_t nhosts, damaged_hosts;
	uint64_t lost, skipped_runs;
	size_t coverage_unknown;    /* probes whose skipped runs could not be counted */
	const char *conservation;       /* "ok", "ok_skipped", "mismatch", "unchecked" */
	size_t nskipped, nmismatch;
	size_t nunchecked;              /* traced directions without counters at one end */
	bool window;                    /* --from/--to */
	bool windows;                   /* --windows: conservation is not checked */
};

struct headline {
	char lines[HEADLINE_MAX_LINES][HEADLINE_LINE];
	size_t nlines;
	const char *conservation;       /* "ok", "ok_skipped", "mismatch", "unchecked" */
	size_t conservation_unchecked;  /* traced interface directions not checked */
	struct answer ans;              /* what the lines say (whole captures) */
};

/* Build the headline of M (C may be NULL: no phases).  PATH names the capture in the title. */
void headline__build(struct headline *h, const struct model *m, const struct corr *c, const char *path);
/* The one renderer: TITLE, then A's lines (or NO_COLLECTIVES when it has none), then D's "Data:" line. */
void headline__lines(struct headline *h, const char *title, const struct answer *a, const char *no_collectives,
		     const struct headline_data *d);
/* One collective as the headline names it: "allreduce #25 at +2.430 s (...), 33.0 ms: RANK ...". */
const char *headline__instance(const struct model *m, const struct corr *c, const struct corr_instance *in,
			       char *buf, size_t len);
/*
 * Where an instance's blame falls: its link and queue ("link eth0@h2 (tbf 1:)")
 * when network-bound, else its straggler's label.
 */
const char *headline__place(const struct corr *c, const struct corr_instance *in, char *buf, size_t len);
/* Its lines, one per line. */
void headline__text(FILE *f, const struct headline *h);
/* The "headline" member of the report's JSON object. */
void headline__json(struct json *j, const struct headline *h);
void headline__free(struct headline *h);

#endif
