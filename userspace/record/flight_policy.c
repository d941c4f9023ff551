// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The flight recorder's arithmetic: retention, rate policies, snapshot
 * windows (flight_policy.h).  No files, no clocks: the callers pass the
 * times.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/util.h"
#include "userspace/record/flight_policy.h"

/* ---- retention ---- */

size_t flight_retain_drop(const struct flight_seg_span *segs, size_t n, uint64_t open_bytes,
			  uint64_t now_ns, const struct flight_limits *l)
{
	uint64_t total = open_bytes;
	size_t k;

	for (size_t i = 0; i < n; i++)
		total += segs[i].bytes;
	for (k = 0; k < n && !segs[k].pinned; k++) {
		bool over_time = l->keep_ns && now_ns >= segs[k].end_ns && now_ns - segs[k].end_ns >= l->keep_ns;
		bool over_size = l->keep_bytes && total > l->keep_bytes;
		bool over_files = l->max_files && n - k > l->max_files;

		if (!over_time && !over_size && !over_files)
			break;
		total -= segs[k].bytes;
	}
	return k;
}

uint64_t flight_seg_bytes(uint64_t switch_bytes, const struct flight_limits *l)
{
	uint64_t quarter = l->keep_bytes / 4;

	if (!l->keep_bytes)
		return switch_bytes;
	if (quarter < 1)
		quarter = 1;
	return switch_bytes && switch_bytes < quarter ? switch_bytes : quarter;
}

/* ---- rate policy ---- */

int flight_rate__parse(const char *s, struct flight_rate *r)
{
	static const struct { const char *prefix; enum flight_rate_kind kind; } kinds[] = {
		{ "every:", FLIGHT_RATE_EVERY },
		{ "once-after:", FLIGHT_RATE_ONCE_AFTER },
	};
	long n;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t len = strlen(kinds[i].prefix);

		if (strncmp(s, kinds[i].prefix, len) != 0)
			continue;
		if (parse_long(s + len, 1, UINT32_MAX, &n))
			return -EINVAL;
		r->kind = kinds[i].kind;
		r->n = (uint32_t)n;
		return 0;
	}
	return -EINVAL;
}

const char *flight_rate__name(const struct flight_rate *r, char *buf, size_t len)
{
	if (r->kind == FLIGHT_RATE_ALL)
		snprintf(buf, len, "all");
	else
		snprintf(buf, len, "%s:%u", r->kind == FLIGHT_RATE_EVERY ? "every" : "once-after", r->n);
	return buf;
}

bool flight_rate__allows(const struct flight_rate *r, uint64_t fired)
{
	switch (r->kind) {
	case FLIGHT_RATE_EVERY:
		return r->n && fired % r->n == 0;
	case FLIGHT_RATE_ONCE_AFTER:
		return fired == r->n;
	default:
		return true;
	}
}

uint64_t flight_rules__fire(struct flight_rules *r, const char *rule)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strncmp(r->name[i], rule, sizeof(r->name[i]) - 1))
			break;
	if (i == r->n) {
		if (r->n == FLIGHT_MAX_RULES)
			i = FLIGHT_MAX_RULES - 1;
		else
			str_copy(r->name[r->n++], rule, sizeof(r->name[0]));
	}
	return ++r->fired[i];
}

/* ---- snapshot windows ---- */

bool flight_window__due(const struct flight_window *w, uint64_t now_ns)
{
	return w->active && now_ns >= w->to_ns;
}

void flight_window__close(struct flight_window *w, uint64_t end_ns)
{
	if (!w->active)
		return;
	w->active = false;
	w->ended_ns = end_ns;
}

int flight_window__trigger(struct flight_window *w, const struct flight_policy *p, uint64_t t_ns,
			   uint64_t now_ns, bool rate_ok)
{
	/* the window reaches the trigger's arrival: a moment asked for in the
	 * past (--at) gets what came since too, and the record of its trigger */
	uint64_t to = t_ns + p->post_ns > now_ns ? t_ns + p->post_ns : now_ns, from;

	if (!rate_ok)
		return FT_TRIGA_RATE;
	if (w->active && t_ns <= w->to_ns) {
		uint64_t cap = w->from_ns + p->max_ns;
		bool capped = p->max_ns && to > cap;

		if (capped)
			to = cap;
		if (to <= w->to_ns) /* at its longest, or its end reaches past this one's already */
			return capped ? FT_TRIGA_FULL : FT_TRIGA_JOINED;
		w->to_ns = to;
		return FT_TRIGA_EXTENDED;
	}
	/* a window past its end that the caller has not closed yet is over */
	if (w->active)
		flight_window__close(w, w->to_ns);
	/* its moment and post-window lie in the last saved window (a moment in
	 * the past, --at, handled after that window closed): as a trigger that
	 * joins a window, it does not reach back for its pre-window, and its
	 * arrival alone, later, is no reason for a file without its moment */
	if (w->ended_ns && t_ns >= w->from_ns && t_ns < w->ended_ns && t_ns + p->post_ns <= w->ended_ns)
		return FT_TRIGA_COVERED;
	if (p->cooldown_ns && w->ended_ns && t_ns < w->ended_ns + p->cooldown_ns)
		return FT_TRIGA_COOLDOWN;
	from = t_ns > p->pre_ns ? t_ns - p->pre_ns : 0;
	if (from < w->ended_ns) /* no time copied twice ... */
		from = w->ended_ns;
	/* ... but a window of its own holds its trigger's moment (one that came
	 * before the last window ended, handled after it closed) */
	if (from > t_ns)
		from = t_ns;
	if (p->max_ns && to > from + p->max_ns)
		to = from + p->max_ns;
	if (to <= from)
		return FT_TRIGA_COVERED;
	w->snap++;
	w->active = true;
	w->from_ns = from;
	w->to_ns = to;
	return FT_TRIGA_SNAPSHOT;
}
