// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Which records a window keeps (model_opts.window, report --from/--to), so
 * that the model's memory follows the window and not the capture.
 *
 * Records of things (interfaces, processes, slots, names, the capture's
 * start and stop counters, totals written at stop) are always kept: they
 * are few and the window's records refer to them.  Timed records are kept
 * when they fall in the window (phases: when they overlap it).  Two kinds
 * need what came just before the window and are held back, a bounded few:
 *   - marker begins still open at the window's start (a step that began
 *     before it), per process a stack as the correlator pairs them
 *     (userspace/correlate/spans.c), given to the model at finish;
 *   - each counter group's last sample before the window and its first at
 *     or after the end, so that the intervals across both edges count.
 * Cumulative lost-event counts are kept up to the window's end; those
 * before it set the baseline (model_add.c).  A record left out still
 * extends the capture's span.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"

/* An end before the window closes the most recent open begin of its marker. */
static bool same_marker(const struct ft_phase *b, const struct ft_phase *e)
{
	if (b->pid != e->pid || b->slot != e->slot || strncmp(b->name, e->name, sizeof(b->name)) != 0)
		return false;
	return b->name[0] || b->count == e->count; /* a step: its number */
}

static int marker_before(struct mdl_window *w, const struct ft_phase *r)
{
	if (r->flags & FT_PHASE_MARK_BEGIN) {
		if (grow_array((void **)&w->open, &w->capopen, w->nopen + 1, sizeof(*w->open)))
			return -ENOMEM;
		w->open[w->nopen++] = *r;
		return 0;
	}
	for (size_t k = w->nopen; k > 0; k--)
		if (same_marker(&w->open[k - 1], r)) {
			memmove(&w->open[k - 1], &w->open[k], (w->nopen - k) * sizeof(*w->open));
			w->nopen--;
			break;
		}
	return 0;
}

/* The held sample of GROUP (NULL if none), growing the table. */
static struct mdl_held_ctr *held_ctr(struct mdl_window *w, uint32_t group)
{
	if (group >= w->nctr) {
		size_t n = (size_t)group + 1 > w->nctr * 2 ? (size_t)group + 1 : w->nctr * 2;
		struct mdl_held_ctr *t;

		if (group >= (1u << 20)) /* ids are small and dense; a damaged one is not held */
			return NULL;
		t = realloc(w->ctr, n * sizeof(*t));
		if (!t)
			return NULL;
		memset(t + w->nctr, 0, (n - w->nctr) * sizeof(*t));
		w->ctr = t;
		w->nctr = n;
	}
	return &w->ctr[group];
}

/* Feed a held sample (ADD), then forget it. */
static int release(struct model *m, struct mdl_held_ctr *h, mdl_add_fn add)
{
	int ret = 0;

	if (h->rec) {
		ret = add(m, h->rec);
		free(h->rec);
		h->rec = NULL;
	}
	return ret;
}

static int counter_sample(struct model *m, const struct ft_ctr_sample *r, uint64_t from, uint64_t to,
			  mdl_add_fn add)
{
	struct mdl_held_ctr *h = held_ctr(&m->priv->win, r->group);
	int ret;

	if (r->ts_ns < from) { /* the latest one before the window replaces the one held */
		if (!h)
			return 0;
		void *copy = malloc(r->hdr.size);

		if (!copy)
			return -ENOMEM;
		memcpy(copy, r, r->hdr.size);
		free(h->rec);
		h->rec = copy;
		return 0;
	}
	if (h && h->closed)
		return 0;
	if (h && (ret = release(m, h, add)))
		return ret;
	if (r->ts_ns >= to && h)
		h->closed = true; /* the first at or after the end closes the last interval */
	return 1;
}

int mdl_window_keep(struct model *m, const struct ft_rec_hdr *rec, mdl_add_fn add)
{
	uint64_t from = m->capture_start_ns + m->opts.window_from_ns, a, b;
	uint64_t to = m->opts.window_to_ns > m->opts.window_from_ns ? m->capture_start_ns + m->opts.window_to_ns
								     : UINT64_MAX;

	switch (rec->type) {
	case FT_REC_IFACE_BIN: a = b = ((const struct ft_iface_bin *)rec)->start_ns; break;
	case FT_REC_QDISC_BIN: a = b = ((const struct ft_qdisc_bin *)rec)->start_ns; break;
	case FT_REC_DROP: a = b = ((const struct ft_drop *)rec)->ts_ns; break;
	case FT_REC_RETRANS: a = b = ((const struct ft_retrans *)rec)->ts_ns; break;
	case FT_REC_CONG_STATE: a = b = ((const struct ft_cong_state *)rec)->ts_ns; break;
	case FT_REC_TCP_SAMPLE: a = b = ((const struct ft_tcp_sample *)rec)->ts_ns; break;
	case FT_REC_REQ_DONE: a = b = ((const struct ft_req_done *)rec)->ts_ns; break;
	case FT_REC_CTR_SAMPLE: {
		const struct ft_ctr_sample *s = (const void *)rec;

		if (s->ts_ns < from || s->ts_ns >= to)
			mdl_see_ts(m, s->ts_ns);
		return counter_sample(m, s, from, to, add);
	}
	case FT_REC_PHASE: {
		const struct ft_phase *p = (const void *)rec;

		a = p->start_ns;
		b = p->end_ns > a ? p->end_ns : a;
		if (b < from && (p->flags & (FT_PHASE_MARK_BEGIN | FT_PHASE_MARK_END))) {
			mdl_see_ts(m, b);
			return marker_before(&m->priv->win, p);
		}
		break;
	}
	case FT_REC_LOST:
		b = ((const struct ft_lost *)rec)->ts_ns;
		if (b >= to)
			mdl_see_ts(m, b);
		return b < to;
	default:
		return 1;
	}
	if (b >= from && a < to)
		return 1;
	mdl_see_ts(m, b);
	return 0;
}

int mdl_window_flush(struct model *m, mdl_add_fn add)
{
	struct mdl_window *w = &m->priv->win;
	int ret = 0;

	for (size_t i = 0; i < w->nopen && !ret; i++)
		ret = add(m, &w->open[i].hdr);
	w->nopen = 0;
	/* a sample still held had none after it: it opens no interval */
	return ret;
}

void mdl_window_free(struct mdl_window *w)
{
	free(w->open);
	for (size_t g = 0; g < w->nctr; g++)
		free(w->ctr[g].rec);
	free(w->ctr);
	memset(w, 0, sizeof(*w));
}
