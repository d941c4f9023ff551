// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The collective-phase sections of the text report
 * (userspace/correlate/correlate.h): collectives per op with bus bandwidth,
 * ranks and their waits, steps, the slowest collectives with their verdict,
 * and the inferred phases (userspace/report/report_text.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "userspace/report/report_common.h"
#include "userspace/report/report_text.h"
#include "lib/util.h"

/* nccl-tests style GB/s (1e9 bytes per second), "-" when unknown. */
static const char *fmt_gbps(double bytes_per_s, char *buf, size_t len)
{
	if (!(bytes_per_s == bytes_per_s))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3f GB/s", bytes_per_s / 1e9);
	return buf;
}

/* "3" (world rank) or "pid 1234" */
static const char *rank_label(const struct corr *c, uint32_t r, char *buf, size_t len)
{
	if (r == CORR_NONE || r >= c->nranks)
		snprintf(buf, len, "-");
	else if (c->ranks[r].rank >= 0)
		snprintf(buf, len, "%d", c->ranks[r].rank);
	else
		snprintf(buf, len, "pid %u", c->ranks[r].pid);
	return buf;
}

static const char *verdict_upper(enum corr_verdict v)
{
	switch (v) {
	case CORR_NETWORK: return "NETWORK";
	case CORR_RANK: return "RANK";
	case CORR_UNKNOWN: return "UNKNOWN";
	default: return "ok";
	}
}

static void text_collectives(FILE *f, const struct corr *c)
{
	char sz[32], a[32], b[32], d[32], e[32], g[32], h[32];

	fprintf(f, "\nCollectives by op (span = first entry .. last exit over the ranks; all-arrived = last exit - "
		   "last entry;\n  busbw = size / all-arrived x nccl-tests factor): %zu instances\n", c->ninstances);
	if (!c->nopstats) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-14s %5s %10s %6s %10s %10s %10s %10s %11s %14s %5s %5s %5s %5s\n", "OP", "RANKS", "SIZE",
		"COUNT", "SPAN MEAN", "P50", "P99", "MAX", "ALL-ARRIVED", "BUSBW MEAN", "NET", "RANK", "UNKN", "OK");
	for (size_t i = 0; i < c->nopstats; i++) {
		const struct corr_opstat *g2 = &c->opstats[i];

		fprintf(f, "  %-14s %5u %10s %6" PRIu64 " %10s %10s %10s %10s %11s %14s %5" PRIu64 " %5" PRIu64
			" %5" PRIu64 " %5" PRIu64 "%s\n", corr__op_name(g2->op), g2->nranks,
			fmt_bytes((double)g2->size_bytes, sz, sizeof(sz)), g2->count,
			fmt_ns(g2->span_mean_ns, a, sizeof(a)), fmt_ns(g2->span_p50_ns, b, sizeof(b)),
			fmt_ns(g2->span_p99_ns, d, sizeof(d)), fmt_ns(g2->span_max_ns, e, sizeof(e)),
			fmt_ns(g2->all_arrived_mean_ns, g, sizeof(g)), fmt_gbps(g2->busbw_mean, h, sizeof(h)),
			g2->verdicts[CORR_NETWORK], g2->verdicts[CORR_RANK], g2->verdicts[CORR_UNKNOWN],
			g2->verdicts[CORR_OK], g2->enqueue_only ? "  (enqueue only)" : "");
	}
}

static void text_ranks(FILE *f, const struct corr *c)
{
	char rl[32], a[32], b[32], d[32], by[32];

	fprintf(f, "\nRanks (wait = last entry - own entry, summed; last = times it entered a collective last, "
		   "late = by how much)\n");
	if (!c->nranks) {
		fprintf(f, "  none\n");
		return;
	}
	fprintf(f, "  %-8s %8s %-20s %-16s %7s %7s %12s %12s %6s %12s\n", "RANK", "PID", "HOST", "COMM", "CALLS",
		"COLL", "IN COLL", "WAITING", "LAST", "LATE");
	for (size_t i = 0; i < c->nranks; i++) {
		const struct corr_rank *r = &c->ranks[i];

		fprintf(f, "  %-8s %8u %-20s %-16s %7" PRIu64 " %7" PRIu64 " %12s %12s %6" PRIu64 " %12s\n",
			rank_label(c, (uint32_t)i, rl, sizeof(rl)), r->pid, r->host, r->comm[0] ? r->comm : "?",
			r->calls, r->collectives, fmt_ns(r->coll_time_ns, a, sizeof(a)),
			fmt_ns(r->wait_ns, b, sizeof(b)), r->straggler_count, fmt_ns(r->late_ns, d, sizeof(d)));
	}
	fprintf(f, "  calls per rank and op:\n");
	for (size_t i = 0; i < c->nranks; i++) {
		const struct corr_rank *r = &c->ranks[i];

		fprintf(f, "    %-8s", rank_label(c, (uint32_t)i, rl, sizeof(rl)));
		for (size_t k = 0; k < r->nops; k++) {
			const struct corr_rank_op *op = &c->rank_ops[r->first_op + k];

			fprintf(f, "%s %s %" PRIu64 " (%s)", k ? "," : "", op->name, op->calls,
				fmt_bytes((double)op->bytes, by, sizeof(by)));
			if (op->open)
				fprintf(f, " %" PRIu64 " open", op->open);
		}
		fputc('\n', f);
	}
}

static void text_steps(FILE *f, const struct model *m, const struct corr *c)
{
	char rel[32], a[32], b[32], cm[40];

	if (!c->nsteps && !c->nmarks)
		return;
	fprintf(f, "\nSteps (marker API): %zu\n", c->nsteps);
	if (c->nsteps)
		fprintf(f, "  %-10s %12s %10s %10s %5s   (then its collectives: op #seq, comm, span, verdict; "
			"and named phases)\n", "STEP", "START", "DURATION", "RANK MEAN", "RANKS");
	for (size_t i = 0; i < c->nsteps; i++) {
		const struct corr_step *st = &c->steps[i];

		fprintf(f, "  %-10" PRIu64 " %12s %10s %10s %5u%s\n", st->step,
			fmt_rel(model__rel_ns(m, st->start_ns), rel, sizeof(rel)),
			fmt_ns(st->end_ns - st->start_ns, a, sizeof(a)), fmt_ns(st->dur_mean_ns, b, sizeof(b)),
			st->nranks, st->open ? "  (open: no end marker)" : "");
		for (size_t k = 0; k < st->nchildren; k++) {
			const struct corr_instance *in = &c->instances[c->step_children[st->first_child + k]];

			fprintf(f, "      %s #%" PRIu64 " comm %s: %s, %s\n", corr__op_name(in->op), in->seq,
				report__comm_str(in, cm, sizeof(cm)), fmt_ns(in->span_ns, a, sizeof(a)),
				corr__verdict_name(in->verdict));
		}
		for (size_t k = 0; k < st->nphases; k++) {
			const struct corr_step_phase *ph = &c->step_phases[st->first_phase + k];

			fprintf(f, "      phase %s: %" PRIu64 " x, mean %s, max %s\n", ph->name, ph->count,
				fmt_ns(ph->total_ns / ph->count, a, sizeof(a)), fmt_ns(ph->max_ns, b, sizeof(b)));
		}
	}
	if (c->nmarks) {
		fprintf(f, "  named phases:\n");
		fprintf(f, "    %-32s %8s %6s %10s %10s\n", "NAME", "COUNT", "RANKS", "MEAN", "MAX");
		for (size_t i = 0; i < c->nmarks; i++) {
			const struct corr_mark *mk = &c->marks[i];

			fprintf(f, "    %-32s %8" PRIu64 " %6u %10s %10s%s\n", mk->name, mk->count, mk->nranks,
				fmt_ns(mk->total_ns / mk->count, a, sizeof(a)), fmt_ns(mk->max_ns, b, sizeof(b)),
				mk->open ? " (some open)" : "");
		}
	}
	if (c->unmatched_ends)
		fprintf(f, "  %" PRIu64 " marker ends without a begin (ignored)\n", c->unmatched_ends);
}

static void text_slowest(FILE *f, const struct model *m, const struct corr *c, const struct report_opts *o)
{
	size_t n = report__top_n(o, c->nby_span);
	char rel[32], a[32], b[32], d[32], sz[32], bw[32], cm[40], rl[32];
	char *desc;

	fprintf(f, "\nSlowest collectives (by span): %zu", c->nby_span);
	if (n < c->nby_span)
		fprintf(f, ", top %zu", n);
	fprintf(f, "; verdicts: network %" PRIu64 ", rank %" PRIu64 ", unknown %" PRIu64 ", ok %" PRIu64 "\n",
		c->verdicts[CORR_NETWORK], c->verdicts[CORR_RANK], c->verdicts[CORR_UNKNOWN], c->verdicts[CORR_OK]);
	if (!n) {
		fprintf(f, "  none\n");
		return;
	}
	desc = malloc(1024);
	if (!desc)
		return;
	fprintf(f, "  %-4s %-14s %6s %-12s %12s %10s %10s %11s %10s %14s %-9s %s\n", "#", "OP", "SEQ", "COMM",
		"START", "SPAN", "SKEW", "ALL-ARRIVED", "SIZE", "BUSBW", "STRAGGLER", "VERDICT");
	for (size_t i = 0; i < n; i++) {
		const struct corr_instance *in = &c->instances[c->by_span[i]];

		fprintf(f, "  %-4zu %-14s %6" PRIu64 " %-12s %12s %10s %10s %11s %10s %14s %-9s %s\n", i + 1,
			corr__op_name(in->op), in->seq, report__comm_str(in, cm, sizeof(cm)),
			fmt_rel(model__rel_ns(m, in->first_entry), rel, sizeof(rel)), fmt_ns(in->span_ns, a, sizeof(a)),
			fmt_ns(in->skew_ns, b, sizeof(b)), fmt_ns(in->all_arrived_ns, d, sizeof(d)),
			fmt_bytes((double)in->size_bytes, sz, sizeof(sz)), fmt_gbps(in->busbw, bw, sizeof(bw)),
			rank_label(c, in->straggler, rl, sizeof(rl)), verdict_upper(in->verdict));
		fprintf(f, "       %s\n", corr__describe(c, c->by_span[i], desc, 1024));
	}
	free(desc);
}

/* "+1.00 ms", "-200 us", "+0 ns" */
static const char *fmt_signed_ns(int64_t ns, char *buf, size_t len)
{
	char a[32];
	uint64_t v = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;

	snprintf(buf, len, "%c%s", ns < 0 ? '-' : '+', fmt_ns(v, a, sizeof(a)));
	return buf;
}

static void text_inferred(FILE *f, const struct model *m, const struct corr *c)
{
	char r1[32], r2[32], a[32], by[32], e1[32], e2[32];

	fprintf(f, "\nInferred phases (INFERRED from traffic, not traced: >= %u hosts active together, "
		   "activity merged across gaps < %s%s): %zu\n", c->opts.infer_min_hosts ? c->opts.infer_min_hosts : 2,
		fmt_ns(c->infer_gap_ns, a, sizeof(a)), c->infer_gap_auto ? ", chosen from the traffic" : "",
		c->ninferred);
	fprintf(f, "  hosts:");
	for (size_t i = 0; i < c->nhosts; i++)
		fprintf(f, " %s", c->hosts[i].name);
	fprintf(f, "%s\n", c->nhosts ? "" : " none (no traced interfaces outside forwarding namespaces)");
	if (!c->ninferred)
		return;
	fprintf(f, "  %-6s %-8s %12s %12s %10s %5s %10s", "#", "LABEL", "START", "END", "DURATION", "HOSTS", "TX BYTES");
	if (c->compare.valid)
		fprintf(f, " %7s %12s %12s", "MATCHED", "START ERR", "END ERR");
	fputc('\n', f);
	for (size_t i = 0; i < c->ninferred; i++) {
		const struct corr_inferred *p = &c->inferred[i];

		fprintf(f, "  %-6zu %-8s %12s %12s %10s %5u %10s", i + 1, "inferred",
			fmt_rel(model__rel_ns(m, p->start_ns), r1, sizeof(r1)),
			fmt_rel(model__rel_ns(m, p->end_ns), r2, sizeof(r2)), fmt_ns(p->end_ns - p->start_ns, a, sizeof(a)),
			p->max_hosts, fmt_bytes((double)p->tx_bytes, by, sizeof(by)));
		if (c->compare.valid && p->matched)
			fprintf(f, " %7u %12s %12s", p->matched, fmt_signed_ns(p->start_err_ns, e1, sizeof(e1)),
				fmt_signed_ns(p->end_err_ns, e2, sizeof(e2)));
		else if (c->compare.valid)
			fprintf(f, " %7u %12s %12s", 0u, "-", "-");
		fputc('\n', f);
	}
	if (c->compare.valid) {
		const struct corr_compare *x = &c->compare;

		fprintf(f, "  inferred vs probe windows: %zu collective windows across hosts, %zu covered; %zu of %zu "
			   "inferred phases match one, %zu one-to-one;\n  |start error| max %s mean %s, |end error| max %s "
			   "mean %s\n", x->nreal, x->real_covered, x->inferred_matched, x->ninferred, x->one_to_one,
			fmt_ns(x->max_abs_start_err_ns, r1, sizeof(r1)),
			fmt_ns((uint64_t)(x->mean_abs_start_err_ns + 0.5), r2, sizeof(r2)),
			fmt_ns(x->max_abs_end_err_ns, e1, sizeof(e1)),
			fmt_ns((uint64_t)(x->mean_abs_end_err_ns + 0.5), e2, sizeof(e2)));
	}
}

void report_text__phases(FILE *f, const struct model *m, const struct corr *c, const struct report_opts *o)
{
	if (!c->have_probes) {
		fprintf(f, "\nCollective phases: none traced (the capture has no phase probe records)%s\n",
			c->inferred_on ? "; the phases below are inferred from traffic" : "");
	} else if (!c->show_probes) {
		fprintf(f, "\nCollective phases: %zu phase records, not shown (--phases inferred)\n", m->nphases);
	} else {
		fprintf(f, "\nCollective phases (phase probes): %zu records, %zu ranks, %zu calls, %zu collective "
			   "instances\n", m->nphases, c->nranks, c->ncalls, c->ninstances);
		if (c->seq_shifted)
			fprintf(f, "  attached mid-run: the collective counts of %zu (communicator, process) pairs "
				"were shifted into step with the others' (by the calls' overlap in time)\n",
				c->seq_shifted);
		if (c->enqueue_only)
			fprintf(f, "!! %s\n", ENQUEUE_NOTE);
		if (c->plugin.calls)
			fprintf(f, "  NCCL profiler plugin: %" PRIu64 " calls timed as NCCL ran them (%" PRIu64
				" by kernel-channel GPU timer, %" PRIu64 " by proxy progress, %" PRIu64
				" host-side only), %" PRIu64 " proxy operations (%" PRIu64 " bytes); %" PRIu64
				" enqueue-time NCCL calls replaced\n",
				c->plugin.calls, c->plugin.gpu_timed, c->plugin.proxy_timed, c->plugin.host_timed,
				c->plugin.proxy_ops, c->plugin.proxy_bytes, c->plugin.dropped_enqueue);
		text_collectives(f, c);
		text_ranks(f, c);
		text_steps(f, m, c);
		text_slowest(f, m, c, o);
	}
	if (c->inferred_on)
		text_inferred(f, m, c);
}
