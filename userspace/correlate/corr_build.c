// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The correlator's entry point (see correlate.h): corr__build() runs
 * the stages in order (corr_internal.h lists them, one file each) and
 * corr__free() frees what they built.
 *
 * Memory is proportional to the records: one corr_call per phase record,
 * one instance per matched collective, a few index arrays.  The network
 * evidence of a window is computed from the model's sorted bins and event
 * slices with binary searches, so a window costs O(log n + its bins).
 */
#include <errno.h>
#include <stdlib.h>

#include "userspace/correlate/corr_internal.h"

static int cmp_by_span(const void *a, const void *b, void *arg)
{
	const struct corr_instance *in = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_u64(in[ib].span_ns, in[ia].span_ns);

	return c ? c : cmp_u32(ia, ib);
}


void corr__free(struct corr *c)
{
	if (!c)
		return;
	free(c->procs);
	free(c->ranks);
	free(c->rank_ops);
	free(c->calls);
	free(c->spans);
	free(c->instances);
	free(c->members);
	free(c->by_span);
	free(c->opstats);
	free(c->costs);
	free(c->iface_peer);
	free(c->iface_wire);
	corr__job_budget_free(&c->budget);
	free(c->steps);
	free(c->step_children);
	free(c->step_phases);
	free(c->marks);
	free(c->hosts);
	free(c->activity);
	free(c->inferred);
	free(c);
}

int corr__build(const struct model *m, const struct corr_opts *o, struct corr **out)
{
	struct corr *c;
	int err;

	*out = NULL;
	if (!m || !m->finished)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->m = m;
	if (o)
		c->opts = *o;
	else
		corr_opts__init(&c->opts);
	if (!(c->opts.th.skew_frac >= 0))
		c->opts.th.skew_frac = CORR_DEF_SKEW_FRAC;
	if (!(c->opts.th.slow_factor > 0))
		c->opts.th.slow_factor = CORR_DEF_SLOW_FACTOR;
	if (!(c->opts.th.util > 0))
		c->opts.th.util = CORR_DEF_UTIL;
	if (!(c->opts.th.margin >= 1))
		c->opts.th.margin = CORR_DEF_MARGIN;
	if (!(c->opts.th.explains >= 0 && c->opts.th.explains <= 1))
		c->opts.th.explains = CORR_DEF_EXPLAINS;
	c->have_probes = m->nphases > 0;
	c->show_probes = c->have_probes && c->opts.phases != CORR_PHASES_INFERRED;
	c->inferred_on = c->opts.phases == CORR_PHASES_INFERRED ||
			 (c->opts.phases == CORR_PHASES_AUTO && !c->have_probes);
	err = corr_build_procs(c);
	if (!err)
		err = corr_build_calls(c);
	/* the enqueue caveat applies when NCCL calls were traced, not merely attached */
	for (size_t i = 0; !err && i < c->ncalls; i++)
		c->enqueue_only |= (c->calls[i].flags & CORR_CALL_ENQUEUE_ONLY) != 0;
	if (!err)
		err = corr_build_spans(c);
	if (!err)
		err = corr_parent_calls(c);
	if (!err)
		err = corr_build_instances(c);
	if (!err)
		err = corr_build_opstats(c);
	if (!err)
		err = corr_verdicts(c);
	if (!err)
		err = corr_rank_stats(c);
	if (!err)
		err = corr_build_steps(c);
	if (!err && c->ninstances) {
		c->by_span = malloc(c->ninstances * sizeof(*c->by_span));
		if (!c->by_span) {
			err = -ENOMEM;
		} else {
			for (size_t i = 0; i < c->ninstances; i++)
				c->by_span[i] = (uint32_t)i;
			qsort_r(c->by_span, c->ninstances, sizeof(*c->by_span), cmp_by_span, c->instances);
			c->nby_span = c->ninstances;
		}
	}
	if (!err && c->inferred_on) {
		err = corr_infer(c);
		if (!err)
			err = corr_compare_real(c);
	}
	if (err) {
		corr__free(c);
		return err;
	}
	*out = c;
	return 0;
}

