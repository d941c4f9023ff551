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
#include "userspace/capture/capture.h"
#include "userspace/capture/records.h"
#include "userspace/model/model.h"
#include "userspace/model/model_priv.h"

/*
 * An end before the window closes the most recent open begin of its marker,
 * by the correlator's key (spans.c): a named mark by its name, a step by its
 * number.  Not by slot: the marker library's begins and ends are probes of
 * their own (step_begin, step_end), so an end never shares its begin's slot,
 * and every step that ended before the window was kept open to its end.
 */
static bool same_marker(const struct ft_phase *b, const struct ft_phase *e)
{
	if (b->pid != e->pid || strncmp(b->name, e->name, sizeof(b->name)) != 0)
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

/* The window of one mdl_window_keep(): its visitor's context. */
struct win {
	struct model *m;
	mdl_add_fn add;
	uint64_t from, to;
};

/* What the window's callbacks return: 0 keeps the record, WIN_OUT leaves it out, < 0 an error. */
#define WIN_OUT 1

static int outside(const struct win *w, uint64_t a, uint64_t b)
{
	if (b >= w->from && a < w->to)
		return 0;
	mdl_see_ts(w->m, b);
	return WIN_OUT;
}

static int counter_sample(void *ctx, const struct ft_ctr_sample *r)
{
	const struct win *w = ctx;
	struct model *m = w->m;
	struct mdl_held_ctr *h = held_ctr(&m->priv->win, r->group);
	int ret;

	if (r->ts_ns < w->from || r->ts_ns >= w->to)
		mdl_see_ts(m, r->ts_ns);
	if (r->ts_ns < w->from) { /* the latest one before the window replaces the one held */
		if (!h)
			return WIN_OUT;
		void *copy = malloc(r->hdr.size);

		if (!copy)
			return -ENOMEM;
		memcpy(copy, r, r->hdr.size);
		free(h->rec);
		h->rec = copy;
		return WIN_OUT;
	}
	if (h && h->closed)
		return WIN_OUT;
	if (h && (ret = release(m, h, w->add)))
		return ret;
	if (r->ts_ns >= w->to && h)
		h->closed = true; /* the first at or after the end closes the last interval */
	return 0;
}

static int phase(void *ctx, const struct ft_phase *r)
{
	const struct win *w = ctx;
	uint64_t a = r->start_ns, b = r->end_ns > a ? r->end_ns : a;

	if (b < w->from && (r->flags & (FT_PHASE_MARK_BEGIN | FT_PHASE_MARK_END))) {
		int ret;

		mdl_see_ts(w->m, b);
		ret = marker_before(&w->m->priv->win, r);
		return ret ? ret : WIN_OUT;
	}
	return outside(w, a, b);
}

static int lost(void *ctx, const struct ft_lost *r)
{
	const struct win *w = ctx;

	if (r->ts_ns < w->to)
		return 0;
	mdl_see_ts(w->m, r->ts_ns);
	return WIN_OUT;
}

/* Events kept only inside the window, by their time or interval (records.h's field map). */
#define WIN_TIMED (1ull << FT_REC_IFACE_BIN | 1ull << FT_REC_QDISC_BIN | 1ull << FT_REC_DROP |   \
		   1ull << FT_REC_RETRANS | 1ull << FT_REC_CONG_STATE | 1ull << FT_REC_TCP_SAMPLE | \
		   1ull << FT_REC_REQ_DONE | 1ull << FT_REC_SCHED_WAIT)

int mdl_window_keep(struct model *m, const struct ft_rec_hdr *rec, mdl_add_fn add)
{
	static const struct capture_visitor v = { .ctr_sample = counter_sample, .phase = phase, .lost = lost };
	struct win w = { .m = m, .add = add, .from = m->capture_start_ns + m->opts.window_from_ns };
	int ret;

	w.to = m->opts.window_to_ns > m->opts.window_from_ns ? m->capture_start_ns + m->opts.window_to_ns
							      : UINT64_MAX;
	if (rec->type < CAPTURE_REC_TYPES && ((WIN_TIMED >> rec->type) & 1)) {
		uint64_t t[2];

		capture__rec_times(rec, t);
		ret = outside(&w, t[0], t[1] > t[0] ? t[1] : t[0]); /* an interval (a run-queue wait's) by both ends */
	} else {
		ret = capture__dispatch(&v, &w, rec); /* the rest: always kept */
	}
	return ret < 0 ? ret : ret != WIN_OUT;
}

/*
 * Which blocks of the index (model_opts.blocks) this window passes over:
 * those whose every record mdl_window_keep() would leave out, with no
 * effect but the capture's span (kept apart: mdl_window_skips()).
 *   - Before the window (every time before it): timed events, phases but
 *     the markers (held), counter samples of groups a later such block
 *     also samples (that one's replace them as the held ones).  Not lost
 *     events (their counts before the window are its baseline).
 *   - After the window (every first time at or after its end): timed
 *     events, phases, lost events, counter samples of groups an earlier
 *     such block samples (that one's close the last interval).
 * Things (interfaces, processes, names...) are always read.  The markers
 * of a block before the window come from the index (mdl_window_holds()
 * chose them as it was filled), when it could keep them all.
 */
#define WIN_PASSABLE (WIN_TIMED | 1ull << FT_REC_PHASE | 1ull << FT_REC_CTR_SAMPLE | 1ull << FT_REC_LOST)

int mdl_window_plan(struct model *m)
{
	const struct capture_block_index *idx = m->opts.blocks;
	struct mdl_window *w = &m->priv->win;
	uint64_t from = m->capture_start_ns + m->opts.window_from_ns;
	uint64_t to = m->opts.window_to_ns > m->opts.window_from_ns ? m->capture_start_ns + m->opts.window_to_ns
								      : UINT64_MAX;
	uint64_t later = 0, earlier = 0; /* counter groups sampled by the blocks before, after the window */

	free(w->pass);
	w->pass = calloc(idx->n ? idx->n : 1, 1);
	if (!w->pass)
		return -ENOMEM;
	for (size_t i = idx->n; i-- > 0;) {
		const struct capture_block_sum *b = &idx->b[i];

		if (b->min_ns > b->max_ns || b->max_ns >= from || (b->types & ~WIN_PASSABLE))
			continue;
		if (!(b->types & 1ull << FT_REC_LOST) &&
		    (!(b->types & 1ull << FT_REC_CTR_SAMPLE) || ((b->groups & ~later) == 0 && !(b->groups >> 63))))
			/* its markers (mdl_window_holds) from the index, when it has them all */
			w->pass[i] = !(b->phase_flags & (FT_PHASE_MARK_BEGIN | FT_PHASE_MARK_END)) ? CAPTURE_BLOCK_PASS
				     : b->kept_all					      ? CAPTURE_BLOCK_KEPT
											      : CAPTURE_BLOCK_READ;
		if (b->types & 1ull << FT_REC_CTR_SAMPLE)
			later |= b->groups;
	}
	for (size_t i = 0; i < idx->n; i++) {
		const struct capture_block_sum *b = &idx->b[i];

		if (b->min_ns > b->max_ns || b->min_ns < to || (b->types & ~WIN_PASSABLE))
			continue;
		if (!(b->types & 1ull << FT_REC_CTR_SAMPLE) || ((b->groups & ~earlier) == 0 && !(b->groups >> 63)))
			w->pass[i] = CAPTURE_BLOCK_PASS;
		if (b->types & 1ull << FT_REC_CTR_SAMPLE)
			earlier |= b->groups;
	}
	return 0;
}

enum capture_block_use mdl_window_skips(void *model, const struct capture_block_sum *b)
{
	struct model *m = model;
	const struct capture_block_index *idx = m->opts.blocks;
	size_t i = (size_t)(b - idx->b);
	enum capture_block_use use = i < idx->n && m->priv->win.pass ? m->priv->win.pass[i] : CAPTURE_BLOCK_READ;

	if (use == CAPTURE_BLOCK_READ)
		return use; /* the plan gives KEPT only to a block that kept all its markers */
	/* what mdl_window_keep() and model__add() did for each record left out */
	mdl_see_ts(m, b->max_ns);
	m->records += b->nrec - (use == CAPTURE_BLOCK_KEPT ? b->nkept : 0);
	return use;
}

bool mdl_window_holds(const struct ft_rec_hdr *rec)
{
	const struct ft_phase *p = (const void *)rec;

	return rec->type == FT_REC_PHASE && (p->flags & (FT_PHASE_MARK_BEGIN | FT_PHASE_MARK_END));
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
	free(w->pass);
	memset(w, 0, sizeof(*w));
}
