/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `report --windows DUR`: a long or merged multi-host capture reported one
 * window at a time, so that memory follows one window, not the capture.
 * Each window is loaded alone (model_opts.window, with a margin on each
 * side so that a collective near an edge is whole), correlated, and its
 * collectives that begin inside it are tallied; then it is freed.  Up to
 * `jobs` windows are loaded at once, on threads; the tallies are summed in
 * window order, so the output does not depend on their timing.  The first screen is the job's answer (verdict counts, where
 * the blame falls, the worst collectives), the job's stragglers, then one
 * line per window.
 */
#ifndef FABTRACE_REPORT_WINDOWS_H
#define FABTRACE_REPORT_WINDOWS_H

#include <stdint.h>
#include <stdio.h>
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"

#define REPORT_WINDOWS_SCHEMA "fabtrace-report-windows/1"
#define REPORT_WINDOWS_MAX_JOBS 64
/* Windows in one report: a line each, and a bogus end time (a damaged
 * capture) must not make millions of them. */
#define REPORT_WINDOWS_MAX 100000

struct report_windows_opts {
	uint64_t window_ns;          /* > 0 */
	uint64_t from_rel_ns;        /* the part of the capture to cover (report --from/--to) */
	uint64_t to_rel_ns;          /* 0: to the end */
	const struct model_opts *model;
	const struct corr_opts *corr;
	unsigned jobs;               /* windows loaded at once (threads; memory grows with it); 0 = 1 */
	bool progress;               /* a line per window on stderr */
};

/*
 * Report the capture at PATH window by window into OUT (text, or JSON with
 * o->json; o->brief: the job's answer alone).  0, or -errno with ERR set
 * (a capture that cannot be read: -EIO; -ERANGE: from_rel_ns is at or after
 * the end of the capture).
 */
int report__windows(FILE *out, const char *path, const struct report_windows_opts *wo,
		    const struct report_opts *o, char *err, size_t errlen);

#endif
