// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers shared by the renderers: the window, hosts, the items of a rank
 * row and their packing into nested lanes, the cause of a collective's time,
 * and escaping for JSON and XML.  See viz/common.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "viz/common.h"

#define MS 1000000ull

/* By meaning: ok green, network vermilion, rank purple, unknown grey; a letter where colour is lost. */
static const struct {
	const char *colour, *glyph;
} verdict_style[CORR_NVERDICTS] = {
	[CORR_OK] = { VIZ_C_GREEN, "" },
	[CORR_NETWORK] = { VIZ_C_VERMILION, "N" },
	[CORR_RANK] = { VIZ_C_PURPLE, "R" },
	[CORR_UNKNOWN] = { VIZ_C_GREY, "?" },
};

const char *viz__verdict_colour(enum corr_verdict v)
{
	return verdict_style[(unsigned)v < CORR_NVERDICTS ? v : CORR_UNKNOWN].colour;
}

const char *viz__verdict_glyph(enum corr_verdict v)
{
	return verdict_style[(unsigned)v < CORR_NVERDICTS ? v : CORR_UNKNOWN].glyph;
}

void viz__window(const struct viz_ctx *v, bool focus, uint64_t *from, uint64_t *to)
{
	const struct model *m = v->m;
	const struct corr *c = v->c;
	uint64_t a = m->start_ns, b = m->end_ns > m->start_ns ? m->end_ns : m->start_ns + 1;

	if (v->from_ns || v->to_ns) {
		*from = v->from_ns;
		*to = v->to_ns > v->from_ns ? v->to_ns : v->from_ns + 1;
		return;
	}
	if (focus && c && c->nby_span) {
		const struct corr_instance *in = &c->instances[c->by_span[0]];
		/* one span of context each side shows what came before and after */
		uint64_t pad = in->span_ns > MS ? in->span_ns : MS;
		uint64_t x = in->first_entry > a + pad ? in->first_entry - pad : a;
		uint64_t y = in->last_exit + pad < b ? in->last_exit + pad : b;

		if (y > x) {
			a = x;
			b = y;
		}
	}
	*from = a;
	*to = b;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

static int host_add(struct viz_hosts *h, size_t *cap, const char *name)
{
	if (grow_array((void **)&h->name, cap, h->n + 1, sizeof(*h->name)))
		return -ENOMEM;
	snprintf(h->name[h->n++], sizeof(h->name[0]), "%s", name);
	return 0;
}

int viz__hosts(const struct viz_ctx *v, struct viz_hosts *h)
{
	const struct model *m = v->m;
	char buf[64];
	size_t cap = 0, k = 0;

	memset(h, 0, sizeof(*h));
	for (size_t i = 0; v->c && i < v->c->nranks; i++)
		if (host_add(h, &cap, v->c->ranks[i].host))
			goto nomem;
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *f = &m->ifaces[i];

		if ((f->known && (f->flags & FT_IFACE_TRACED)) || f->dir[0].nbins || f->dir[1].nbins)
			if (host_add(h, &cap, model__host_name(m, f->netns, buf, sizeof(buf))))
				goto nomem;
	}
	for (size_t i = 0; i < m->nflows; i++)
		if (m->flows[i].nrtx && host_add(h, &cap, model__host_name(m, m->flows[i].key.netns, buf, sizeof(buf))))
			goto nomem;
	if (!h->n)
		return 0;
	qsort(h->name, h->n, sizeof(*h->name), cmp_name);
	for (size_t i = 0; i < h->n; i++)
		if (!k || strcmp(h->name[k - 1], h->name[i]) != 0)
			memmove(h->name[k++], h->name[i], sizeof(h->name[0]));
	h->n = k;
	return 0;
nomem:
	viz__hosts_free(h);
	return -ENOMEM;
}

void viz__hosts_free(struct viz_hosts *h)
{
	free(h->name);
	h->name = NULL;
	h->n = 0;
}

size_t viz__host_index(const struct viz_hosts *h, const char *name)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = strcmp(h->name[mid], name);

		if (!r)
			return mid;
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return h->n;
}

const char *viz__rank_label(const struct corr *c, uint32_t r, char *buf, size_t len)
{
	return corr__rank_name(c, r, false, buf, len); /* the timelines are narrow: no pid */
}

const char *viz__call_op(const struct corr *c, const struct corr_call *k)
{
	const struct model_slot *s;

	if (k->op != FT_OP_NONE && k->op != FT_OP_CUSTOM && k->op < FT_OP_MAX)
		return corr__op_name(k->op);
	s = model__slot(c->m, k->slot);
	return s && s->name[0] ? s->name : "call";
}

uint32_t viz__call_op_index(const struct model *m, const struct corr_call *k)
{
	const struct model_slot *s;

	if (k->op != FT_OP_CUSTOM || !(s = model__slot(m, k->slot)) || s->custom == UINT32_MAX)
		return k->op;
	return FT_OP_MAX + s->custom;
}

void viz__custom_names(const struct model *m, void (*fn)(void *ctx, const char *name), void *ctx)
{
	char name[sizeof(m->slots[0].name) + 1];

	for (size_t i = 0; i < m->nslots; i++)
		if (m->slots[i].custom != UINT32_MAX) { /* in custom order: the slots' own */
			snprintf(name, sizeof(name), "%.*s", (int)sizeof(m->slots[i].name), m->slots[i].name);
			fn(ctx, name);
		}
}

const char *viz__item_name(const struct corr *c, const struct viz_item *it, char *buf, size_t len)
{
	switch (it->kind) {
	case VIZ_STEP:
		snprintf(buf, len, "step %" PRIu64, c->spans[it->ref].step);
		break;
	case VIZ_MARK:
		snprintf(buf, len, "%.*s", (int)sizeof(c->spans[it->ref].name), c->spans[it->ref].name);
		break;
	case VIZ_CALL:
		snprintf(buf, len, "%s", viz__call_op(c, &c->calls[it->ref]));
		break;
	case VIZ_WAIT:
		snprintf(buf, len, "wait");
		break;
	default:
		snprintf(buf, len, "transfer");
		break;
	}
	return buf;
}

/* ---- items of a rank ---- */

struct item_set {
	struct viz_item *v;
	size_t n, cap;
	uint64_t from, to;
};

/* Add [start, end) clipped to the window; the new index, or UINT32_MAX when outside (or -ENOMEM in *err). */
static uint32_t item_add(struct item_set *s, uint64_t start, uint64_t end, unsigned kind, uint32_t ref,
			 uint32_t depth, uint32_t parent, int *err)
{
	struct viz_item *it;

	if (end < start)
		end = start;
	if (!viz__visible(start, end, s->from, s->to))
		return UINT32_MAX;
	if (grow_array((void **)&s->v, &s->cap, s->n + 1, sizeof(*s->v))) {
		*err = -ENOMEM;
		return UINT32_MAX;
	}
	it = &s->v[s->n];
	it->start = start > s->from ? start : s->from;
	it->end = end < s->to ? end : s->to;
	it->kind = kind;
	it->ref = ref;
	it->depth = depth;
	it->parent = parent;
	it->lane = (uint32_t)s->n; /* the index before sorting, until viz__lanes() */
	return (uint32_t)s->n++;
}

bool viz__visible(uint64_t start, uint64_t end, uint64_t from, uint64_t to)
{
	if (end < start)
		end = start;
	return !(start >= to || end < from || (end == from && end > start));
}

static int cmp_item(const void *a, const void *b)
{
	const struct viz_item *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->lane < y->lane ? -1 : x->lane > y->lane;
}

int viz__rank_items(const struct corr *c, uint32_t r, uint64_t from, uint64_t to,
		    struct viz_item **out, size_t *n)
{
	struct item_set s = { .from = from, .to = to };
	uint32_t pid = c->ranks[r].pid, *span_item = NULL, *inv = NULL;
	size_t s0 = 0, s1, nspan;
	int err = 0;

	*out = NULL;
	*n = 0;
	/* spans and calls are sorted by pid first: this rank's are one run of each */
	while (s0 < c->nspans && c->spans[s0].pid != pid)
		s0++;
	s1 = s0;
	while (s1 < c->nspans && c->spans[s1].pid == pid)
		s1++;
	nspan = s1 - s0;
	span_item = malloc((nspan ? nspan : 1) * sizeof(*span_item));
	if (!span_item)
		return -ENOMEM;
	for (size_t i = s0; i < s1; i++) {
		const struct corr_span *sp = &c->spans[i];
		uint32_t parent = sp->parent != CORR_NONE && sp->parent >= s0 && sp->parent < i ?
				  span_item[sp->parent - s0] : UINT32_MAX;

		span_item[i - s0] = item_add(&s, sp->start_ns, sp->end_ns,
					     sp->kind == CORR_SPAN_STEP ? VIZ_STEP : VIZ_MARK, (uint32_t)i,
					     sp->depth, parent, &err);
	}
	for (size_t i = 0; !err && i < c->ncalls; i++) {
		const struct corr_call *k = &c->calls[i];
		uint32_t depth = 0, parent = UINT32_MAX, me;

		if (k->rank != r)
			continue;
		if (k->span != CORR_NONE && k->span >= s0 && k->span < s1) {
			depth = c->spans[k->span].depth + 1;
			parent = span_item[k->span - s0];
		}
		me = item_add(&s, k->start_ns, k->end_ns, VIZ_CALL, (uint32_t)i, depth, parent, &err);
		if (me == UINT32_MAX || k->instance == CORR_NONE)
			continue;
		{
			uint64_t last = c->instances[k->instance].last_entry;
			uint64_t w_end = last < k->end_ns ? last : k->end_ns;
			uint64_t x_start = last > k->start_ns ? last : k->start_ns;

			if (w_end > k->start_ns)
				item_add(&s, k->start_ns, w_end, VIZ_WAIT, (uint32_t)i, depth + 1, me, &err);
			if (k->end_ns > x_start)
				item_add(&s, x_start, k->end_ns, VIZ_XFER, (uint32_t)i, depth + 1, me, &err);
		}
	}
	free(span_item);
	if (err || !s.n) {
		free(s.v);
		return err;
	}
	/* sort, then point the parents at the sorted positions */
	inv = malloc(s.n * sizeof(*inv));
	if (!inv) {
		free(s.v);
		return -ENOMEM;
	}
	qsort(s.v, s.n, sizeof(*s.v), cmp_item);
	for (size_t i = 0; i < s.n; i++)
		inv[s.v[i].lane] = (uint32_t)i;
	for (size_t i = 0; i < s.n; i++) {
		if (s.v[i].parent != UINT32_MAX)
			s.v[i].parent = inv[s.v[i].parent];
		s.v[i].lane = 0;
	}
	free(inv);
	*out = s.v;
	*n = s.n;
	return 0;
}

struct lane_stack {
	uint32_t *st;
	size_t n, cap;
};

/* Does item I fit in lane L?  Items that ended by its start are closed on the way. */
static bool lane_fits(const struct viz_item *it, struct lane_stack *l, uint32_t i)
{
	/* items are sorted by start: one that ended by this start is closed for every later item too */
	while (l->n && it[l->st[l->n - 1]].end <= it[i].start)
		l->n--;
	return !l->n || it[l->st[l->n - 1]].end >= it[i].end;
}

int viz__lanes(struct viz_item *it, size_t n)
{
	struct lane_stack *ln = NULL;
	size_t nl = 0, capl = 0;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		uint32_t pl = it[i].parent != UINT32_MAX ? it[it[i].parent].lane : 0, chosen = UINT32_MAX;
		struct lane_stack *l;

		if (pl < nl && lane_fits(it, &ln[pl], (uint32_t)i))
			chosen = pl;
		for (uint32_t k = 0; chosen == UINT32_MAX && k < nl; k++)
			if (k != pl && lane_fits(it, &ln[k], (uint32_t)i))
				chosen = k;
		if (chosen == UINT32_MAX) {
			if (grow_array((void **)&ln, &capl, nl + 1, sizeof(*ln))) {
				err = -ENOMEM;
				break;
			}
			memset(&ln[nl], 0, sizeof(ln[nl]));
			chosen = (uint32_t)nl++;
		}
		l = &ln[chosen];
		if (grow_array((void **)&l->st, &l->cap, l->n + 1, sizeof(*l->st))) {
			err = -ENOMEM;
			break;
		}
		l->st[l->n++] = (uint32_t)i;
		it[i].lane = chosen;
	}
	for (size_t k = 0; k < nl; k++)
		free(ln[k].st);
	free(ln);
	return err ? err : (int)nl;
}

int viz__rank_lanes(const struct corr *c, uint32_t r, uint64_t from, uint64_t to,
		    struct viz_item **out, size_t *n)
{
	int lanes, err = viz__rank_items(c, r, from, to, out, n);

	if (err)
		return err;
	lanes = viz__lanes(*out, *n);
	if (lanes < 0) {
		free(*out);
		*out = NULL;
	}
	return lanes;
}

void viz__walk_lane(const struct viz_item *it, size_t n, uint32_t lane,
		    void (*open)(void *arg, const struct viz_item *it),
		    void (*close)(void *arg, const struct viz_item *it), void *arg)
{
	struct lane_stack st = { 0 };

	for (size_t i = 0; i < n; i++) {
		if (it[i].lane != lane)
			continue;
		while (st.n && it[st.st[st.n - 1]].end <= it[i].start)
			close(arg, &it[st.st[--st.n]]);
		if (grow_array((void **)&st.st, &st.cap, st.n + 1, sizeof(*st.st))) {
			/* no memory for the stack: emit the item on its own, still balanced */
			open(arg, &it[i]);
			close(arg, &it[i]);
			continue;
		}
		st.st[st.n++] = (uint32_t)i;
		open(arg, &it[i]);
	}
	while (st.n)
		close(arg, &it[st.st[--st.n]]);
	free(st.st);
}

/* ---- causes ---- */

/* "shaper eth0@h2": an item's kind and the wire it was on (by its host's end). */
static const char *item_cause(const struct corr *c, unsigned kind, uint32_t iface, char *buf, size_t len)
{
	uint32_t w = corr__wire(c, iface);

	if (w != CORR_NONE && w < c->m->nifaces)
		snprintf(buf, len, "%s %s", corr__cost_cause(kind), c->m->ifaces[w].label);
	else
		snprintf(buf, len, "%s", corr__cost_cause(kind));
	return buf;
}

/* The evidence seen, as the first congestion bit of the table that held names it. */
static const char *evidence_cause(const struct corr_instance *in, char *buf, size_t len)
{
	size_t n;
	const struct corr_why_info *w = corr__why_table(&n);
	const struct corr_why_info *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (w[i].cause && (in->why & w[i].bit) && (!best || w[i].precedence < best->precedence))
			best = &w[i];
	if (!best)
		return NULL;
	snprintf(buf, len, "%s", best->cause);
	return buf;
}

/* The carried lateness's cause: the collective it came from's main link. */
static const char *carried_cause(const struct corr *c, const struct corr_budget *b, char *buf, size_t len)
{
	uint32_t link = b->carried_from < c->ninstances ? c->instances[b->carried_from].budget.link : CORR_NONE;

	return item_cause(c, CORR_COST_CARRIED, link, buf, len);
}

const char *viz__cause(const struct corr *c, const struct corr_call *k, unsigned kind, char *buf, size_t len)
{
	const struct corr_instance *in;
	const struct corr_budget *b;

	if (k->instance == CORR_NONE || k->instance >= c->ninstances) {
		snprintf(buf, len, "unmatched");
		return buf;
	}
	in = &c->instances[k->instance];
	b = &in->budget;
	if (kind == VIZ_WAIT) {
		/* lateness carried over from a slow network is the network's */
		if (b->carried_network_ns > b->waiting_ns)
			return carried_cause(c, b, buf, len);
		snprintf(buf, len, "rank-late");
		return buf;
	}
	for (size_t i = 0; i < b->ncosts; i++) {
		const struct corr_cost *x = &c->costs[b->first_cost + i];

		/* by cost, descending: the first is the largest; under a hundredth of the transfer, negligible */
		if (x->cost_ns && x->cost_ns * 100 >= b->transfer_ns)
			return item_cause(c, x->kind, x->iface, buf, len);
	}
	if (!evidence_cause(in, buf, len))
		snprintf(buf, len, "clean");
	return buf;
}

struct part {
	char cause[96];
	uint64_t share, w;
};

/* DUR split as the SHAREs are of their sum: shares floored, the rest to the largest. */
static int split_emit(struct part *p, size_t n, uint64_t dur,
		      int (*fn)(void *ctx, const char *cause, uint64_t part), void *ctx)
{
	uint64_t whole = 0, given = 0;
	size_t big = 0;
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		whole += p[i].share;
		if (p[i].share > p[big].share)
			big = i;
	}
	for (size_t i = 0; i < n; i++) {
		p[i].w = whole ? (uint64_t)((unsigned __int128)dur * p[i].share / whole) : 0;
		given += p[i].w;
	}
	if (n)
		p[big].w += dur - given;
	for (size_t i = 0; i < n && !err; i++)
		if (p[i].w)
			err = fn(ctx, p[i].cause, p[i].w);
	return err;
}

int viz__budget_split(const struct corr *c, const struct corr_call *k, unsigned kind, uint64_t dur,
		      int (*fn)(void *ctx, const char *cause, uint64_t part), void *ctx)
{
	const struct corr_budget *b;
	struct part *p;
	size_t n = 0;
	int err;

	if (!dur)
		return 0;
	if (k->instance == CORR_NONE || k->instance >= c->ninstances)
		return fn(ctx, "unmatched", dur);
	b = &c->instances[k->instance].budget;
	p = calloc(b->ncosts + 3, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (kind == VIZ_WAIT) {
		snprintf(p[n].cause, sizeof(p[n].cause), "rank-late");
		p[n++].share = b->waiting_ns;
		carried_cause(c, b, p[n].cause, sizeof(p[n].cause));
		p[n++].share = b->carried_network_ns;
		snprintf(p[n].cause, sizeof(p[n].cause), "usual-skew");
		p[n++].share = b->carried_ns - b->carried_network_ns;
	} else {
		snprintf(p[n].cause, sizeof(p[n].cause), "expected");
		p[n++].share = b->expected_ns;
		for (size_t i = 0; i < b->ncosts; i++) {
			const struct corr_cost *x = &c->costs[b->first_cost + i];

			item_cause(c, x->kind, x->iface, p[n].cause, sizeof(p[n].cause));
			p[n++].share = x->cost_ns;
		}
		snprintf(p[n].cause, sizeof(p[n].cause), "unexplained");
		p[n++].share = b->unexplained_ns;
	}
	/* a sub-phase with no share (an instant collective): its whole time is the first part's */
	if (!p[0].share && n) {
		bool any = false;

		for (size_t i = 0; i < n; i++)
			any |= p[i].share != 0;
		if (!any)
			p[kind == VIZ_WAIT ? 2 : 0].share = 1;
	}
	err = split_emit(p, n, dur, fn, ctx);
	free(p);
	return err;
}

const char *viz__coll_name(const struct corr *c, const struct corr_call *k, char *buf, size_t len)
{
	uint64_t size = k->instance != CORR_NONE && k->instance < c->ninstances &&
			c->instances[k->instance].size_bytes ? c->instances[k->instance].size_bytes : k->bytes;

	if (size) {
		char b[32];

		snprintf(buf, len, "%s %s", viz__call_op(c, k), fmt_bytes((double)size, b, sizeof(b)));
	} else {
		snprintf(buf, len, "%s", viz__call_op(c, k));
	}
	return buf;
}

/* ---- escaping ---- */

const char *viz__secs(const struct model *m, uint64_t ts, char *buf, size_t len)
{
	int64_t ns = model__rel_ns(m, ts);
	uint64_t a = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;

	snprintf(buf, len, "%s%" PRIu64 ".%06" PRIu64, ns < 0 ? "-" : "", a / 1000000000u,
		 (a % 1000000000u) / 1000u);
	return buf;
}

void viz__xml(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		/* the JSON writer's validator: overlongs and surrogates are not UTF-8 either */
		size_t n = json_utf8_len(p, strnlen((const char *)p, 4));

		if (!n) {
			fputs("&#xFFFD;", f);   /* not UTF-8: XML would refuse the document */
			p++;
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, f);
			p += n;
			continue;
		}
		switch (*p) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			fputc(*p < 0x20 ? ' ' : *p, f); /* control characters are not allowed in XML 1.0 */
			break;
		}
		p++;
	}
}
