// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Placing the clocks of a merge (capture/merge.h, docs/multihost.md).
 *
 * Pass 1 reads every capture once: its identity, clock pairs and sync state,
 * its namespaces, pids, flows (which hosts talk to which), and the entry and
 * exit of each collective instance.  The clocks are then placed coarsely
 * from the realtime anchors (REALTIME - MONOTONIC, a line through the clock
 * pairs), with the hosts' maxerror as the bound.
 * Pass 2 bins each host's traffic in a few windows on that coarse clock;
 * pairs of hosts that talk are matched in both directions (userspace/
 * mergefit.h), searched only where collectives allow (no rank leaves an
 * all-reduce before the last one entered), and a line through the windows
 * gives each pair's offset and drift.  Each host is placed against the
 * reference (the first capture) along its most certain chain of pairs.
 * Pass 3 writes the merged capture: FT_REC_HOST / FT_REC_HOST_NETNS records,
 * then every host's records with timestamps and colliding ids rewritten
 * (userspace/capture/retime.h), then one END.  Written to a temporary file and
 * renamed, so a failed merge leaves nothing behind.
 *
 * This file: the clock fit; capture/merge_scan.c: passes 1 and 2;
 * capture/merge_write.c: the ids, labels, pass 3 and the summary.
 */
#include <fcntl.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/mergefit.h"
#include "userspace/capture/retime.h"
#include "userspace/capture/merge.h"
#include "userspace/capture/merge_priv.h"
#include "lib/util.h"

void mrg_warnf(struct merge *m, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	char **p;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* a damaged input loses data: said even with -q */
	if (!m->json && (!m->quiet || !strncmp(fmt, MRG_DAMAGED, strlen(MRG_DAMAGED))))
		ft_warn("merge: %s", buf);
	p = realloc(m->warnings, (m->nwarn + 1) * sizeof(*p));
	if (!p)
		return;
	m->warnings = p;
	m->warnings[m->nwarn] = strdup(buf);
	if (m->warnings[m->nwarn])
		m->nwarn++;
}


/* ---- coarse placement ---- */

/* realtime - mono of host H at host time T (ns, relative to its header's offset) */
static void rt_line(const struct host *h, double *a, double *b)
{
	double det = h->clk_sw * h->clk_sxx - h->clk_sx * h->clk_sx;

	*a = 0;
	*b = 0;
	if (!h->nclk)
		return;
	if (h->nclk < 2 || det <= 0) {
		*a = h->clk_sy / h->clk_sw;
		return;
	}
	*b = (h->clk_sw * h->clk_sxy - h->clk_sx * h->clk_sy) / det;
	*a = (h->clk_sy - *b * h->clk_sx) / h->clk_sw;
}

static void coarse(struct merge *m)
{
	const struct host *ref = &m->h[0];
	double ar, br, t0r = ref->nclk ? ref->clk_t0 : 0;

	rt_line(ref, &ar, &br);
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];
		double a, b, t0 = h->nclk ? h->clk_t0 : 0;

		rt_line(h, &a, &b);
		/*
		 * real = t + R_h + a + b (t - t0) = t' + R_r + ar + br (t' - t0r),
		 * taken less R_r: the realtime offsets (~1.8e18 ns) differ by an
		 * exact integer, where a double of either loses ~100 ns
		 */
		double d = (double)mrg_sat_sub(h->hdr.realtime_offset_ns, ref->hdr.realtime_offset_ns);
		double ts = (double)h->hdr.start_mono_ns;
		double rel = ts + d + a + b * (ts - t0);
		double tp = (rel - ar + br * t0r) / (1 + br);

		h->c_off = i ? mrg_sat_round(tp - ts) : 0;
		h->c_drift = i ? (1 + b) / (1 + br) - 1 : 0;
		h->rt.t0_ns = h->hdr.start_mono_ns;
		if (!h->nclk || h->unsynced || !h->sync_known || !ref->nclk || ref->unsynced || !ref->sync_known)
			h->c_unc = -1;
		else
			h->c_unc = (double)(h->maxerror_us + ref->maxerror_us) * 1000.0;
		if (!i)
			h->c_unc = 0;
	}
}

static bool talk(const struct host *a, const struct host *b)
{
	if (!a->naddrs || !b->naddrs)
		return true; /* no flow information: try */
	for (size_t i = 0; i < a->npeers; i++)
		for (size_t j = 0; j < b->naddrs; j++)
			if (!memcmp(a->peers[i], b->addrs[j], 16))
				return true;
	for (size_t i = 0; i < b->npeers; i++)
		for (size_t j = 0; j < a->naddrs; j++)
			if (!memcmp(b->peers[i], a->addrs[j], 16))
				return true;
	return false;
}

/* e = e_b - e_a must satisfy, for every shared instance,
 * S_b - E_a <= e <= E_b - S_a (times on the coarse clock). */
static void coll_bounds(const struct host *a, const struct host *b, struct pairfit *p)
{
	size_t cnt = 0;

	p->lo = -INFINITY;
	p->hi = INFINITY;
	if (!a->coll || !b->coll)
		return;
	for (size_t i = 0; i < ((size_t)1 << COLL_BITS); i++) {
		const struct coll *x = &a->coll[i];
		struct coll *y;

		if (!x->seq || x->min_end == UINT64_MAX)
			continue;
		y = mrg_coll_find((struct host *)b, x->comm, x->seq, x->op, false);
		if (!y || y->min_end == UINT64_MAX)
			continue;
		double sa = (double)mrg_to_coarse(a, x->max_start), ea = (double)mrg_to_coarse(a, x->min_end);
		double sb = (double)mrg_to_coarse(b, y->max_start), eb = (double)mrg_to_coarse(b, y->min_end);

		if (sb - ea > p->lo)
			p->lo = sb - ea;
		if (eb - sa < p->hi)
			p->hi = eb - sa;
		cnt++;
	}
	p->bounds = cnt > 0;
}

/* A pair's windows that disagree with the rest (mergefit__consensus) are
 * left out, with a warning. */
static void keep_consensus(struct merge *m, struct pairfit *p)
{
	bool keep[MAX_WINDOWS];
	size_t n = 0, out = 0;
	double odd = 0, kept = 0;

	mergefit__consensus(p->t, p->e, p->s, p->mg, p->nwin, keep);
	for (size_t k = 0; k < p->nwin; k++) {
		if (!keep[k]) {
			odd = out++ ? odd : p->e[k];
			continue;
		}
		p->t[n] = p->t[k];
		p->e[n] = p->e[k];
		p->s[n] = p->s[k];
		p->mg[n] = p->mg[k];
		kept += p->e[k];
		n++;
	}
	if (out)
		mrg_warnf(m, "%s and %s: %zu of %zu traffic windows matched away from the others (%+.3f ms where they "
			  "say %+.3f ms: a wrong peak of repeating traffic); not used", m->h[p->a].label,
			  m->h[p->b].label, out, p->nwin, odd / 1e6, kept / (double)n / 1e6);
	p->nwin = n;
}

static void fit_pairs(struct merge *m)
{
	const double bin = (double)m->bin_ns;

	for (size_t i = 0; i < m->n; i++)
		for (size_t j = i + 1; j < m->n; j++) {
			struct host *a = &m->h[i], *b = &m->h[j];
			struct pairfit *p;
			int64_t lo = -(int64_t)(m->pad_ns / m->bin_ns), hi = -lo;

			if (!talk(a, b))
				continue;
			if (grow_array((void **)&m->pf, &m->cappf, m->npf + 1, sizeof(*m->pf)))
				return;
			p = &m->pf[m->npf];
			memset(p, 0, sizeof(*p));
			p->a = (int)i;
			p->b = (int)j;
			p->unc = -1;
			coll_bounds(a, b, p);
			if (p->bounds && p->lo <= p->hi + 2 * bin) {
				int64_t l = (int64_t)floor(p->lo / bin) - 1, h = (int64_t)ceil(p->hi / bin) + 1;

				lo = l > lo ? l : lo;
				hi = h < hi ? h : hi;
			} else if (p->bounds) {
				mrg_warnf(m, "%s and %s: their collectives contradict each other on any clock offset "
				      "(instances mismatched?); not used as bounds", a->label, b->label);
				p->bounds = false;
			}
			for (size_t k = 0; k < m->nwin; k++) {
				struct mf_est e;

				if (!a->win[k].tx || !b->win[k].tx)
					continue; /* one of them did not record through it */
				e = mergefit__pair(&a->win[k], &b->win[k], lo, hi);

				if (getenv("FABTRACE_MERGE_DEBUG"))
					fprintf(stderr, "merge: %s-%s window %zu [%lld,%lld] bins: %s e %.1f rtt %lld "
						"score %.3f second %.3f (bounds %d %.0f %.0f)\n", a->label, b->label, k,
						(long long)lo, (long long)hi, e.valid ? "valid" : "no", (double)e.e_bins2 / 2,
						(long long)e.rtt_bins, e.score, e.second, p->bounds, p->lo, p->hi);

				if (!e.valid || e.rtt_bins < -2)
					continue;
				p->t[p->nwin] = (double)m->win[k].start + (double)m->win[k].len / 2 - m->tref;
				p->e[p->nwin] = (double)e.e_bins2 / 2 * bin;
				p->s[p->nwin] = ((double)llabs(e.rtt_bins) / 2 + 2) * bin; /* + a bin each side for the binning */
				p->mg[p->nwin] = e.score - (e.second > 0 ? e.second : 0);
				p->nwin++;
			}
			m->npf++;
			if (!p->nwin)
				continue;
			keep_consensus(m, p);
			mergefit__line(p->t, p->e, p->s, p->nwin, 0, &p->fa, &p->fb);
			double worst = 0, res = 0, tmin = p->t[0], tmax = p->t[0];

			for (size_t k = 0; k < p->nwin; k++) {
				worst = p->s[k] > worst ? p->s[k] : worst;
				tmin = p->t[k] < tmin ? p->t[k] : tmin;
				tmax = p->t[k] > tmax ? p->t[k] : tmax;
			}
			/* the clock pairs already give the drift (to ppb); the traffic's own
			 * slope counts only where it moves the offset by more than the
			 * matches' uncertainty across the windows */
			if (fabs(p->fb) * (tmax - tmin) <= 2 * worst) {
				double sw = 0, se = 0;

				p->fb = 0;

				for (size_t k = 0; k < p->nwin; k++) {
					sw += 1 / (p->s[k] * p->s[k]);
					se += p->e[k] / (p->s[k] * p->s[k]);
				}
				p->fa = se / sw;
			}
			worst = 0;

			for (size_t k = 0; k < p->nwin; k++) {
				double d = fabs(p->e[k] - (p->fa + p->fb * p->t[k]));

				worst = p->s[k] > worst ? p->s[k] : worst;
				res = d > res ? d : res;
			}
			p->unc = worst + res;
			p->causal_ok = !p->bounds || (p->fa >= p->lo - p->unc && p->fa <= p->hi + p->unc);
			if (!p->causal_ok) {
				mrg_warnf(m, "%s and %s: the traffic match (%+.3f ms) breaks the collectives' causal order; "
				      "pair not used", a->label, b->label, p->fa / 1e6);
				p->unc = -1;
			}
		}
}

/* Pairs that disagree around a loop (mergefit__loops): the least clear of
 * them is not used, and merge says so. */
static void check_loops(struct merge *m)
{
	struct mf_edge *e = calloc(m->npf ? m->npf : 1, sizeof(*e));

	if (!e)
		return;
	for (size_t k = 0; k < m->npf; k++) {
		const struct pairfit *p = &m->pf[k];
		double margin = 0; /* how clearly its windows matched, together */

		for (size_t w = 0; w < p->nwin; w++)
			margin += p->mg[w];
		e[k] = (struct mf_edge){ p->a, p->b, p->fa, p->unc, margin, 0 };
	}
	if (mergefit__loops(m->n, e, m->npf))
		for (size_t k = 0; k < m->npf; k++) {
			struct pairfit *p = &m->pf[k];

			if (e[k].dropped_by <= 0)
				continue;
			p->unc = -1;
			mrg_warnf(m, "%s and %s: a loop of pairs through them disagrees by %.3f ms (a wrong peak of "
				  "repeating traffic), and their match (%+.3f ms) is its least clear; not used",
				  m->h[p->a].label, m->h[p->b].label, e[k].dropped_by / 1e6, p->fa / 1e6);
		}
	free(e);
}

static void place(struct merge *m)
{
	size_t n = m->n;
	double *w, *dist;
	int *prev;

	if (!n)  /* never: merge__run takes 1 or more (the analyzer loses it across files) */
		return;
	w = malloc(n * n * sizeof(*w));
	dist = malloc(n * sizeof(*dist));
	prev = malloc(n * sizeof(*prev));
	if (!w || !dist || !prev)
		goto out;
	for (size_t i = 0; i < n * n; i++)
		w[i] = -1;
	for (size_t k = 0; k < m->npf; k++)
		if (m->pf[k].unc >= 0) {
			w[(size_t)m->pf[k].a * n + (size_t)m->pf[k].b] = m->pf[k].unc;
			w[(size_t)m->pf[k].b * n + (size_t)m->pf[k].a] = m->pf[k].unc;
		}
	mergefit__chain(n, w, prev, dist);
	m->h[0].flags |= FT_HOST_REFERENCE;
	m->h[0].unc = 0;
	for (size_t j = 1; j < n; j++) {
		struct host *h = &m->h[j];

		if (dist[j] < 0) {
			h->flags |= FT_HOST_COARSE;
			h->unc = h->c_unc;
			continue;
		}
		h->flags |= FT_HOST_TRAFFIC;
		h->unc = dist[j];
		for (int v = (int)j; prev[v] >= 0; v = prev[v]) {
			int u = prev[v];

			for (size_t k = 0; k < m->npf; k++) {
				const struct pairfit *p = &m->pf[k];

				if (p->unc < 0)
					continue;
				if (p->a == u && p->b == v) {
					h->e_a += p->fa;
					h->e_b += p->fb;
					h->pairs += (uint32_t)p->nwin;
					break;
				}
				if (p->a == v && p->b == u) {
					h->e_a -= p->fa;
					h->e_b -= p->fb;
					h->pairs += (uint32_t)p->nwin;
					break;
				}
			}
		}
	}
	for (size_t j = 0; j < n; j++) {
		struct host *h = &m->h[j];
		double t0c = (double)mrg_to_coarse(h, h->rt.t0_ns) - m->tref;

		if (h->unsynced)
			h->flags |= FT_HOST_UNSYNCED;
		/* final: t' = coarse(t) - e(coarse(t)) */
		h->rt.offset_ns = mrg_sat_sub(h->c_off, mrg_sat_round(h->e_a + h->e_b * t0c));
		h->rt.drift = (1 + h->c_drift) * (1 - h->e_b) - 1;
	}
	/* one kernel, one CLOCK_MONOTONIC: exactly where its earlier twin is */
	for (size_t j = 1; j < n; j++) {
		struct host *h = &m->h[j];
		const struct host *t;

		if (h->same_as < 0)
			continue;
		t = &m->h[h->same_as];
		h->rt.offset_ns = t->rt.offset_ns;
		h->rt.drift = t->rt.drift;
		h->rt.t0_ns = t->rt.t0_ns;
		h->unc = t->unc;
		h->flags = (h->flags & ~(uint32_t)(FT_HOST_TRAFFIC | FT_HOST_COARSE)) | FT_HOST_SAME_KERNEL;
	}
out:
	free(w);
	free(dist);
	free(prev);
}


/*
 * Two captures of one kernel that traced one interface, or one process's
 * calls, at the same time hold the same packets or calls: merged, they would
 * count twice.  (Captures of one machine at different times, or of other
 * interfaces and processes, merge.)
 */
static int refuse_twice_traced(const struct merge *m)
{
	for (size_t i = 0; i < m->n; i++)
		for (size_t j = 0; j < i; j++) {
			const struct host *a = &m->h[j], *b = &m->h[i];

			if (!mrg_same_kernel(a, b) || !a->t_first || !b->t_first ||
			    (a->t_first > b->t_first ? a->t_first : b->t_first) >=
				    (a->t_last < b->t_last ? a->t_last : b->t_last))
				continue;
			for (size_t k = 0; k < b->ntif; k++)
				for (size_t l = 0; l < a->ntif; l++)
					if (b->tif[k] == a->tif[l]) {
						ft_err("merge: %s and %s were recorded on one machine at the same time, "
						       "both tracing interface %u of namespace %u: merged, its records "
						       "would count twice; give one of them, or record each interface "
						       "once (record -i, --netns)", a->path, b->path,
						       (uint32_t)b->tif[k], (uint32_t)(b->tif[k] >> 32));
						return -1;
					}
			for (size_t k = 0; k < b->npids; k++)
				for (size_t l = 0; l < a->npids; l++)
					if (b->pids[k] == a->pids[l]) {
						ft_err("merge: %s and %s were recorded on one machine at the same time, "
						       "both tracing the calls of process %u: merged, they would count "
						       "twice; give one of them, or record each job once (record -p)",
						       a->path, b->path, b->pids[k]);
						return -1;
					}
		}
	return 0;
}

static void free_merge(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++) {
		struct host *h = &m->h[i];

		capture_block_index__free(&h->blocks);
		free(h->netns);
		free(h->tif);
		free(h->pids);
		free(h->lo);
		free(h->slots);
		free(h->coll);
		for (size_t k = 0; k < MAX_WINDOWS; k++) {
			free(h->win[k].tx);
			free(h->win[k].rx);
		}
	}
	for (size_t i = 0; i < m->nwarn; i++)
		free(m->warnings[i]);
	free(m->warnings);
	free(m->pf);
	free(m->h);
}

/* Where to match traffic (mergefit__plan): the windows, and how far the
 * search may move a host in them (pad_ns, the clocks' bound). */
static void plan_windows(struct merge *m)
{
	int64_t *lo = calloc(m->n + 1, sizeof(*lo)), *hi = calloc(m->n + 1, sizeof(*hi));
	bool *talks = calloc(m->n * m->n + 1, sizeof(*talks));
	double maxunc = 0;
	bool unknown = false;

	for (size_t i = 0; i < m->n; i++) {
		const struct host *h = &m->h[i];

		if (h->c_unc < 0)
			unknown = true;
		else if (h->c_unc > maxunc)
			maxunc = h->c_unc;
	}
	m->pad_ns = unknown || maxunc > (double)m->max_window ? m->max_window : (uint64_t)maxunc;
	if (m->pad_ns < 20 * m->bin_ns)
		m->pad_ns = 20 * m->bin_ns;
	m->pad_ns = m->pad_ns / m->bin_ns * m->bin_ns;
	m->nwin = 0;
	m->tref = 0;
	if (!lo || !hi || !talks)
		goto out;
	for (size_t i = 0; i < m->n; i++) {
		const struct host *h = &m->h[i];

		if (h->t_first) {
			lo[i] = mrg_to_coarse(h, h->t_first);
			hi[i] = mrg_to_coarse(h, h->t_last);
		}
		for (size_t j = i + 1; j < m->n; j++)
			talks[i * m->n + j] = talk(h, &m->h[j]);
	}
	m->nwin = mergefit__plan(m->n, lo, hi, talks, 200 * m->bin_ns, WINDOW_LEN_NS, m->bin_ns, SPREAD_WINDOWS,
				 m->win, MAX_WINDOWS);
	if (m->nwin) /* the fits are centred on the windows' middle */
		m->tref = ((double)m->win[0].start +
			   (double)m->win[m->nwin - 1].start + (double)m->win[m->nwin - 1].len) / 2;
out:
	free(lo);
	free(hi);
	free(talks);
}

/* The hosts whose clock needs no fit: the reference, and those of its kernel or another's (one clock). */
static size_t placed_by_clock(const struct merge *m)
{
	size_t k = 0;

	for (size_t i = 0; i < m->n; i++)
		k += i == 0 || m->h[i].same_as >= 0;
	return k;
}

/* Whether host H has traffic in any window (it overlaps a host it talks to). */
static bool in_windows(const struct merge *m, const struct host *h)
{
	for (size_t k = 0; k < m->nwin; k++)
		if (h->win[k].tx)
			return true;
	return false;
}


/*
 * The output's directory, checked before the inputs are read (the output is
 * written last, as a temporary renamed into place): an error about -o after
 * minutes of reading and a warning about the clocks was one line too many.
 */
static int out_dir_writable(const char *out)
{
	char dir[4096];
	struct stat st;
	int e;

	path_dir(out, dir, sizeof(dir));
	if (!stat(dir, &st) && !S_ISDIR(st.st_mode))
		errno = ENOTDIR;
	else if (!faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS)) /* as the effective user */
		return 0;
	e = errno;
	ft_err("merge: %s: cannot create: %s%s", out, strerror(e), create_hint(e, out));
	return -1;
}

int merge__run(const struct merge_opts *o, char *const *paths, size_t n)
{
	struct merge m = {
		.out = o->out, .json = o->json, .quiet = o->quiet, .anchors_only = o->anchors_only,
		.format_version = o->format_version,
		.max_window = o->max_window, .argc = o->argc, .argv = o->argv,
	};
	char ob[64];
	uint32_t oflags = 0;
	int rc = 1;

	if (n < 1 || n > MERGE_MAX_HOSTS) {
		ft_err("merge: %zu captures; 1 to %d can be merged", n, MERGE_MAX_HOSTS);
		return 1;
	}
	if (out_dir_writable(m.out))
		return 1;
	m.n = n;
	m.h = calloc(m.n, sizeof(*m.h));
	if (!m.h)
		return 1;
	for (size_t i = 0; i < m.n; i++)
		if (ft_same_file(m.out, paths[i])) {
			ft_err("merge: -o %s is one of the captures to merge (%s); choose another output", m.out,
			       paths[i]);
			rc = 2;
			goto out;
		}
	/* another capture there is an input's name typed for the output's; only
	 * an earlier merge's output, which its inputs make again, is replaced */
	if (capture__is_capture(m.out, &oflags) && !(oflags & FT_FILE_MERGED)) {
		ft_err("merge: -o %s is a fabtrace capture (not a merged one), which the merge would replace; "
		       "name another output, or remove it first", m.out);
		rc = 2;
		goto out;
	}
	for (size_t i = 0; i < m.n; i++) {
		m.h[i].path = paths[i];
		m.h[i].stop_reason = -1;
		if (!capture__rereadable(paths[i])) {
			ft_err("merge: %s is a pipe; merge reads each capture three times: save it to a file first",
			       paths[i]);
			goto out;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m.h[j].path, m.h[i].path) || ft_same_file(m.h[j].path, m.h[i].path)) {
				ft_err("merge: %s is given twice (as %s too)", m.h[i].path, m.h[j].path);
				goto out;
			}
		if (mrg_pass1(&m.h[i]))
			goto out;
		if (m.h[i].state != CAPTURE_OK)
			mrg_warnf(&m, MRG_DAMAGED "%s: %s; merging what is readable", mrg_base_name(m.h[i].path),
				  m.h[i].error[0] ? m.h[i].error : "capture is incomplete");
		for (size_t j = 0; j < i; j++) {
			const struct ft_file_header *a = &m.h[j].hdr, *b = &m.h[i].hdr;
			const uint32_t flight = FT_FILE_SEGMENT | FT_FILE_SNAPSHOT;

			if (!memcmp(a, b, sizeof(*b))) {
				ft_err("merge: %s and %s are copies of one recording (the same header); give it once",
				       m.h[j].path, m.h[i].path);
				goto out;
			}
			/* one recorder's files: merged, they were two hosts (or refused as one
			 * traced twice, consecutive segments sharing their held-back bins) */
			if ((a->flags & flight) && (b->flags & flight) &&
			    !strncmp(a->hostname, b->hostname, sizeof(a->hostname)) &&
			    !strncmp(a->kernel, b->kernel, sizeof(a->kernel)) &&
			    !strncmp(a->command, b->command, sizeof(a->command))) {
				ft_err("merge: %s and %s come from one flight recorder: merge joins the captures of "
				       "several hosts, not the times of one; for a window across segments take a "
				       "snapshot (fabtrace trigger --at TIME), else report each", m.h[j].path,
				       m.h[i].path);
				goto out;
			}
		}
		/* record takes 1 us to 1 s: anything else is a damaged header, and
		 * the traffic windows' buffers grow as the bins shrink */
		if (m.h[i].hdr.bin_ns < 1000 || m.h[i].hdr.bin_ns > 1000000000ull) {
			ft_err("merge: %s has %llu ns bins, outside the 1 us to 1 s that fabtrace records: a damaged header",
			       m.h[i].path, (unsigned long long)m.h[i].hdr.bin_ns);
			goto out;
		}
		if (i && m.h[i].hdr.bin_ns != m.h[0].hdr.bin_ns) {
			ft_err("merge: %s has %llu ns bins, %s %llu ns; record every host with the same --bin",
			       m.h[i].path, (unsigned long long)m.h[i].hdr.bin_ns, m.h[0].path,
			       (unsigned long long)m.h[0].hdr.bin_ns);
			goto out;
		}
	}
	m.bin_ns = m.h[0].hdr.bin_ns;
	mrg_make_labels(&m);
	for (size_t i = 0; i < m.n; i++) {
		m.h[i].same_as = -1;
		for (size_t j = 0; j < i && m.h[i].same_as < 0; j++)
			if (mrg_same_kernel(&m.h[i], &m.h[j]))
				m.h[i].same_as = (int)j;
	}
	if (refuse_twice_traced(&m))
		goto out;
	for (size_t i = 0; i < m.n; i++) {
		if (m.h[i].same_as >= 0)
			continue; /* its clock is its twin's, whatever it said */
		/* the first capture is the reference: its clock is the timeline,
		 * whatever it said; the others are placed by the traffic, unless
		 * --anchors-only leaves them to their realtime anchors */
		if (m.h[i].unsynced && i && !m.anchors_only)
			mrg_warnf(&m, "%s: its clock said it was unsynchronised; its place comes from the traffic "
			      "alone (or is unknown)", m.h[i].label);
		else if (m.h[i].unsynced && i)
			mrg_warnf(&m, "%s: its clock said it was unsynchronised, and --anchors-only places it by "
				  "that clock's realtime anchor: its offset has no bound", m.h[i].label);
		else if (!m.h[i].nclk)
			mrg_warnf(&m, "%s: no clock pairs (an older capture); its realtime anchor is the header's",
			      m.h[i].label);
	}
	coarse(&m);
	if (!m.anchors_only)
		plan_windows(&m);
	for (size_t i = 0; i < m.n && m.nwin; i++)
		if (mrg_pass2(&m, &m.h[i])) {
			ft_err("merge: out of memory");
			goto out;
		}
	if (m.nwin && m.n > 1) {
		fit_pairs(&m);
		check_loops(&m);
	} else if (m.n > 1 && !m.anchors_only && placed_by_clock(&m) < m.n)
		mrg_warnf(&m, "no two captures overlap by %s; clocks placed by their realtime anchors only",
		      fmt_ns(200 * m.bin_ns, ob, sizeof(ob)));
	place(&m);
	for (size_t i = 1; i < m.n && !m.anchors_only && m.nwin; i++) /* asked for: no surprise */
		if (!(m.h[i].flags & (FT_HOST_TRAFFIC | FT_HOST_SAME_KERNEL)))
			mrg_warnf(&m, "%s: %s; placed by its realtime anchor%s", m.h[i].label,
				  in_windows(&m, &m.h[i]) ? "no traffic matched with another host" :
				  "its capture overlaps no host it exchanges traffic with by 200 bins",
				  m.h[i].c_unc < 0 ? " with no bound (its skew against others means nothing)" : "");
	mrg_assign_ids(&m);
	if (mrg_write_merged(&m))
		goto out;
	mrg_print_summary(&m);
	rc = 0;
out:
	free_merge(&m);
	return rc;
}
