/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The probes' coverage over a capture (FT_REC_COVERAGE records,
 * docs/capture-format.md): tracepoint hits their programs did not see.  One
 * sum of the records and one state, for `info` and the report alike.
 */
#ifndef FABTRACE_PROBE_COVERAGE_H
#define FABTRACE_PROBE_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"

/* Coverage of one probe, summed over the hosts of a merged capture. */
struct capture_cov {
	uint32_t probe;             /* enum ft_probe_id */
	uint32_t known;             /* 1 = hits counted (on every host); 0 = unknown */
	uint64_t hits, runs;
	uint64_t skipped;           /* hits - runs, clamped at 0 per host; 0 when unknown */
};

enum capture_cov_state {
	CAPTURE_COV_UNKNOWN = 0,    /* no coverage records */
	CAPTURE_COV_COMPLETE,       /* every tracepoint hit ran its program */
	CAPTURE_COV_PARTIAL,        /* complete for the probes counted, unknown for the others */
	CAPTURE_COV_INCOMPLETE,     /* the kernel skipped probe runs */
};

/* Fold one host's record R of E's probe into E (FIRST: E is new, zeroed). */
void capture__cov_add(struct capture_cov *e, bool first, const struct ft_coverage *r);
/*
 * The state of N probes' coverage C; *SKIPPED gets the probe runs the
 * kernel skipped, *UNKNOWN the probes whose hits were not counted.
 */
enum capture_cov_state capture__cov_state(const struct capture_cov *c, size_t n, uint64_t *skipped,
					  size_t *unknown);
/* "unknown", "complete", "partial", "incomplete" (JSON's coverage_status) */
const char *capture__cov_state_name(enum capture_cov_state s);

#endif
