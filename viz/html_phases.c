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

#include "viz/html.h"

void html_put_ranks(struct html *h)
{
	const struct corr *c = h->pc; /* NULL: no probe phases shown */
	struct out *o = &h->o;

	out_arr(o, "ranks");
	for (size_t i = 0; c && i < c->nranks; i++) {
		const struct corr_rank *r = &c->ranks[i];

		out_obj(o, NULL);
		out_i(o, "rank", r->rank);
		out_i(o, "world", r->world_size);
		out_s(o, "host", r->host);
		out_u(o, "netns", r->netns);
		out_u(o, "pid", r->pid);
		out_s(o, "comm", r->comm);
		out_u(o, "calls", r->calls);
		out_u(o, "coll", r->collectives);
		out_u(o, "coll_ns", r->coll_time_ns);
		out_u(o, "wait_ns", r->wait_ns);
		out_u(o, "last", r->straggler_count);
		out_u(o, "late_ns", r->late_ns);
		out_end_obj(o);
	}
	out_end_arr(o);
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

		col_u(&cr, k->rank == CORR_NONE ? 0 : (uint64_t)k->rank + 1);
		col_d(&cs, srel(m, k->start_ns));
		col_u(&cd, k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0);
		col_u(&cret, k->ret_ns > k->start_ns ? k->ret_ns - k->start_ns : 0);
		col_u(&cop, k->op);
		col_u(&cb, k->bytes);
		col_u(&cseq, k->seq);
		col_u(&cin, k->instance == CORR_NONE ? 0 : (uint64_t)k->instance + 1);
		col_u(&cfl, k->flags);
		col_u(&csp, k->span == CORR_NONE ? 0 : (uint64_t)k->span + 1);
		col_u(&cst, k->step < 0 ? 0 : (uint64_t)k->step + 1);
		col_u(&cpe, k->peer < 0 ? 0 : (uint64_t)k->peer + 1);
	}
	out_obj(o, "calls");
	out_u(o, "n", n);
	out_col(o, "rank", &cr);
	out_col(o, "start", &cs);
	out_col(o, "dur", &cd);
	out_col(o, "ret", &cret);
	out_col(o, "op", &cop);
	out_col(o, "bytes", &cb);
	out_col(o, "seq", &cseq);
	out_col(o, "inst", &cin);
	out_col(o, "flags", &cfl);
	out_col(o, "span", &csp);
	out_col(o, "step", &cst);
	out_col(o, "peer", &cpe);
	out_end_obj(o);
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
		col_u(&cr, s->rank == CORR_NONE ? 0 : (uint64_t)s->rank + 1);
		col_u(&ck, s->kind);
		col_d(&cs, srel(m, s->start_ns));
		col_u(&cd, s->end_ns > s->start_ns ? s->end_ns - s->start_ns : 0);
		col_u(&cn, ni);
		col_u(&cstep, s->kind == CORR_SPAN_STEP ? s->step : 0);
		col_u(&cdep, s->depth);
		col_u(&cpar, s->parent == CORR_NONE ? 0 : (uint64_t)s->parent + 1);
		col_u(&cop, s->open);
	}
	out_obj(o, "spans");
	out_u(o, "n", n);
	out_arr(o, "names");
	for (size_t i = 0; i < nnames; i++)
		out_s(o, NULL, names[i]);
	out_end_arr(o);
	out_col(o, "rank", &cr);
	out_col(o, "kind", &ck);
	out_col(o, "start", &cs);
	out_col(o, "dur", &cd);
	out_col(o, "name", &cn);
	out_col(o, "step", &cstep);
	out_col(o, "depth", &cdep);
	out_col(o, "parent", &cpar);
	out_col(o, "open", &cop);
	out_end_obj(o);
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
		col_u(&cop, in->op);
		col_u(&cseq, in->seq);
		col_u(&ccomm, ci);
		col_u(&cnr, in->nranks);
		col_u(&csz, in->size_bytes);
		col_d(&cfe, srel(m, in->first_entry));
		col_u(&cle, in->last_entry - in->first_entry);
		col_u(&cfx, in->first_exit > in->first_entry ? in->first_exit - in->first_entry : 0);
		col_u(&clx, in->last_exit > in->first_entry ? in->last_exit - in->first_entry : 0);
		col_u(&cstr, in->straggler == CORR_NONE ? 0 : (uint64_t)in->straggler + 1);
		col_u(&cown, in->own_late_ns);
		col_u(&cver, in->verdict);
		col_u(&cwhy, in->why);
		col_u(&cbus, opt_num(in->busbw, 1.0));
		col_u(&calg, opt_num(in->algbw, 1.0));
		col_u(&cslow, opt_num(in->slow_ratio, 1000.0));
		col_u(&cstep, in->step < 0 ? 0 : (uint64_t)in->step + 1);
		col_u(&cfl, fl);
		col_u(&cnm, in->nmembers);
		col_u(&cqd, e->queue_delay_ns);
		col_u(&csoj, e->max_sojourn_ns);
		col_u(&cbl, e->max_backlog_bytes);
		col_u(&cdr, e->drops);
		col_u(&ccd, e->cong_drops);
		col_u(&crt, e->retrans);
		col_u(&ctlp, e->retrans_tlp);
		col_u(&cce, e->ce_pkts);
		col_u(&cbu, e->bursts);
		col_u(&cut, opt_num(e->peak_util, 10000.0));
		col_u(&clink, e->link == CORR_NONE ? 0 : (uint64_t)e->link + 1);
		col_u(&cqq, e->qdisc == CORR_NONE ? 0 : (uint64_t)e->qdisc + 1);
		col_u(&cccg, e->ctr_cong);
		col_u(&ccp, e->ctr_pause);
		col_u(&ccl, e->ctr_retrans + e->ctr_discard);
		for (size_t k = 0; k < in->nmembers && in->first_member + k < c->nmembers; k++)
			col_u(&cmem, c->members[in->first_member + k]);
	}
	out_obj(o, "insts");
	out_u(o, "n", n);
	out_arr(o, "comms");
	for (size_t i = 0; i < ncomms; i++) {
		char b[24];

		snprintf(b, sizeof(b), "0x%" PRIx64, comms[i]);
		out_s(o, NULL, b);
	}
	out_end_arr(o);
	free(comms);
	out_col(o, "op", &cop);
	out_col(o, "seq", &cseq);
	out_col(o, "comm", &ccomm);
	out_col(o, "nranks", &cnr);
	out_col(o, "size", &csz);
	out_col(o, "fe", &cfe);
	out_col(o, "le", &cle);
	out_col(o, "fx", &cfx);
	out_col(o, "lx", &clx);
	out_col(o, "strag", &cstr);
	out_col(o, "own_late", &cown);
	out_col(o, "verdict", &cver);
	out_col(o, "why", &cwhy);
	out_col(o, "busbw", &cbus);
	out_col(o, "algbw", &calg);
	out_col(o, "slow", &cslow);
	out_col(o, "step", &cstep);
	out_col(o, "flags", &cfl);
	out_col(o, "nm", &cnm);
	out_col(o, "qd", &cqd);
	out_col(o, "soj", &csoj);
	out_col(o, "backlog", &cbl);
	out_col(o, "drops", &cdr);
	out_col(o, "cdrops", &ccd);
	out_col(o, "rtx", &crt);
	out_col(o, "tlp", &ctlp);
	out_col(o, "ce", &cce);
	out_col(o, "bursts", &cbu);
	out_col(o, "util", &cut);
	out_col(o, "link", &clink);
	out_col(o, "qdisc", &cqq);
	out_col(o, "ctr_cong", &cccg);
	out_col(o, "ctr_pause", &ccp);
	out_col(o, "ctr_loss", &ccl);
	out_col(o, "members", &cmem);
	out_end_obj(o);
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
	out_obj(o, NULL);
	out_u(o, "i", idx);
	out_s(o, "text", text);
	out_arr(o, "links");
	for (size_t i = 0; i < ev.nlinks; i++) {
		const struct corr_link_ev *l = &ev.links[i];

		out_obj(o, NULL);
		out_u(o, "iface", l->iface);
		out_arr(o, "bytes");
		out_u(o, NULL, l->bytes[0]);
		out_u(o, NULL, l->bytes[1]);
		out_end_arr(o);
		out_arr(o, "util");
		out_d(o, NULL, l->peak_util[0], 4);
		out_d(o, NULL, l->peak_util[1], 4);
		out_end_arr(o);
		out_u(o, "bursts", l->bursts);
		out_u(o, "ce", l->ce_pkts);
		out_i(o, "qdisc", l->qdisc == CORR_NONE ? -1 : (int64_t)l->qdisc);
		out_u(o, "backlog", l->max_backlog_bytes);
		out_u(o, "sojourn", l->max_sojourn_ns);
		out_u(o, "qdelay", l->queue_delay_ns);
		out_u(o, "qdrops", l->qdisc_drops);
		out_u(o, "drops", l->drops);
		out_u(o, "cdrops", l->cong_drops);
		out_end_obj(o);
	}
	out_end_arr(o);
	out_arr(o, "drops");
	for (size_t i = 0; i < ev.ndrops; i++) {
		const struct corr_drop_ev *d = &ev.drops[i];
		const char *nm = model__drop_reason_name(m, d->reason);
		char b[32];

		if (!nm) {
			snprintf(b, sizeof(b), "reason %u", d->reason);
			nm = b;
		}
		out_obj(o, NULL);
		out_s(o, "reason", nm);
		out_i(o, "iface", d->iface == UINT32_MAX ? -1 : (int64_t)d->iface);
		out_u(o, "count", d->count);
		out_b(o, "congestion", d->congestion);
		out_end_obj(o);
	}
	out_end_arr(o);
	out_arr(o, "ctrs");
	for (size_t i = 0; i < ev.nctrs; i++) {
		out_obj(o, NULL);
		out_u(o, "series", ev.ctrs[i].series);
		out_u(o, "growth", ev.ctrs[i].growth);
		out_d(o, "peak_rate", ev.ctrs[i].peak_rate, 1);
		out_end_obj(o);
	}
	out_end_arr(o);
	out_arr(o, "flows");
	for (size_t i = 0; i < ev.nflows; i++) {
		out_obj(o, NULL);
		out_u(o, "flow", ev.flows[i].flow);
		out_u(o, "rtx", ev.flows[i].retrans);
		out_b(o, "owned", ev.flows[i].owned);
		out_end_obj(o);
	}
	out_end_arr(o);
	out_end_obj(o);
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
	out_obj(o, NULL);
	out_arr(o, "items");
	for (int pass = 0; pass < 2 && c; pass++)
		for (size_t r = 0; r < c->nby_span && n < HTML_EVIDENCE_MAX && !o->oom; r++) {
			uint32_t idx = c->by_span[r];

			if (idx >= total || done[idx] || (pass == 0) != (c->instances[idx].verdict != CORR_OK))
				continue;
			done[idx] = true;
			put_one_evidence(h, o, idx);
			n++;
		}
	out_end_arr(o);
	out_u(o, "omitted", total - n);
	out_end_obj(o);
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
		memset(&t, 0, sizeof(t));
		t.f = mf;
		t.bin = o->bin;
		evidence_obj(h, &t);
		if (fclose(mf) || t.oom) {
			free(h->evidence);
			h->evidence = NULL;
			o->oom = true;
			return;
		}
	}
	out_key(o, "evidence");
	fwrite(h->evidence, 1, h->nevidence, o->f);
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

		col_d(&cs, srel(m, f->start_ns));
		col_u(&cd, f->end_ns > f->start_ns ? f->end_ns - f->start_ns : 0);
		col_u(&ch, f->max_hosts);
		col_u(&cb, f->tx_bytes);
		col_u(&cm, f->matched);
	}
	out_obj(o, "inferred");
	out_u(o, "n", n);
	out_col(o, "start", &cs);
	out_col(o, "dur", &cd);
	out_col(o, "hosts", &ch);
	out_col(o, "tx", &cb);
	out_col(o, "matched", &cm);
	out_arr(o, "hosts_act");
	for (size_t i = 0; n && i < c->nhosts; i++) {
		const struct corr_host *hh = &c->hosts[i];
		size_t k = hh->nact < left ? hh->nact : left;

		left -= k;
		for (size_t j = 0; j < k && hh->first_act + j < c->nactivity; j++) {
			const struct corr_interval *a = &c->activity[hh->first_act + j];

			col_d(&cs, srel(m, a->start_ns));
			col_u(&cd, a->end_ns > a->start_ns ? a->end_ns - a->start_ns : 0);
		}
		out_obj(o, NULL);
		out_s(o, "name", hh->name);
		out_u(o, "n", cs.n);
		out_u(o, "omitted", hh->nact - cs.n);
		out_col(o, "start", &cs);
		out_col(o, "dur", &cd);
		out_end_obj(o);
	}
	out_end_arr(o);
	out_end_obj(o);
}
