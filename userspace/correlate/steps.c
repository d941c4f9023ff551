// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stage 8 of corr__build(): steps and named phases across ranks.
 * Step spans of the same number become a corr_step with its collectives and
 * the named phases inside it; named phases are summed per name (corr.marks).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/corr_internal.h"

static int cmp_span_step(const void *a, const void *b, void *arg)
{
	const struct corr_span *s = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_u64(s[ia].step, s[ib].step);

	if (!c)
		c = cmp_u64(s[ia].start_ns, s[ib].start_ns);
	return c ? c : cmp_u32(ia, ib);
}

static int cmp_span_name(const void *a, const void *b, void *arg)
{
	const struct corr_span *s = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = strncmp(s[ia].name, s[ib].name, sizeof(s[ia].name));

	if (!c)
		c = cmp_u32(s[ia].pid, s[ib].pid);
	return c ? c : cmp_u32(ia, ib);
}

static int cmp_span_step_name(const void *a, const void *b, void *arg)
{
	const struct corr_span *s = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_i64(s[ia].step_of, s[ib].step_of);

	if (!c)
		c = strncmp(s[ia].name, s[ib].name, sizeof(s[ia].name));
	return c ? c : cmp_u32(ia, ib);
}

static int cmp_inst_step(const void *a, const void *b, void *arg)
{
	const struct corr_instance *in = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	int c = cmp_i64(in[ia].step, in[ib].step);

	return c ? c : cmp_u32(ia, ib); /* instances are sorted by entry */
}

int corr_build_steps(struct corr *c)
{
	uint32_t *ix = NULL;
	size_t n = 0, k;
	int err = -ENOMEM;

	if (!c->nspans && !c->ninstances)
		return 0;
	ix = malloc((c->nspans > c->ninstances ? c->nspans : c->ninstances) * sizeof(*ix) + sizeof(*ix));
	if (!ix)
		return -ENOMEM;

	/* steps */
	for (size_t i = 0; i < c->nspans; i++)
		if (c->spans[i].kind == CORR_SPAN_STEP)
			ix[n++] = (uint32_t)i;
	if (n) {
		qsort_r(ix, n, sizeof(*ix), cmp_span_step, c->spans);
		size_t ns = 0;

		for (size_t i = 0; i < n; i++)
			ns += !i || c->spans[ix[i]].step != c->spans[ix[i - 1]].step;
		c->steps = calloc(ns, sizeof(*c->steps));
		if (!c->steps)
			goto out;
		for (size_t i = 0; i < n;) {
			struct corr_step *st = &c->steps[c->nsteps++];
			size_t j = i;
			uint64_t sum = 0;

			st->step = c->spans[ix[i]].step;
			st->start_ns = UINT64_MAX;
			while (j < n && c->spans[ix[j]].step == st->step) {
				const struct corr_span *s = &c->spans[ix[j]];
				uint64_t d = dur(s->start_ns, s->end_ns);

				if (s->start_ns < st->start_ns)
					st->start_ns = s->start_ns;
				if (s->end_ns > st->end_ns)
					st->end_ns = s->end_ns;
				st->open |= s->open;
				sum += d;
				if (d > st->dur_max_ns)
					st->dur_max_ns = d;
				j++;
			}
			st->nranks = (uint32_t)(j - i);
			st->dur_mean_ns = sum / (j - i);
			i = j;
		}
	}

	/* collectives of each step, by entry */
	n = 0;
	for (size_t i = 0; i < c->ninstances; i++)
		if (c->instances[i].step >= 0)
			ix[n++] = (uint32_t)i;
	if (n && c->nsteps) {
		qsort_r(ix, n, sizeof(*ix), cmp_inst_step, c->instances);
		c->step_children = malloc(n * sizeof(*c->step_children));
		if (!c->step_children)
			goto out;
		k = 0;
		for (size_t s = 0; s < c->nsteps; s++) {
			struct corr_step *st = &c->steps[s];

			while (k < n && c->instances[ix[k]].step < (int64_t)st->step)
				k++;
			st->first_child = c->nstep_children;
			while (k < n && c->instances[ix[k]].step == (int64_t)st->step)
				c->step_children[c->nstep_children++] = ix[k++];
			st->nchildren = c->nstep_children - st->first_child;
		}
	}

	/* named phases inside each step */
	n = 0;
	for (size_t i = 0; i < c->nspans; i++)
		if (c->spans[i].kind == CORR_SPAN_MARK && c->spans[i].step_of >= 0)
			ix[n++] = (uint32_t)i;
	if (n && c->nsteps) {
		qsort_r(ix, n, sizeof(*ix), cmp_span_step_name, c->spans);
		c->step_phases = calloc(n, sizeof(*c->step_phases));
		if (!c->step_phases)
			goto out;
		k = 0;
		for (size_t s = 0; s < c->nsteps; s++) {
			struct corr_step *st = &c->steps[s];

			while (k < n && c->spans[ix[k]].step_of < (int64_t)st->step)
				k++;
			st->first_phase = c->nstep_phases;
			while (k < n && c->spans[ix[k]].step_of == (int64_t)st->step) {
				const struct corr_span *sp = &c->spans[ix[k]];
				struct corr_step_phase *ph;
				uint64_t d = dur(sp->start_ns, sp->end_ns);

				if (c->nstep_phases == st->first_phase ||
				    strncmp(c->step_phases[c->nstep_phases - 1].name, sp->name, sizeof(sp->name)) != 0) {
					ph = &c->step_phases[c->nstep_phases++];
					memcpy(ph->name, sp->name, sizeof(ph->name));
				}
				ph = &c->step_phases[c->nstep_phases - 1];
				ph->count++;
				ph->total_ns += d;
				if (d > ph->max_ns)
					ph->max_ns = d;
				k++;
			}
			st->nphases = c->nstep_phases - st->first_phase;
		}
	}

	/* named phases overall */
	n = 0;
	for (size_t i = 0; i < c->nspans; i++)
		if (c->spans[i].kind == CORR_SPAN_MARK)
			ix[n++] = (uint32_t)i;
	if (n) {
		qsort_r(ix, n, sizeof(*ix), cmp_span_name, c->spans);
		c->marks = calloc(n, sizeof(*c->marks));
		if (!c->marks)
			goto out;
		for (size_t i = 0; i < n; i++) {
			const struct corr_span *sp = &c->spans[ix[i]];
			struct corr_mark *mk;
			uint64_t d = dur(sp->start_ns, sp->end_ns);

			if (!i || strncmp(c->spans[ix[i - 1]].name, sp->name, sizeof(sp->name)) != 0) {
				mk = &c->marks[c->nmarks++];
				memcpy(mk->name, sp->name, sizeof(mk->name));
			}
			mk = &c->marks[c->nmarks - 1];
			mk->count++;
			mk->total_ns += d;
			if (d > mk->max_ns)
				mk->max_ns = d;
			mk->open += sp->open;
			if (!i || strncmp(c->spans[ix[i - 1]].name, sp->name, sizeof(sp->name)) != 0 ||
			    c->spans[ix[i - 1]].pid != sp->pid)
				mk->nranks++;
		}
	}
	err = 0;
out:
	free(ix);
	return err;
}

