// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The collective-phase members of the JSON report (docs/report-json.md)
 * but the collectives themselves (report_json_collectives.c): the phase
 * summary, processes, ranks, steps and the inferred phases
 * (userspace/report/report_json.h).
 */
#include "userspace/report/report_common.h"
#include "userspace/report/report_json.h"
#include "lib/util.h"

static void j_rel_or_null(struct json *j, const struct model *m, const char *key, uint64_t ts)
{
	if (ts)
		json_kv_i64(j, key, model__rel_ns(m, ts));
	else
		json_kv_string(j, key, NULL);
}

void report_json__phases_head(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "phases");
	json_object_begin(j);
	json_kv_string(j, "mode", corr__mode_name(c->opts.phases));
	json_kv_string(j, "source", c->show_probes ? "probes" : c->inferred_on ? "inferred" : "none");
	json_kv_u64(j, "records", m->nphases);
	json_kv_u64(j, "request_completions", m->nreq_dones);
	json_kv_u64(j, "seq_shifted", c->seq_shifted);
	json_kv_bool(j, "enqueue_only", c->enqueue_only);
	json_kv_string(j, "enqueue_only_note", c->enqueue_only ? ENQUEUE_NOTE : "");
	json_key(j, "nccl_plugin");
	json_object_begin(j);
	json_kv_u64(j, "calls", c->plugin.calls);
	json_kv_u64(j, "gpu_timed", c->plugin.gpu_timed);
	json_kv_u64(j, "proxy_timed", c->plugin.proxy_timed);
	json_kv_u64(j, "host_timed", c->plugin.host_timed);
	json_kv_u64(j, "proxy_ops", c->plugin.proxy_ops);
	json_kv_u64(j, "proxy_bytes", c->plugin.proxy_bytes);
	json_kv_u64(j, "dropped_enqueue", c->plugin.dropped_enqueue);
	json_object_end(j);
	json_key(j, "thresholds");
	json_object_begin(j);
	json_kv_u64(j, "queue_delay_ns", c->opts.th.queue_delay_ns);
	json_kv_double(j, "util", c->opts.th.util, 4);
	json_kv_double(j, "skew_frac", c->opts.th.skew_frac, 4);
	json_kv_u64(j, "skew_min_ns", c->opts.th.skew_min_ns);
	json_kv_double(j, "slow_factor", c->opts.th.slow_factor, 4);
	json_kv_double(j, "margin", c->opts.th.margin, 4);
	json_kv_double(j, "explains", c->opts.th.explains, 4);
	json_kv_u64(j, "rto_min_ns", c->opts.th.rto_min_ns);
	json_object_end(j);
	json_key(j, "slots");
	json_array_begin(j);
	for (size_t i = 0; i < m->nslots; i++) {
		const struct model_slot *sl = &m->slots[i];

		json_object_begin(j);
		json_kv_u64(j, "slot", sl->slot);
		json_kv_string(j, "lib_kind", corr__lib_name(sl->lib_kind));
		json_kv_string(j, "op", corr__op_name(sl->op));
		json_kv_string(j, "name", sl->name);
		json_kv_string(j, "symbol", sl->symbol);
		json_kv_string(j, "lib", sl->lib);
		json_kv_bool(j, "collective", (sl->flags & FT_SLOT_COLLECTIVE) != 0);
		json_kv_bool(j, "nonblocking", (sl->flags & FT_SLOT_NONBLOCKING) != 0);
		json_kv_bool(j, "enqueue_only", (sl->flags & FT_SLOT_ENQUEUE_ONLY) != 0);
		json_kv_bool(j, "completion", (sl->flags & FT_SLOT_COMPLETION) != 0);
		json_kv_bool(j, "marker", (sl->flags & FT_SLOT_MARKER) != 0);
		json_kv_bool(j, "plugin", (sl->flags & FT_SLOT_PLUGIN) != 0);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void report_json__processes(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "processes");
	json_array_begin(j);
	for (size_t i = 0; i < c->nprocs; i++) {
		const struct corr_proc *p = &c->procs[i];

		json_object_begin(j);
		json_kv_u64(j, "pid", p->pid);
		json_kv_u64(j, "ppid", p->ppid);
		json_kv_string(j, "comm", p->comm);
		json_kv_u64(j, "netns", p->netns);
		json_kv_string(j, "host", p->host);
		if (p->rank != CORR_NONE && c->ranks[p->rank].rank >= 0)
			json_kv_i64(j, "rank", c->ranks[p->rank].rank);
		else
			json_kv_string(j, "rank", NULL);
		json_kv_bool(j, "traced_calls", p->rank != CORR_NONE);
		json_kv_bool(j, "followed", p->have_proc);
		json_kv_bool(j, "existing", (p->events & (1u << FT_PROC_EXISTING)) != 0);
		json_kv_bool(j, "forked", (p->events & (1u << FT_PROC_FORK)) != 0);
		json_kv_u64(j, "execs", p->nexec);
		j_rel_or_null(j, m, "exec_rel_ns", p->exec_ns);
		json_kv_bool(j, "exited", (p->events & (1u << FT_PROC_EXIT)) != 0);
		j_rel_or_null(j, m, "exit_rel_ns", p->exit_ns);
		if (p->events & (1u << FT_PROC_EXIT))
			json_kv_i64(j, "exit_code", p->exit_code);
		else
			json_kv_string(j, "exit_code", NULL);
		json_object_end(j);
	}
	json_array_end(j);
}

void report_json__ranks(struct json *j, const struct corr *c)
{
	json_key(j, "ranks");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nranks; i++) {
		const struct corr_rank *r = &c->ranks[i];

		json_object_begin(j);
		if (r->rank >= 0)
			json_kv_i64(j, "rank", r->rank);
		else
			json_kv_string(j, "rank", NULL);
		if (r->world_size >= 0)
			json_kv_i64(j, "world_size", r->world_size);
		else
			json_kv_string(j, "world_size", NULL);
		json_kv_u64(j, "pid", r->pid);
		json_kv_string(j, "host", r->host);
		json_kv_u64(j, "netns", r->netns);
		json_kv_string(j, "comm", r->comm);
		json_kv_u64(j, "calls", r->calls);
		json_kv_u64(j, "collectives", r->collectives);
		json_kv_u64(j, "collective_time_ns", r->coll_time_ns);
		json_kv_u64(j, "wait_ns", r->wait_ns);
		json_kv_u64(j, "straggler_count", r->straggler_count);
		json_kv_u64(j, "late_ns", r->late_ns);
		json_key(j, "ops");
		json_array_begin(j);
		for (size_t k = 0; k < r->nops; k++) {
			const struct corr_rank_op *op = &c->rank_ops[r->first_op + k];

			json_object_begin(j);
			json_kv_string(j, "op", corr__op_name(op->op));
			json_kv_string(j, "name", op->name);
			json_kv_u64(j, "calls", op->calls);
			json_kv_u64(j, "bytes", op->bytes);
			json_kv_u64(j, "size_bytes", op->size_bytes);
			json_kv_u64(j, "time_ns", op->time_ns);
			json_kv_u64(j, "open", op->open);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

void report_json__steps(struct json *j, const struct model *m, const struct corr *c)
{
	char cm[40];

	json_key(j, "steps");
	json_object_begin(j);
	json_kv_u64(j, "total", c->show_probes ? c->nsteps : 0);
	json_kv_u64(j, "unmatched_ends", c->show_probes ? c->unmatched_ends : 0);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nsteps; i++) {
		const struct corr_step *st = &c->steps[i];

		json_object_begin(j);
		json_kv_u64(j, "step", st->step);
		json_kv_i64(j, "start_rel_ns", model__rel_ns(m, st->start_ns));
		json_kv_i64(j, "end_rel_ns", model__rel_ns(m, st->end_ns));
		json_kv_u64(j, "duration_ns", st->end_ns - st->start_ns);
		json_kv_u64(j, "rank_mean_ns", st->dur_mean_ns);
		json_kv_u64(j, "rank_max_ns", st->dur_max_ns);
		json_kv_u64(j, "ranks", st->nranks);
		json_kv_bool(j, "open", st->open);
		json_key(j, "collectives");
		json_array_begin(j);
		for (size_t k = 0; k < st->nchildren; k++) {
			size_t id = c->step_children[st->first_child + k];
			const struct corr_instance *in = &c->instances[id];

			json_object_begin(j);
			json_kv_u64(j, "id", id);
			json_kv_string(j, "op", corr__op_name(in->op));
			json_kv_u64(j, "seq", in->seq);
			json_kv_string(j, "comm", report__comm_str(in, cm, sizeof(cm)));
			json_kv_u64(j, "members", in->nmembers);
			json_kv_i64(j, "start_rel_ns", model__rel_ns(m, in->first_entry));
			json_kv_u64(j, "duration_ns", in->span_ns);
			json_kv_string(j, "verdict", corr__verdict_name(in->verdict));
			json_object_end(j);
		}
		json_array_end(j);
		json_key(j, "phases");
		json_array_begin(j);
		for (size_t k = 0; k < st->nphases; k++) {
			const struct corr_step_phase *ph = &c->step_phases[st->first_phase + k];

			json_object_begin(j);
			json_kv_string(j, "name", ph->name);
			json_kv_u64(j, "count", ph->count);
			json_kv_u64(j, "mean_ns", ph->total_ns / ph->count);
			json_kv_u64(j, "max_ns", ph->max_ns);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);

	json_key(j, "named_phases");
	json_array_begin(j);
	for (size_t i = 0; c->show_probes && i < c->nmarks; i++) {
		const struct corr_mark *mk = &c->marks[i];

		json_object_begin(j);
		json_kv_string(j, "name", mk->name);
		json_kv_u64(j, "count", mk->count);
		json_kv_u64(j, "ranks", mk->nranks);
		json_kv_u64(j, "total_ns", mk->total_ns);
		json_kv_u64(j, "mean_ns", mk->total_ns / mk->count);
		json_kv_u64(j, "max_ns", mk->max_ns);
		json_kv_u64(j, "open", mk->open);
		json_object_end(j);
	}
	json_array_end(j);
}

void report_json__inferred(struct json *j, const struct model *m, const struct corr *c)
{
	json_key(j, "inferred_phases");
	json_object_begin(j);
	json_kv_bool(j, "enabled", c->inferred_on);
	json_kv_string(j, "label", "inferred");
	json_kv_u64(j, "gap_ns", c->inferred_on ? c->infer_gap_ns : 0);
	json_kv_bool(j, "gap_auto", c->inferred_on && c->infer_gap_auto);
	json_kv_u64(j, "min_hosts", c->opts.infer_min_hosts ? c->opts.infer_min_hosts : 2);
	json_kv_u64(j, "min_bytes", c->opts.infer_min_bytes);
	json_key(j, "hosts");
	json_array_begin(j);
	for (size_t i = 0; i < c->nhosts; i++) {
		json_object_begin(j);
		json_kv_string(j, "host", c->hosts[i].name);
		json_kv_u64(j, "netns", c->hosts[i].netns);
		json_kv_u64(j, "active_intervals", c->hosts[i].nact);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t i = 0; i < c->ninferred; i++) {
		const struct corr_inferred *p = &c->inferred[i];

		json_object_begin(j);
		json_kv_string(j, "label", "inferred");
		json_kv_i64(j, "start_rel_ns", model__rel_ns(m, p->start_ns));
		json_kv_i64(j, "end_rel_ns", model__rel_ns(m, p->end_ns));
		json_kv_u64(j, "duration_ns", p->end_ns - p->start_ns);
		json_kv_u64(j, "hosts", p->max_hosts);
		json_kv_u64(j, "tx_bytes", p->tx_bytes);
		if (c->compare.valid) {
			json_kv_u64(j, "matched_collectives", p->matched);
			if (p->matched) {
				json_kv_i64(j, "start_error_ns", p->start_err_ns);
				json_kv_i64(j, "end_error_ns", p->end_err_ns);
			} else {
				json_kv_string(j, "start_error_ns", NULL);
				json_kv_string(j, "end_error_ns", NULL);
			}
		} else {
			json_kv_string(j, "matched_collectives", NULL);
			json_kv_string(j, "start_error_ns", NULL);
			json_kv_string(j, "end_error_ns", NULL);
		}
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "comparison");
	if (!c->compare.valid) {
		json_null(j);
	} else {
		const struct corr_compare *x = &c->compare;

		json_object_begin(j);
		json_kv_u64(j, "real_windows", x->nreal);
		json_kv_u64(j, "inferred", x->ninferred);
		json_kv_u64(j, "inferred_matched", x->inferred_matched);
		json_kv_u64(j, "real_covered", x->real_covered);
		json_kv_u64(j, "one_to_one", x->one_to_one);
		json_kv_u64(j, "max_abs_start_error_ns", x->max_abs_start_err_ns);
		json_kv_u64(j, "max_abs_end_error_ns", x->max_abs_end_err_ns);
		json_kv_double(j, "mean_abs_start_error_ns", x->mean_abs_start_err_ns, 0);
		json_kv_double(j, "mean_abs_end_error_ns", x->mean_abs_end_err_ns, 0);
		json_object_end(j);
	}
	json_object_end(j);
}
