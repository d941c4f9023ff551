// SPDX-License-Identifier: GPL-2.0-or-later
/* The report's first screen: the answer (report_headline.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/probe_name.h"
#include "userspace/report/report_headline.h"
#include "lib/util.h"

static void line(struct headline *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void line(struct headline *h, const char *fmt, ...)
{
	va_list ap;

	if (h->nlines == HEADLINE_MAX_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(h->lines[h->nlines++], sizeof(h->lines[0]), fmt, ap);
	va_end(ap);
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

static const char *conservation_state(const struct model *m, size_t *nskipped)
{
	bool ok = false, skipped = false;

	*nskipped = 0;
	for (size_t i = 0; i < m->nifaces; i++)
		for (int d = 0; d < 2; d++)
			switch (m->ifaces[i].dir[d].conserve) {
			case MODEL_CONSERVE_MISMATCH:
				return "mismatch";
			case MODEL_CONSERVE_OK_SKIPPED:
				skipped = true;
				(*nskipped)++;
				break;
			case MODEL_CONSERVE_OK:
				ok = true;
				break;
			default:
				break;
			}
	return skipped ? "ok_skipped" : ok ? "ok" : "unchecked";
}

static size_t count_mismatch(const struct model *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nifaces; i++)
		for (int d = 0; d < 2; d++)
			n += m->ifaces[i].dir[d].conserve == MODEL_CONSERVE_MISMATCH;
	return n;
}

/* "Data: ..." -- whether the figures can be trusted, in one line */
static void data_line(struct headline *h, const struct model *m)
{
	char buf[240];
	size_t k = 0, nskipped;

	h->conservation = conservation_state(m, &nskipped);
	if (m->truncated)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "capture TRUNCATED (%s)",
				      m->truncated_why[0] ? m->truncated_why : "no end record");
	else if (m->damaged_hosts) /* merged whole, from inputs that were not */
		k += (size_t)snprintf(buf + k, sizeof(buf) - k,
				      "merged capture of %zu host%s, %zu of them from a damaged or unfinished "
				      "capture (as far as readable)", m->nhosts, m->nhosts == 1 ? "" : "s",
				      m->damaged_hosts);
	else
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "capture complete");
	if (k < sizeof(buf))
		k += (size_t)(m->lost_total ? snprintf(buf + k, sizeof(buf) - k,
						       "; %" PRIu64 " events LOST (ring buffer full)", m->lost_total)
					    : snprintf(buf + k, sizeof(buf) - k, "; no events lost"));
	if (k < sizeof(buf) && m->skipped_runs)
		k += (size_t)snprintf(buf + k, sizeof(buf) - k, "; kernel skipped %" PRIu64 " probe runs (counted)",
				      m->skipped_runs);
	if (k < sizeof(buf)) {
		if (!strcmp(h->conservation, "mismatch"))
			snprintf(buf + k, sizeof(buf) - k, "; conservation MISMATCH on %zu interface directions",
				 count_mismatch(m));
		else if (!strcmp(h->conservation, "ok_skipped"))
			snprintf(buf + k, sizeof(buf) - k, "; conservation OK (%zu shortfalls explained by the skips)",
				 nskipped);
		else if (!strcmp(h->conservation, "ok"))
			snprintf(buf + k, sizeof(buf) - k, "; conservation OK");
		else if (m->opts.window)
			snprintf(buf + k, sizeof(buf) - k, "; conservation not checked in a window");
	}
	line(h, "Data: %s", buf);
}

/* The network evidence of an instance, short: "link eth0@h2 (tbf 1:): queueing 2.43 ms, 24 congestion drops" */
static const char *cause_network(const struct model *m, const struct corr_instance *in, char *buf, size_t len)
{
	const struct corr_evsum *e = &in->ev;
	char q[48];
	size_t k = 0;
	bool first = true;

#define ADD(...) do { if (k < len) k += (size_t)snprintf(buf + k, len - k, __VA_ARGS__); } while (0)
	buf[0] = '\0';
	if (e->link != CORR_NONE && e->link < m->nifaces)
		ADD("link %s", m->ifaces[e->link].label);
	if (e->qdisc != CORR_NONE)
		ADD(" (%s)", corr__qdisc_label(m, e->qdisc, q, sizeof(q)));
	if (k)
		ADD(":");
	if ((in->why & CORR_WHY_QUEUE) && e->queue_delay_ns) {
		ADD(" queueing %s", fmt_ns(e->queue_delay_ns, q, sizeof(q)));
		first = false;
	}
	if (e->cong_drops) {
		ADD("%s %" PRIu64 " congestion drops", first ? "" : ",", e->cong_drops);
		first = false;
	}
	if (e->retrans > e->retrans_tlp) { /* counted as the details count them */
		ADD("%s %" PRIu64 " retransmits", first ? "" : ",", e->retrans);
		if (e->retrans_tlp)
			ADD(" (%" PRIu64 " tail-loss probes)", e->retrans_tlp);
		first = false;
	}
	if (e->ce_pkts) {
		ADD("%s %" PRIu64 " CE marks", first ? "" : ",", e->ce_pkts);
		first = false;
	}
	if (e->ctr_series != CORR_NONE && e->ctr_series < m->nctr_series) {
		const struct model_ctr_series *s = &m->ctr_series[e->ctr_series];

		ADD("%s %s %s spiking", first ? "" : ",", m->ctr_groups[s->group].label, s->name);
		first = false;
	}
	if (first)
		ADD(" congestion");
#undef ADD
	return buf;
}

static const char *cause_of(const struct corr *c, const struct corr_instance *in, char *buf, size_t len)
{
	char r[128], a[32], n[200];

	switch (in->verdict) {
	case CORR_NETWORK:
		snprintf(buf, len, "NETWORK %s", cause_network(c->m, in, n, sizeof(n)));
		break;
	case CORR_RANK:
		snprintf(buf, len, "RANK %s entered %s late", corr__rank_label(c, in->straggler, r, sizeof(r)),
			 fmt_ns(in->own_late_ns ? in->own_late_ns : in->skew_ns, a, sizeof(a)));
		break;
	case CORR_UNKNOWN:
		if ((in->why & CORR_WHY_STRAGGLER) && (in->why & CORR_WHY_CONGESTION))
			snprintf(buf, len, "UNKNOWN %s late while %s", corr__rank_label(c, in->straggler, r, sizeof(r)),
				 cause_network(c->m, in, n, sizeof(n)));
		else
			snprintf(buf, len, "UNKNOWN %.1fx its usual time, no congestion or late rank seen",
				 in->slow_ratio == in->slow_ratio ? in->slow_ratio : 0.0);
		break;
	default:
		snprintf(buf, len, "OK");
		break;
	}
	return buf;
}

const char *headline__place(const struct corr *c, const struct corr_instance *in, char *buf, size_t len)
{
	const struct model *m = c->m;

	if (in->verdict != CORR_NETWORK)
		return corr__rank_label(c, in->straggler, buf, len);
	if (!corr__culprit_label(m, &in->ev, buf, len)[0])
		snprintf(buf, len, "the ranks' flows or adapters");
	return buf;
}

/* Where the blame of verdict V falls: "14 on link eth0@h2 (tbf 1:), 2 on link eth0@h3" */
static void blame_line(struct headline *h, const struct corr *c, enum corr_verdict v, const char *what)
{
	uint32_t key[4];
	uint64_t cnt[4] = { 0 };
	size_t nk = 0;
	uint64_t other = 0, total = c->verdicts[v];
	char buf[240], lb[128];
	size_t k = 0;

	if (!total)
		return;
	/* the places by count (network: the named link; rank: the straggler) */
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		uint32_t p = v == CORR_NETWORK ? in->ev.link : in->straggler;
		size_t j;

		if (in->verdict != v)
			continue;
		for (j = 0; j < nk; j++)
			if (key[j] == p)
				break;
		if (j == nk) {
			if (nk == 4) {
				other++;
				continue;
			}
			key[nk++] = p;
		}
		cnt[j]++;
	}
	for (size_t a = 0; a < nk; a++)
		for (size_t b = a + 1; b < nk; b++)
			if (cnt[b] > cnt[a]) {
				uint64_t tc = cnt[a];
				uint32_t tk = key[a];

				cnt[a] = cnt[b]; key[a] = key[b];
				cnt[b] = tc; key[b] = tk;
			}
	for (size_t j = 0; j < nk && j < 2; j++) {
		const struct corr_instance *any = NULL;
		const char *place = "?";

		/* the place as the first instance blamed on it names it */
		for (size_t i = 0; i < c->ninstances && !any; i++)
			if (c->instances[i].verdict == v &&
			    (v == CORR_NETWORK ? c->instances[i].ev.link : c->instances[i].straggler) == key[j])
				any = &c->instances[i];
		if (any)
			place = headline__place(c, any, lb, sizeof(lb));
		if (k < sizeof(buf))
			k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%" PRIu64 " %s %s", j ? ", " : "", cnt[j],
					      v == CORR_NETWORK ? "on" : "by", place);
	}
	for (size_t j = 2; j < nk; j++)
		other += cnt[j];
	if (other && k < sizeof(buf))
		snprintf(buf + k, sizeof(buf) - k, ", %" PRIu64 " %s", other,
			 v == CORR_NETWORK ? "on other links" : "by other ranks");
	line(h, "  %-14s %s", what, buf);
}

static int cmp_span_desc(const void *a, const void *b, void *arg)
{
	const struct corr *c = arg;
	uint64_t x = c->instances[*(const uint32_t *)a].span_ns, y = c->instances[*(const uint32_t *)b].span_ns;

	return x < y ? 1 : x > y ? -1 : 0;
}

const char *headline__instance(const struct model *m, const struct corr *c, const struct corr_instance *in,
			       char *buf, size_t len)
{
	char w[96], a[32], cause[240];

	snprintf(buf, len, "%s #%" PRIu64 " at %s, %s: %s", corr__op_name(in->op), in->seq,
		 when(m, in->first_entry, w, sizeof(w)), fmt_ns(in->span_ns, a, sizeof(a)),
		 cause_of(c, in, cause, sizeof(cause)));
	return buf;
}

static void collectives(struct headline *h, const struct model *m, const struct corr *c)
{
	char buf[240];
	uint64_t bad = c->verdicts[CORR_NETWORK] + c->verdicts[CORR_RANK] + c->verdicts[CORR_UNKNOWN];

	line(h, "Answer: of %zu collectives, %" PRIu64 " network-bound, %" PRIu64 " rank-bound, %" PRIu64
		" unknown, %" PRIu64 " ok", c->ninstances, c->verdicts[CORR_NETWORK], c->verdicts[CORR_RANK],
	     c->verdicts[CORR_UNKNOWN], c->verdicts[CORR_OK]);
	blame_line(h, c, CORR_NETWORK, "network-bound:");
	blame_line(h, c, CORR_RANK, "rank-bound:");
	if (!bad) {
		line(h, "  all near their usual time, with no congestion or late rank in their windows");
		return;
	}
	/* the slowest of each verdict that is not ok, then the slowest others; by span */
	for (int v = CORR_NETWORK; v < CORR_NVERDICTS; v++)
		for (size_t i = 0; i < c->nby_span && h->nworst < HEADLINE_WORST; i++)
			if (c->instances[c->by_span[i]].verdict == (enum corr_verdict)v) {
				h->worst[h->nworst++] = c->by_span[i];
				break;
			}
	for (size_t i = 0; i < c->nby_span && h->nworst < HEADLINE_WORST; i++) {
		bool have = false;

		for (size_t j = 0; j < h->nworst; j++)
			have |= h->worst[j] == c->by_span[i];
		if (!have && c->instances[c->by_span[i]].verdict != CORR_OK)
			h->worst[h->nworst++] = c->by_span[i];
	}
	qsort_r(h->worst, h->nworst, sizeof(h->worst[0]), cmp_span_desc, (void *)c);
	line(h, "Worst collectives (the slowest of each verdict, then the slowest):");
	for (size_t i = 0; i < h->nworst; i++)
		line(h, "  %s", headline__instance(m, c, &c->instances[h->worst[i]], buf, sizeof(buf)));
	if (c->enqueue_only)
		line(h, "  (NCCL calls: enqueue times, not the GPU's; see below)");
}

/* No collectives: what the network did */
static void network_only(struct headline *h, const struct model *m, const struct corr *c)
{
	const struct model_qdisc *wq = NULL;
	const struct model_dir *busy = NULL;
	const struct model_iface *busy_if = NULL;
	int busy_dir = 0;
	uint64_t cong = 0;

	/* why there are none: the phase probes were off or found no library,
	 * or they ran and saw no call */
	if (!m->nslots)
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
	} else if (!m->nqdiscs && capture__queues_missing(&m->hdr)) {
		line(h, "  queueing not recorded (%s)", capture__queues_missing(&m->hdr));
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
	char d[32], b[32], w[48];

	memset(h, 0, sizeof(*h));
	line(h, "fabtrace report: %s: %s%s on %s from %s, bins of %s", path ? path : "(model)",
	     fmt_ns(m->duration_ns, d, sizeof(d)), m->opts.window ? " window" : "",
	     m->hdr.hostname[0] ? m->hdr.hostname : "?",
	     fmt_wall(model__wall_ns(m, m->start_ns), w, sizeof(w)), fmt_ns(m->hdr.bin_ns, b, sizeof(b)));
	if (c && c->show_probes && c->ninstances)
		collectives(h, m, c);
	else
		network_only(h, m, c);
	data_line(h, m);
}

void headline__text(FILE *f, const struct headline *h)
{
	for (size_t i = 0; i < h->nlines; i++)
		fprintf(f, "%s\n", h->lines[i]);
}

void headline__json(struct json *j, const struct headline *h, const struct model *m, const struct corr *c)
{
	char buf[240];

	json_key(j, "headline");
	json_object_begin(j);
	json_key(j, "lines");
	json_array_begin(j);
	for (size_t i = 0; i < h->nlines; i++)
		json_string(j, h->lines[i]);
	json_array_end(j);
	json_kv_string(j, "conservation", h->conservation);
	json_key(j, "worst");
	json_array_begin(j);
	for (size_t i = 0; c && i < h->nworst; i++) {
		const struct corr_instance *in = &c->instances[h->worst[i]];

		json_object_begin(j);
		json_kv_u64(j, "instance", h->worst[i]);
		json_kv_string(j, "op", corr__op_name(in->op));
		json_kv_u64(j, "seq", in->seq);
		json_kv_string(j, "verdict", corr__verdict_name(in->verdict));
		json_kv_i64(j, "start_rel_ns", model__rel_ns(m, in->first_entry));
		json_kv_i64(j, "start_wall_ns", model__wall_ns(m, in->first_entry));
		json_kv_u64(j, "span_ns", in->span_ns);
		if (in->verdict == CORR_NETWORK && in->ev.link != CORR_NONE && in->ev.link < m->nifaces)
			json_kv_string(j, "link", m->ifaces[in->ev.link].label);
		else
			json_kv_string(j, "link", NULL);
		if (in->verdict == CORR_NETWORK && in->ev.qdisc != CORR_NONE)
			json_kv_string(j, "queue", corr__qdisc_label(m, in->ev.qdisc, buf, sizeof(buf)));
		else
			json_kv_string(j, "queue", NULL);
		if (in->straggler != CORR_NONE && in->straggler < c->nranks && in->verdict != CORR_NETWORK)
			json_kv_i64(j, "straggler_rank", c->ranks[in->straggler].rank);
		else
			json_kv_string(j, "straggler_rank", NULL);
		json_kv_string(j, "cause", cause_of(c, in, buf, sizeof(buf)));
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}
