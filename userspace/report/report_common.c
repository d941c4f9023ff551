// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Helpers the text and JSON sections of `fabtrace report` share
 * (userspace/report/report_common.h): names of directions, qdisc handles,
 * interfaces and communicators, the bursts to show and how many items,
 * conservation counts, congestion drops, whether NCCL was timed at enqueue.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "userspace/correlate/corr_plugin.h"
#include "userspace/report/report_common.h"

const char *report__fmt_handle(uint32_t h, char *buf, size_t len)
{
	if (h & 0xffff)
		snprintf(buf, len, "%x:%x", h >> 16, h & 0xffff);
	else
		snprintf(buf, len, "%x:", h >> 16);
	return buf;
}

const char *report__dir_name(int dir)
{
	return dir == FT_DIR_TX ? "tx" : "rx";
}

const char *report__iface_str(const struct model *m, uint32_t iface, uint32_t netns,
			      uint32_t ifindex, char *buf, size_t len)
{
	if (iface != UINT32_MAX && iface < m->nifaces)
		snprintf(buf, len, "%s", m->ifaces[iface].label);
	else if (!netns && !ifindex)
		snprintf(buf, len, "-");
	else if (!ifindex) { /* no device (a socket's drop): its namespace, by name when known */
		const char *nm = model__netns_name(m, netns);

		if (nm && nm[0])
			snprintf(buf, len, "(no device)@%s", nm);
		else
			snprintf(buf, len, "(no device)@netns %u", netns);
	} else
		snprintf(buf, len, "netns %u ifindex %u", netns, ifindex);
	return buf;
}

const char *report__sort_name(enum report_sort s)
{
	return s == REPORT_SORT_PEAK ? "peak" : s == REPORT_SORT_TIME ? "time" : "bytes";
}

static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int cmp_burst_time(const void *a, const void *b)
{
	const struct model_burst *x = *(const struct model_burst *const *)a;
	const struct model_burst *y = *(const struct model_burst *const *)b;
	int c = cmp_u64(x->start_ns, y->start_ns);

	if (!c)
		c = cmp_u64(x->iface, y->iface);
	return c ? c : cmp_u64(x->dir, y->dir);
}

static int cmp_burst_bytes(const void *a, const void *b)
{
	const struct model_burst *x = *(const struct model_burst *const *)a;
	const struct model_burst *y = *(const struct model_burst *const *)b;
	int c = cmp_u64(y->bytes, x->bytes);

	if (!c)
		c = x->peak_bps > y->peak_bps ? -1 : x->peak_bps < y->peak_bps;
	return c ? c : cmp_burst_time(a, b);
}

static int cmp_burst_peak(const void *a, const void *b)
{
	const struct model_burst *x = *(const struct model_burst *const *)a;
	const struct model_burst *y = *(const struct model_burst *const *)b;
	int c = x->peak_bps > y->peak_bps ? -1 : x->peak_bps < y->peak_bps;

	if (!c)
		c = cmp_u64(y->bytes, x->bytes);
	return c ? c : cmp_burst_time(a, b);
}

/* The bursts to show, sorted; *n in: all, out: shown.  NULL with *n = 0 if none. */
const struct model_burst **report__top_bursts(const struct model *m, const struct report_opts *o,
					      size_t *n)
{
	const struct model_burst **v;

	*n = 0;
	if (!m->nbursts)
		return NULL;
	v = malloc(m->nbursts * sizeof(const struct model_burst *));
	if (!v)
		return NULL;
	for (size_t i = 0; i < m->nbursts; i++)
		v[i] = &m->bursts[i];
	qsort(v, m->nbursts, sizeof(const struct model_burst *),
	      o->sort == REPORT_SORT_PEAK ? cmp_burst_peak :
	      o->sort == REPORT_SORT_TIME ? cmp_burst_time : cmp_burst_bytes);
	*n = o->top && o->top < m->nbursts ? o->top : m->nbursts;
	return v;
}

size_t report__count_conserve(const struct model *m, enum model_conserve c)
{
	size_t n = 0;

	for (size_t i = 0; i < m->nifaces; i++)
		for (int d = 0; d < 2; d++)
			n += m->ifaces[i].dir[d].conserve == c;
	return n;
}

bool report__conserve_checked(enum model_conserve c)
{
	return c == MODEL_CONSERVE_OK || c == MODEL_CONSERVE_MISMATCH || c == MODEL_CONSERVE_OK_SKIPPED;
}

/* NCCL calls were traced (not merely attached: system-wide every libnccl is). */
/* Processes timed by the NCCL profiler plugin are not (corr_plugin.h). */
bool report__enqueue_only(const struct model *m)
{
	return corr_plugin__enqueue_uncovered(m);
}

uint64_t report__congestion_drops(const struct model *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->ndrops; i++)
		if (corr__congestion_drop(m->drops[i].name))
			n += m->drops[i].count;
	return n;
}

/*
 * "0x44000000", "ptr#0/4" (order of first use / size), "MPI_COMM_WORLD" (the
 * name every rank gave it), "tag/4" (numbered by
 * the library, size 4; "tag#1/4" for a second group of that size), "-"
 */
const char *report__comm_str(const struct corr_instance *in, char *buf, size_t len)
{
	if (in->comm_kind == CORR_COMM_HANDLE)
		snprintf(buf, len, "0x%" PRIx64, in->comm);
	else if (in->comm_kind == CORR_COMM_POINTER)
		snprintf(buf, len, "ptr#%u/%u", in->comm_order, in->comm_size);
	else if (in->comm_kind == CORR_COMM_NAMED)
		snprintf(buf, len, "%s", in->comm_name);
	else if (in->comm_kind == CORR_COMM_LIBSEQ && in->comm_order)
		snprintf(buf, len, "tag#%u/%u", in->comm_order, in->comm_size);
	else if (in->comm_kind == CORR_COMM_LIBSEQ)
		snprintf(buf, len, "tag/%u", in->comm_size);
	else
		snprintf(buf, len, "-");
	return buf;
}

size_t report__top_n(const struct report_opts *o, size_t n)
{
	return o->top && o->top < n ? o->top : n;
}
