// SPDX-License-Identifier: GPL-2.0-or-later
/* `report --windows`: the job's answer from one window at a time (report_windows.h). */
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/util.h"
#include "userspace/capture/capture.h"
#include "userspace/report/report_common.h"
#include "userspace/report/report_headline.h"
#include "userspace/report/report_windows.h"

/* A window is read with half its length on either side, at most this */
#define WINDOWS_MAX_MARGIN_NS 10000000000ull

/* What a window, and the job, add up: the answer, and the events lost; in the
 * first pass, the samples of the groups' baselines. */
struct tally {
	struct answer ans;
	uint64_t lost;
	/* collectives that ran past their window's margin, and the longest: their
	 * network items after it were not read (docs/known-issues.md) */
	uint64_t ncut, cut_longest_ns;
	struct corr_sample *samples;
	size_t nsamples, capsamples;
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
	/*
	 * Two passes: the first gathers every group's samples over the whole
	 * capture, so that the second weighs each window's collectives against
	 * the whole capture's baselines (corr_opts.baselines), as the whole
	 * report does (docs/verdicts.md).
	 */
	int pass;                   /* 1: samples, 2: the answer */
	struct corr_opts co;        /* wo->corr with the baselines of pass 1 */
	struct corr_baseline *base;
	/* the capture's blocks, summed up by the first window's read: the
	 * others pass over those of events outside them (model_opts.blocks) */
	struct capture_block_index *blocks;
};

static void tally_free(struct tally *t)
{
	answer__free(&t->ans);
	free(t->samples);
	t->samples = NULL;
	t->nsamples = t->capsamples = 0;
}

/* A window's collectives that begin in [from, to) (absolute ns), read up to LOAD_TO, and its lost events. */
static int tally_window(struct tally *t, const struct model *m, const struct corr *c, uint64_t from, uint64_t to,
			uint64_t load_to)
{
	int ret = answer__add(&t->ans, m, c, from, to);

	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];

		if (in->first_entry < from || in->first_entry >= to || in->last_exit <= load_to)
			continue;
		t->ncut++;
		if (in->last_exit - in->first_entry > t->cut_longest_ns)
			t->cut_longest_ns = in->last_exit - in->first_entry;
	}
	for (size_t i = 0; i < m->nlost_evs; i++)
		if (m->lost_evs[i].ts_ns >= from && m->lost_evs[i].ts_ns < to)
			t->lost += m->lost_evs[i].lost;
	answer__sort(&t->ans);
	return ret;
}

/* The job's tally gains a window's. */
static int tally_merge(struct tally *job, const struct tally *w)
{
	job->lost += w->lost;
	job->ncut += w->ncut;
	if (w->cut_longest_ns > job->cut_longest_ns)
		job->cut_longest_ns = w->cut_longest_ns;
	if (w->nsamples) {
		if (grow_array((void **)&job->samples, &job->capsamples, job->nsamples + w->nsamples,
			       sizeof(*job->samples)))
			return -ENOMEM;
		memcpy(&job->samples[job->nsamples], w->samples, w->nsamples * sizeof(*w->samples));
		job->nsamples += w->nsamples;
	}
	return answer__merge(&job->ans, &w->ans);
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
	mo.blocks = a->blocks;
	if (!*mp) {
		ret = model__load(a->path, &mo, mp, p->err, sizeof(p->err));
		if (ret)
			return ret;
	}
	if (a->end_rel && p->to_rel > a->end_rel) /* end_rel: 0 until the first window told it */
		p->to_rel = a->end_rel;
	ret = corr__build(*mp, a->pass == 1 ? wo->corr : &a->co, &c);
	if (!ret && a->pass == 1)
		ret = corr__samples(c, (*mp)->capture_start_ns + p->from_rel, (*mp)->capture_start_ns + p->to_rel,
				    &p->t.samples, &p->t.nsamples, &p->t.capsamples);
	else if (!ret)
		ret = tally_window(&p->t, *mp, c, (*mp)->capture_start_ns + p->from_rel,
				   (*mp)->capture_start_ns + p->to_rel, (*mp)->capture_start_ns + mo.window_to_ns);
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
			fprintf(stderr, "fabtrace: report: pass %d of 2: window %zu of %zu done (+%.3f s to +%.3f s)\n",
				a->pass, a->ndone, a->nparts, (double)p->from_rel / 1e9, (double)p->to_rel / 1e9);
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

static void answer(struct headline *h, struct acc *a, const char *path)
{
	char d[32], b[32], w[48], wn[32], title[HEADLINE_LINE];
	struct headline_data dq;

	memset(&dq, 0, sizeof(dq));
	snprintf(title, sizeof(title), "fabtrace report: %s: %s on %s from %s, bins of %s, in %zu window%s of %s", path,
		 fmt_ns(a->end_rel - a->from_rel, d, sizeof(d)), a->hdr.hostname[0] ? a->hdr.hostname : "?",
		 fmt_wall((int64_t)(a->cap_start + a->from_rel + (uint64_t)a->hdr.realtime_offset_ns), w, sizeof(w)),
		 fmt_ns(a->hdr.bin_ns, b, sizeof(b)), a->nparts, a->nparts == 1 ? "" : "s", fmt_ns(a->wo->window_ns, wn, sizeof(wn)));
	dq.truncated = a->truncated;
	dq.lost = a->job.lost;
	dq.skipped_runs = a->skipped_runs;
	dq.conservation = "unchecked";
	dq.windows = true;
	headline__lines(h, title, &a->job.ans, a->job.ans.any_probes ? "no collectives began in the windows" :
		"no collective phases in the capture; the network sections need a window: fabtrace report --from T --to T",
		&dq);
}

/* ---- output ---- */

static void write_text(FILE *f, struct acc *a, const struct headline *l, const char *path,
		       const struct report_opts *o)
{
	char s[32];

	const struct answer *j = &a->job.ans;

	headline__text(f, l);
	if (o->brief)
		return;
	if (j->late.n) {
		size_t n = report__top_n(o, j->late.n);

		fprintf(f, "\nStragglers (ranks that entered a collective last; %zu of %zu):\n", n, j->late.n);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "  %-40s last %8" PRIu64 " times, %s late in all\n", j->late.v[i].label,
				j->late.v[i].n, fmt_ns(j->late.v[i].ns, s, sizeof(s)));
	}
	fprintf(f, "\nWindows (each in detail: fabtrace report --from FROM --to TO %s):\n", path);
	fprintf(f, "  %-12s %-12s %11s %8s %5s %8s %7s %10s  %s\n", "from", "to", "collectives", "network", "rank",
		"unknown", "lost", "worst", "blame (most in the window)");
	for (size_t i = 0; i < a->nparts; i++) {
		const struct part *r = &a->parts[i];
		const struct answer *t = &r->t.ans;
		const char *np = t->blame[0].n ? t->blame[0].v[0].label : "";
		const char *rp = t->blame[1].n ? t->blame[1].v[0].label : "";
		char bl[2 * HEADLINE_PLACE + 4];

		snprintf(bl, sizeof(bl), "%s%s%s", np, np[0] && rp[0] ? "; " : "", rp);
		fprintf(f, "  +%-11.3f +%-11.3f %11" PRIu64 " %8" PRIu64 " %5" PRIu64 " %8" PRIu64 " %7" PRIu64
			" %10s  %s\n", (double)r->from_rel / 1e9, (double)r->to_rel / 1e9, t->n,
			t->verdicts[CORR_NETWORK], t->verdicts[CORR_RANK], t->verdicts[CORR_UNKNOWN], r->t.lost,
			t->ntop ? fmt_ns(t->top[0].span_ns, s, sizeof(s)) : "-", bl[0] ? bl : "-");
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

/* The job's time budget, summed over the windows: the single report's "budget", by label. */
static void budget_json(struct json *j, const struct answer *a)
{
	json_key(j, "budget");
	if (!a->n) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_u64(j, "total_ns", a->total_ns);
	json_kv_u64(j, "waiting_ns", a->waiting_ns);
	json_kv_u64(j, "expected_ns", a->expected_ns);
	json_kv_u64(j, "network_ns", a->network_ns);
	json_kv_u64(j, "unexplained_ns", a->unexplained_ns);
	for (int k = 0; k < 2; k++) {
		const struct answer_places *p = k ? &a->nets : &a->waits;

		json_key(j, k ? "network" : "waiting");
		json_array_begin(j);
		for (size_t i = 0; i < p->n; i++) {
			json_object_begin(j);
			json_kv_string(j, "label", p->v[i].label);
			json_kv_u64(j, "ns", p->v[i].ns);
			json_object_end(j);
		}
		json_array_end(j);
	}
	json_object_end(j);
}

static void write_json(FILE *f, struct acc *a, const struct headline *l, const char *path, const struct report_opts *o)
{
	const struct answer *ja = &a->job.ans;
	const struct answer_worst *worst[HEADLINE_WORST];
	size_t nw = answer__worst(ja, worst);
	char w[48];
	struct json j;

	json_init(&j, f, o->pretty);
	json_object_begin(&j);
	json_kv_string(&j, "schema", REPORT_WINDOWS_SCHEMA);
	json_key(&j, "headline");
	json_object_begin(&j);
	json_key(&j, "lines");
	json_array_begin(&j);
	for (size_t i = 0; i < l->nlines; i++)
		json_string(&j, l->lines[i]);
	json_array_end(&j);
	json_object_end(&j);
	budget_json(&j, ja);
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
	json_kv_u64(&j, "total", ja->n);
	json_verdicts(&j, ja->verdicts);
	json_kv_u64(&j, "cut", a->job.ncut);
	json_kv_u64(&j, "cut_longest_ns", a->job.cut_longest_ns);
	json_object_end(&j);
	json_key(&j, "blame");
	json_object_begin(&j);
	for (int b = 0; b < 2; b++) {
		json_key(&j, b ? "rank" : "network");
		json_array_begin(&j);
		for (size_t i = 0; i < ja->blame[b].n; i++) {
			json_object_begin(&j);
			json_kv_string(&j, "place", ja->blame[b].v[i].label);
			json_kv_u64(&j, "count", ja->blame[b].v[i].n);
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
	for (size_t i = 0; i < report__top_n(o, ja->late.n); i++) {
		json_object_begin(&j);
		json_kv_string(&j, "label", ja->late.v[i].label);
		json_kv_u64(&j, "times_last", ja->late.v[i].n);
		json_kv_u64(&j, "late_ns", ja->late.v[i].ns);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_kv_u64(&j, "lost_total", a->job.lost);
	json_kv_u64(&j, "skipped_runs", a->skipped_runs);
	json_key(&j, "windows");
	json_array_begin(&j);
	for (size_t i = 0; i < a->nparts; i++) {
		const struct part *r = &a->parts[i];
		const struct answer *t = &r->t.ans;

		json_object_begin(&j);
		json_kv_u64(&j, "from_rel_ns", r->from_rel);
		json_kv_u64(&j, "to_rel_ns", r->to_rel);
		json_kv_u64(&j, "collectives", t->n);
		json_verdicts(&j, t->verdicts);
		json_kv_u64(&j, "lost", r->t.lost);
		json_kv_u64(&j, "worst_span_ns", t->ntop ? t->top[0].span_ns : 0);
		json_kv_string(&j, "network_place", t->blame[0].n ? t->blame[0].v[0].label : "");
		json_kv_string(&j, "rank_place", t->blame[1].n ? t->blame[1].v[0].label : "");
		json_object_end(&j);
	}
	json_array_end(&j);
out:
	json_object_end(&j);
	json_finish(&j);
}

/* Collectives longer than their window's margin: say so, and what windows would hold them. */
static void warn_cut(const struct acc *a)
{
	uint64_t n = a->job.ncut, want_ms = (2 * a->job.cut_longest_ns + 999999) / 1000000;
	char lg[32], mg[32], give[64];

	if (a->job.cut_longest_ns > WINDOWS_MAX_MARGIN_NS)
		snprintf(give, sizeof(give), "margins stop at %s: read %s with --from/--to",
			 fmt_ns(WINDOWS_MAX_MARGIN_NS, mg, sizeof(mg)), n == 1 ? "it" : "them");
	else if (want_ms >= 1000)
		snprintf(give, sizeof(give), "give --windows %" PRIu64 ".%" PRIu64 "s or more", (want_ms + 99) / 1000,
			 (want_ms + 99) / 100 % 10); /* rounded up to a tenth of a second */
	else
		snprintf(give, sizeof(give), "give --windows %" PRIu64 "ms or more", want_ms);
	ft_warn("report: %" PRIu64 " collective%s ran past %s margin of %s (%s %s): the network after "
		"it is not in %s; %s", n, n == 1 ? "" : "s", n == 1 ? "its window's" : "their windows'",
		fmt_ns(a->margin, mg, sizeof(mg)), n == 1 ? "it lasted" : "the longest lasted",
		fmt_ns(a->job.cut_longest_ns, lg, sizeof(lg)), n == 1 ? "its verdict" : "their verdicts", give);
}

int report__windows(FILE *out, const char *path, const struct report_windows_opts *wo,
		    const struct report_opts *o, char *err, size_t errlen)
{
	struct capture_block_index blocks = { 0 };
	struct acc *a;
	struct headline *l;
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
	a->blocks = &blocks;
	a->from_rel = wo->from_rel_ns;
	/* a collective that begins near an edge is whole if it ends within the margin */
	a->margin = wo->window_ns / 2 < WINDOWS_MAX_MARGIN_NS ? wo->window_ns / 2 : WINDOWS_MAX_MARGIN_NS;
	/* pass 1: every group's samples over the whole capture, for the baselines of pass 2 */
	a->pass = 1;
	ret = all_windows(a, err, errlen);
	if (!ret) {
		size_t nb;

		ret = corr__baselines(a->job.samples, a->job.nsamples, &a->base, &nb);
		a->co = *wo->corr;
		a->co.baselines = a->base;
		a->co.nbaselines = nb;
	}
	tally_free(&a->job);
	for (size_t i = 0; i < a->nparts; i++)
		tally_free(&a->parts[i].t);
	free(a->parts);
	a->parts = NULL;
	a->nparts = a->next = a->ndone = 0;
	a->end_rel = 0;
	if (!ret) {
		a->pass = 2;
		ret = all_windows(a, err, errlen);
	}
	if (!ret && a->job.ncut)
		warn_cut(a);
	if (!ret) {
		answer__sort(&a->job.ans);
		answer(l, a, path);
		if (o->json)
			write_json(out, a, l, path, o);
		else
			write_text(out, a, l, path, o);
		ret = fflush(out) || ferror(out) ? -EIO : 0;
		if (ret)
			snprintf(err, errlen, "writing the report: %s", strerror(stream_errno(stdout)));
	}
	tally_free(&a->job);
	for (size_t i = 0; i < a->nparts; i++)
		tally_free(&a->parts[i].t);
	free(a->parts);
	free(a->base);
	free(a);
	free(l);
	capture_block_index__free(&blocks);
	return ret;
}
