// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The JSON snapshot of `fabtrace top --json` (userspace/top/top_view.h;
 * keys in docs/top.md): the period, lost and skipped events, interfaces with
 * their rates, queues, drops, counters and history, drop reasons, RDMA
 * ports, counters, processes and the slowest rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "rdma/counters.h"
#include "userspace/capture/probe_name.h"
#include "userspace/correlate/correlate.h"
#include "lib/json.h"
#include "userspace/top/top_select.h"
#include "userspace/top/top_view.h"
#include "userspace/record/session.h"

static void json_num(struct json *j, const char *k, double v, int dec)
{
	json_kv_double(j, k, v, dec); /* NaN -> null */
}

static void json_dir(struct json *j, const struct top_view *t, const struct live_dir *d, const char *key)
{
	double secs = live__period_s(t->l);

	json_key(j, key);
	json_object_begin(j);
	json_kv_u64(j, "bytes", d->p_bytes);
	json_kv_u64(j, "packets", d->p_pkts);
	json_num(j, "rate_bps", d->rate_bps, 0);
	json_kv_u64(j, "peak_bin_bytes", d->p_peak_bin);
	json_num(j, "peak_bps", d->peak_bps, 0);
	json_kv_u64(j, "peak_bin_start_ns", d->p_peak_start_ns);
	json_num(j, "capacity_bps", d->capacity_bps > 0 ? d->capacity_bps : NAN, 0);
	json_num(j, "util", d->util, 4);
	json_num(j, "peak_util", d->peak_util, 4);
	json_kv_u64(j, "bursts", d->p_bursts);
	json_num(j, "bursts_per_s", (double)d->p_bursts / secs, 2);
	json_kv_u64(j, "ce_packets", d->p_ce);
	json_kv_u64(j, "total_bytes", d->bytes);
	json_kv_u64(j, "total_packets", d->pkts);
	json_kv_u64(j, "total_bursts", d->bursts);
	json_kv_u64(j, "max_peak_bin_bytes", d->max_peak_bin);
	json_object_end(j);
}

static void json_iface(struct json *j, const struct top_view *t, const struct live_iface *f)
{
	static const char *const cls[FT_CLS_MAX] = { "other", "data", "congestion", "retrans",
						     "discard", "link_err", "pause", "buffer" };
	double hist[LIVE_HISTORY];

	json_object_begin(j);
	json_kv_string(j, "interface", f->name[0] ? f->name : "");
	json_kv_string(j, "netns", f->netns_name);
	json_kv_u64(j, "netns_inode", f->netns);
	json_kv_u64(j, "ifindex", f->ifindex);
	json_kv_string(j, "label", f->label);
	json_kv_string(j, "kind", f->kind);
	json_kv_bool(j, "traced", f->traced);
	json_kv_u64(j, "speed_mbps", f->speed_mbps);
	json_kv_u64(j, "tx_rate_limit_bps", (uint64_t)f->tx_rate_kbps * 1000);
	json_dir(j, t, &f->dir[FT_DIR_RX], "rx");
	json_dir(j, t, &f->dir[FT_DIR_TX], "tx");
	json_key(j, "qdisc");
	if (f->qdisc[0]) {
		json_object_begin(j);
		json_kv_string(j, "kind", f->qdisc);
		json_kv_u64(j, "max_backlog_bytes", f->p_backlog);
		json_kv_u64(j, "max_qlen_packets", f->p_qlen);
		json_kv_u64(j, "max_sojourn_ns", f->p_sojourn);
		json_kv_u64(j, "max_backlog_bytes_since_reset", f->max_backlog);
		json_kv_u64(j, "max_sojourn_ns_since_reset", f->max_sojourn);
		json_object_end(j);
	} else {
		json_null(j);
	}
	json_kv_u64(j, "drops", f->p_drops);
	json_kv_u64(j, "total_drops", f->drops);
	json_kv_u64(j, "retransmits", f->p_rtx);
	json_kv_u64(j, "total_retransmits", f->rtx);
	json_key(j, "counters");
	if (f->has_ctr) {
		json_object_begin(j);
		for (int c = FT_CLS_DATA; c < FT_CLS_MAX; c++) {
			json_key(j, cls[c]);
			json_object_begin(j);
			json_kv_u64(j, "period", f->p_ctr[c]);
			json_kv_u64(j, "total", f->ctr[c]);
			json_object_end(j);
		}
		json_object_end(j);
	} else {
		json_null(j);
	}
	live__history(t->l, &f->dir[0], hist, LIVE_HISTORY);
	json_key(j, "history_rx_bps");
	json_array_begin(j);
	for (int i = 0; i < LIVE_HISTORY; i++)
		json_double(j, hist[i], 0);
	json_array_end(j);
	live__history(t->l, &f->dir[1], hist, LIVE_HISTORY);
	json_key(j, "history_tx_bps");
	json_array_begin(j);
	for (int i = 0; i < LIVE_HISTORY; i++)
		json_double(j, hist[i], 0);
	json_array_end(j);
	json_object_end(j);
}

static void json_proc(struct json *j, const struct top_view *t, const struct live_proc *p)
{
	char comm[32], ns[16];

	json_object_begin(j);
	json_kv_u64(j, "pid", p->pid);
	json_kv_string(j, "comm", top_view__proc_comm(p, comm, sizeof(comm)));
	json_kv_string(j, "netns", top_view__ns_name(t->l, p->netns, ns, sizeof(ns)));
	json_key(j, "rank");
	if (p->rank >= 0)
		json_i64(j, p->rank);
	else
		json_null(j);
	json_key(j, "size");
	if (p->size > 0)
		json_i64(j, p->size);
	else
		json_null(j);
	json_kv_string(j, "last_op", p->last_op ? corr__op_name(p->last_op) : "");
	json_kv_u64(j, "last_duration_ns", p->last_dur_ns);
	json_kv_u64(j, "last_size_bytes", p->last_size);
	json_num(j, "last_busbw_bps", p->last_busbw_bps, 0);
	json_kv_u64(j, "collectives", p->p_colls);
	json_num(j, "collectives_per_s", (double)p->p_colls / live__period_s(t->l), 2);
	json_kv_u64(j, "collective_ns", p->p_coll_ns);
	json_kv_u64(j, "late", p->p_late);
	json_kv_u64(j, "late_ns", p->p_late_ns);
	json_kv_u64(j, "total_collectives", p->colls);
	json_kv_u64(j, "total_late", p->late);
	json_kv_u64(j, "step", p->step);
	json_kv_bool(j, "exited", p->exited);
	json_object_end(j);
}

int top_view__print_json(const struct top_view *t)
{
	static const char *const src[FT_SRC_MAX] = { "net", "tcp", "user", "phase" };
	const struct live *l = t->l;
	uint32_t *idx = calloc(l->nifaces ? l->nifaces : 1, sizeof(*idx));
	uint32_t pidx[LIVE_MAX_PROCS];
	size_t n, np;
	struct json j;
	char rb[24], nb[32];
	int ret = 0;

	if (!idx)
		return -1;
	n = top_view__select_ifaces(t, idx);
	np = top_view__select_procs(t, pidx);
	json_init(&j, stdout, false);
	json_object_begin(&j);
	json_kv_string(&j, "host", session__hostname(t->s));
	json_kv_u64(&j, "ts_ns", l->period_start_ns);
	json_kv_u64(&j, "period_ns", l->last_period_ns);
	json_kv_u64(&j, "period", l->periods);
	json_kv_u64(&j, "uptime_ns", l->period_start_ns - l->start_ns);
	json_kv_u64(&j, "bin_ns", l->opts.bin_ns);
	json_kv_double(&j, "burst_threshold", l->opts.burst_threshold, 3);
	json_key(&j, "lost");
	json_object_begin(&j);
	json_kv_u64(&j, "total", l->lost_total);
	json_kv_u64(&j, "period", l->p_lost);
	for (int s = 0; s < FT_SRC_MAX; s++)
		json_kv_u64(&j, src[s], l->lost_by_source[s]);
	json_object_end(&j);
	json_key(&j, "skipped");    /* probe runs the kernel skipped: null where not counted */
	json_object_begin(&j);
	for (int i = 0; i < FT_PROBE_MAX; i++) {
		json_key(&j, capture__probe_name((uint32_t)i, NULL, nb, sizeof(nb)));
		if (!l->skipped_known[i]) {
			json_null(&j);
			continue;
		}
		json_object_begin(&j);
		json_kv_u64(&j, "total", l->skipped[i]);
		json_kv_u64(&j, "period", l->p_skipped[i]);
		json_object_end(&j);
	}
	json_object_end(&j);
	json_key(&j, "untracked");
	json_object_begin(&j);
	json_kv_u64(&j, "interfaces", l->overflow_ifaces);
	json_kv_u64(&j, "drop_series", l->overflow_drops);
	json_kv_u64(&j, "counters", l->overflow_counters);
	json_kv_u64(&j, "processes", l->overflow_procs);
	json_object_end(&j);
	json_key(&j, "interfaces");
	json_array_begin(&j);
	for (size_t i = 0; i < n; i++)
		json_iface(&j, t, &l->ifaces[idx[i]]);
	json_array_end(&j);
	json_key(&j, "drops");
	json_array_begin(&j);
	for (size_t i = 0; i < l->ndrops; i++) {
		const struct live_drop *d = &l->drops[i];

		json_object_begin(&j);
		json_kv_string(&j, "reason", top_view__reason_name(l, d->reason, rb, sizeof(rb)));
		json_kv_string(&j, "interface", d->iface != LIVE_NONE ? l->ifaces[d->iface].label : "");
		json_kv_u64(&j, "period", d->p);
		json_kv_u64(&j, "total", d->total);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_kv_u64(&j, "retransmits_unrouted", l->p_rtx_unrouted);
	json_key(&j, "rdma_ports");
	json_array_begin(&j);
	for (size_t i = 0; i < l->nports; i++) {
		const struct live_port *p = &l->ports[i];

		json_object_begin(&j);
		json_kv_string(&j, "device", p->dev);
		json_kv_u64(&j, "port", p->port_num);
		json_kv_string(&j, "netdev", p->netdev);
		json_kv_u64(&j, "congestion", p->p_ctr[FT_CLS_CONGESTION]);
		json_kv_u64(&j, "pause", p->p_ctr[FT_CLS_PAUSE]);
		json_kv_u64(&j, "retrans", p->p_ctr[FT_CLS_RETRANS]);
		json_kv_u64(&j, "discard", p->p_ctr[FT_CLS_DISCARD]);
		json_kv_u64(&j, "data_bytes", p->p_ctr[FT_CLS_DATA]);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "counters");
	json_array_begin(&j);
	for (size_t i = 0; i < l->ncounters; i++) {
		const struct live_counter *c = &l->counters[i];

		if (!c->total || c->cls == FT_CLS_OTHER)
			continue;
		json_object_begin(&j);
		json_kv_string(&j, "group", l->groups[c->group].label);
		json_kv_string(&j, "counter", c->name);
		json_kv_string(&j, "class", ctr__class_name(c->cls));
		json_kv_u64(&j, "period", c->p);
		json_kv_u64(&j, "total", c->total);
		json_kv_u64(&j, "wraps", c->wraps);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_key(&j, "processes");
	json_array_begin(&j);
	for (size_t i = 0; i < np; i++)
		json_proc(&j, t, &l->procs[pidx[i]]);
	json_array_end(&j);
	json_key(&j, "slowest_rank");
	if (l->slowest != LIVE_NONE)
		json_proc(&j, t, &l->procs[l->slowest]);
	else
		json_null(&j);
	json_object_end(&j);
	json_finish(&j);
	if (fflush(stdout) || ferror(stdout))
		ret = -1;
	free(idx);
	return ret;
}
