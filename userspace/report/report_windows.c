// SPDX-License-Identifier: GPL-2.0-or-later
/* `report --windows`: the job's answer from one window at a time (report_windows.h). */
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "userspace/report/report_common.h"
#include "userspace/report/report_headline.h"
#include "userspace/report/report_windows.h"

#define PLACE_LEN 128
#define LINE_LEN 240

struct place {
	char label[PLACE_LEN];
	uint64_t n;
	uint64_t ns;                /* stragglers: how late in all */
};

struct places {
	struct place *v;
	size_t n, cap;
};

/* A collective named among the worst: its headline line, kept as text (its window is freed). */
struct worst {
	uint64_t span_ns, first_entry;
	enum corr_verdict verdict;
	char line[LINE_LEN];
};

/* What a window, and the job, add up: counts, the blame, the worst. */
struct tally {
	uint64_t n, verdicts[CORR_NVERDICTS], lost;
	struct places blame[2];     /* [0] network-bound: links, [1] rank-bound: ranks */
	struct places late;         /* ranks that entered last: times (n) and how late (ns) */
	struct worst slowest[CORR_NVERDICTS];
	bool have_slowest[CORR_NVERDICTS];
	struct worst top[HEADLINE_WORST]; /* the slowest that are not ok, slowest first */
	size_t ntop;
	bool any_probes;            /* phase probes were seen */
};

/* One window: its span and tally, filled by whichever worker loaded it. */
struct part {
	uint64_t from_rel, to_rel;
	struct tally t;
	int ret;
	char err[256];
};

struct acc {
	const struct report_windows_opts *wo;
	const char *path;
	struct ft_file_header hdr;
	uint64_t cap_start, cap_end, from_rel, end_rel, margin;
	bool truncated;
	char truncated_why[256];
	uint64_t skipped_runs;
	struct tally job;
	struct part *parts;
	size_t nparts;
	size_t next;                /* the next window a worker takes (under lock) */
	size_t ndone;
	pthread_mutex_t lock;
};

static int place_add(struct places *p, const char *label, uint64_t n, uint64_t ns)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(p->v[i].label, label)) {
			p->v[i].n += n;
			p->v[i].ns += ns;
			return 0;
		}
	if (grow_array((void **)&p->v, &p->cap, p->n + 1, sizeof(*p->v)))
		return -ENOMEM;
	snprintf(p->v[p->n].label, PLACE_LEN, "%s", label);
	p->v[p->n].n = n;
	p->v[p->n++].ns = ns;
	return 0;
}

/* Most blamed first, then by name: deterministic. */
static int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* Stragglers as the single report orders them: times last, then how late, then by name. */
static int cmp_late(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return strcmp(x->label, y->label);
}

static bool slower(const struct worst *a, const struct worst *b)
{
	return a->span_ns != b->span_ns ? a->span_ns > b->span_ns : a->first_entry < b->first_entry;
}

static void keep_slowest(struct tally *t, const struct worst *w)
{
	if (!t->have_slowest[w->verdict] || slower(w, &t->slowest[w->verdict])) {
		t->slowest[w->verdict] = *w;
		t->have_slowest[w->verdict] = true;
	}
}

/* W among the slowest that are not ok (each collective is offered once: it is in one window). */
static void keep_top(struct tally *t, const struct worst *w)
{
	size_t k;

	if (t->ntop == HEADLINE_WORST && !slower(w, &t->top[HEADLINE_WORST - 1]))
		return;
	k = t->ntop < HEADLINE_WORST ? t->ntop++ : HEADLINE_WORST - 1;
	t->top[k] = *w;
	for (; k > 0 && slower(&t->top[k], &t->top[k - 1]); k--) {
		struct worst x = t->top[k];

		t->top[k] = t->top[k - 1];
		t->top[k - 1] = x;
	}
}

static void tally_free(struct tally *t)
{
	free(t->blame[0].v);
	free(t->blame[1].v);
	free(t->late.v);
}

/* A window's collectives that begin in [from, to) (absolute ns), and its lost events. */
static int tally_window(struct tally *t, const struct model *m, const struct corr *c, uint64_t from, uint64_t to)
{
	int ret = 0;

	for (size_t i = 0; c->show_probes && i < c->ninstances && !ret; i++) {
		const struct corr_instance *in = &c->instances[i];
		struct worst w;

		if (in->first_entry < from || in->first_entry >= to)
			continue; /* another window's (it is in this one's margin) */
		t->n++;
		t->verdicts[in->verdict]++;
		if (in->nmembers >= 2 && in->skew_ns && in->straggler != CORR_NONE) {
			char who[PLACE_LEN];

			ret = place_add(&t->late, corr__rank_label(c, in->straggler, who, sizeof(who)), 1,
					corr__straggler_late_ns(c, in));
		}
		if (in->verdict == CORR_OK)
			continue;
		w.span_ns = in->span_ns;
		w.first_entry = in->first_entry;
		w.verdict = in->verdict;
		headline__instance(m, c, in, w.line, sizeof(w.line));
		keep_slowest(t, &w);
		keep_top(t, &w);
		if (in->verdict == CORR_NETWORK || in->verdict == CORR_RANK) {
			char place[PLACE_LEN];

			headline__place(c, in, place, sizeof(place));
			if (!ret)
				ret = place_add(&t->blame[in->verdict == CORR_RANK], place, 1, 0);
		}
	}
	for (size_t i = 0; i < m->nlost_evs; i++)
		if (m->lost_evs[i].ts_ns >= from && m->lost_evs[i].ts_ns < to)
			t->lost += m->lost_evs[i].lost;
	t->any_probes = c->show_probes;
	for (int b = 0; b < 2; b++)
		if (t->blame[b].n)
			qsort(t->blame[b].v, t->blame[b].n, sizeof(*t->blame[b].v), cmp_place);
	return ret;
}

/* The job's tally gains a window's. */
static int tally_merge(struct tally *job, const struct tally *w)
{
	job->n += w->n;
	job->lost += w->lost;
	job->any_probes |= w->any_probes;
	for (int v = 0; v < CORR_NVERDICTS; v++) {
		job->verdicts[v] += w->verdicts[v];
		if (w->have_slowest[v])
			keep_slowest(job, &w->slowest[v]);
	}
	for (size_t i = 0; i < w->ntop; i++)
		keep_top(job, &w->top[i]);
	for (int b = 0; b < 2; b++)
		for (size_t i = 0; i < w->blame[b].n; i++)
			if (place_add(&job->blame[b], w->blame[b].v[i].label, w->blame[b].v[i].n, 0))
				return -ENOMEM;
	for (size_t i = 0; i < w->late.n; i++)
		if (place_add(&job->late, w->late.v[i].label, w->late.v[i].n, w->late.v[i].ns))
			return -ENOMEM;
	return 0;
}

/* Load window I with its margins (model_opts.window), correlate it, tally it.  M: its model, kept. */
static int load_window(const struct acc *a, size_t i, struct model **mp, struct part *p)
{
	const struct report_windows_opts *wo = a->wo;
	struct model_opts mo = *wo->model;
	struct corr *c = NULL;
	int ret;

	p->from_rel = wo->from_rel_ns + i * wo->window_ns;
	p->to_rel = p->from_rel + wo->window_ns;
	mo.window = true;
	mo.window_from_ns = p->from_rel > a->margin ? p->from_rel - a->margin : 0;
	mo.window_to_ns = p->to_rel + a->margin;
	if (!*mp) {
		ret = model__load(a->path, &mo, mp, p->err, sizeof(p->err));
		if (ret)
			return ret;
	}
	if (a->end_rel && p->to_rel > a->end_rel) /* end_rel: 0 until the first window told it */
		p->to_rel = a->end_rel;
	ret = corr__build(*mp, wo->corr, &c);
	if (!ret)
		ret = tally_window(&p->t, *mp, c, (*mp)->capture_start_ns + p->from_rel,
				   (*mp)->capture_start_ns + p->to_rel);
	if (ret == -ENOMEM)
		snprintf(p->err, sizeof(p->err), "out of memory in one window; give a shorter --windows or --jobs 1");
	corr__free(c);
	return ret;
}

/* A worker: takes the next window until none is left (or one failed). */
static void *worker(void *arg)
{
	struct acc *a = arg;

	for (;;) {
		struct model *m = NULL;
		struct part *p;
		size_t i;

		pthread_mutex_lock(&a->lock);
		i = a->next < a->nparts ? a->next++ : a->nparts;
		pthread_mutex_unlock(&a->lock);
		if (i == a->nparts)
			return NULL;
		p = &a->parts[i];
		p->ret = load_window(a, i, &m, p);
		model__free(m);
		pthread_mutex_lock(&a->lock);
		a->ndone++;
		if (p->ret)
			a->next = a->nparts; /* stop the others early */
		if (a->wo->progress)
			fprintf(stderr, "fabtrace: report: window %zu of %zu done (+%.3f s to +%.3f s)\n", a->ndone,
				a->nparts, (double)p->from_rel / 1e9, (double)p->to_rel / 1e9);
		pthread_mutex_unlock(&a->lock);
	}
}

/*
 * The first window on this thread (it tells the capture's extent), then
 * the others on up to wo->jobs workers.  0 or -errno with ERR set.
 */
static int all_windows(struct acc *a, char *err, size_t errlen)
{
	const struct report_windows_opts *wo = a->wo;
	struct model *m = NULL;
	struct part first = { 0 };
	pthread_t tid[REPORT_WINDOWS_MAX_JOBS];
	size_t nt = 0, jobs = wo->jobs ? wo->jobs : 1;
	uint64_t dur;
	int ret;

	ret = load_window(a, 0, &m, &first); /* loads, and tallies against a provisional end */
	if (ret && !m) {
		snprintf(err, errlen, "%s", first.err);
		tally_free(&first.t);
		return ret;
	}
	dur = m->capture_end_ns - m->capture_start_ns;
	a->hdr = m->hdr;
	a->cap_start = m->capture_start_ns;
	a->cap_end = m->capture_end_ns;
	a->truncated = m->truncated;
	snprintf(a->truncated_why, sizeof(a->truncated_why), "%s", m->truncated_why);
	a->skipped_runs = m->skipped_runs; /* written once at the stop: the capture's */
	if (!ret && wo->from_rel_ns && wo->from_rel_ns >= dur) { /* no --from: even an empty capture has its window */
		snprintf(first.err, sizeof(first.err), "--from is at or after the end of the capture");
		ret = -ERANGE;
	}
	if (!ret) {
		a->end_rel = wo->to_rel_ns && wo->to_rel_ns < dur ? wo->to_rel_ns : dur;
		if (first.to_rel > a->end_rel) { /* the only window, shorter than --windows: tally it again */
			tally_free(&first.t);
			memset(&first, 0, sizeof(first));
			ret = load_window(a, 0, &m, &first); /* the model is loaded already */
		}
	}
	model__free(m);
	if (!ret) {
		/* no sum that can wrap: a window may be as long as a u64 of ns */
		uint64_t span = a->end_rel - wo->from_rel_ns;
		uint64_t n = span / wo->window_ns + (span % wo->window_ns != 0);

		if (!n)
			n = 1; /* an empty capture: its one empty window */

		if (n > REPORT_WINDOWS_MAX) {
			snprintf(first.err, sizeof(first.err),
				 "--windows gives %llu windows over the capture's %.0f s; at most %d: give a longer window",
				 (unsigned long long)n, (double)span / 1e9, REPORT_WINDOWS_MAX);
			ret = -E2BIG;
		} else {
			a->nparts = (size_t)n;
			a->parts = calloc(a->nparts, sizeof(*a->parts));
			if (!a->parts) {
				a->nparts = 0; /* nothing for the caller to free */
				snprintf(first.err, sizeof(first.err), "out of memory");
				ret = -ENOMEM;
			}
		}
	}
	if (ret) {
		snprintf(err, errlen, "%s", first.err[0] ? first.err : strerror(-ret));
		tally_free(&first.t);
		return ret;
	}
	a->parts[0] = first;
	a->next = a->ndone = 1;
	if (jobs > a->nparts - a->next)
		jobs = a->nparts - a->next;
	if (jobs > REPORT_WINDOWS_MAX_JOBS)
		jobs = REPORT_WINDOWS_MAX_JOBS;
	pthread_mutex_init(&a->lock, NULL);
	for (nt = 0; nt + 1 < jobs; nt++)
		if (pthread_create(&tid[nt], NULL, worker, a))
			break;
	worker(a); /* this thread is one of them */
	for (size_t k = 0; k < nt; k++)
		pthread_join(tid[k], NULL);
	pthread_mutex_destroy(&a->lock);
	for (size_t i = 0; i < a->nparts && !ret; i++) {
		ret = a->parts[i].ret;
		if (ret)
			snprintf(err, errlen, "%s", a->parts[i].err[0] ? a->parts[i].err : strerror(-ret));
		else if (tally_merge(&a->job, &a->parts[i].t))
			ret = -ENOMEM;
	}
	return ret;
}

/* ---- the answer ---- */

struct lines {
	char v[HEADLINE_MAX_LINES + 2][LINE_LEN];
	size_t n;
};

static void add_line(struct lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_line(struct lines *l, const char *fmt, ...)
{
	va_list ap;

	if (l->n == sizeof(l->v) / sizeof(l->v[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(l->v[l->n++], LINE_LEN, fmt, ap);
	va_end(ap);
}

/* "14 on link eth0@h2 (tbf 1:), 2 on link eth0@h3, 1 elsewhere", as the single report says it */
static void blame_line(struct lines *l, const struct places *p, bool rank, const char *what)
{
	char buf[LINE_LEN];
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
		snprintf(buf + k, sizeof(buf) - k, ", %" PRIu64 " elsewhere", other);
	add_line(l, "  %-14s %s", what, buf);
}

/* The slowest of each verdict that is not ok, then the slowest others; slowest first. */
static size_t worst_list(const struct acc *a, const struct worst **out)
{
	size_t n = 0;

	for (int v = CORR_NETWORK; v < CORR_NVERDICTS && n < HEADLINE_WORST; v++)
		if (a->job.have_slowest[v])
			out[n++] = &a->job.slowest[v];
	for (size_t i = 0; i < a->job.ntop && n < HEADLINE_WORST; i++) {
		bool have = false;

		for (size_t j = 0; j < n; j++)
			have |= out[j]->first_entry == a->job.top[i].first_entry && !strcmp(out[j]->line, a->job.top[i].line);
		if (!have)
			out[n++] = &a->job.top[i];
	}
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && slower(out[j], out[j - 1]); j--) {
			const struct worst *t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

static void answer(struct lines *l, struct acc *a, const char *path)
{
	char d[32], b[32], w[48], wn[32], buf[LINE_LEN];
	size_t k = 0;

	add_line(l, "fabtrace report: %s: %s on %s from %s, bins of %s, in %zu window%s of %s", path,
		 fmt_ns(a->end_rel - a->from_rel, d, sizeof(d)), a->hdr.hostname[0] ? a->hdr.hostname : "?",
		 fmt_wall((int64_t)(a->cap_start + a->from_rel + (uint64_t)a->hdr.realtime_offset_ns), w, sizeof(w)),
		 fmt_ns(a->hdr.bin_ns, b, sizeof(b)), a->nparts, a->nparts == 1 ? "" : "s", fmt_ns(a->wo->window_ns, wn, sizeof(wn)));
	if (!a->job.n) {
		add_line(l, "Answer: %s", a->job.any_probes ? "no collectives began in the windows"
					: "no collective phases in the capture; the network sections need a "
					  "window: fabtrace report --from T --to T");
	} else {
		add_line(l, "Answer: of %" PRIu64 " collectives, %" PRIu64 " network-bound, %" PRIu64
			 " rank-bound, %" PRIu64 " unknown, %" PRIu64 " ok", a->job.n, a->job.verdicts[CORR_NETWORK],
			 a->job.verdicts[CORR_RANK], a->job.verdicts[CORR_UNKNOWN], a->job.verdicts[CORR_OK]);
		blame_line(l, &a->job.blame[0], false, "network-bound:");
		blame_line(l, &a->job.blame[1], true, "rank-bound:");
		const struct worst *worst[HEADLINE_WORST];
		size_t nw = worst_list(a, worst);

		if (!nw) {
			add_line(l, "  all near their usual time, with no congestion or late rank in their windows");
		} else {
			add_line(l, "Worst collectives (the slowest of each verdict, then the slowest):");
			for (size_t i = 0; i < nw; i++)
				add_line(l, "  %s", worst[i]->line);
		}
	}
	k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s",
			      a->truncated ? "capture TRUNCATED" : "capture complete");
	if (k < sizeof(buf))
		k += (size_t)(a->job.lost ? snprintf(buf + k, sizeof(buf) - k, "; %" PRIu64 " events LOST (ring buffer full)",
						 a->job.lost)
				      : snprintf(buf + k, sizeof(buf) - k, "; no events lost"));
	if (k < sizeof(buf) && a->skipped_runs)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "; kernel skipped %" PRIu64 " probe runs (counted)",
				      a->skipped_runs);
	if (k < sizeof(buf))
		snprintf(buf + k, sizeof(buf) - k, "; conservation not checked in windows");
	add_line(l, "Data: %s", buf);
}

/* ---- output ---- */

static void write_text(FILE *f, struct acc *a, const struct lines *l, const char *path,
		       const struct report_opts *o)
{
	char s[32];

	for (size_t i = 0; i < l->n; i++)
		fprintf(f, "%s\n", l->v[i]);
	if (o->brief)
		return;
	if (a->job.late.n) {
		size_t n = report__top_n(o, a->job.late.n);

		fprintf(f, "\nStragglers (ranks that entered a collective last; %zu of %zu):\n", n, a->job.late.n);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "  %-40s last %8" PRIu64 " times, %s late in all\n", a->job.late.v[i].label,
				a->job.late.v[i].n, fmt_ns(a->job.late.v[i].ns, s, sizeof(s)));
	}
	fprintf(f, "\nWindows (each in detail: fabtrace report --from FROM --to TO %s):\n", path);
	fprintf(f, "  %-12s %-12s %11s %8s %5s %8s %7s %10s  %s\n", "from", "to", "collectives", "network", "rank",
		"unknown", "lost", "worst", "blame (most in the window)");
	for (size_t i = 0; i < a->nparts; i++) {
		const struct part *r = &a->parts[i];
		const char *np = r->t.blame[0].n ? r->t.blame[0].v[0].label : "";
		const char *rp = r->t.blame[1].n ? r->t.blame[1].v[0].label : "";
		char bl[2 * PLACE_LEN + 4];

		snprintf(bl, sizeof(bl), "%s%s%s", np, np[0] && rp[0] ? "; " : "", rp);
		fprintf(f, "  +%-11.3f +%-11.3f %11" PRIu64 " %8" PRIu64 " %5" PRIu64 " %8" PRIu64 " %7" PRIu64
			" %10s  %s\n", (double)r->from_rel / 1e9, (double)r->to_rel / 1e9, r->t.n,
			r->t.verdicts[CORR_NETWORK], r->t.verdicts[CORR_RANK], r->t.verdicts[CORR_UNKNOWN], r->t.lost,
			r->t.ntop ? fmt_ns(r->t.top[0].span_ns, s, sizeof(s)) : "-", bl[0] ? bl : "-");
	}
}

static void json_verdicts(struct json *j, const uint64_t *v)
{
	json_key(j, "verdicts");
	json_object_begin(j);
	for (int k = 0; k < CORR_NVERDICTS; k++)
		json_kv_u64(j, corr__verdict_name((enum corr_verdict)k), v[k]);
	json_object_end(j);
}

static void write_json(FILE *f, struct acc *a, const struct lines *l, const char *path, const struct report_opts *o)
{
	const struct worst *worst[HEADLINE_WORST];
	size_t nw = worst_list(a, worst);
	char w[48];
	struct json j;

	json_init(&j, f, o->pretty);
	json_object_begin(&j);
	json_kv_string(&j, "schema", REPORT_WINDOWS_SCHEMA);
	json_key(&j, "headline");
	json_object_begin(&j);
	json_key(&j, "lines");
	json_array_begin(&j);
	for (size_t i = 0; i < l->n; i++)
		json_string(&j, l->v[i]);
	json_array_end(&j);
	json_object_end(&j);
	if (o->brief)
		goto out;
	json_key(&j, "capture");
	json_object_begin(&j);
	json_kv_string(&j, "path", path);
	json_kv_string(&j, "host", a->hdr.hostname);
	json_kv_u64(&j, "start_mono_ns", a->cap_start);
	json_kv_string(&j, "start_wall",
		       fmt_wall((int64_t)(a->cap_start + (uint64_t)a->hdr.realtime_offset_ns), w, sizeof(w)));
	json_kv_u64(&j, "duration_ns", a->cap_end - a->cap_start);
	json_kv_u64(&j, "bin_ns", a->hdr.bin_ns);
	json_kv_string(&j, "state", a->truncated ? "truncated" : "complete");
	json_kv_string(&j, "truncated_reason", a->truncated ? a->truncated_why : "");
	json_object_end(&j);
	json_key(&j, "options");
	json_object_begin(&j);
	json_kv_u64(&j, "window_ns", a->wo->window_ns);
	json_kv_u64(&j, "margin_ns", a->margin);
	json_kv_u64(&j, "from_rel_ns", a->from_rel);
	json_kv_u64(&j, "to_rel_ns", a->end_rel);
	json_object_end(&j);
	json_key(&j, "collectives");
	json_object_begin(&j);
	json_kv_u64(&j, "total", a->job.n);
	json_verdicts(&j, a->job.verdicts);
	json_object_end(&j);
	json_key(&j, "blame");
	json_object_begin(&j);
	for (int b = 0; b < 2; b++) {
		json_key(&j, b ? "rank" : "network");
		json_array_begin(&j);
		for (size_t i = 0; i < a->job.blame[b].n; i++) {
			json_object_begin(&j);
			json_kv_string(&j, "place", a->job.blame[b].v[i].label);
			json_kv_u64(&j, "count", a->job.blame[b].v[i].n);
			json_object_end(&j);
		}
		json_array_end(&j);
	}
	json_object_end(&j);
	json_key(&j, "worst");
	json_array_begin(&j);
	for (size_t i = 0; i < nw; i++) {
		json_object_begin(&j);
		json_kv_string(&j, "verdict", corr__verdict_name(worst[i]->verdict));
		json_kv_u64(&j, "span_ns", worst[i]->span_ns);
		json_kv_i64(&j, "first_entry_rel_ns", (int64_t)(worst[i]->first_entry - a->cap_start));
		json_kv_string(&j, "summary", worst[i]->line);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "stragglers");
	json_array_begin(&j);
	for (size_t i = 0; i < report__top_n(o, a->job.late.n); i++) {
		json_object_begin(&j);
		json_kv_string(&j, "label", a->job.late.v[i].label);
		json_kv_u64(&j, "times_last", a->job.late.v[i].n);
		json_kv_u64(&j, "late_ns", a->job.late.v[i].ns);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_kv_u64(&j, "lost_total", a->job.lost);
	json_kv_u64(&j, "skipped_runs", a->skipped_runs);
	json_key(&j, "windows");
	json_array_begin(&j);
	for (size_t i = 0; i < a->nparts; i++) {
		const struct part *r = &a->parts[i];

		json_object_begin(&j);
		json_kv_u64(&j, "from_rel_ns", r->from_rel);
		json_kv_u64(&j, "to_rel_ns", r->to_rel);
		json_kv_u64(&j, "collectives", r->t.n);
		json_verdicts(&j, r->t.verdicts);
		json_kv_u64(&j, "lost", r->t.lost);
		json_kv_u64(&j, "worst_span_ns", r->t.ntop ? r->t.top[0].span_ns : 0);
		json_kv_string(&j, "network_place", r->t.blame[0].n ? r->t.blame[0].v[0].label : "");
		json_kv_string(&j, "rank_place", r->t.blame[1].n ? r->t.blame[1].v[0].label : "");
		json_object_end(&j);
	}
	json_array_end(&j);
out:
	json_object_end(&j);
	json_finish(&j);
}

int report__windows(FILE *out, const char *path, const struct report_windows_opts *wo,
		    const struct report_opts *o, char *err, size_t errlen)
{
	struct acc *a;
	struct lines *l;
	int ret = 0;

	if (!out || !path || !wo || !wo->window_ns || !wo->model || !wo->corr || !o)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	l = calloc(1, sizeof(*l));
	if (!a || !l) {
		free(a);
		free(l);
		return -ENOMEM;
	}
	a->wo = wo;
	a->path = path;
	a->from_rel = wo->from_rel_ns;
	/* a collective that begins near an edge is whole if it ends within the margin */
	a->margin = wo->window_ns / 2 < 10000000000ull ? wo->window_ns / 2 : 10000000000ull;
	ret = all_windows(a, err, errlen);
	if (!ret) {
		for (int b = 0; b < 2; b++)
			if (a->job.blame[b].n)
				qsort(a->job.blame[b].v, a->job.blame[b].n, sizeof(*a->job.blame[b].v), cmp_place);
		if (a->job.late.n)
			qsort(a->job.late.v, a->job.late.n, sizeof(*a->job.late.v), cmp_late);
		answer(l, a, path);
		if (o->json)
			write_json(out, a, l, path, o);
		else
			write_text(out, a, l, path, o);
		ret = fflush(out) || ferror(out) ? -EIO : 0;
		if (ret)
			snprintf(err, errlen, "writing the report: %s", strerror(EIO));
	}
	tally_free(&a->job);
	for (size_t i = 0; i < a->nparts; i++)
		tally_free(&a->parts[i].t);
	free(a->parts);
	free(a);
	free(l);
	return ret;
}
