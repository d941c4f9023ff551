// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * speedscope file format (https://www.speedscope.app/file-format-schema.json):
 * one "evented" profile per rank, unit nanoseconds, times relative to the
 * capture start, frames in shared.frames:
 *
 *   step N > named phase > collective ("allreduce 1.05 MB") >
 *   "wait (rank-late)" / "transfer (queue eth0@h2)"
 *
 * Open/close events must nest like a call stack.  Intervals that overlap
 * without nesting (non-blocking calls) cannot share a stack, so they go to
 * extra profiles of the same rank ("rank 1 (h2) overlapping 1", ...), packed
 * by viz__lanes().  One event per line; frames in order of first use.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/json.h"
#include "lib/util.h"
#include "viz/common.h"

/* Frame names, indexed by an open-addressing hash table. */
struct frames {
	char **name;
	size_t n, cap;
	uint32_t *slot;             /* index + 1, 0 empty */
	size_t nslots;
};

static int frames_rehash(struct frames *fr, size_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < fr->n; i++) {
		size_t h = (size_t)(fnv1a_str(fr->name[i]) & (nslots - 1));

		while (s[h])
			h = (h + 1) & (nslots - 1);
		s[h] = (uint32_t)i + 1;
	}
	free(fr->slot);
	fr->slot = s;
	fr->nslots = nslots;
	return 0;
}

/* Index of NAME, added when new; -ENOMEM. */
static long frame_id(struct frames *fr, const char *name)
{
	size_t h;

	if ((fr->n + 1) * 2 > fr->nslots && frames_rehash(fr, fr->nslots ? fr->nslots * 2 : 256))
		return -ENOMEM;
	h = (size_t)(fnv1a_str(name) & (fr->nslots - 1));
	while (fr->slot[h]) {
		if (!strcmp(fr->name[fr->slot[h] - 1], name))
			return (long)fr->slot[h] - 1;
		h = (h + 1) & (fr->nslots - 1);
	}
	if (grow_array((void **)&fr->name, &fr->cap, fr->n + 1, sizeof(*fr->name)))
		return -ENOMEM;
	fr->name[fr->n] = strdup(name);
	if (!fr->name[fr->n])
		return -ENOMEM;
	fr->slot[h] = (uint32_t)fr->n + 1;
	return (long)fr->n++;
}

static void frames_free(struct frames *fr)
{
	for (size_t i = 0; i < fr->n; i++)
		free(fr->name[i]);
	free(fr->name);
	free(fr->slot);
}

/* Frame name of an item: sub-phases carry their cause, so merged views show where time went. */
static const char *item_frame(const struct corr *c, const struct viz_item *it, char *buf, size_t len)
{
	char cause[96];

	switch (it->kind) {
	case VIZ_CALL:
		return viz__coll_name(c, &c->calls[it->ref], buf, len);
	case VIZ_WAIT:
	case VIZ_XFER:
		snprintf(buf, len, "%s (%s)", it->kind == VIZ_WAIT ? "wait" : "transfer",
			 viz__cause(c, &c->calls[it->ref], it->kind, cause, sizeof(cause)));
		return buf;
	default:
		return viz__item_name(c, it, buf, len);
	}
}

struct emit {
	struct json *j;             /* NULL: collect the frames only */
	const struct corr *c;
	struct frames *fr;
	uint64_t base;              /* capture start; times are made relative modulo 2^64 (no signed overflow) */
	int err;
};

static void ev(struct emit *e, char type, const struct viz_item *it, uint64_t at)
{
	char name[160];
	const char types[2] = { type, '\0' };
	long id = frame_id(e->fr, item_frame(e->c, it, name, sizeof(name)));

	if (id < 0) {
		e->err = (int)id;
		return;
	}
	json_break(e->j);
	json_object_begin(e->j);
	json_kv_string(e->j, "type", types);
	json_kv_i64(e->j, "frame", id);
	json_kv_i64(e->j, "at", (int64_t)(at - e->base));
	json_object_end(e->j);
}

static void ev_open(void *arg, const struct viz_item *it)
{
	ev(arg, 'O', it, it->start);
}

static void ev_close(void *arg, const struct viz_item *it)
{
	ev(arg, 'C', it, it->end);
}

/* Frames only (the first pass): the same walk, no output. */
static void fr_visit(void *arg, const struct viz_item *it)
{
	struct emit *e = arg;
	char name[160];
	long id = frame_id(e->fr, item_frame(e->c, it, name, sizeof(name)));

	if (id < 0)
		e->err = (int)id;
}

/* An evented profile, left open at its events: "events":[ */
static void profile_begin(struct json *j, const char *name, int64_t start, int64_t end)
{
	json_break(j);
	json_object_begin(j);
	json_kv_string(j, "type", "evented");
	json_kv_string(j, "name", name);
	json_kv_string(j, "unit", "nanoseconds");
	json_kv_i64(j, "startValue", start);
	json_kv_i64(j, "endValue", end);
	json_kv_array_begin(j, "events");
}

static void profile_end(struct json *j)
{
	json_array_end(j);
	json_object_end(j);
}

/* Walk every rank's lanes; with OUT the profiles are written, else only the frames collected. */
static int walk(const struct viz_ctx *v, uint64_t from, uint64_t to, struct frames *fr, struct json *out)
{
	const struct corr *c = v->c;
	struct emit e = { .j = out, .c = c, .fr = fr, .base = v->m->start_ns };
	bool first_profile = true;

	for (uint32_t r = 0; c && r < c->nranks && !e.err; r++) {
		struct viz_item *it;
		size_t n;
		int lanes = viz__rank_lanes(c, r, from, to, &it, &n);
		char label[96];

		if (lanes < 0)
			return lanes;
		viz__rank_label(c, r, label, sizeof(label));
		/* a rank with nothing in the window still gets its (empty) profile */
		for (int l = 0; l < (lanes ? lanes : 1) && !e.err; l++) {
			if (out) {
				char name[128];

				if (l)
					snprintf(name, sizeof(name), "%s overlapping %d", label, l);
				else
					snprintf(name, sizeof(name), "%s", label);
				profile_begin(out, name, (int64_t)(from - e.base), (int64_t)(to - e.base));
				first_profile = false;
				viz__walk_lane(it, n, (uint32_t)l, ev_open, ev_close, &e);
				profile_end(out);
			} else {
				viz__walk_lane(it, n, (uint32_t)l, fr_visit, fr_visit, &e);
			}
		}
		free(it);
	}
	if (out && !e.err && first_profile) {
		/* speedscope needs a profile to show: say why there is nothing */
		profile_begin(out, "no collective phases in this capture", (int64_t)(from - e.base),
			      (int64_t)(to - e.base));
		profile_end(out);
	}
	return e.err;
}

int viz__speedscope(const struct viz_ctx *v, FILE *f)
{
	struct frames fr = { 0 };
	struct json j;
	uint64_t from, to;
	char title[160], a[32], b[32];
	int err;

	if (!v || !v->m || !f)
		return -EINVAL;
	viz__window(v, false, &from, &to);
	/* frames first (they precede the profiles that index them) */
	err = walk(v, from, to, &fr, NULL);
	if (err)
		goto out;
	viz__secs(v->m, from, a, sizeof(a));
	viz__secs(v->m, to, b, sizeof(b));
	snprintf(title, sizeof(title), "fabtrace %.64s +%s..+%s s", v->m->hdr.hostname[0] ? v->m->hdr.hostname : "capture",
		 a, b);
	json_init(&j, f, false);
	json_object_begin(&j);
	json_kv_string(&j, "$schema", "https://www.speedscope.app/file-format-schema.json");
	json_break(&j);
	json_kv_string(&j, "exporter", "fabtrace " FT_VERSION);
	json_break(&j);
	json_kv_string(&j, "name", title);
	json_break(&j);
	json_kv_i64(&j, "activeProfileIndex", 0);
	json_break(&j);
	json_kv_object_begin(&j, "shared");
	json_kv_array_begin(&j, "frames");
	for (size_t i = 0; i < fr.n; i++) {
		json_break(&j);
		json_object_begin(&j);
		json_kv_string(&j, "name", fr.name[i]);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	json_break(&j);
	json_kv_array_begin(&j, "profiles");
	err = walk(v, from, to, &fr, &j);
	if (err)
		goto out;
	json_array_end(&j);
	json_object_end(&j);
	json_finish(&j);
	err = fflush(f) || ferror(f) ? -EIO : 0;
out:
	frames_free(&fr);
	return err;
}
