// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The counter sections of `fabtrace report` (RDMA ports, counter growth and
 * rates, spikes, the sampler's own cost), text and JSON.  report_write.c and
 * report_json_collectives.c call these; the numbers come from the model (userspace/model/model_counters.c).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rdma/counters.h"
#include "userspace/report/report_counters.h"
#include "lib/util.h"

static const char *port_state_name(unsigned s)
{
	static const char *const n[] = { "?", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };

	return s < sizeof(n) / sizeof(n[0]) ? n[s] : "?";
}

static const char *netdev_str(const struct model *m, const struct model_rdma_port *p, char *buf,
			      size_t len)
{
	if (p->iface != UINT32_MAX)
		snprintf(buf, len, "%s", m->ifaces[p->iface].label);
	else if (p->rec.netdev[0])
		snprintf(buf, len, "%s (not found)", p->rec.netdev);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* "12.3 Gbit/s" for byte counters, "4.56k/s" for the rest. */
static const char *rate_str(const struct model_ctr_series *s, double per_s, char *buf, size_t len)
{
	if (s->flags & FT_CTRF_BYTES)
		return fmt_rate_bps(per_s * 8.0, buf, len);
	if (s->flags & FT_CTRF_USEC)
		snprintf(buf, len, "%.1f%% paused", per_s / 1e4);
	else if (per_s >= 1e6)
		snprintf(buf, len, "%.2fM/s", per_s / 1e6);
	else if (per_s >= 1e3)
		snprintf(buf, len, "%.2fk/s", per_s / 1e3);
	else
		snprintf(buf, len, "%.1f/s", per_s);
	return buf;
}

static const char *total_str(const struct model_ctr_series *s, uint64_t v, char *buf, size_t len)
{
	if (s->flags & FT_CTRF_BYTES)
		return fmt_bytes((double)v, buf, len);
	if (s->flags & FT_CTRF_USEC)
		return fmt_ns(v * 1000ull, buf, len);
	snprintf(buf, len, "%" PRIu64, v);
	return buf;
}

static void text_ports(FILE *f, const struct model *m)
{
	char nd[80];

	fprintf(f, "\nRDMA ports (RoCE/InfiniBand data bypasses the kernel: the counters are the evidence)\n");
	if (!m->nrdma_ports) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-14s %-10s %-7s %-24s %5s  %-22s %s\n", "PORT", "LINK", "STATE", "RATE", "MTU",
		"NETDEV", "HW LIFESPAN");
	for (size_t i = 0; i < m->nrdma_ports; i++) {
		const struct model_rdma_port *p = &m->rdma_ports[i];
		char port[48], life[48];

		snprintf(port, sizeof(port), "%s/%u", p->rec.dev, p->rec.port_num);
		if (p->rec.lifespan_set_ms)
			snprintf(life, sizeof(life), "%u ms (set; was %u ms)", p->rec.lifespan_set_ms,
				 p->rec.lifespan_ms);
		else if (p->rec.lifespan_ms)
			snprintf(life, sizeof(life), "%u ms", p->rec.lifespan_ms);
		else
			snprintf(life, sizeof(life), "-");
		char mtu[16] = "-"; /* 0: sysfs gave none */

		if (p->rec.active_mtu)
			snprintf(mtu, sizeof(mtu), "%u", p->rec.active_mtu);
		fprintf(f, "  %-14s %-10s %-7s %-24s %5s  %-22s %s\n", port,
			model__link_layer_name(p->rec.link_layer), port_state_name(p->rec.state),
			p->rec.rate[0] ? p->rec.rate : "?", mtu, netdev_str(m, p, nd, sizeof(nd)), life);
	}
}

static double series_mean(const struct model *m, const struct model_ctr_series *s)
{
	const struct model_ctr_group *g = &m->ctr_groups[s->group];
	uint64_t span = g->nsamples > 1 ? g->times[g->nsamples - 1] - g->times[0] : 0;

	return span ? (double)s->total * 1e9 / (double)span : NAN;
}

static void text_series(FILE *f, const struct model *m)
{
	size_t quiet = 0;
	bool any = false;
	char t[32], mr[32], pr[32], pa[32], note[64];

	fprintf(f, "\nCounters (growth over the capture; peak = fastest sample interval)\n");
	for (size_t i = 0; i < m->nctr_series; i++) {
		const struct model_ctr_series *s = &m->ctr_series[i];
		const struct model_ctr_group *g = &m->ctr_groups[s->group];
		size_t k = 0;

		if (!s->total && !s->wraps && !s->resets && !s->na) {
			quiet++;
			continue;
		}
		if (!any)
			fprintf(f, "  %-16s %-11s %-34s %-10s %12s %14s %14s %-11s %s\n", "GROUP", "KIND",
				"COUNTER", "CLASS", "TOTAL", "MEAN", "PEAK", "PEAK AT", "NOTES");
		any = true;
		note[0] = 0;
		if (s->wraps)
			k += (size_t)snprintf(note + k, sizeof(note) - k, "%u wrap%s ", s->wraps,
					      s->wraps > 1 ? "s" : "");
		if (s->resets && k < sizeof(note))
			k += (size_t)snprintf(note + k, sizeof(note) - k, "%u reset%s ", s->resets,
					      s->resets > 1 ? "s" : "");
		if (s->na && k < sizeof(note))
			snprintf(note + k, sizeof(note) - k, "N/A in %u reads", s->na);
		/* the kind as the JSON report, export and the sampler table name it */
		fprintf(f, "  %-16s %-11s %-34s %-10s %12s %14s %14s %-11s %s\n", g->label,
			model__ctr_kind_name(g->kind), s->name,
			ctr__class_name(s->cls), total_str(s, s->total, t, sizeof(t)),
			rate_str(s, series_mean(m, s), mr, sizeof(mr)), rate_str(s, s->peak_rate, pr, sizeof(pr)),
			s->peak_ns ? fmt_rel(model__rel_ns(m, s->peak_ns), pa, sizeof(pa)) : "-", note);
	}
	if (!any)
		fprintf(f, "  no counter moved\n");
	if (quiet)
		fprintf(f, "  (%zu more counters did not move)\n", quiet);
}

static void text_spikes(FILE *f, const struct model *m, unsigned top)
{
	char a[32], b[32], d[32], t[32], pr[32];
	size_t shown = 0;

	fprintf(f, "\nCounter spikes (congestion, pause, retransmission and discard counters at >= %.0f/s)\n",
		m->opts.spike_rate);
	if (!m->nctr_events) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-11s %-11s %10s  %-16s %-34s %-10s %12s %14s\n", "START", "END", "DURATION", "GROUP",
		"COUNTER", "CLASS", "GROWTH", "PEAK");
	for (size_t i = 0; i < m->nctr_events; i++) {
		const struct model_ctr_event *e = &m->ctr_events[i];
		const struct model_ctr_series *s = &m->ctr_series[e->series];

		if (top && shown == top) {
			fprintf(f, "  ... %zu more (--top 0 shows all)\n", m->nctr_events - shown);
			break;
		}
		shown++;
		fprintf(f, "  %-11s %-11s %10s  %-16s %-34s %-10s %12s %14s\n",
			fmt_rel(model__rel_ns(m, e->start_ns), a, sizeof(a)),
			fmt_rel(model__rel_ns(m, e->end_ns), b, sizeof(b)), fmt_ns(e->end_ns - e->start_ns, d, sizeof(d)),
			m->ctr_groups[s->group].label, s->name, ctr__class_name(s->cls),
			total_str(s, e->delta, t, sizeof(t)), rate_str(s, e->peak_rate, pr, sizeof(pr)));
	}
}

static void text_sampler(FILE *f, const struct model *m)
{
	uint64_t reads = 0, sum = 0, max = 0;

	fprintf(f, "\nSampler cost (per read of a group)\n");
	fprintf(f, "  %-16s %-11s %8s %10s %10s %10s\n", "GROUP", "KIND", "READS", "PERIOD", "MEAN", "MAX");
	for (size_t i = 0; i < m->nctr_groups; i++) {
		const struct model_ctr_group *g = &m->ctr_groups[i];
		char p[32], a[32], b[32];

		reads += g->nsamples;
		sum += g->read_ns_sum;
		if (g->read_ns_max > max)
			max = g->read_ns_max;
		fprintf(f, "  %-16s %-11s %8zu %10s %10s %10s\n", g->label, model__ctr_kind_name(g->kind),
			g->nsamples, fmt_ns(g->period_ns, p, sizeof(p)),
			fmt_ns(g->nsamples ? g->read_ns_sum / g->nsamples : 0, a, sizeof(a)),
			fmt_ns(g->read_ns_max, b, sizeof(b)));
	}
	if (m->duration_ns) {
		char a[32];

		fprintf(f, "  total %" PRIu64 " reads, %s of CPU (%.2f%% of one core)\n", reads,
			fmt_ns(sum, a, sizeof(a)), 100.0 * (double)sum / (double)m->duration_ns);
	}
	for (size_t i = 0; i < m->nsampler_evs; i++) {
		const struct ft_sampler_event *e = &m->sampler_evs[i].rec;
		char t[32];

		if (e->kind == FT_SAMPLER_COST)
			continue;
		fprintf(f, "  %s %s\n", fmt_rel(model__rel_ns(m, e->ts_ns), t, sizeof(t)), e->msg);
	}
}

void report_ctr__text(FILE *f, const struct model *m, unsigned top)
{
	if (!m->nctr_groups && !m->nrdma_ports)
		return;
	text_ports(f, m);
	text_series(f, m);
	text_spikes(f, m, top);
	text_sampler(f, m);
}

/* ---- JSON ---- */

static void j_series_ref(struct json *j, const struct model *m, uint32_t si)
{
	const struct model_ctr_series *s = &m->ctr_series[si];

	json_kv_string(j, "group", m->ctr_groups[s->group].label);
	json_kv_string(j, "kind", model__ctr_kind_name(m->ctr_groups[s->group].kind));
	json_kv_string(j, "counter", s->name);
	json_kv_string(j, "class", ctr__class_name(s->cls));
}

void report_ctr__json(struct json *j, const struct model *m)
{
	json_key(j, "rdma_ports");
	json_array_begin(j);
	for (size_t i = 0; i < m->nrdma_ports; i++) {
		const struct model_rdma_port *p = &m->rdma_ports[i];

		json_object_begin(j);
		json_kv_string(j, "device", p->rec.dev);
		json_kv_u64(j, "port", p->rec.port_num);
		json_kv_string(j, "link_layer", model__link_layer_name(p->rec.link_layer));
		json_kv_string(j, "state", port_state_name(p->rec.state));
		json_kv_u64(j, "phys_state", p->rec.phys_state);
		json_kv_u64(j, "width", p->rec.width);
		json_kv_u64(j, "rate_mbps", p->rec.rate_mbps);
		json_kv_string(j, "rate", p->rec.rate);
		json_kv_u64(j, "active_mtu", p->rec.active_mtu);
		json_kv_string(j, "netdev", p->rec.netdev[0] ? p->rec.netdev : NULL);
		json_kv_string(j, "interface", p->iface != UINT32_MAX ? m->ifaces[p->iface].label : NULL);
		json_kv_bool(j, "from_verbs", p->rec.flags & FT_PORT_VERBS);
		json_kv_bool(j, "hw_counters", p->rec.flags & FT_PORT_HW_COUNTERS);
		json_kv_u64(j, "lifespan_ms", p->rec.lifespan_ms);
		json_kv_u64(j, "lifespan_set_ms", p->rec.lifespan_set_ms);
		json_kv_string(j, "fw_ver", p->rec.fw_ver);
		json_kv_string(j, "hca_type", p->rec.hca_type);
		json_object_end(j);
	}
	json_array_end(j);

	json_key(j, "counter_groups");
	json_array_begin(j);
	for (size_t i = 0; i < m->nctr_groups; i++) {
		const struct model_ctr_group *g = &m->ctr_groups[i];

		json_object_begin(j);
		json_kv_string(j, "group", g->label);
		json_kv_string(j, "kind", model__ctr_kind_name(g->kind));
		json_kv_string(j, "interface", g->iface != UINT32_MAX ? m->ifaces[g->iface].label : NULL);
		json_kv_u64(j, "period_ns", g->period_ns);
		json_kv_u64(j, "samples", g->nsamples);
		json_kv_u64(j, "read_ns_mean", g->nsamples ? g->read_ns_sum / g->nsamples : 0);
		json_kv_u64(j, "read_ns_max", g->read_ns_max);
		json_key(j, "counters");
		json_array_begin(j);
		for (size_t k = g->first_series; k < g->first_series + g->nseries; k++) {
			const struct model_ctr_series *s = &m->ctr_series[k];

			json_object_begin(j);
			json_kv_string(j, "counter", s->name);
			json_kv_string(j, "class", ctr__class_name(s->cls));
			json_kv_string(j, "unit", ctr__unit_name(s->flags));
			if (s->first == FT_CTR_NA)
				json_kv_string(j, "first_raw", NULL);
			else
				json_kv_u64(j, "first_raw", s->first);
			if (s->last == FT_CTR_NA)
				json_kv_string(j, "last_raw", NULL);
			else
				json_kv_u64(j, "last_raw", s->last);
			json_kv_u64(j, "total", s->total);
			json_kv_double(j, "mean_per_s", series_mean(m, s), 3);
			json_kv_double(j, "peak_per_s", s->peak_rate, 3);
			if (s->peak_ns)
				json_kv_i64(j, "peak_rel_ns", model__rel_ns(m, s->peak_ns));
			else
				json_kv_string(j, "peak_rel_ns", NULL);
			json_kv_u64(j, "wraps", s->wraps);
			json_kv_u64(j, "resets", s->resets);
			json_kv_u64(j, "na_intervals", s->na);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);

	json_key(j, "counter_spikes");
	json_object_begin(j);
	json_kv_double(j, "threshold_per_s", m->opts.spike_rate, 3);
	json_key(j, "spikes");
	json_array_begin(j);
	for (size_t i = 0; i < m->nctr_events; i++) {
		const struct model_ctr_event *e = &m->ctr_events[i];

		json_object_begin(j);
		j_series_ref(j, m, e->series);
		json_kv_i64(j, "start_rel_ns", model__rel_ns(m, e->start_ns));
		json_kv_i64(j, "end_rel_ns", model__rel_ns(m, e->end_ns));
		json_kv_u64(j, "start_ns", e->start_ns);
		json_kv_u64(j, "end_ns", e->end_ns);
		json_kv_u64(j, "growth", e->delta);
		json_kv_double(j, "peak_per_s", e->peak_rate, 3);
		json_kv_u64(j, "intervals", e->nintervals);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);

	json_key(j, "sampler_events");
	json_array_begin(j);
	for (size_t i = 0; i < m->nsampler_evs; i++) {
		static const char *const kinds[] = { "backoff", "lifespan_set", "lifespan_restored",
						     "read_error", "cost" };
		const struct ft_sampler_event *e = &m->sampler_evs[i].rec;

		json_object_begin(j);
		json_kv_string(j, "kind", e->kind < 5 ? kinds[e->kind] : "unknown");
		json_kv_i64(j, "rel_ns", model__rel_ns(m, e->ts_ns));
		json_kv_u64(j, "value", e->value);
		json_kv_string(j, "group", e->group < m->nctr_groups ? m->ctr_groups[e->group].label : NULL);
		json_kv_string(j, "message", e->msg);
		json_object_end(j);
	}
	json_array_end(j);
}

void report_ctr__evidence_json(struct json *j, const struct model *m, const struct corr_evidence *ev)
{
	json_kv_u64(j, "counter_spikes", ev->sum.ctr_events);
	json_kv_u64(j, "counter_congestion", ev->sum.ctr_cong);
	json_kv_u64(j, "counter_pause", ev->sum.ctr_pause);
	json_kv_u64(j, "counter_retransmission", ev->sum.ctr_retrans);
	json_kv_u64(j, "counter_discard", ev->sum.ctr_discard);
	json_key(j, "counters");
	json_array_begin(j);
	for (size_t i = 0; i < ev->nctrs; i++) {
		json_object_begin(j);
		j_series_ref(j, m, ev->ctrs[i].series);
		json_kv_u64(j, "growth", ev->ctrs[i].growth);
		json_kv_double(j, "peak_per_s", ev->ctrs[i].peak_rate, 3);
		json_object_end(j);
	}
	json_array_end(j);
}
