// SPDX-License-Identifier: GPL-2.0-or-later
/* The time budget in the report (report_budget.h). */
#include <inttypes.h>
#include <stdio.h>

#include "lib/util.h"
#include "userspace/report/report_budget.h"

/* The link, queue and path of a budget item (or of the budget's main link). */
static void j_place(struct json *j, const struct model *m, uint32_t iface, uint32_t qdisc, uint32_t flow)
{
	char q[48], t[128];

	json_kv_string(j, "link", iface != CORR_NONE && iface < m->nifaces ? m->ifaces[iface].label : NULL);
	json_kv_string(j, "qdisc", qdisc != CORR_NONE && qdisc < m->nqdiscs ? corr__qdisc_label(m, qdisc, q, sizeof(q)) : NULL);
	json_kv_string(j, "toward", flow != CORR_NONE && flow < m->nflows ? corr__toward_label(m, flow, t, sizeof(t)) : NULL);
}

static void j_rank(struct json *j, const struct corr *c, const char *key, uint32_t r)
{
	if (r != CORR_NONE && r < c->nranks && c->ranks[r].rank >= 0)
		json_kv_i64(j, key, c->ranks[r].rank);
	else
		json_kv_string(j, key, NULL);
}

void report_budget__instance_json(struct json *j, const struct model *m, const struct corr *c,
				  const struct corr_instance *in)
{
	const struct corr_budget *b = &in->budget;

	json_key(j, "budget");
	json_object_begin(j);
	json_kv_u64(j, "total_ns", b->total_ns);
	json_kv_u64(j, "waiting_ns", b->waiting_ns);
	j_rank(j, c, "waiting_rank", b->waiting_rank);
	json_kv_u64(j, "stalled_ns", b->stalled_ns);
	json_kv_u64(j, "held_ns", b->held_ns);
	j_rank(j, c, "held_rank", b->held_rank);
	json_kv_u64(j, "carried_ns", b->carried_ns);
	json_kv_u64(j, "carried_network_ns", b->carried_network_ns);
	if (b->carried_from != CORR_NONE)
		json_kv_u64(j, "carried_from", b->carried_from);
	else
		json_kv_string(j, "carried_from", NULL);
	json_kv_u64(j, "usual_skew_ns", b->carried_ns - b->carried_network_ns);
	json_kv_u64(j, "transfer_ns", b->transfer_ns);
	json_kv_u64(j, "expected_ns", b->expected_ns);
	json_kv_string(j, "expected_from", corr__expected_from_name(b->expected_from));
	json_kv_u64(j, "typical_ns", b->typical_ns);
	json_kv_u64(j, "line_rate_ns", b->line_rate_ns);
	json_kv_u64(j, "excess_ns", b->excess_ns);
	json_kv_u64(j, "items_estimate_ns", b->items_ns);
	json_kv_u64(j, "network_ns", b->network_ns);
	json_kv_u64(j, "unexplained_ns", b->unexplained_ns);
	json_kv_u64(j, "usual_ns", b->usual_ns);
	json_kv_string(j, "leader", corr__share_name(b->leader));
	j_place(j, m, b->link, b->qdisc, b->toward_flow);
	json_key(j, "items");
	json_array_begin(j);
	for (size_t k = 0; k < b->ncosts; k++) {
		const struct corr_cost *x = &c->costs[b->first_cost + k];

		json_object_begin(j);
		json_kv_string(j, "kind", corr__cost_name(x->kind));
		j_place(j, m, x->iface, x->qdisc, x->flow);
		json_kv_u64(j, "count", x->count);
		json_kv_u64(j, "estimate_ns", x->raw_ns);
		json_kv_u64(j, "cost_ns", x->cost_ns);
		json_object_end(j);
	}
	if (b->carried_network_ns && b->carried_from < c->ninstances) { /* on the link it came from */
		const struct corr_budget *pb = &c->instances[b->carried_from].budget;

		json_object_begin(j);
		json_kv_string(j, "kind", corr__cost_name(CORR_COST_CARRIED));
		j_place(j, m, pb->link, pb->qdisc, pb->toward_flow);
		json_kv_u64(j, "count", 1);
		json_kv_u64(j, "estimate_ns", b->carried_network_ns);
		json_kv_u64(j, "cost_ns", b->carried_network_ns);
		json_kv_u64(j, "from", b->carried_from);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static double share(uint64_t part, uint64_t total)
{
	return total ? (double)part / (double)total : 0.0;
}

void report_budget__json(struct json *j, const struct model *m, const struct corr *c)
{
	const struct corr_job_budget *b = c ? &c->budget : NULL;
	char lb[128];

	json_key(j, "budget");
	if (!b || !c->show_probes || !c->ninstances) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_u64(j, "total_ns", b->total_ns);
	json_kv_u64(j, "waiting_ns", b->waiting_ns);
	json_kv_u64(j, "expected_ns", b->expected_ns);
	json_kv_u64(j, "network_ns", b->network_ns);
	json_kv_u64(j, "unexplained_ns", b->unexplained_ns);
	json_key(j, "shares");
	json_object_begin(j);
	json_kv_double(j, "waiting", share(b->waiting_ns, b->total_ns), 4);
	json_kv_double(j, "expected", share(b->expected_ns, b->total_ns), 4);
	json_kv_double(j, "network", share(b->network_ns, b->total_ns), 4);
	json_kv_double(j, "unexplained", share(b->unexplained_ns, b->total_ns), 4);
	json_object_end(j);
	json_key(j, "waiting");
	json_array_begin(j);
	for (size_t r = 0; r < c->nranks; r++) {
		if (!b->wait_by_rank[r])
			continue;
		json_object_begin(j);
		j_rank(j, c, "rank", (uint32_t)r);
		json_kv_string(j, "label", corr__rank_label(c, (uint32_t)r, lb, sizeof(lb)));
		json_kv_u64(j, "ns", b->wait_by_rank[r]);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "network");
	json_array_begin(j);
	for (size_t l = 0; l < b->nlinks; l++) {
		const struct corr_budget_link *x = &b->links[l];

		json_object_begin(j);
		j_place(j, m, x->iface, x->qdisc, CORR_NONE);
		json_kv_u64(j, "ns", x->ns);
		json_key(j, "items");
		json_object_begin(j);
		for (unsigned k = 0; k < CORR_NCOSTS; k++) {
			if (!x->count[k] && !x->cost_ns[k])
				continue;
			json_key(j, corr__cost_name(k));
			json_object_begin(j);
			json_kv_u64(j, "count", x->count[k]);
			json_kv_u64(j, "ns", x->cost_ns[k]);
			json_object_end(j);
		}
		json_object_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

void report_budget__text(FILE *f, const struct model *m, const struct corr *c)
{
	const struct corr_job_budget *b = c ? &c->budget : NULL;
	char x[32], lb[160], q[48];

	if (!b || !c->show_probes || !c->ninstances)
		return;
	fprintf(f, "\nTime budget (where the time in collectives went; docs/verdicts.md):\n");
	fprintf(f, "  %-22s %10s\n", "total", fmt_ns(b->total_ns, x, sizeof(x)));
	fprintf(f, "  %-22s %10s %5.1f%%\n", "waiting for ranks", fmt_ns(b->waiting_ns, x, sizeof(x)),
		100.0 * share(b->waiting_ns, b->total_ns));
	for (size_t r = 0; r < c->nranks; r++)
		if (b->wait_by_rank[r])
			fprintf(f, "    %-40s %10s\n", corr__rank_label(c, (uint32_t)r, lb, sizeof(lb)),
				fmt_ns(b->wait_by_rank[r], x, sizeof(x)));
	fprintf(f, "  %-22s %10s %5.1f%%\n", "usual (expected)", fmt_ns(b->expected_ns, x, sizeof(x)),
		100.0 * share(b->expected_ns, b->total_ns));
	fprintf(f, "  %-22s %10s %5.1f%%\n", "network", fmt_ns(b->network_ns, x, sizeof(x)),
		100.0 * share(b->network_ns, b->total_ns));
	for (size_t l = 0; l < b->nlinks; l++) {
		const struct corr_budget_link *y = &b->links[l];
		size_t k = 0;

		if (!y->ns)
			continue;
		str_appendf(lb, sizeof(lb), &k, "%s", y->iface != CORR_NONE && y->iface < m->nifaces ?
						      m->ifaces[y->iface].label : "the ranks' adapters");
		if (y->qdisc != CORR_NONE && y->qdisc < m->nqdiscs)
			str_appendf(lb, sizeof(lb), &k, " (%s)", corr__qdisc_label(m, y->qdisc, q, sizeof(q)));
		fprintf(f, "    %-40s %10s ", lb, fmt_ns(y->ns, x, sizeof(x)));
		for (unsigned kind = 0, n = 0; kind < CORR_NCOSTS; kind++) {
			if (!y->cost_ns[kind] && !(kind == CORR_COST_DROP && y->count[kind]))
				continue;
			fprintf(f, "%s", n++ ? ", " : " ");
			if (corr__cost_counts_events(kind))
				fprintf(f, "%" PRIu64 " ", y->count[kind]);
			fprintf(f, "%s", corr__cost_label(kind));
			if (kind != CORR_COST_DROP)
				fprintf(f, " %s", fmt_ns(y->cost_ns[kind], x, sizeof(x)));
		}
		fprintf(f, "\n");
	}
	fprintf(f, "  %-22s %10s %5.1f%%\n", "unexplained", fmt_ns(b->unexplained_ns, x, sizeof(x)),
		100.0 * share(b->unexplained_ns, b->total_ns));
}
