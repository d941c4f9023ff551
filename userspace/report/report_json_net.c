// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The network members of the JSON report (docs/report-json.md): header,
 * interfaces, microbursts, queues, retransmits, congestion, drops, CE marks,
 * conservation, lost events and coverage; and the flow and interface
 * references the collective evidence reuses (userspace/report/report_json.h).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/probe_name.h"
#include "userspace/report/report_common.h"
#include "userspace/report/report_json.h"
#include "lib/util.h"

static const char *proto_name(unsigned p, char *buf, size_t len)
{
	if (p == 6)
		return "tcp";
	if (p == 17)
		return "udp";
	if (p == 132)
		return "sctp";
	snprintf(buf, len, "proto %u", p);
	return buf;
}

static void addr_str(const struct ft_flow *f, const uint8_t *a, char *buf, size_t len)
{
	if (!inet_ntop(f->family == 6 ? AF_INET6 : AF_INET, a, buf, (socklen_t)len))
		snprintf(buf, len, "?");
}

static void j_time(struct json *j, const struct model *m, const char *prefix, uint64_t ts)
{
	char k[64], w[48];

	snprintf(k, sizeof(k), "%s_rel_ns", prefix);
	json_kv_i64(j, k, model__rel_ns(m, ts));
	snprintf(k, sizeof(k), "%s_wall_ns", prefix);
	json_kv_i64(j, k, model__wall_ns(m, ts));
	snprintf(k, sizeof(k), "%s_wall", prefix);
	json_kv_string(j, k, fmt_wall(model__wall_ns(m, ts), w, sizeof(w)));
}

void report_json__iface_ref(struct json *j, const struct model *m, uint32_t iface, uint32_t netns,
			    uint32_t ifindex)
{
	char nm[64];

	json_kv_string(j, "interface", report__iface_str(m, iface, netns, ifindex, nm, sizeof(nm)));
	json_kv_u64(j, "netns", netns);
	json_kv_u64(j, "ifindex", ifindex);
}

/* A flow, and the processes that used its socket (socket owners) with their ranks. */
void report_json__flow(struct json *j, const struct model *m, const struct corr *c, const struct model_flow *w)
{
	char a[INET6_ADDRSTRLEN], p[24];

	json_key(j, "flow");
	json_object_begin(j);
	json_kv_u64(j, "family", w->key.family);
	json_kv_string(j, "proto", proto_name(w->key.proto, p, sizeof(p)));
	addr_str(&w->key, w->key.saddr, a, sizeof(a));
	json_kv_string(j, "saddr", a);
	json_kv_u64(j, "sport", w->key.sport);
	addr_str(&w->key, w->key.daddr, a, sizeof(a));
	json_kv_string(j, "daddr", a);
	json_kv_u64(j, "dport", w->key.dport);
	json_kv_u64(j, "netns", w->key.netns);
	json_kv_string(j, "netns_name", model__netns_name(m, w->key.netns));
	json_kv_u64(j, "ifindex", w->ifindex);
	json_object_end(j);
	json_key(j, "owners");
	json_array_begin(j);
	for (size_t o = 0; o < w->nowners; o++) {
		const struct model_owner *ow = &m->owners[w->first_owner + o];
		int64_t rank = corr__rank_of_pid(c, ow->pid);

		json_object_begin(j);
		json_kv_u64(j, "pid", ow->pid);
		json_kv_string(j, "comm", ow->comm);
		if (rank >= 0)
			json_kv_i64(j, "rank", rank);
		else
			json_kv_string(j, "rank", NULL);
		json_object_end(j);
	}
	json_array_end(j);
}

/* When the post-window probes ran (record --post-probes): every span, with its probes. */
static void j_post_spans(struct json *j, const struct model *m)
{
	struct model_span sp;

	json_key(j, "post_probe_spans");
	json_array_begin(j);
	for (size_t k = 0; model__probe_span(m, k, &sp); k++) {
		json_object_begin(j);
		json_kv_double(j, "from_s", (double)model__rel_ns(m, sp.from_ns) / 1e9, 3);
		json_kv_double(j, "to_s", (double)model__rel_ns(m, sp.to_ns) / 1e9, 3);
		json_kv_u64(j, "snapshot", sp.snapshot);
		json_key(j, "probes");
		json_array_begin(j);
		for (uint32_t i = 0; i < FT_PROBE_MAX; i++)
			if (sp.probes & (1ull << i)) {
				char nb[32];

				json_string(j, model__probe_name(m, i, nb, sizeof(nb)));
			}
		json_array_end(j);
		json_kv_bool(j, "owners", sp.owners);
		json_object_end(j);
	}
	json_array_end(j);
}

void report_json__header(struct json *j, const struct model *m, const struct report_opts *o)
{
	json_kv_string(j, "schema", REPORT_SCHEMA);
	json_key(j, "capture");
	json_object_begin(j);
	json_kv_string(j, "path", o->path ? o->path : "");
	json_kv_string(j, "host", m->hdr.hostname);
	json_kv_string(j, "kernel", m->hdr.kernel);
	json_kv_string(j, "tool_version", m->hdr.tool_version);
	json_kv_string(j, "command", m->hdr.command);
	json_kv_u64(j, "ncpus", m->hdr.ncpus);
	/* the capture's, window or not: *_rel_ns everywhere count from this start */
	json_kv_u64(j, "start_mono_ns", m->capture_start_ns);
	j_time(j, m, "start", m->capture_start_ns);
	json_kv_i64(j, "realtime_offset_ns", m->hdr.realtime_offset_ns);
	json_kv_u64(j, "duration_ns", m->capture_end_ns - m->capture_start_ns);
	json_kv_u64(j, "bin_ns", m->hdr.bin_ns);
	json_kv_string(j, "profile", capture__profile(&m->hdr));
	json_kv_string(j, "state", m->truncated ? "truncated" : "complete");
	json_kv_string(j, "truncated_reason", m->truncated ? m->truncated_why : "");
	json_kv_string(j, "stop_reason", m->have_end ? capture__stop_reason_name(m->end.stop_reason) : "");
	json_kv_u64(j, "records", m->records);
	json_kv_u64(j, "unknown_records", m->unknown_records);
	if (m->opts.window) { /* report --from/--to: the span the report covers */
		json_key(j, "window");
		json_object_begin(j);
		json_kv_u64(j, "from_rel_ns", m->start_ns - m->capture_start_ns);
		json_kv_u64(j, "to_rel_ns", m->end_ns - m->capture_start_ns);
		json_kv_u64(j, "duration_ns", m->duration_ns);
		json_object_end(j);
	}
	json_object_end(j);

	json_key(j, "options");
	json_object_begin(j);
	json_kv_double(j, "burst_threshold_util", m->opts.burst_threshold, 4);
	json_kv_u64(j, "burst_gap_ns", m->opts.burst_gap_ns);
	json_kv_u64(j, "top", o->top);
	json_kv_string(j, "sort", report__sort_name(o->sort));
	json_object_end(j);

	json_key(j, "warnings");
	json_array_begin(j);
	if (m->lost_total) {
		char w[128];

		snprintf(w, sizeof(w), "%" PRIu64 " events were lost (ring buffer full); counts are lower bounds",
			 m->lost_total);
		json_string(j, w);
	}
	if (m->skipped_runs) {
		char w[160];

		snprintf(w, sizeof(w), "the kernel skipped %" PRIu64 " probe runs (tracepoint hits the "
			 "programs did not see); counts are lower bounds", m->skipped_runs);
		json_string(j, w);
	}
	if (m->truncated) {
		char w[320];

		snprintf(w, sizeof(w), "capture truncated: %s",
			 m->truncated_why[0] ? m->truncated_why : "no end record");
		json_string(j, w);
	}
	if (report__count_conserve(m, MODEL_CONSERVE_MISMATCH)) {
		char w[128];

		snprintf(w, sizeof(w), "%zu interface directions fail the conservation check",
			 report__count_conserve(m, MODEL_CONSERVE_MISMATCH));
		json_string(j, w);
	}
	if (report__enqueue_only(m))
		json_string(j, ENQUEUE_NOTE);
	json_array_end(j);

	json_key(j, "probes");
	json_array_begin(j);
	for (size_t i = 0; i < m->nprobes; i++) {
		char nb[32];

		json_object_begin(j);
		json_kv_u64(j, "id", m->probes[i].id);
		json_kv_string(j, "name", model__probe_name(m, m->probes[i].id, nb, sizeof(nb)));
		json_kv_string(j, "hook", m->probes[i].hook);
		json_kv_bool(j, "attached", m->probes[i].attached != 0);
		json_kv_string(j, "why", m->probes[i].why);
		json_object_end(j);
	}
	json_array_end(j);
	j_post_spans(j, m);
}

static void j_dir(struct json *j, const struct model *m, const struct model_dir *x)
{
	json_object_begin(j);
	json_kv_double(j, "capacity_bps", x->capacity_bps > 0 ? x->capacity_bps : (double)NAN, 0);
	json_kv_double(j, "line_bps", x->line_bps > 0 ? x->line_bps : (double)NAN, 0);
	json_kv_double(j, "shaper_bps", x->shaper_bps > 0 ? x->shaper_bps : (double)NAN, 0);
	json_kv_u64(j, "total_bytes", x->bytes);
	json_kv_u64(j, "total_pkts", x->pkts);
	json_kv_u64(j, "ce_pkts", x->ce_pkts);
	json_kv_u64(j, "bins", x->nbins);
	json_kv_u64(j, "active_ns", x->active_ns);
	json_kv_double(j, "mean_bps", x->mean_bps, 0);
	json_kv_double(j, "busy_mean_bps", x->busy_mean_bps, 0);
	json_kv_double(j, "peak_bps", x->peak_bps, 0);
	json_kv_double(j, "sustained_peak_bps", x->sustained_bps, 0);
	if (x->nbins)
		json_kv_i64(j, "peak_start_rel_ns", model__rel_ns(m, x->peak_start_ns));
	else
		json_kv_string(j, "peak_start_rel_ns", NULL);
	json_kv_double(j, "mean_util", x->mean_util, 4);
	json_kv_double(j, "busy_util", x->busy_util, 4);
	json_kv_double(j, "peak_util", x->peak_util, 4);
	json_kv_double(j, "peak_line_util", x->peak_line_util, 4);
	json_kv_double(j, "busy_line_util", x->busy_line_util, 4);
	json_kv_double(j, "sustained_util", x->sustained_util, 4);
	json_kv_u64(j, "bursts", x->nbursts);
	json_object_end(j);
}

void report_json__ifaces(struct json *j, const struct model *m)
{
	json_key(j, "interfaces");
	json_array_begin(j);
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		json_object_begin(j);
		json_kv_string(j, "interface", it->label);
		json_kv_string(j, "name", it->name);
		json_kv_string(j, "netns_name", it->netns_name);
		json_kv_u64(j, "netns", it->netns);
		json_kv_u64(j, "ifindex", it->ifindex);
		json_kv_bool(j, "known", it->known);
		json_kv_string(j, "kind", it->kind);
		json_kv_u64(j, "mtu_bytes", it->mtu);
		json_kv_u64(j, "speed_mbps", it->speed_mbps);
		json_kv_u64(j, "tx_rate_kbps", it->tx_rate_kbps);
		json_kv_bool(j, "traced", (it->flags & FT_IFACE_TRACED) != 0);
		json_key(j, "rx");
		j_dir(j, m, &it->dir[FT_DIR_RX]);
		json_key(j, "tx");
		j_dir(j, m, &it->dir[FT_DIR_TX]);
		json_object_end(j);
	}
	json_array_end(j);
}

void report_json__bursts(struct json *j, const struct model *m, const struct report_opts *o)
{
	size_t n;
	const struct model_burst **v = report__top_bursts(m, o, &n);

	json_key(j, "microbursts");
	json_object_begin(j);
	json_kv_u64(j, "total", m->nbursts);
	json_kv_u64(j, "shown", n);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++) {
		const struct model_burst *b = v[i];
		const struct model_iface *it = &m->ifaces[b->iface];

		json_object_begin(j);
		report_json__iface_ref(j, m, b->iface, it->netns, it->ifindex);
		json_kv_string(j, "dir", report__dir_name((int)b->dir));
		j_time(j, m, "start", b->start_ns);
		json_kv_u64(j, "duration_ns", b->duration_ns);
		json_kv_u64(j, "total_bytes", b->bytes);
		json_kv_u64(j, "total_pkts", b->pkts);
		json_kv_u64(j, "hot_bins", b->nbins);
		json_kv_double(j, "peak_bps", b->peak_bps, 0);
		json_kv_double(j, "peak_util", b->peak_util, 4);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
	free(v);
}

void report_json__queues(struct json *j, const struct model *m)
{
	char h[24];

	json_kv_bool(j, "queues_recorded", m->nqdiscs || !model__queues_missing(m));
	json_key(j, "queues");
	json_array_begin(j);
	for (size_t i = 0; i < m->nqdiscs; i++) {
		const struct model_qdisc *q = &m->qdiscs[i];

		json_object_begin(j);
		report_json__iface_ref(j, m, q->iface, q->netns, q->ifindex);
		json_kv_string(j, "kind", q->kind);
		json_kv_string(j, "handle", report__fmt_handle(q->handle, h, sizeof(h)));
		json_kv_string(j, "parent", report__fmt_handle(q->parent, h, sizeof(h)));
		json_kv_u64(j, "bins", q->nbins);
		json_kv_u64(j, "max_backlog_bytes", q->max_backlog_bytes);
		json_kv_i64(j, "max_backlog_rel_ns", model__rel_ns(m, q->max_backlog_ns));
		json_kv_u64(j, "max_backlog_pkts", q->max_qlen_pkts);
		json_kv_u64(j, "enq_pkts", q->enq_pkts);
		json_kv_u64(j, "enq_bytes", q->enq_bytes);
		json_kv_u64(j, "sojourn_samples", q->sojourn_cnt);
		json_kv_double(j, "sojourn_mean_ns", q->sojourn_mean_ns, 1);
		json_kv_u64(j, "sojourn_max_ns", q->sojourn_max_ns);
		json_kv_u64(j, "sojourn_dropped", q->sojourn_dropped);
		json_kv_u64(j, "drops_counter_pkts", q->drops_counter);
		json_kv_u64(j, "drop_records", q->drop_recs);
		json_object_end(j);
	}
	json_array_end(j);
}

void report_json__retrans(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "retransmits");
	json_object_begin(j);
	json_kv_u64(j, "total", m->retrans);
	json_kv_u64(j, "segments", m->retrans_segs);
	json_kv_u64(j, "unsent_attempts", m->retrans_unsent);
	json_key(j, "by_trigger");
	json_object_begin(j);
	for (unsigned t = 1; t <= MODEL_NTRIGGER; t++)
		json_kv_u64(j, model__trigger_name(t % MODEL_NTRIGGER), m->retrans_by_trigger[t % MODEL_NTRIGGER]);
	json_object_end(j);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		for (unsigned t = 1; t <= MODEL_NTRIGGER; t++) {
			unsigned k = t % MODEL_NTRIGGER;

			if (!w->rtx[k])
				continue;
			json_object_begin(j);
			report_json__flow(j, m, c, w);
			json_kv_string(j, "trigger", model__trigger_name(k));
			json_kv_u64(j, "count", w->rtx[k]);
			json_kv_i64(j, "first_rel_ns", model__rel_ns(m, w->rtx_first_ns[k]));
			json_kv_i64(j, "last_rel_ns", model__rel_ns(m, w->rtx_last_ns[k]));
			json_object_end(j);
		}
	}
	json_array_end(j);
	json_object_end(j);
}

void report_json__cong(struct json *j, const struct model *m, const struct corr *c)
{
	char a[24], b[24];

	json_key(j, "congestion_states");
	json_object_begin(j);
	json_kv_u64(j, "total_changes", m->cong_changes);
	json_key(j, "transitions");
	json_array_begin(j);
	for (size_t i = 0; i < m->ncong_pairs; i++) {
		json_object_begin(j);
		json_kv_string(j, "from", model__ca_state_name(m->cong_pairs[i].old_state, a, sizeof(a)));
		json_kv_string(j, "to", model__ca_state_name(m->cong_pairs[i].new_state, b, sizeof(b)));
		json_kv_u64(j, "count", m->cong_pairs[i].count);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "flows");
	json_array_begin(j);
	for (size_t i = 0; i < m->nflows; i++) {
		if (!m->flows[i].cong_changes)
			continue;
		json_object_begin(j);
		report_json__flow(j, m, c, &m->flows[i]);
		json_kv_u64(j, "changes", m->flows[i].cong_changes);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);

	json_key(j, "tcp_samples");
	json_array_begin(j);
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		if (!w->samples)
			continue;
		json_object_begin(j);
		report_json__flow(j, m, c, w);
		json_kv_u64(j, "samples", w->samples);
		json_kv_u64(j, "srtt_min_us", w->srtt_min_us);
		json_kv_u64(j, "srtt_max_us", w->srtt_max_us);
		json_kv_u64(j, "srtt_last_us", w->srtt_last_us);
		json_kv_u64(j, "cwnd_min_pkts", w->cwnd_min);
		json_kv_u64(j, "cwnd_max_pkts", w->cwnd_max);
		json_kv_u64(j, "cwnd_last_pkts", w->cwnd_last);
		json_object_end(j);
	}
	json_array_end(j);
}

void report_json__drops(struct json *j, const struct model *m)
{
	json_key(j, "drops");
	json_object_begin(j);
	json_kv_u64(j, "total", m->drops_total);
	json_kv_u64(j, "congestion", report__congestion_drops(m));
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < m->ndrops; i++) {
		const struct model_drop *d = &m->drops[i];

		json_object_begin(j);
		json_kv_string(j, "reason", d->name);
		json_kv_u64(j, "reason_id", d->reason);
		report_json__iface_ref(j, m, d->iface, d->netns, d->ifindex);
		json_kv_u64(j, "count", d->count);
		json_kv_bool(j, "congestion", corr__congestion_drop(d->name));
		json_kv_i64(j, "first_rel_ns", model__rel_ns(m, d->first_ns));
		json_kv_i64(j, "last_rel_ns", model__rel_ns(m, d->last_ns));
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void report_json__ce(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "ce");
	json_object_begin(j);
	json_key(j, "interfaces");
	json_array_begin(j);
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		if (!it->dir[0].ce_pkts && !it->dir[1].ce_pkts)
			continue;
		json_object_begin(j);
		report_json__iface_ref(j, m, (uint32_t)i, it->netns, it->ifindex);
		json_kv_u64(j, "rx_ce_pkts", it->dir[FT_DIR_RX].ce_pkts);
		json_kv_u64(j, "tx_ce_pkts", it->dir[FT_DIR_TX].ce_pkts);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "flows");
	json_array_begin(j);
	for (size_t i = 0; i < m->nflows; i++) {
		const struct model_flow *w = &m->flows[i];

		if (!w->have_ce)
			continue;
		json_object_begin(j);
		report_json__flow(j, m, c, w);
		json_kv_u64(j, "ce_pkts", w->ce_pkts);
		json_kv_i64(j, "first_rel_ns", model__rel_ns(m, w->ce_first_ns));
		json_kv_i64(j, "last_rel_ns", model__rel_ns(m, w->ce_last_ns));
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void report_json__conserve(struct json *j, const struct model *m)
{
	json_key(j, "conservation");
	json_array_begin(j);
	for (size_t i = 0; i < m->nifaces; i++) {
		const struct model_iface *it = &m->ifaces[i];

		for (int d = 0; d < 2; d++) {
			const struct model_dir *x = &it->dir[d];
			bool checked = report__conserve_checked(x->conserve);

			json_object_begin(j);
			report_json__iface_ref(j, m, (uint32_t)i, it->netns, it->ifindex);
			json_kv_string(j, "dir", report__dir_name(d));
			json_kv_string(j, "status", model__conserve_name(x->conserve));
			json_kv_u64(j, "binned_bytes", x->bytes);
			json_kv_u64(j, "binned_pkts", x->pkts);
			if (checked) {
				json_kv_u64(j, "between_bytes", x->between_bytes);
				json_kv_u64(j, "between_pkts", x->between_pkts);
				json_kv_u64(j, "edge_bytes", x->edge_bytes);
				json_kv_u64(j, "counter_bytes", x->counter_bytes);
				json_kv_u64(j, "counter_pkts", x->counter_pkts);
				json_kv_i64(j, "diff_bytes", x->diff_bytes);
				json_kv_i64(j, "diff_pkts", x->diff_pkts);
				json_kv_u64(j, "tolerance_bytes", x->tol_bytes);
				json_kv_u64(j, "skipped_pkts", x->skipped_pkts);
			} else {
				json_kv_string(j, "between_bytes", NULL);
				json_kv_string(j, "between_pkts", NULL);
				json_kv_string(j, "edge_bytes", NULL);
				json_kv_string(j, "counter_bytes", NULL);
				json_kv_string(j, "counter_pkts", NULL);
				json_kv_string(j, "diff_bytes", NULL);
				json_kv_string(j, "diff_pkts", NULL);
				json_kv_string(j, "tolerance_bytes", NULL);
				json_kv_string(j, "skipped_pkts", NULL);
			}
			json_object_end(j);
		}
	}
	json_array_end(j);
}

void report_json__lost(struct json *j, const struct model *m)
{
	json_key(j, "lost");
	json_object_begin(j);
	json_kv_u64(j, "total_lost", m->lost_total);
	json_key(j, "by_source");
	json_object_begin(j);
	for (unsigned s = 0; s <= FT_SRC_MAX; s++)
		json_kv_u64(j, model__source_name(s), m->lost_by_source[s]);
	json_object_end(j);
	json_key(j, "per_cpu");
	json_array_begin(j);
	for (size_t i = 0; i < m->nlost; i++) {
		json_object_begin(j);
		json_kv_string(j, "source", model__source_name(m->lost[i].source));
		json_kv_u64(j, "source_id", m->lost[i].source);
		json_kv_u64(j, "cpu", m->lost[i].cpu);
		json_kv_u64(j, "lost", m->lost[i].lost);
		json_object_end(j);
	}
	json_array_end(j);
	/* kernel-skipped probe runs: a separate loss, not part of total_lost */
	json_kv_u64(j, "skipped_runs", m->skipped_runs);
	json_kv_string(j, "coverage_status", capture__cov_state_name(m->coverage_state));
	json_key(j, "coverage");
	json_array_begin(j);
	for (size_t i = 0; i < m->ncoverage; i++) {
		const struct capture_cov *c = &m->coverage[i];
		char nb[32];

		json_object_begin(j);
		json_kv_string(j, "probe", model__probe_name(m, c->probe, nb, sizeof(nb)));
		json_kv_u64(j, "probe_id", c->probe);
		json_kv_bool(j, "known", c->known);
		if (c->known) {
			json_kv_u64(j, "hits", c->hits);
			json_kv_u64(j, "runs", c->runs);
			json_kv_u64(j, "skipped", c->skipped);
		} else {
			json_kv_string(j, "hits", NULL);
			json_kv_u64(j, "runs", c->runs);
			json_kv_string(j, "skipped", NULL);
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}
