/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * viz__html: one self-contained HTML file with an interactive timeline
 * (flame chart of ranks and collectives, throughput / queue / counter
 * tracks, event markers, lost-event gaps).  docs/timelines.md describes it.
 *
 * The page is viz/html/template.html with viz/html/timeline.css and the
 * timeline script (viz/html/timeline/, its parts joined by the Makefile)
 * inlined (embedded into the binary at build time) and the data, written
 * by the viz/html_*.c files (viz/html.h), in two elements: a JSON document
 * (<script type="application/json" id="ft-data">: names, labels, the
 * evidence of the slowest collectives, and [offset, length] references)
 * and the numeric columns, all in one zlib stream, base64-encoded
 * (<script type="application/octet-stream" id="ft-bin">).  The browser
 * inflates it with DecompressionStream (the script has a fallback).
 *
 * Level of detail is prepared in C (viz/html_tracks.c), not in the browser:
 *  - every series of bins (throughput per interface and direction, queue
 *    per qdisc, counter rates) becomes a pyramid of levels: level k has
 *    one cell per 2^k base slots with max / min / sum of its slots.  The
 *    finest level kept (kmin, the same for all bin tracks) is the finest
 *    whose estimated size fits HTML_SERIES_RAW; level 0 is the exact bins.
 *  - when kmin > 0 the exact bins are still kept inside "detail windows"
 *    around the slowest collectives (or the strongest bursts), within
 *    HTML_DETAIL_RAW (the evidence of the slowest HTML_EVIDENCE_MAX
 *    collectives is embedded in full, the others keep their summary).
 *  - numeric columns are unsigned LEB128 varints (zigzag for signed and
 *    delta-coded columns): compact, fast to decode, and they compress well.
 *  - the page must stay under HTML_PAGE_TARGET: the page is made and
 *    measured, then kmin moves finer while it fits and coarser while it
 *    does not (each level halves the tracks), at most HTML_TRIES times.
 * Output is deterministic: fixed ordering, integers only but for a few
 * fixed-format decimals.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "viz/html.h"
#include "viz/viz.h"
#include "viz_html_assets.h" /* generated into $(BUILD) from viz/html/ */

/* ---- the data: every section at the current level of detail ---- */

static int put_data(struct html *h)
{
	struct out *o = &h->o;
	int err;

	json_kv_object_begin(&o->j, NULL);
	json_kv_string(&o->j, "format", HTML_FORMAT);
	html_put_meta(h);
	html_put_names(h);
	html_put_ifaces(h);
	html_put_ranks(h);
	html_put_calls(h);
	html_put_spans(h);
	html_put_instances(h);
	html_put_evidence(h);
	html_put_inferred(h);
	html_put_flows(h);
	err = html_put_events(h);
	if (err)
		return err;
	html_put_counters(h);
	html_put_tracks(h);
	json_kv_u64(&o->j, "bin_raw", h->bin.n); /* the columns, inflated */
	json_object_end(&o->j);
	return o->oom ? -ENOMEM : 0;
}

/* ---- the page: template, CSS, data, script ---- */

struct page {
	char *json;
	size_t njson;
	unsigned char *z;           /* the columns, deflated (zlib format) */
	unsigned long nz;
};

static void page_free(struct page *p)
{
	free(p->json);
	free(p->z);
	memset(p, 0, sizeof(*p));
}

/* The data at the current level of detail: JSON and deflated columns. */
static int make_page(struct html *h, struct page *pg)
{
	FILE *mf;
	int err;

	memset(pg, 0, sizeof(*pg));
	err = html_build_windows(h);
	if (err)
		return err;
	html_series_cost(h);
	h->bin.n = 0;
	mf = open_memstream(&pg->json, &pg->njson);
	if (!mf)
		return -ENOMEM;
	html_out_init(&h->o, mf, &h->bin);
	err = put_data(h);
	if (fclose(mf) && !err)
		err = -ENOMEM;
	if (!err) {
		uLongf nz = compressBound((uLong)h->bin.n);
		unsigned char *z = malloc(nz);

		if (!z) {
			err = -ENOMEM;
		} else {
			/* the fastest level: a few % bigger than the default, several times faster */
			int zerr = compress2(z, &nz, h->bin.n ? h->bin.p : (const unsigned char *)"",
					     (uLong)h->bin.n, Z_BEST_SPEED);

			if (zerr == Z_OK) {
				pg->z = z;
				pg->nz = nz;
			} else {
				free(z);
				err = zerr == Z_MEM_ERROR ? -ENOMEM : -EIO;
			}
		}
	}
	if (err)
		page_free(pg);
	return err;
}

static size_t page_bytes(const struct page *pg)
{
	return strlen((const char *)viz_template_html) + strlen((const char *)viz_timeline_css) +
	       strlen((const char *)viz_timeline_js) + pg->njson + (pg->nz + 2) / 3 * 4;
}

/* Write TEMPLATE up to MARK (or the end), return what follows MARK. */
static const char *put_until(FILE *f, const char *tpl, const char *mark)
{
	const char *p = mark ? strstr(tpl, mark) : NULL;

	if (!p) {
		fputs(tpl, f);
		return NULL;
	}
	fwrite(tpl, 1, (size_t)(p - tpl), f);
	return p + strlen(mark);
}

static int put_page(FILE *f, const struct page *pg)
{
	/* the template: ... CSS ... DATA ... BIN ... JS ... */
	static const char *const marks[] = { "/*{{CSS}}*/", "{{DATA}}", "{{BIN}}", "/*{{JS}}*/" };
	const char *rest = (const char *)viz_template_html;

	for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
		rest = put_until(f, rest, marks[i]);
		if (!rest)
			return -EINVAL; /* a template without its markers */
		switch (i) {
		case 0: fputs((const char *)viz_timeline_css, f); break;
		case 1: fwrite(pg->json, 1, pg->njson, f); break;
		case 2: html_out_b64(f, pg->z, pg->nz); break;
		default: fputs((const char *)viz_timeline_js, f); break;
		}
	}
	fputs(rest, f);
	return 0;
}

int viz__html(const struct viz_ctx *v, FILE *f)
{
	struct html h;
	struct page pg = { 0 }, best = { 0 };
	int err, dir = 0;

	if (!v || !v->m || !f || !v->m->finished)
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	h.v = v;
	h.m = v->m;
	h.c = v->c;
	h.pc = v->c && v->c->show_probes ? v->c : NULL;
	err = html_build_tracks(&h);
	/*
	 * The finest kmin whose page fits: from the estimate, finer while it
	 * fits (compression often does better than the estimate), coarser
	 * while it does not.  Without any fit the coarsest page tried is used.
	 */
	for (h.tries = 1; !err && h.tries <= HTML_TRIES; h.tries++) {
		bool fits;

		err = make_page(&h, &pg);
		if (err)
			break;
		fits = page_bytes(&pg) <= HTML_PAGE_TARGET;
		if (fits || dir >= 0) { /* a fit, or the best so far going coarser */
			page_free(&best);
			best = pg;
			memset(&pg, 0, sizeof(pg));
		} else {
			page_free(&pg);
		}
		if (fits ? dir > 0 || h.kmin == 0 : dir < 0 || h.kmin >= HTML_MAX_LEVEL - 1)
			break;
		dir = fits ? -1 : 1;
		if (fits)
			h.kmin--;
		else
			h.kmin++;
	}
	if (!err)
		err = put_page(f, &best);
	page_free(&best);
	page_free(&pg);
	free(h.trks);
	free(h.win.from);
	free(h.win.to);
	free(h.reasons);
	free(h.evidence);
	html_vb_free(&h.bin);
	if (err)
		return err;
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
