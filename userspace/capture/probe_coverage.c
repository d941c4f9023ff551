// SPDX-License-Identifier: GPL-2.0-or-later
/* The probes' coverage over a capture (probe_coverage.h). */
#include "userspace/capture/probe_coverage.h"

void capture__cov_add(struct capture_cov *e, bool first, const struct ft_coverage *r)
{
	/* one per probe at the stop, from each host of a merged capture: their
	 * sum; known only when every host's hits were counted */
	e->known = (first || e->known) && r->known ? 1 : 0;
	e->hits = e->known ? e->hits + r->hits : 0;
	e->runs += r->runs;
	/* each host's own shortfall: one with runs over hits hides no other's */
	e->skipped = e->known ? e->skipped + (r->hits > r->runs ? r->hits - r->runs : 0) : 0;
}

enum capture_cov_state capture__cov_state(const struct capture_cov *c, size_t n, uint64_t *skipped,
					  size_t *unknown)
{
	*skipped = 0;
	*unknown = 0;
	for (size_t i = 0; i < n; i++) {
		*skipped += c[i].known ? c[i].skipped : 0;
		*unknown += !c[i].known;
	}
	if (!n)
		return CAPTURE_COV_UNKNOWN;
	if (*skipped)
		return CAPTURE_COV_INCOMPLETE;
	return *unknown ? CAPTURE_COV_PARTIAL : CAPTURE_COV_COMPLETE;
}

const char *capture__cov_state_name(enum capture_cov_state s)
{
	static const char *const names[] = {
		[CAPTURE_COV_UNKNOWN] = "unknown",
		[CAPTURE_COV_COMPLETE] = "complete",
		[CAPTURE_COV_PARTIAL] = "partial",
		[CAPTURE_COV_INCOMPLETE] = "incomplete",
	};

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}
