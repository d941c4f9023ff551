// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The "collectives" and "slowest" members of the JSON report
 * (docs/report-json.md): collectives per op, and each slow instance with its
 * ranks, verdict, the reasons for it and the evidence (queues, flows, drops,
 * counters) (userspace/report/report_json.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "userspace/report/report_budget.h"
#include "userspace/report/report_common.h"
#include "userspace/report/report_counters.h"
#include "userspace/report/report_json.h"
#include "lib/util.h"

static void j_rank_ref(struct json *j, const struct corr *c, const char *prefix, uint32_t r)
{
	char k[48];

	snprintf(k, sizeof(k), "%srank", prefix);
	if (r != CORR_NONE && r < c->nranks && c->ranks[r].rank >= 0)
		json_kv_i64(j, k, c->ranks[r].rank);
	else
		json_kv_string(j, k, NULL);
	snprintf(k, sizeof(k), "%spid", prefix);
	if (r != CORR_NONE && r < c->nranks)
		json_kv_u64(j, k, c->ranks[r].pid);
	else
		json_kv_string(j, k, NULL);
	snprintf(k, sizeof(k), "%shost", prefix);
	json_kv_string(j, k, r != CORR_NONE && r < c->nranks ? c->ranks[r].host : NULL);
}

static const char *comm_kind_name(uint32_t k)
{
	return k == CORR_COMM_HANDLE ? "handle" : k == CORR_COMM_POINTER ? "pointer" :
	       k == CORR_COMM_LIBSEQ ? "library" : k == CORR_COMM_NAMED ? "named" : "none";
}

static void j_evidence(struct json *j, const struct model *m, const struct corr *c, size_t idx)
{
	struct corr_evidence ev;
	char h[24], fl[128];

	json_key(j, "evidence");
	if (corr__evidence(c, idx, &ev)) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_bool(j, "observed", ev.sum.observed);
	json_kv_i64(j, "window_start_rel_ns", model__rel_ns(m, ev.start_ns));
	json_kv_i64(j, "window_end_rel_ns", model__rel_ns(m, ev.end_ns));
	json_kv_string(j, "link", ev.sum.link != CORR_NONE ? m->ifaces[ev.sum.link].label : NULL);
	if (ev.sum.qdisc != CORR_NONE) {
		const struct model_qdisc *q = &m->qdiscs[ev.sum.qdisc];

		snprintf(fl, sizeof(fl), "%s %s", q->kind[0] ? q->kind : "qdisc", report__fmt_handle(q->handle, h, sizeof(h)));
		json_kv_string(j, "qdisc", fl);
	} else {
		json_kv_string(j, "qdisc", NULL);
	}
	json_kv_string(j, "toward", ev.sum.toward_flow != CORR_NONE
					    ? corr__toward_label(m, ev.sum.toward_flow, fl, sizeof(fl)) : NULL);
	json_kv_u64(j, "queue_delay_ns", ev.sum.queue_delay_ns);
	json_kv_u64(j, "max_sojourn_ns", ev.sum.max_sojourn_ns);
	json_kv_u64(j, "max_backlog_bytes", ev.sum.max_backlog_bytes);
	json_kv_double(j, "peak_util", ev.sum.peak_util, 4);
	json_kv_string(j, "peak_util_interface",
		       ev.sum.peak_iface != CORR_NONE ? m->ifaces[ev.sum.peak_iface].label : NULL);
	json_kv_string(j, "peak_util_dir", ev.sum.peak_iface != CORR_NONE ? report__dir_name((int)ev.sum.peak_dir) : NULL);
	json_kv_u64(j, "bursts", ev.sum.bursts);
	json_kv_u64(j, "drops", ev.sum.drops);
	json_kv_u64(j, "congestion_drops", ev.sum.cong_drops);
	json_kv_u64(j, "retransmits", ev.sum.retrans);
	json_kv_u64(j, "tail_loss_probes", ev.sum.retrans_tlp);
	json_kv_u64(j, "ce_pkts", ev.sum.ce_pkts);
	report_ctr__evidence_json(j, m, &ev);
	json_key(j, "drops_by_reason");
	json_array_begin(j);
	for (size_t i = 0; i < ev.ndrops; i++) {
		const char *nm = model__drop_reason_name(m, ev.drops[i].reason);
		char rb[32];

		if (!nm || !nm[0]) {
			snprintf(rb, sizeof(rb), "reason %u", ev.drops[i].reason);
			nm = rb;
		}
		json_object_begin(j);
		json_kv_string(j, "reason", nm);
		json_kv_string(j, "interface", m->ifaces[ev.drops[i].iface].label);
		json_kv_u64(j, "count", ev.drops[i].count);
		json_kv_bool(j, "congestion", ev.drops[i].congestion);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "retransmit_flows");
	json_array_begin(j);
	for (size_t i = 0; i < ev.nflows; i++) {
		json_object_begin(j);
		report_json__flow(j, m, c, &m->flows[ev.flows[i].flow]);
		json_kv_u64(j, "retransmits", ev.flows[i].retrans);
		json_kv_string(j, "attributed_by", ev.flows[i].owned ? "socket_owner" : "netns");
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "links");
	json_array_begin(j);
	for (size_t i = 0; i < ev.nlinks; i++) {
		const struct corr_link_ev *l = &ev.links[i];
		const struct model_iface *it = &m->ifaces[l->iface];

		json_object_begin(j);
		report_json__iface_ref(j, m, l->iface, it->netns, it->ifindex);
		json_kv_u64(j, "rx_bytes", l->bytes[FT_DIR_RX]);
		json_kv_u64(j, "tx_bytes", l->bytes[FT_DIR_TX]);
		json_kv_double(j, "rx_peak_util", l->peak_util[FT_DIR_RX], 4);
		json_kv_double(j, "tx_peak_util", l->peak_util[FT_DIR_TX], 4);
		json_kv_u64(j, "bursts", l->bursts);
		json_kv_u64(j, "ce_pkts", l->ce_pkts);
		if (l->qdisc != CORR_NONE) {
			const struct model_qdisc *q = &m->qdiscs[l->qdisc];

			snprintf(fl, sizeof(fl), "%s %s", q->kind[0] ? q->kind : "qdisc",
				 report__fmt_handle(q->handle, h, sizeof(h)));
			json_kv_string(j, "qdisc", fl);
		} else {
			json_kv_string(j, "qdisc", NULL);
		}
		json_kv_u64(j, "max_backlog_bytes", l->max_backlog_bytes);
		json_kv_u64(j, "max_sojourn_ns", l->max_sojourn_ns);
		json_kv_u64(j, "queue_delay_ns", l->queue_delay_ns);
		json_kv_u64(j, "qdisc_drops_counter_pkts", l->qdisc_drops);
		json_kv_u64(j, "drops", l->drops);
		json_kv_u64(j, "congestion_drops", l->cong_drops);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
	corr__evidence_free(&ev);
}

static void j_instance(struct json *j, const struct model *m, const struct corr *c, size_t idx, bool detail)
{
	const struct corr_instance *in = &c->instances[idx];
	char cm[40];

	json_object_begin(j);
	json_kv_u64(j, "id", idx);
	json_kv_string(j, "op", corr__op_name(in->op));
	json_kv_string(j, "comm", report__comm_str(in, cm, sizeof(cm)));
	json_kv_string(j, "comm_kind", comm_kind_name(in->comm_kind));
	json_kv_u64(j, "seq", in->seq);
	json_kv_u64(j, "nranks", in->nranks);
	json_kv_u64(j, "members", in->nmembers);
	json_kv_u64(j, "size_bytes", in->size_bytes);
	json_kv_i64(j, "start_rel_ns", model__rel_ns(m, in->first_entry));
	json_kv_i64(j, "last_entry_rel_ns", model__rel_ns(m, in->last_entry));
	json_kv_i64(j, "end_rel_ns", model__rel_ns(m, in->last_exit));
	json_kv_u64(j, "duration_ns", in->span_ns);
	json_kv_u64(j, "skew_ns", in->skew_ns);
	json_kv_u64(j, "straggler_own_late_ns", in->own_late_ns);
	json_kv_u64(j, "all_arrived_ns", in->all_arrived_ns);
	json_kv_double(j, "algbw_bytes_per_s", in->algbw, 0);
	json_kv_double(j, "busbw_bytes_per_s", in->busbw, 0);
	json_kv_double(j, "busbw_factor", in->busbw_factor, 4);
	j_rank_ref(j, c, "straggler_", in->straggler);
	if (in->step >= 0)
		json_kv_i64(j, "step", in->step);
	else
		json_kv_string(j, "step", NULL);
	json_kv_string(j, "verdict", corr__verdict_name(in->verdict));
	json_kv_bool(j, "slow", in->slow);
	json_kv_double(j, "slow_ratio", in->slow_ratio, 4);
	json_kv_bool(j, "enqueue_only", in->enqueue_only);
	json_kv_bool(j, "open", in->open);
	json_kv_bool(j, "partial", in->partial);
	json_kv_bool(j, "op_mismatch", in->op_mismatch);
	corr__why_json(j, "why", in->why);
	report_budget__instance_json(j, m, c, in);
	if (detail) {
		char *desc = malloc(1024);

		json_kv_string(j, "summary", desc ? corr__describe(c, idx, desc, 1024) : "");
		free(desc);
		j_evidence(j, m, c, idx);
		json_key(j, "ranks");
		json_array_begin(j);
		for (size_t k = 0; k < in->nmembers; k++) {
			const struct corr_call *call = &c->calls[c->members[in->first_member + k]];
			uint64_t d = call->end_ns > call->start_ns ? call->end_ns - call->start_ns : 0;
			double bw = d && call->size_bytes ? (double)call->size_bytes * 1e9 / (double)d : NAN;

			json_object_begin(j);
			j_rank_ref(j, c, "", call->rank);
			json_kv_u64(j, "tid", call->tid);
			json_kv_i64(j, "entry_rel_ns", model__rel_ns(m, call->start_ns));
			json_kv_i64(j, "exit_rel_ns", model__rel_ns(m, call->end_ns));
			json_kv_u64(j, "duration_ns", d);
			json_kv_u64(j, "wait_ns", in->last_entry - call->start_ns);
			json_kv_u64(j, "bytes", call->bytes);
			json_kv_u64(j, "size_bytes", call->size_bytes);
			json_kv_double(j, "algbw_bytes_per_s", bw, 0);
			json_kv_double(j, "busbw_bytes_per_s", bw * in->busbw_factor, 0);
			json_kv_bool(j, "nonblocking", (call->flags & CORR_CALL_NONBLOCKING) != 0);
			json_kv_bool(j, "completed", !(call->flags & (CORR_CALL_OPEN | CORR_CALL_NO_COMPLETION)));
			json_object_end(j);
		}
		json_array_end(j);
	}
	json_object_end(j);
}

void report_json__collectives(struct json *j, const struct model *m, const struct corr *c,
			      const struct report_opts *o)
{
	size_t n = c->show_probes ? report__top_n(o, c->nby_span) : 0;
	size_t nst = 0;

	json_key(j, "collectives");
	json_object_begin(j);
	json_kv_u64(j, "instances", c->show_probes ? c->ninstances : 0);
	json_key(j, "verdicts");
	json_object_begin(j);
	for (int v = 0; v < CORR_NVERDICTS; v++)
		json_kv_u64(j, corr__verdict_name((enum corr_verdict)v), c->show_probes ? c->verdicts[v] : 0);
	json_object_end(j);
	json_key(j, "by_op");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nopstats; i++) {
		const struct corr_opstat *g = &c->opstats[i];

		json_object_begin(j);
		json_kv_string(j, "op", corr__op_name(g->op));
		json_kv_u64(j, "nranks", g->nranks);
		json_kv_u64(j, "size_bytes", g->size_bytes);
		json_kv_bool(j, "enqueue_only", g->enqueue_only);
		json_kv_u64(j, "count", g->count);
		json_kv_u64(j, "duration_mean_ns", g->span_mean_ns);
		json_kv_u64(j, "duration_p50_ns", g->span_p50_ns);
		json_kv_u64(j, "duration_p99_ns", g->span_p99_ns);
		json_kv_u64(j, "duration_max_ns", g->span_max_ns);
		json_kv_u64(j, "all_arrived_mean_ns", g->all_arrived_mean_ns);
		json_kv_double(j, "algbw_mean_bytes_per_s", g->algbw_mean, 0);
		json_kv_double(j, "busbw_mean_bytes_per_s", g->busbw_mean, 0);
		json_kv_double(j, "busbw_factor", g->busbw_factor, 4);
		json_key(j, "verdicts");
		json_object_begin(j);
		for (int v = 0; v < CORR_NVERDICTS; v++)
			json_kv_u64(j, corr__verdict_name((enum corr_verdict)v), g->verdicts[v]);
		json_object_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->ninstances; i++)
		j_instance(j, m, c, i, false);
	json_array_end(j);
	json_object_end(j);

	json_key(j, "slowest");
	json_object_begin(j);
	json_kv_u64(j, "total", c->show_probes ? c->nby_span : 0);
	json_kv_u64(j, "shown", n);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < n; i++)
		j_instance(j, m, c, c->by_span[i], true);
	json_array_end(j);
	json_object_end(j);

	/* stragglers: ranks that entered last, most often first */
	json_key(j, "stragglers");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nranks; i++)
		nst += c->ranks[i].straggler_count > 0;
	if (nst) {
		uint32_t *v = malloc(nst * sizeof(*v));

		nst = 0;
		for (size_t i = 0; v && i < c->nranks; i++)
			if (c->ranks[i].straggler_count)
				v[nst++] = (uint32_t)i;
		for (size_t a = 1; v && a < nst; a++) { /* insertion sort: few ranks */
			uint32_t x = v[a];
			size_t b = a;

			while (b > 0 && (c->ranks[v[b - 1]].straggler_count < c->ranks[x].straggler_count ||
					 (c->ranks[v[b - 1]].straggler_count == c->ranks[x].straggler_count &&
					  c->ranks[v[b - 1]].late_ns < c->ranks[x].late_ns))) {
				v[b] = v[b - 1];
				b--;
			}
			v[b] = x;
		}
		for (size_t i = 0; v && i < nst; i++) {
			const struct corr_rank *r = &c->ranks[v[i]];

			json_object_begin(j);
			j_rank_ref(j, c, "", v[i]);
			json_kv_u64(j, "times_last", r->straggler_count);
			json_kv_u64(j, "late_ns", r->late_ns);
			json_kv_u64(j, "collectives", r->collectives);
			json_object_end(j);
		}
		free(v);
	}
	json_array_end(j);
}
