// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What `fabtrace top` shows, in which order (userspace/top/top_select.h):
 * the interfaces that pass the filter sorted by the chosen key, the active
 * processes by rank, the drop reasons by count; and the names it shows for
 * processes, network namespaces and drop reasons.  The terminal view and the
 * JSON snapshot use the same selection.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/top/top_select.h"

const char *const top_sort_names[TOP_SORT_N] = { "rate", "peak", "bursts", "backlog", "drops", "name" };

static double if_rate(const struct live_iface *f)
{
	return f->dir[0].rate_bps + f->dir[1].rate_bps;
}

double top_view__if_peak(const struct live_iface *f)
{
	return fmax(f->dir[0].peak_bps, f->dir[1].peak_bps);
}

static bool if_idle(const struct live_iface *f)
{
	return !f->dir[0].bytes && !f->dir[1].bytes && !f->drops && !f->rtx;
}

static const struct top_view *sort_top; /* qsort has no context argument */

static int cmp_if(const void *a, const void *b)
{
	const struct live *l = sort_top->l;
	const struct live_iface *x = &l->ifaces[*(const uint32_t *)a], *y = &l->ifaces[*(const uint32_t *)b];
	double vx = 0, vy = 0;

	if (if_idle(x) != if_idle(y))
		return if_idle(x) ? 1 : -1;
	switch (sort_top->sort) {
	case TOP_SORT_RATE: vx = if_rate(x); vy = if_rate(y); break;
	case TOP_SORT_PEAK: vx = top_view__if_peak(x); vy = top_view__if_peak(y); break;
	case TOP_SORT_BURSTS:
		vx = (double)(x->dir[0].p_bursts + x->dir[1].p_bursts);
		vy = (double)(y->dir[0].p_bursts + y->dir[1].p_bursts);
		break;
	case TOP_SORT_BACKLOG: vx = (double)x->p_backlog; vy = (double)y->p_backlog; break;
	case TOP_SORT_DROPS: vx = (double)x->p_drops; vy = (double)y->p_drops; break;
	default: break;
	}
	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* Interfaces that pass the filter, sorted; their count. */
size_t top_view__select_ifaces(const struct top_view *t, uint32_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < t->l->nifaces; i++) {
		const struct live_iface *f = &t->l->ifaces[i];

		if (t->filter[0] && !strstr(f->label, t->filter))
			continue;
		idx[n++] = (uint32_t)i;
	}
	sort_top = t;
	if (n > 1)
		qsort(idx, n, sizeof(*idx), cmp_if);
	return n;
}

const char *top_view__proc_comm(const struct live_proc *p, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	if (p->comm[0])
		return p->comm;
	snprintf(path, sizeof(path), "/proc/%u/comm", p->pid);
	f = fopen(path, "r");
	buf[0] = '\0';
	if (f) {
		if (fgets(buf, (int)len, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
	return buf[0] ? buf : "?";
}

const char *top_view__ns_name(const struct live *l, uint32_t netns, char *buf, size_t len)
{
	const char *n = live__netns_name(l, netns);

	if (n[0])
		return n;
	snprintf(buf, len, "%u", netns);
	return buf;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct live_proc *x = &sort_top->l->procs[*(const uint32_t *)a];
	const struct live_proc *y = &sort_top->l->procs[*(const uint32_t *)b];

	if ((x->rank < 0) != (y->rank < 0))
		return x->rank < 0 ? 1 : -1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Processes that made traced calls and are still around (or were in the last period). */
size_t top_view__select_procs(const struct top_view *t, uint32_t *idx)
{
	size_t n = 0;

	for (size_t i = 0; i < t->l->nprocs; i++) {
		const struct live_proc *p = &t->l->procs[i];

		if (p->calls && live__proc_active(t->l, p))
			idx[n++] = (uint32_t)i;
	}
	sort_top = t;
	if (n > 1)
		qsort(idx, n, sizeof(*idx), cmp_proc);
	return n;
}

static int cmp_drop(const void *a, const void *b)
{
	const struct live_drop *x = &sort_top->l->drops[*(const uint32_t *)a];
	const struct live_drop *y = &sort_top->l->drops[*(const uint32_t *)b];

	if (x->p != y->p)
		return x->p > y->p ? -1 : 1;
	return x->total > y->total ? -1 : x->total < y->total;
}

/* Drop series with drops in the last period (ALL: every one), most first; their count. */
size_t top_view__select_drops(const struct top_view *t, uint32_t *idx, bool all)
{
	size_t n = 0;

	for (size_t i = 0; i < t->l->ndrops; i++)
		if (t->l->drops[i].p || all)
			idx[n++] = (uint32_t)i;
	sort_top = t;
	if (n > 1)
		qsort(idx, n, sizeof(*idx), cmp_drop);
	return n;
}

const char *top_view__reason_name(const struct live *l, uint32_t reason, char *buf, size_t len)
{
	const char *n = reason == LIVE_NONE ? "other" : live__reason_name(l, reason);

	if (n)
		return n;
	snprintf(buf, len, "reason %u", reason);
	return buf;
}
