// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * How well the inferred phases (inferred.c) match the
 * real collective windows from the phase probes, when a capture has both:
 * corr__compare (exposed for tests) and corr_compare_real, which takes the
 * windows of instances spanning two or more namespaces.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/corr_internal.h"

void corr__compare(struct corr_inferred *inf, size_t ninf, const struct corr_interval *real,
		   size_t nreal, struct corr_compare *cmp)
{
	uint64_t *pmax = NULL;
	uint32_t *rcount = NULL;
	uint32_t *rfirst = NULL;
	size_t nmatched = 0;
	double ssum = 0, esum = 0;

	memset(cmp, 0, sizeof(*cmp));
	cmp->nreal = nreal;
	cmp->ninferred = ninf;
	for (size_t i = 0; i < ninf; i++) {
		inf[i].matched = 0;
		inf[i].start_err_ns = inf[i].end_err_ns = 0;
	}
	if (!ninf || !nreal)
		return;
	pmax = malloc(nreal * sizeof(*pmax));
	rcount = calloc(nreal, sizeof(*rcount));
	rfirst = malloc(nreal * sizeof(*rfirst));
	if (!pmax || !rcount || !rfirst)
		goto out;
	for (size_t r = 0; r < nreal; r++)
		pmax[r] = r && pmax[r - 1] > real[r].end_ns ? pmax[r - 1] : real[r].end_ns;
	cmp->valid = true;
	for (size_t i = 0; i < ninf; i++) {
		struct corr_inferred *p = &inf[i];
		size_t lo = 0, hi = nreal;
		uint64_t us = UINT64_MAX, ue = 0;

		/* the first real window whose running max end passes the phase start */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (pmax[mid] <= p->start_ns)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t r = lo; r < nreal && real[r].start_ns < p->end_ns; r++) {
			if (real[r].end_ns <= p->start_ns && !(real[r].start_ns == real[r].end_ns &&
							       real[r].start_ns == p->start_ns))
				continue;
			if (!rcount[r])
				rfirst[r] = (uint32_t)i;
			rcount[r]++;
			p->matched++;
			if (real[r].start_ns < us)
				us = real[r].start_ns;
			if (real[r].end_ns > ue)
				ue = real[r].end_ns;
		}
		if (!p->matched)
			continue;
		p->start_err_ns = (int64_t)(p->start_ns - us);
		p->end_err_ns = (int64_t)(p->end_ns - ue);
		nmatched++;
		uint64_t as = p->start_err_ns < 0 ? (uint64_t)(-p->start_err_ns) : (uint64_t)p->start_err_ns;
		uint64_t ae = p->end_err_ns < 0 ? (uint64_t)(-p->end_err_ns) : (uint64_t)p->end_err_ns;

		if (as > cmp->max_abs_start_err_ns)
			cmp->max_abs_start_err_ns = as;
		if (ae > cmp->max_abs_end_err_ns)
			cmp->max_abs_end_err_ns = ae;
		ssum += (double)as;
		esum += (double)ae;
	}
	cmp->inferred_matched = nmatched;
	for (size_t r = 0; r < nreal; r++) {
		cmp->real_covered += rcount[r] > 0;
		if (rcount[r] == 1 && inf[rfirst[r]].matched == 1)
			cmp->one_to_one++;
	}
	cmp->mean_abs_start_err_ns = nmatched ? ssum / (double)nmatched : 0;
	cmp->mean_abs_end_err_ns = nmatched ? esum / (double)nmatched : 0;
out:
	free(pmax);
	free(rcount);
	free(rfirst);
}

/* Instances whose ranks live in two or more namespaces: their windows, by start. */
int corr_compare_real(struct corr *c)
{
	struct corr_interval *real;
	size_t n = 0;

	real = malloc((c->ninstances ? c->ninstances : 1) * sizeof(*real));
	if (!real)
		return -ENOMEM;
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		uint32_t ns0 = c->calls[c->members[in->first_member]].netns;
		bool multi = false;

		for (size_t k = 1; k < in->nmembers && !multi; k++)
			multi = c->calls[c->members[in->first_member + k]].netns != ns0;
		if (!multi)
			continue;
		real[n].start_ns = in->first_entry;
		real[n].end_ns = in->last_exit;
		n++;
	}
	corr__compare(c->inferred, c->ninferred, real, n, &c->compare);
	free(real);
	return 0;
}

