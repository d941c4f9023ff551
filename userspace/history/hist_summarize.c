// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One closed segment into summary lines (history.h): loaded through the
 * model and the correlator with the report's defaults (as `report` and
 * `compare` load a capture), one line per collective instance, appended to
 * the day files.  A collective that straddles two segments is in both (its
 * ranks' calls are written as they return): the first segment that holds
 * it summarizes it, and the next one skips its key (op, communicator, seq).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/util.h"
#include "userspace/correlate/correlate.h"
#include "userspace/history/history.h"
#include "userspace/model/model.h"
#include "userspace/report/report_common.h"

void hist_keys__free(struct hist_keys *k)
{
	free(k->h);
	memset(k, 0, sizeof(*k));
}

static bool has_key(const struct hist_keys *k, uint64_t h)
{
	for (size_t i = 0; k && i < k->n; i++)
		if (k->h[i] == h)
			return true;
	return false;
}

static int add_key(struct hist_keys *k, uint64_t h)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		uint64_t *v = realloc(k->h, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		k->h = v;
		k->cap = cap;
	}
	k->h[k->n++] = h;
	return 0;
}

static void fill(struct hist_line *l, const struct model *m, const struct corr *c, const struct corr_instance *in,
		 const char *name)
{
	const struct corr_budget *b = &in->budget;

	memset(l, 0, sizeof(*l));
	l->wall_ns = model__wall_ns(m, in->first_entry);
	str_copy(l->op, corr__op_name(in->op), sizeof(l->op));
	l->seq = in->seq;
	report__comm_str(in, l->comm, sizeof(l->comm));
	l->size_bytes = in->size_bytes;
	l->nranks = in->nranks;
	l->members = (uint32_t)in->nmembers;
	l->partial = in->partial;
	l->open = in->open;
	l->span_ns = in->span_ns;
	str_copy(l->verdict, corr__verdict_name(in->verdict), sizeof(l->verdict));
	l->total_ns = b->total_ns;
	l->waiting_ns = b->waiting_ns;
	l->waiting_rank = b->waiting_rank != CORR_NONE && b->waiting_rank < c->nranks ?
		c->ranks[b->waiting_rank].rank : -1;
	l->usual_ns = b->usual_ns;
	l->network_ns = b->network_ns;
	l->unexplained_ns = b->unexplained_ns;
	if (b->link != CORR_NONE && b->link < m->nifaces) {
		uint32_t w = corr__wire(c, b->link);

		str_copy(l->link, m->ifaces[w < m->nifaces ? w : b->link].label, sizeof(l->link));
	}
	corr__why_names(in->why, l->why, sizeof(l->why));
	str_copy(l->seg, name, sizeof(l->seg));
	l->start_rel_ns = model__rel_ns(m, in->first_entry);
}

static uint64_t key_of(const struct hist_line *l)
{
	char k[96];

	snprintf(k, sizeof(k), "%s/%s/%llu", l->op, l->comm, (unsigned long long)l->seq);
	return fnv1a_str(k);
}

/* The lines of C into TEXT (OFF, WALL per line); keys into NEXT. */
static int lines(const struct model *m, const struct corr *c, const char *name, const struct hist_keys *prev,
		 struct hist_keys *next, char **text, size_t **off, int64_t **wall, size_t *n)
{
	size_t len = 0, cap = 0;

	*text = NULL;
	*off = calloc(c->ninstances + 1, sizeof(**off));
	*wall = calloc(c->ninstances + 1, sizeof(**wall));
	if (!*off || !*wall)
		return -ENOMEM;
	for (size_t i = 0; i < c->ninstances; i++) {
		struct hist_line l;
		char buf[HIST_LINE_MAX];
		uint64_t h;
		int k;

		fill(&l, m, c, &c->instances[i], name);
		h = key_of(&l);
		if (add_key(next, h))
			return -ENOMEM;
		if (has_key(prev, h))
			continue;
		k = hist_line__format(&l, buf, sizeof(buf));
		if (k < 0)
			continue; /* cannot happen with the fields' bounds */
		if (len + (size_t)k + 1 > cap) {
			size_t nc = cap ? 2 * cap + (size_t)k : 65536;
			char *t = realloc(*text, nc);

			if (!t)
				return -ENOMEM;
			*text = t;
			cap = nc;
		}
		(*off)[*n] = len;
		(*wall)[*n] = l.wall_ns;
		memcpy(*text + len, buf, (size_t)k + 1);
		len += (size_t)k;
		(*n)++;
	}
	return 0;
}

int hist__summarize(const char *path, const char *name, const char *dir, const struct hist_keys *prev,
		    struct hist_keys *next, size_t *nlines, char *err, size_t errlen)
{
	struct model_opts mo;
	struct corr_opts co;
	struct model *m = NULL;
	struct corr *c = NULL;
	char *text = NULL;
	size_t *off = NULL, n = 0;
	int64_t *wall = NULL;
	int ret;

	*nlines = 0;
	err[0] = 0;
	model_opts__init(&mo);
	ret = model__load(path, &mo, &m, err, errlen);
	if (ret)
		return ret;
	corr_opts__init(&co);
	ret = corr__build(m, &co, &c);
	if (ret)
		snprintf(err, errlen, "correlating %s: %s", name, strerror(-ret));
	if (!ret && c->show_probes)
		ret = lines(m, c, name, prev, next, &text, &off, &wall, &n);
	if (!ret && n)
		ret = hist_store__append(dir, text, off, wall, n, err, errlen);
	if (ret && !err[0])
		snprintf(err, errlen, "%s: %s", name, strerror(-ret));
	if (!ret)
		*nlines = n;
	free(text);
	free(off);
	free(wall);
	corr__free(c);
	model__free(m);
	return ret;
}
