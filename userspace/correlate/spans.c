// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Stage 3 of corr__build(): marker spans (fabtrace_step_begin/end,
 * fabtrace_phase_begin/end) paired per pid and nested, and then the innermost
 * span and step around each call (corr_parent_calls).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/correlate/corr_internal.h"
#include "lib/util.h"

static bool span_key_eq(const struct corr_span *s, uint32_t kind, uint64_t step, const char *name)
{
	if (s->kind != kind)
		return false;
	return kind == CORR_SPAN_STEP ? s->step == step : !strncmp(s->name, name, sizeof(s->name));
}

/*
 * Per pid, in time order: a begin opens a span inside the innermost open
 * one; an end closes the most recent open span with the same key (step
 * number or name), which need not be the innermost (overlap is allowed).
 */
/*
 * Where a span still open at the end ends: where the phase probes stopped
 * (END's stop_ago_ns), not after the recorder's shutdown that follows it;
 * the capture's end when the stop is not known.
 */
static uint64_t phases_end_ns(const struct model *m)
{
	uint64_t end = m->end_ns;

	if (m->have_end && m->end.stop_ago_ns && m->end.ts_ns > m->end.stop_ago_ns &&
	    m->end.ts_ns - m->end.stop_ago_ns < end)
		end = m->end.ts_ns - m->end.stop_ago_ns;
	return end;
}

int corr_build_spans(struct corr *c)
{
	const struct model *m = c->m;
	const uint64_t phases_end = phases_end_ns(m);
	size_t n = 0, sp = 0, cap = 0;
	uint32_t *stack = NULL;
	uint32_t pid = 0;
	bool have_pid = false;

	for (size_t i = 0; i < m->nphases; i++)
		n += (m->phases[i].flags & FT_PHASE_MARK_BEGIN) != 0;
	c->spans = calloc(n ? n : 1, sizeof(*c->spans));
	if (!c->spans)
		return -ENOMEM;
	for (size_t i = 0; i < m->nphases; i++) {
		const struct model_phase *p = &m->phases[i];
		const struct model_slot *s = model__slot(m, p->slot);
		uint32_t kind;
		char name[32];

		if (!corr_is_marker(p, s) || !(p->flags & (FT_PHASE_MARK_BEGIN | FT_PHASE_MARK_END)))
			continue;
		if (!have_pid || p->pid != pid) {
			/* a new pid: what is still open stays open to the end */
			sp = 0;
			pid = p->pid;
			have_pid = true;
		}
		kind = (s && s->op == FT_OP_STEP) || (!s && !p->name[0]) ? CORR_SPAN_STEP : CORR_SPAN_MARK;
		memcpy(name, p->name, sizeof(name));
		name[sizeof(name) - 1] = '\0';
		if (p->flags & FT_PHASE_MARK_BEGIN) {
			struct corr_span *x = &c->spans[c->nspans];
			const struct corr_proc *pr = corr_proc_of(c, p->pid);

			memset(x, 0, sizeof(*x));
			x->kind = kind;
			x->pid = p->pid;
			x->rank = pr ? pr->rank : CORR_NONE;
			x->step = kind == CORR_SPAN_STEP ? p->count : 0;
			if (kind == CORR_SPAN_MARK)
				memcpy(x->name, name, sizeof(x->name));
			x->start_ns = p->start_ns;
			x->end_ns = phases_end > p->start_ns ? phases_end : p->start_ns;
			x->open = true;
			x->parent = sp ? stack[sp - 1] : CORR_NONE;
			x->depth = sp ? c->spans[stack[sp - 1]].depth + 1 : 0;
			x->step_of = kind == CORR_SPAN_STEP ? (int64_t)x->step :
				     sp ? c->spans[stack[sp - 1]].step_of : -1;
			if (grow_array((void **)&stack, &cap, sp + 1, sizeof(*stack))) {
				free(stack);
				return -ENOMEM;
			}
			stack[sp++] = (uint32_t)c->nspans++;
		} else {
			size_t k = sp;

			while (k > 0 && !span_key_eq(&c->spans[stack[k - 1]], kind, p->count, name))
				k--;
			if (!k) {
				c->unmatched_ends++;
				continue;
			}
			c->spans[stack[k - 1]].end_ns = p->start_ns;
			c->spans[stack[k - 1]].open = false;
			memmove(&stack[k - 1], &stack[k], (sp - k) * sizeof(*stack));
			sp--;
		}
	}
	free(stack);
	return 0;
}

/* The innermost span around each call's entry, and the step around it. */
int corr_parent_calls(struct corr *c)
{
	size_t si = 0, sp = 0, cap = 0;
	uint32_t *stack = NULL;

	for (size_t i = 0; i < c->ncalls; i++) {
		struct corr_call *k = &c->calls[i];

		if (!i || c->calls[i - 1].pid != k->pid) {
			sp = 0;
			while (si < c->nspans && c->spans[si].pid < k->pid)
				si++;
		}
		while (si < c->nspans && c->spans[si].pid == k->pid && c->spans[si].start_ns <= k->start_ns) {
			while (sp && c->spans[stack[sp - 1]].end_ns < c->spans[si].start_ns)
				sp--;
			if (grow_array((void **)&stack, &cap, sp + 1, sizeof(*stack))) {
				free(stack);
				return -ENOMEM;
			}
			stack[sp++] = (uint32_t)si++;
		}
		while (sp && c->spans[stack[sp - 1]].end_ns < k->start_ns)
			sp--;
		if (sp) {
			k->span = stack[sp - 1];
			k->step = c->spans[k->span].step_of;
		}
	}
	free(stack);
	return 0;
}

