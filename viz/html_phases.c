/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sections of the HTML page's data (viz/html.h) from the correlator:
 * ranks, calls, spans (steps, named phases), collective instances, the
 * evidence of the slowest of them in full, inferred phases.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viz/common.h"
#include "viz/html.h"

void html_put_ranks(struct html *h)
{
	const struct corr *c = h->pc; /* NULL: no probe phases shown */
	struct out *o = &h->o;

	json_kv_array_begin(&o->j, "ranks");
	for (size_t i = 0; c && i < c->nranks; i++) {
		const struct corr_rank *r = &c->ranks[i];

		json_kv_object_begin(&o->j, NULL);
		json_kv_i64(&o->j, "rank", r->rank);
		json_kv_i64(&o->j, "world", r->world_size);
		json_kv_string(&o->j, "host", r->host);
		json_kv_u64(&o->j, "netns", r->netns);
		json_kv_u64(&o->j, "pid", r->pid);
		json_kv_string(&o->j, "comm", r->comm);
		json_kv_u64(&o->j, "calls", r->calls);
		json_kv_u64(&o->j, "coll", r->collectives);
		json_kv_u64(&o->j, "coll_ns", r->coll_time_ns);
		json_kv_u64(&o->j, "wait_ns", r->wait_ns);
		json_kv_u64(&o->j, "last", r->straggler_count);
		json_kv_u64(&o->j, "late_ns", r->late_ns);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
}

void html_put_calls(struct html *h)
{
	const struct model *m = h->m;
	const struct corr *c = h->pc; /* NULL: no probe phases shown */
	struct out *o = &h->o;
	struct col cr = { 0 }, cs = { 0 }, cd = { 0 }, cret = { 0 }, cop = { 0 }, cb = { 0 }, cseq = { 0 };
	struct col cin = { 0 }, cfl = { 0 }, csp = { 0 }, cst = { 0 }, cpe = { 0 };
	size_t n = c ? c->ncalls : 0;

	for (size_t i = 0; i < n; i++) {
		const struct corr_call *k = &c->calls[i];

		html_col_u(&cr, k->rank == CORR_NONE ? 0 : (uint64_t)k->rank + 1);
		html_col_d(&cs, srel(m, k->start_ns));
		html_col_u(&cd, k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0);
		html_col_u(&cret, k->ret_ns > k->start_ns ? k->ret_ns - k->start_ns : 0);
		html_col_u(&cop, viz__call_op_index(m, k));
		html_col_u(&cb, k->bytes);
		html_col_u(&cseq, k->seq);
		html_col_u(&cin, k->instance == CORR_NONE ? 0 : (uint64_t)k->instance + 1);
		html_col_u(&cfl, k->flags);
		html_col_u(&csp, k->span == CORR_NONE ? 0 : (uint64_t)k->span + 1);
		html_col_u(&cst, k->step < 0 ? 0 : (uint64_t)k->step + 1);
		html_col_u(&cpe, k->peer < 0 ? 0 : (uint64_t)k->peer + 1);
	}
	json_kv_object_begin(&o->j, "calls");
	json_kv_u64(&o->j, "n", n);
	html_out_col(o, "rank", &cr);
	html_out_col(o, "start", &cs);
	html_out_col(o, "dur", &cd);
	html_out_col(o, "ret", &cret);
	html_out_col(o, "op", &cop);
	html_out_col(o, "bytes", &cb);
	html_out_col(o, "seq", &cseq);
	html_out_col(o, "inst", &cin);
	html_out_col(o, "flags", &cfl);
	html_out_col(o, "span", &csp);
	html_out_col(o, "step", &cst);
	html_out_col(o, "peer", &cpe);
	json_object_end(&o->j);
}

void html_put_spans(struct html *h)
{
	const struct model *m = h->m;
	const struct corr *c = h->pc; /* NULL: no probe phases shown */
	struct out *o = &h->o;
	struct col cr = { 0 }, ck = { 0 }, cs = { 0 }, cd = { 0 }, cn = { 0 }, cstep = { 0 };
	struct col cdep = { 0 }, cpar = { 0 }, cop = { 0 };
	size_t n = c ? c->nspans : 0;
	/* names of marks: a small table, first-seen order */
	const char **names = calloc(n + 1, sizeof(*names));
	size_t nnames = 0;

	if (!names) {
		o->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct corr_span *s = &c->spans[i];
		size_t ni = 0;

		if (s->kind == CORR_SPAN_MARK) {
			while (ni < nnames && strcmp(names[ni], s->name) != 0)
				ni++;
			if (ni == nnames)
				names[nnames++] = s->name;
		}
		html_col_u(&cr, s->rank == CORR_NONE ? 0 : (uint64_t)s->rank + 1);
		html_col_u(&ck, s->kind);
		html_col_d(&cs, srel(m, s->start_ns));
		html_col_u(&cd, s->end_ns > s->start_ns ? s->end_ns - s->start_ns : 0);
		html_col_u(&cn, ni);
		html_col_u(&cstep, s->kind == CORR_SPAN_STEP ? s->step : 0);
		html_col_u(&cdep, s->depth);
		html_col_u(&cpar, s->parent == CORR_NONE ? 0 : (uint64_t)s->parent + 1);
		html_col_u(&cop, s->open);
	}
	json_kv_object_begin(&o->j, "spans");
	json_kv_u64(&o->j, "n", n);
	json_kv_array_begin(&o->j, "names");
	for (size_t i = 0; i < nnames; i++)
		json_kv_string(&o->j, NULL, names[i]);
	json_array_end(&o->j);
	html_out_col(o, "rank", &cr);
	html_out_col(o, "kind", &ck);
	html_out_col(o, "start", &cs);
	html_out_col(o, "dur", &cd);
	html_out_col(o, "name", &cn);
	html_out_col(o, "step", &cstep);
	html_out_col(o, "depth", &cdep);
	html_out_col(o, "parent", &cpar);
	html_out_col(o, "open", &cop);
	json_object_end(&o->j);
	free(names);
}

void html_put_instances(struct html *h)
{
	const struct model *m = h->m;
	const struct corr *c = h->pc; /* NULL: no probe phases shown */
	struct out *o = &h->o;
	size_t n = c ? c->ninstances : 0;
	uint64_t *comms = calloc(n + 1, sizeof(*comms));
	size_t ncomms = 0;
	struct col cop = { 0 }, cseq = { 0 }, ccomm = { 0 }, cnr = { 0 }, csz = { 0 }, cfe = { 0 };
	struct col cle = { 0 }, cfx = { 0 }, clx = { 0 }, cstr = { 0 }, cown = { 0 }, cver = { 0 };
	struct col cwhy = { 0 }, cbus = { 0 }, calg = { 0 }, cslow = { 0 }, cstep = { 0 }, cfl = { 0 };
	struct col cnm = { 0 }, cqd = { 0 }, csoj = { 0 }, cbl = { 0 }, cdr = { 0 }, ccd = { 0 };
	struct col crt = { 0 }, ctlp = { 0 }, cce = { 0 }, cbu = { 0 }, cut = { 0 }, clink = { 0 };
	struct col cqq = { 0 }, cmem = { 0 }, cccg = { 0 }, ccp = { 0 }, ccl = { 0 };

	if (!comms) {
		o->oom = true;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct corr_instance *in = &c->instances[i];
		const struct corr_evsum *e = &in->ev;
		size_t ci = 0;
		uint64_t fl = 0;

		while (ci < ncomms && comms[ci] != in->comm)
			ci++;
		if (ci == ncomms)
			comms[ncomms++] = in->comm;
		fl |= in->enqueue_only ? 1u : 0;
		fl |= in->open ? 2u : 0;
		fl |= in->partial ? 4u : 0;
		fl |= in->op_mismatch ? 8u : 0;
		fl |= in->slow ? 16u : 0;
		fl |= e->observed ? 32u : 0;
		html_col_u(&cop, in->op);
		html_col_u(&cseq, in->seq);
		html_col_u(&ccomm, ci);
		html_col_u(&cnr, in->nranks);
		html_col_u(&csz, in->size_bytes);
		html_col_d(&cfe, srel(m, in->first_entry));
		html_col_u(&cle, in->last_entry - in->first_entry);
		html_col_u(&cfx, in->first_exit > in->first_entry ? in->first_exit - in->first_entry : 0);
		html_col_u(&clx, in->last_exit > in->first_entry ? in->last_exit - in->first_entry : 0);
		html_col_u(&cstr, in->straggler == CORR_NONE ? 0 : (uint64_t)in->straggler + 1);
		html_col_u(&cown, in->own_late_ns);
		html_col_u(&cver, in->verdict);
		html_col_u(&cwhy, in->why);
		html_col_u(&cbus, opt_num(in->busbw, 1.0));
		html_col_u(&calg, opt_num(in->algbw, 1.0));
		html_col_u(&cslow, opt_num(in->slow_ratio, 1000.0));
		html_col_u(&cstep, in->step < 0 ? 0 : (uint64_t)in->step + 1);
		html_col_u(&cfl, fl);
		html_col_u(&cnm, in->nmembers);
		html_col_u(&cqd, e->queue_delay_ns);
		html_col_u(&csoj, e->max_sojourn_ns);
		html_col_u(&cbl, e->max_backlog_bytes);
		html_col_u(&cdr, e->drops);
		html_col_u(&ccd, e->cong_drops);
		html_col_u(&crt, e->retrans);
		html_col_u(&ctlp, e->retrans_tlp);
		html_col_u(&cce, e->ce_pkts);
		html_col_u(&cbu, e->bursts);
		html_col_u(&cut, opt_num(e->peak_iface == CORR_NONE ? e->peak_util
						: model_dir__line_util(&m->ifaces[e->peak_iface].dir[e->peak_dir & 1],
								       e->peak_util), 10000.0));
		html_col_u(&clink, e->link == CORR_NONE ? 0 : (uint64_t)e->link + 1);
		html_col_u(&cqq, e->qdisc == CORR_NONE ? 0 : (uint64_t)e->qdisc + 1);
		html_col_u(&cccg, e->ctr_cong);
		html_col_u(&ccp, e->ctr_pause);
		html_col_u(&ccl, e->ctr_retrans + e->ctr_discard);
		for (size_t k = 0; k < in->nmembers && in->first_member + k < c->nmembers; k++)
			html_col_u(&cmem, c->members[in->first_member + k]);
	}
	json_kv_object_begin(&o->j, "insts");
	json_kv_u64(&o->j, "n", n);
	json_kv_array_begin(&o->j, "comms");
	for (size_t i = 0; i < ncomms; i++) {
		char b[24];

		snprintf(b, sizeof(b), "0x%" PRIx64, comms[i]);
		json_kv_string(&o->j, NULL, b);
	}
	json_array_end(&o->j);
	free(comms);
	html_out_col(o, "op", &cop);
	html_out_col(o, "seq", &cseq);
	html_out_col(o, "comm", &ccomm);
	html_out_col(o, "nranks", &cnr);
	html_out_col(o, "size", &csz);
	html_out_col(o, "fe", &cfe);
	html_out_col(o, "le", &cle);
	html_out_col(o, "fx", &cfx);
	html_out_col(o, "lx", &clx);
	html_out_col(o, "strag", &cstr);
	html_out_col(o, "own_late", &cown);
	html_out_col(o, "verdict", &cver);
	html_out_col(o, "why", &cwhy);
	html_out_col(o, "busbw", &cbus);
	html_out_col(o, "algbw", &calg);
	html_out_col(o, "slow", &cslow);
	html_out_col(o, "step", &cstep);
	html_out_col(o, "flags", &cfl);
	html_out_col(o, "nm", &cnm);
	html_out_col(o, "qd", &cqd);
	html_out_col(o, "soj", &csoj);
	html_out_col(o, "backlog", &cbl);
	html_out_col(o, "drops", &cdr);
	html_out_col(o, "cdrops", &ccd);
	html_out_col(o, "rtx", &crt);
	html_out_col(o, "tlp", &ctlp);
	html_out_col(o, "ce", &cce);
	html_out_col(o, "bursts", &cbu);
	html_out_col(o, "util", &cut);
	html_out_col(o, "link", &clink);
	html_out_col(o, "qdisc", &cqq);
	html_out_col(o, "ctr_cong", &cccg);
	html_out_col(o, "ctr_pause", &ccp);
	html_out_col(o, "ctr_loss", &ccl);
	html_out_col(o, "members", &cmem);
	json_object_end(&o->j);
}

static void put_one_evidence(struct html *h, struct out *o, size_t idx)
{
	const struct model *m = h->m;
	const struct corr *c = h->pc; /* NULL: no probe phases shown */
	struct corr_evidence ev;
	char text[2048];

	if (corr__evidence(c, idx, &ev)) {
		o->oom = true;
		return;
	}
	corr__describe(c, idx, text, sizeof(text));
	json_kv_object_begin(&o->j, NULL);
	json_kv_u64(&o->j, "i", idx);
	json_kv_string(&o->j, "text", text);
	json_kv_array_begin(&o->j, "links");
	for (size_t i = 0; i < ev.nlinks; i++) {
		const struct corr_link_ev *l = &ev.links[i];

		json_kv_object_begin(&o->j, NULL);
		json_kv_u64(&o->j, "iface", l->iface);
		json_kv_array_begin(&o->j, "bytes");
		json_kv_u64(&o->j, NULL, l->bytes[0]);
		json_kv_u64(&o->j, NULL, l->bytes[1]);
		json_array_end(&o->j);
		json_kv_array_begin(&o->j, "util");
		json_kv_double(&o->j, NULL, model_dir__line_util(&m->ifaces[l->iface].dir[0], l->peak_util[0]), 4);
		json_kv_double(&o->j, NULL, model_dir__line_util(&m->ifaces[l->iface].dir[1], l->peak_util[1]), 4);
		json_array_end(&o->j);
		json_kv_u64(&o->j, "bursts", l->bursts);
		json_kv_u64(&o->j, "ce", l->ce_pkts);
		json_kv_i64(&o->j, "qdisc", l->qdisc == CORR_NONE ? -1 : (int64_t)l->qdisc);
		json_kv_u64(&o->j, "backlog", l->max_backlog_bytes);
		json_kv_u64(&o->j, "sojourn", l->max_sojourn_ns);
		json_kv_u64(&o->j, "qdelay", l->queue_delay_ns);
		json_kv_u64(&o->j, "qdrops", l->qdisc_drops);
		json_kv_u64(&o->j, "drops", l->drops);
		json_kv_u64(&o->j, "cdrops", l->cong_drops);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
	json_kv_array_begin(&o->j, "drops");
	for (size_t i = 0; i < ev.ndrops; i++) {
		const struct corr_drop_ev *d = &ev.drops[i];
		const char *nm = model__drop_reason_name(m, d->reason);
		char b[32];

		if (!nm) {
			snprintf(b, sizeof(b), "reason %u", d->reason);
			nm = b;
		}
		json_kv_object_begin(&o->j, NULL);
		json_kv_string(&o->j, "reason", nm);
		json_kv_i64(&o->j, "iface", d->iface == UINT32_MAX ? -1 : (int64_t)d->iface);
		json_kv_u64(&o->j, "count", d->count);
		json_kv_bool(&o->j, "congestion", d->congestion);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
	json_kv_array_begin(&o->j, "ctrs");
	for (size_t i = 0; i < ev.nctrs; i++) {
		json_kv_object_begin(&o->j, NULL);
		json_kv_u64(&o->j, "series", ev.ctrs[i].series);
		json_kv_u64(&o->j, "growth", ev.ctrs[i].growth);
		json_kv_double(&o->j, "peak_rate", ev.ctrs[i].peak_rate, 1);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
	json_kv_array_begin(&o->j, "flows");
	for (size_t i = 0; i < ev.nflows; i++) {
		json_kv_object_begin(&o->j, NULL);
		json_kv_u64(&o->j, "flow", ev.flows[i].flow);
		json_kv_u64(&o->j, "rtx", ev.flows[i].retrans);
		json_kv_bool(&o->j, "owned", ev.flows[i].owned);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
	json_object_end(&o->j);
	corr__evidence_free(&ev);
}

/* Evidence in full for the slowest instances (a verdict other than ok first). */
static void evidence_obj(struct html *h, struct out *o)
{
	const struct corr *c = h->pc; /* NULL: no probe phases shown */
	size_t n = 0, total = c ? c->ninstances : 0;
	bool *done = calloc(total + 1, sizeof(bool));

	if (!done) {
		o->oom = true;
		return;
	}
	json_kv_object_begin(&o->j, NULL);
	json_kv_array_begin(&o->j, "items");
	for (int pass = 0; pass < 2 && c; pass++)
		for (size_t r = 0; r < c->nby_span && n < HTML_EVIDENCE_MAX && !o->oom; r++) {
			uint32_t idx = c->by_span[r];

			if (idx >= total || done[idx] || (pass == 0) != (c->instances[idx].verdict != CORR_OK))
				continue;
			done[idx] = true;
			put_one_evidence(h, o, idx);
			n++;
		}
	json_array_end(&o->j);
	json_kv_u64(&o->j, "omitted", total - n);
	json_object_end(&o->j);
	free(done);
}

/* The evidence member, made once (it does not depend on the level of detail). */
void html_put_evidence(struct html *h)
{
	struct out *o = &h->o;

	if (!h->evidence) {
		struct out t;
		FILE *mf = open_memstream(&h->evidence, &h->nevidence);

		if (!mf) {
			o->oom = true;
			return;
		}
		html_out_init(&t, mf, o->bin);
		evidence_obj(h, &t);
		if (fclose(mf) || t.oom) {
			free(h->evidence);
			h->evidence = NULL;
			o->oom = true;
			return;
		}
	}
	json_key(&o->j, "evidence");
	json_raw(&o->j, h->evidence, h->nevidence);
}

void html_put_inferred(struct html *h)
{
	const struct model *m = h->m;
	const struct corr *c = h->c;
	struct out *o = &h->o;
	struct col cs = { 0 }, cd = { 0 }, ch = { 0 }, cb = { 0 }, cm = { 0 };
	size_t n = c && c->inferred_on ? c->ninferred : 0, left = HTML_ACTIVITY_MAX;

	for (size_t i = 0; i < n; i++) {
		const struct corr_inferred *f = &c->inferred[i];

		html_col_d(&cs, srel(m, f->start_ns));
		html_col_u(&cd, f->end_ns > f->start_ns ? f->end_ns - f->start_ns : 0);
		html_col_u(&ch, f->max_hosts);
		html_col_u(&cb, f->tx_bytes);
		html_col_u(&cm, f->matched);
	}
	json_kv_object_begin(&o->j, "inferred");
	json_kv_u64(&o->j, "n", n);
	html_out_col(o, "start", &cs);
	html_out_col(o, "dur", &cd);
	html_out_col(o, "hosts", &ch);
	html_out_col(o, "tx", &cb);
	html_out_col(o, "matched", &cm);
	json_kv_array_begin(&o->j, "hosts_act");
	for (size_t i = 0; n && i < c->nhosts; i++) {
		const struct corr_host *hh = &c->hosts[i];
		size_t k = hh->nact < left ? hh->nact : left;

		left -= k;
		for (size_t j = 0; j < k && hh->first_act + j < c->nactivity; j++) {
			const struct corr_interval *a = &c->activity[hh->first_act + j];

			html_col_d(&cs, srel(m, a->start_ns));
			html_col_u(&cd, a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0);
		}
		json_kv_object_begin(&o->j, NULL);
		json_kv_string(&o->j, "name", hh->name);
		json_kv_u64(&o->j, "n", cs.n);
		json_kv_u64(&o->j, "omitted", hh->nact - cs.n);
		html_out_col(o, "start", &cs);
		html_out_col(o, "dur", &cd);
		json_object_end(&o->j);
	}
	json_array_end(&o->j);
	json_object_end(&o->j);
}
