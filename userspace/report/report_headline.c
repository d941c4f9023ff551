// SPDX-License-Identifier: GPL-2.0-or-later
/* The report's first screen: the answer (report_headline.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/probe_name.h"
#include "userspace/report/report_headline.h"
#include "lib/util.h"

static void line(struct headline *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A line CUT to its buffer (LEN bytes, full) ends in "..." instead of mid-word;
 * one that fits, up to its last byte, stays whole. */
static char *mark_cut(char *buf, size_t len, bool cut)
{
	if (cut && len > 4 && strlen(buf) == len - 1)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}

static void line(struct headline *h, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (h->nlines == HEADLINE_MAX_LINES)
		return;
	va_start(ap, fmt);
	n = vsnprintf(h->lines[h->nlines], sizeof(h->lines[0]), fmt, ap);
	va_end(ap);
	mark_cut(h->lines[h->nlines++], sizeof(h->lines[0]), n >= (int)sizeof(h->lines[0]));
}

/* "+0.747 s (22:26:42.345Z)": relative, then the wall clock's time of day */
static const char *when(const struct model *m, uint64_t ts, char *buf, size_t len)
{
	char rel[32], wall[48];
	const char *tod;

	fmt_rel(model__rel_ns(m, ts), rel, sizeof(rel));
	fmt_wall(model__wall_ns(m, ts), wall, sizeof(wall));
	tod = strchr(wall, 'T');
	/* "22:26:42.345678Z" -> milliseconds are enough here */
	if (tod && strlen(tod) >= 14)
		snprintf(buf, len, "%.30s s (%.12sZ)", rel, tod + 1);
	else
		snprintf(buf, len, "%s s", rel);
	return buf;
}

/* The capture's conservation in a word, and how many directions it holds of
 * each kind: D->nskipped, shortfalls the skips explain; D->nmismatch;
 * D->nunchecked, traced directions with no counter read at one end (a host's
 * damaged capture in a merge, an interface that came or went while recording). */
static const char *conservation_state(const struct model *m, struct headline_data *d)
{
	bool ok = false;

	d->nskipped = d->nmismatch = d->nunchecked = 0;
	for (size_t i = 0; i < m->nifaces; i++)
		for (int k = 0; k < 2; k++)
			switch (m->ifaces[i].dir[k].conserve) {
			case MODEL_CONSERVE_MISMATCH:
				d->nmismatch++;
				break;
			case MODEL_CONSERVE_OK_SKIPPED:
				d->nskipped++;
				break;
			case MODEL_CONSERVE_OK:
				ok = true;
				break;
			case MODEL_CONSERVE_UNKNOWN:
				d->nunchecked++;
				break;
			default:
				break;
			}
	return d->nmismatch ? "mismatch" : d->nskipped ? "ok_skipped" : ok ? "ok" : "unchecked";
}

/* "Data: ..." -- whether the figures can be trusted, in one line */
static void data_line(struct headline *h, const struct headline_data *d)
{
	char buf[HEADLINE_LINE];
	size_t k = 0;

	if (d->truncated)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "capture TRUNCATED%s%s%s", d->truncated_why[0] ? " (" : "",
				      d->truncated_why, d->truncated_why[0] ? ")" : "");
	else if (d->damaged_hosts) /* merged whole, from inputs that were not */
		k += (size_t)snprintf(buf + k, sizeof(buf) - k,
				      "merged capture of %zu host%s, %zu of them from a damaged or unfinished "
				      "capture (as far as readable)", d->nhosts, d->nhosts == 1 ? "" : "s",
				      d->damaged_hosts);
	else
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "capture complete");
	if (k < sizeof(buf))
		k += (size_t)(d->lost ? snprintf(buf + k, sizeof(buf) - k,
						 "; %" PRIu64 " events LOST (ring buffer full)", d->lost)
				      : snprintf(buf + k, sizeof(buf) - k, "; no events lost"));
	if (k < sizeof(buf) && d->skipped_runs)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "; kernel skipped %" PRIu64 " probe runs (counted)",
				      d->skipped_runs);
	if (k < sizeof(buf) && d->coverage_unknown) /* a skip there would go unseen: say so */
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "; skipped runs NOT COUNTED for %zu probe%s",
				      d->coverage_unknown, d->coverage_unknown == 1 ? "" : "s");
	if (k < sizeof(buf)) {
		if (d->windows)
			snprintf(buf + k, sizeof(buf) - k, "; conservation not checked in windows");
		else if (!strcmp(d->conservation, "mismatch"))
			snprintf(buf + k, sizeof(buf) - k, "; conservation MISMATCH on %zu interface directions",
				 d->nmismatch);
		else if (!strcmp(d->conservation, "ok_skipped") || !strcmp(d->conservation, "ok")) {
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "; conservation OK");
			/* OK said of what was checked only: not of interfaces without
			 * counters, nor of what a damaged host's capture lost */
			if (k < sizeof(buf) && d->nunchecked)
				k += (size_t)snprintf(buf + k, sizeof(buf) - k,
						      " where checked, %zu interface direction%s NOT CHECKED (no "
						      "counters at the start or the end)",
						      d->nunchecked, d->nunchecked == 1 ? "" : "s");
			else if (k < sizeof(buf) && d->damaged_hosts)
				k += (size_t)snprintf(buf + k, sizeof(buf) - k, " as far as readable");
			if (k < sizeof(buf) && d->nskipped)
				snprintf(buf + k, sizeof(buf) - k, " (%zu shortfall%s explained by the skips)",
					 d->nskipped, d->nskipped == 1 ? "" : "s");
		} else if (d->window)
			snprintf(buf + k, sizeof(buf) - k, "; conservation not checked in a window");
	}
	line(h, "Data: %s", buf);
}

/* ---- the answer: counts, blame, the worst, the budget ---- */

static int place_add(struct answer_places *p, const char *label, uint64_t n, uint64_t ns)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].label, label)) {
			p->v[i].n += n;
			p->v[i].ns += ns;
			return 0;
		}
	if (grow_array((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)))
		return -ENOMEM;
	snprintf(p->v[p->n].label, sizeof(p->v[p->n].label), "%s", label);
	p->v[p->n].n = n;
	p->v[p->n++].ns = ns;
	return 0;
}

/* Most blamed first, then by name: deterministic. */
static int cmp_count(const void *a, const void *b)
{
	const struct answer_place *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* Stragglers as the report orders them: times last, then how late, then by name. */
static int cmp_late(const void *a, const void *b)
{
	const struct answer_place *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* Shares of the budget: the most time first, then by name. */
static int cmp_ns(const void *a, const void *b)
{
	const struct answer_place *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

static bool slower(const struct answer_worst *a, const struct answer_worst *b)
{
	return a->span_ns != b->span_ns ? a->span_ns > b->span_ns : a->first_entry < b->first_entry;
}

static void keep_slowest(struct answer *t, const struct answer_worst *w)
{
	if (!t->have_slowest[w->verdict] || slower(w, &t->slowest[w->verdict])) {
		t->slowest[w->verdict] = *w;
		t->have_slowest[w->verdict] = true;
	}
}

/* W among the slowest that are not ok (each collective is offered once). */
static void keep_top(struct answer *t, const struct answer_worst *w)
{
	size_t k;

	if (t->ntop == HEADLINE_WORST && !slower(w, &t->top[HEADLINE_WORST - 1]))
		return;
	k = t->ntop < HEADLINE_WORST ? t->ntop++ : HEADLINE_WORST - 1;
	t->top[k] = *w;
	for (; k > 0 && slower(&t->top[k], &t->top[k - 1]); k--) {
		struct answer_worst x = t->top[k];

		t->top[k] = t->top[k - 1];
		t->top[k - 1] = x;
	}
}

static double pct(uint64_t part, uint64_t total)
{
	return total ? 100.0 * (double)part / (double)total : 0.0;
}

static const char *cause_of(const struct corr *c, const struct corr_instance *in, char *buf, size_t len)
{
	const struct corr_budget *b = &in->budget;
	char cl[160], ls[HEADLINE_LINE], bs[HEADLINE_LINE], x[32], y[32];
	size_t k = 0;

	if (len)
		buf[0] = '\0';
	switch (in->verdict) {
	case CORR_NETWORK:
		if (!corr__culprit_label(c->m, &in->ev, cl, sizeof(cl))[0])
			snprintf(cl, sizeof(cl), "the ranks' flows or adapters");
		corr__link_str(c, in, ls, sizeof(ls));
		str_appendf(buf, len, &k, "NETWORK %s: %s of %s (%.0f%%)", cl, fmt_ns(b->network_ns, x, sizeof(x)),
			    fmt_ns(b->total_ns, y, sizeof(y)), pct(b->network_ns, b->total_ns));
		if (ls[0])
			str_appendf(buf, len, &k, ": %s", ls);
		break;
	case CORR_RANK:
	case CORR_UNKNOWN:
		str_appendf(buf, len, &k, "%s ", in->verdict == CORR_RANK ? "RANK" : "UNKNOWN");
		str_appendf(buf, len, &k, "%s", corr__budget_str(c, in, bs, sizeof(bs)));
		break;
	default:
		snprintf(buf, len, "OK");
		break;
	}
	return mark_cut(buf, len, k >= len); /* str_appendf() leaves K at LEN when it cut */
}

const char *headline__place(const struct corr *c, const struct corr_instance *in, char *buf, size_t len)
{
	if (in->verdict != CORR_NETWORK)
		return corr__rank_label(c, corr__blamed_rank(in), buf, len);
	if (!corr__culprit_label(c->m, &in->ev, buf, len)[0])
		snprintf(buf, len, "the ranks' flows or adapters");
	return buf;
}

const char *headline__instance(const struct model *m, const struct corr *c, const struct corr_instance *in,
			       char *buf, size_t len)
{
	char w[96], a[32], cause[HEADLINE_LINE];
	int n;

	n = snprintf(buf, len, "%s #%" PRIu64 " at %s, %s: %s", corr__op_name(in->op), in->seq,
		 when(m, in->first_entry, w, sizeof(w)), fmt_ns(in->span_ns, a, sizeof(a)),
		 cause_of(c, in, cause, sizeof(cause)));
	return mark_cut(buf, len, n >= 0 && (size_t)n >= len);
}

static void worst_of(const struct model *m, const struct corr *c, size_t i, struct answer_worst *w)
{
	const struct corr_instance *in = &c->instances[i];

	memset(w, 0, sizeof(*w));
	w->span_ns = in->span_ns;
	w->first_entry = in->first_entry;
	w->verdict = in->verdict;
	w->instance = (uint32_t)i;
	snprintf(w->op, sizeof(w->op), "%s", corr__op_name(in->op));
	w->seq = in->seq;
	w->start_rel_ns = model__rel_ns(m, in->first_entry);
	w->start_wall_ns = model__wall_ns(m, in->first_entry);
	if (in->verdict == CORR_NETWORK && in->ev.link != CORR_NONE && in->ev.link < m->nifaces)
		snprintf(w->link, sizeof(w->link), "%s", m->ifaces[in->ev.link].label);
	if (in->verdict == CORR_NETWORK && in->ev.qdisc != CORR_NONE)
		corr__qdisc_label(m, in->ev.qdisc, w->queue, sizeof(w->queue));
	if (corr__blamed_rank(in) < c->nranks && in->verdict != CORR_NETWORK) {
		w->have_rank = true;
		w->straggler_rank = c->ranks[corr__blamed_rank(in)].rank;
	}
	cause_of(c, in, w->cause, sizeof(w->cause));
	headline__instance(m, c, in, w->line, sizeof(w->line));
}

/* The budget's shares of the collectives in [FROM, TO), by label. */
static int add_budget(struct answer *a, const struct model *m, const struct corr *c, uint64_t from, uint64_t to)
{
	struct corr_job_budget jb;
	char lb[HEADLINE_PLACE], q[48];
	int ret = corr__job_budget(c, from, to, &jb);

	if (ret)
		return ret;
	a->total_ns += jb.total_ns;
	a->waiting_ns += jb.waiting_ns;
	a->expected_ns += jb.expected_ns;
	a->network_ns += jb.network_ns;
	a->unexplained_ns += jb.unexplained_ns;
	for (size_t r = 0; r < c->nranks && !ret; r++)
		if (jb.wait_by_rank[r])
			ret = place_add(&a->waits, corr__rank_label(c, (uint32_t)r, lb, sizeof(lb)), 1, jb.wait_by_rank[r]);
	for (size_t l = 0; l < jb.nlinks && !ret; l++) {
		const struct corr_budget_link *x = &jb.links[l];

		if (!x->ns)
			continue;
		if (x->iface == CORR_NONE || x->iface >= m->nifaces)
			snprintf(lb, sizeof(lb), "the ranks' adapters");
		else if (x->qdisc != CORR_NONE && x->qdisc < m->nqdiscs && m->qdiscs[x->qdisc].iface == x->iface)
			snprintf(lb, sizeof(lb), "%s (%s)", m->ifaces[x->iface].label, corr__qdisc_label(m, x->qdisc, q, sizeof(q)));
		else
			snprintf(lb, sizeof(lb), "%s", m->ifaces[x->iface].label);
		ret = place_add(&a->nets, lb, 1, x->ns);
	}
	corr__job_budget_free(&jb);
	return ret;
}

int answer__add(struct answer *a, const struct model *m, const struct corr *c, uint64_t from, uint64_t to)
{
	int ret = 0;

	a->any_probes |= c->show_probes;
	if (!c->show_probes)
		return 0;
	a->enqueue_only |= c->enqueue_only;
	for (size_t i = 0; i < c->ninstances && !ret; i++) {
		const struct corr_instance *in = &c->instances[i];
		struct answer_worst w;
		char lb[HEADLINE_PLACE];

		if (in->first_entry < from || in->first_entry >= to)
			continue; /* another window's (it is in this one's margin) */
		a->n++;
		a->verdicts[in->verdict]++;
		if (in->nmembers >= 2 && in->skew_ns && in->straggler != CORR_NONE)
			ret = place_add(&a->late, corr__rank_label(c, in->straggler, lb, sizeof(lb)), 1,
					corr__straggler_late_ns(c, in));
		if (in->verdict == CORR_OK || ret)
			continue;
		worst_of(m, c, i, &w);
		keep_slowest(a, &w);
		keep_top(a, &w);
		if (in->verdict == CORR_NETWORK || in->verdict == CORR_RANK)
			ret = place_add(&a->blame[in->verdict == CORR_RANK], headline__place(c, in, lb, sizeof(lb)), 1, 0);
	}
	return ret ? ret : add_budget(a, m, c, from, to);
}

static int places_merge(struct answer_places *to, const struct answer_places *from)
{
	for (size_t i = 0; i < from->n; i++)
		if (place_add(to, from->v[i].label, from->v[i].n, from->v[i].ns))
			return -ENOMEM;
	return 0;
}

int answer__merge(struct answer *job, const struct answer *w)
{
	job->n += w->n;
	job->any_probes |= w->any_probes;
	job->enqueue_only |= w->enqueue_only;
	for (int v = 0; v < CORR_NVERDICTS; v++) {
		job->verdicts[v] += w->verdicts[v];
		if (w->have_slowest[v])
			keep_slowest(job, &w->slowest[v]);
	}
	for (size_t i = 0; i < w->ntop; i++)
		keep_top(job, &w->top[i]);
	job->total_ns += w->total_ns;
	job->waiting_ns += w->waiting_ns;
	job->expected_ns += w->expected_ns;
	job->network_ns += w->network_ns;
	job->unexplained_ns += w->unexplained_ns;
	if (places_merge(&job->blame[0], &w->blame[0]) || places_merge(&job->blame[1], &w->blame[1]) ||
	    places_merge(&job->late, &w->late) || places_merge(&job->waits, &w->waits) ||
	    places_merge(&job->nets, &w->nets))
		return -ENOMEM;
	return 0;
}

void answer__sort(struct answer *a)
{
	for (int b = 0; b < 2; b++)
		if (a->blame[b].n)
			qsort(a->blame[b].v, a->blame[b].n, sizeof(*a->blame[b].v), cmp_count);
	if (a->late.n)
		qsort(a->late.v, a->late.n, sizeof(*a->late.v), cmp_late);
	if (a->waits.n)
		qsort(a->waits.v, a->waits.n, sizeof(*a->waits.v), cmp_ns);
	if (a->nets.n)
		qsort(a->nets.v, a->nets.n, sizeof(*a->nets.v), cmp_ns);
}

void answer__free(struct answer *a)
{
	free(a->blame[0].v);
	free(a->blame[1].v);
	free(a->late.v);
	free(a->waits.v);
	free(a->nets.v);
	memset(a, 0, sizeof(*a));
}

size_t answer__worst(const struct answer *a, const struct answer_worst **out)
{
	size_t n = 0;

	for (int v = CORR_NETWORK; v < CORR_NVERDICTS && n < HEADLINE_WORST; v++)
		if (a->have_slowest[v])
			out[n++] = &a->slowest[v];
	for (size_t i = 0; i < a->ntop && n < HEADLINE_WORST; i++) {
		bool have = false;

		for (size_t j = 0; j < n; j++)
			have |= out[j]->first_entry == a->top[i].first_entry && !strcmp(out[j]->line, a->top[i].line);
		if (!have)
			out[n++] = &a->top[i];
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && slower(out[j], out[j - 1]); j--) {
			const struct answer_worst *t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

/* ---- the renderer ---- */

/* "14 on link eth0@h2 (tbf 1:), 2 on link eth0@h3, 1 on other links" */
static void blame_line(struct headline *h, const struct answer_places *p, bool rank, const char *what)
{
	char buf[HEADLINE_LINE];
	size_t k = 0;
	uint64_t other = 0;

	if (!p->n)
		return;
	for (size_t j = 0; j < p->n; j++) {
		if (j >= 2) {
			other += p->v[j].n;
			continue;
		}
		if (k < sizeof(buf))
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%" PRIu64 " %s %s", j ? ", " : "",
					      p->v[j].n, rank ? "by" : "on", p->v[j].label);
	}
	if (other && k < sizeof(buf))
		snprintf(buf + k, sizeof(buf) - k, ", %" PRIu64 " %s", other, rank ? "by other ranks" : "on other links");
	line(h, "  %-14s %s", what, buf);
}

/* "Time in collectives 6.21 s: waiting 57% (rank 2 (pid 9, h3) 3.52 s), usual 30%, network 8%
 * (eth0@h2 (tbf 1:) 0.50 s), unexplained 5%" */
static void budget_line(struct headline *h, const struct answer *a)
{
	char buf[HEADLINE_LINE], x[32];
	size_t k = 0;

#define ADD(...) do { if (k < sizeof(buf)) k += (size_t)snprintf(buf + k, sizeof(buf) - k, __VA_ARGS__); } while (0)
	ADD("Time in collectives %s: waiting %.0f%%", fmt_ns(a->total_ns, x, sizeof(x)), pct(a->waiting_ns, a->total_ns));
	if (a->waits.n)
		ADD(" (%s %s%s)", a->waits.v[0].label, fmt_ns(a->waits.v[0].ns, x, sizeof(x)), a->waits.n > 1 ? ", ..." : "");
	ADD(", usual %.0f%%, network %.0f%%", pct(a->expected_ns, a->total_ns), pct(a->network_ns, a->total_ns));
	if (a->nets.n)
		ADD(" (%s %s%s)", a->nets.v[0].label, fmt_ns(a->nets.v[0].ns, x, sizeof(x)), a->nets.n > 1 ? ", ..." : "");
	ADD(", unexplained %.0f%%", pct(a->unexplained_ns, a->total_ns));
#undef ADD
	line(h, "%s", buf);
}

void headline__lines(struct headline *h, const char *title, const struct answer *a, const char *no_collectives,
		     const struct headline_data *d)
{
	h->nlines = 0;
	line(h, "%s", title);
	if (!a->n) {
		if (no_collectives)
			line(h, "Answer: %s", no_collectives);
	} else {
		line(h, "Answer: of %" PRIu64 " collectives, %" PRIu64 " network-bound, %" PRIu64 " rank-bound, %" PRIu64
			" unknown, %" PRIu64 " ok", a->n, a->verdicts[CORR_NETWORK], a->verdicts[CORR_RANK],
		     a->verdicts[CORR_UNKNOWN], a->verdicts[CORR_OK]);
		budget_line(h, a);
		blame_line(h, &a->blame[0], false, "network-bound:");
		const struct answer_worst *worst[HEADLINE_WORST];
		size_t nw;

		blame_line(h, &a->blame[1], true, "rank-bound:");
		nw = answer__worst(a, worst);
		if (!nw) {
			line(h, "  all near their usual time: none slowed beyond it by the network or a late rank");
		} else {
			line(h, "Worst collectives (the slowest of each verdict, then the slowest):");
			for (size_t i = 0; i < nw; i++)
				line(h, "  %s", worst[i]->line);
			if (a->enqueue_only)
				line(h, "  (NCCL calls: enqueue times, not the GPU's; see below)");
		}
	}
	if (d)
		data_line(h, d);
}

/* No collectives: what the network did */
static void network_only(struct headline *h, const struct model *m, const struct corr *c)
{
	const struct model_qdisc *wq = NULL;
	const struct model_dir *busy = NULL;
	const struct model_iface *busy_if = NULL;
	int busy_dir = 0;
	uint64_t cong = 0;

	/* why there are none: inferred phases asked for, the phase probes were
	 * off or found no library, or they ran and saw no call */
	if (c && c->opts.phases == CORR_PHASES_INFERRED)
		line(h, "Answer: collectives not matched from the phase probes (--phases inferred: phases from "
		     "the traffic alone); the network:");
	else if (!m->nslots)
		line(h, "Answer: no collective phases in this capture (no phase probes: --no-phases, or no MPI, "
		     "NCCL or Gloo library was loaded; record a job with -- CMD or -p PID); the network:");
	else
		line(h, "Answer: no collective phases in this capture (the phase probes saw no collective call); "
		     "the network:");
	if (c && c->ninferred)
		line(h, "  %zu phases inferred from the traffic alone (see Inferred phases)", c->ninferred);
	for (size_t i = 0; i < m->nqdiscs; i++)
		if (m->qdiscs[i].sojourn_max_ns && (!wq || m->qdiscs[i].sojourn_max_ns > wq->sojourn_max_ns))
			wq = &m->qdiscs[i];
	if (wq) {
		char a[32], b[32], q[48], w[96];

		line(h, "  worst queue: %s on %s, sojourn up to %s, backlog up to %s at %s",
		     corr__qdisc_label(m, (uint32_t)(wq - m->qdiscs), q, sizeof(q)),
		     wq->iface < m->nifaces ? m->ifaces[wq->iface].label : "?", fmt_ns(wq->sojourn_max_ns, a, sizeof(a)),
		     fmt_bytes((double)wq->max_backlog_bytes, b, sizeof(b)), when(m, wq->max_backlog_ns, w, sizeof(w)));
	} else if (!m->nqdiscs && model__queues_missing(m)) {
		line(h, "  queueing not recorded (%s)", model__queues_missing(m));
	} else if (!m->nqdiscs && m->nspans) {
		line(h, "  no queueing seen in the post-windows (the qdisc probes ran only there: --post-probes)");
	} else {
		line(h, "  no queueing seen (no qdisc traced, or no packet waited)");
	}
	for (size_t i = 0; i < m->ndrops; i++)
		if (corr__congestion_drop(m->drops[i].name))
			cong += m->drops[i].count;
	line(h, "  drops: %" PRIu64 " congestion, %" PRIu64 " other; retransmits: %" PRIu64 " (rto %" PRIu64
		", fast %" PRIu64 ", tail-loss probes %" PRIu64 ")", cong, m->drops_total - cong, m->retrans,
	     m->retrans_by_trigger[FT_RTX_RTO], m->retrans_by_trigger[FT_RTX_FAST], m->retrans_by_trigger[FT_RTX_TLP]);
	const struct model_dir *most = NULL; /* the most bytes, for links of unknown capacity */
	const struct model_iface *most_if = NULL;
	int most_dir = 0;

	for (size_t i = 0; i < m->nifaces; i++)
		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &m->ifaces[i].dir[d];

			if (x->sustained_util == x->sustained_util && x->bytes &&
			    (!busy || x->sustained_util > busy->sustained_util)) {
				busy = x;
				busy_if = &m->ifaces[i];
				busy_dir = d;
			}
			if (x->bytes && (!most || x->bytes > most->bytes)) {
				most = x;
				most_if = &m->ifaces[i];
				most_dir = d;
			}
		}
	if (!(m->hdr.probes & ((1ull << FT_PROBE_IFACE_TX) | (1ull << FT_PROBE_IFACE_RX)))) {
		line(h, "  busiest link: not known (interface bins not recorded: --no-probes bins)");
	} else if (!most) {
		line(h, "  busiest link: none (no traffic binned on the traced interfaces)");
	} else if (!busy) { /* traffic only where the capacity is not known (lo, a veth without speed) */
		char r[32];

		line(h, "  busiest link: %s %s at %s sustained (its capacity is not known)", most_if->label,
		     most_dir == FT_DIR_TX ? "tx" : "rx", fmt_rate_bps(most->sustained_bps, r, sizeof(r)));
	} else {
		char r[32], s[32];

		line(h, "  busiest link: %s %s at %s sustained, %.0f%% of its %s %s", busy_if->label,
		     busy_dir == FT_DIR_TX ? "tx" : "rx", fmt_rate_bps(busy->sustained_bps, r, sizeof(r)),
		     busy->sustained_util * 100.0, fmt_rate_bps(busy->capacity_bps, s, sizeof(s)),
		     busy->shaper_bps > 0 && busy->shaper_bps <= busy->capacity_bps ? "shaper" : "line rate");
	}
}

void headline__build(struct headline *h, const struct model *m, const struct corr *c, const char *path)
{
	char d[32], b[32], w[48], title[HEADLINE_LINE];
	struct headline_data dq;

	memset(h, 0, sizeof(*h));
	memset(&dq, 0, sizeof(dq));
	snprintf(title, sizeof(title), "fabtrace report: %s: %s%s on %s from %s, bins of %s", path ? path : "(model)",
		 fmt_ns(m->duration_ns, d, sizeof(d)), m->opts.window ? " window" : "",
		 m->hdr.hostname[0] ? m->hdr.hostname : "?",
		 fmt_wall(model__wall_ns(m, m->start_ns), w, sizeof(w)), fmt_ns(m->hdr.bin_ns, b, sizeof(b)));
	dq.truncated = m->truncated;
	snprintf(dq.truncated_why, sizeof(dq.truncated_why), "%s", m->truncated ? (m->truncated_why[0] ? m->truncated_why : "no end record") : "");
	dq.nhosts = m->nhosts;
	dq.damaged_hosts = m->damaged_hosts;
	dq.lost = m->lost_total;
	dq.skipped_runs = m->skipped_runs;
	dq.coverage_unknown = m->coverage_unknown;
	dq.conservation = h->conservation = conservation_state(m, &dq);
	h->conservation_unchecked = dq.nunchecked;
	dq.window = m->opts.window;
	if (c && c->show_probes && c->ninstances && !answer__add(&h->ans, m, c, 0, UINT64_MAX)) {
		answer__sort(&h->ans);
		headline__lines(h, title, &h->ans, NULL, &dq);
		return;
	}
	answer__free(&h->ans); /* nothing to say of collectives (or no memory for it): the network */
	h->nlines = 0;
	line(h, "%s", title);
	network_only(h, m, c);
	data_line(h, &dq);
}

void headline__text(FILE *f, const struct headline *h)
{
	for (size_t i = 0; i < h->nlines; i++)
		fprintf(f, "%s\n", h->lines[i]);
}

void headline__json(struct json *j, const struct headline *h)
{
	const struct answer_worst *worst[HEADLINE_WORST];
	size_t nw = answer__worst(&h->ans, worst);

	json_key(j, "headline");
	json_object_begin(j);
	json_key(j, "lines");
	json_array_begin(j);
	for (size_t i = 0; i < h->nlines; i++)
		json_string(j, h->lines[i]);
	json_array_end(j);
	json_kv_string(j, "conservation", h->conservation);
	json_kv_u64(j, "conservation_unchecked", h->conservation_unchecked);
	json_key(j, "worst");
	json_array_begin(j);
	for (size_t i = 0; i < nw; i++) {
		const struct answer_worst *w = worst[i];

		json_object_begin(j);
		json_kv_u64(j, "instance", w->instance);
		json_kv_string(j, "op", w->op);
		json_kv_u64(j, "seq", w->seq);
		json_kv_string(j, "verdict", corr__verdict_name(w->verdict));
		json_kv_i64(j, "start_rel_ns", w->start_rel_ns);
		json_kv_i64(j, "start_wall_ns", w->start_wall_ns);
		json_kv_u64(j, "span_ns", w->span_ns);
		json_kv_string(j, "link", w->link[0] ? w->link : NULL);
		json_kv_string(j, "queue", w->queue[0] ? w->queue : NULL);
		if (w->have_rank)
			json_kv_i64(j, "straggler_rank", w->straggler_rank);
		else
			json_kv_string(j, "straggler_rank", NULL);
		json_kv_string(j, "cause", w->cause);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void headline__free(struct headline *h)
{
	answer__free(&h->ans);
}
