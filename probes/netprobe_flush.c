// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the network probes leave in their per-CPU maps (netprobe_priv.h):
 * the bins still open or staged for a batch at stop, the lost counts and
 * the CE-marked flows, handed on as records.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "net.skel.h"
#include "tcp.skel.h"
#include "bpf/net.h"
#include "probes/netprobe_priv.h"

/* Walk a per-CPU hash map: fn(key, per-CPU values) for each entry. */
static int percpu_walk(int fd, size_t ksz, size_t vsz, int ncpus,
		       int (*fn)(struct netprobe *, const void *, const void *, void *),
		       struct netprobe *p, void *arg)
{
	size_t vstride = (vsz + 7) & ~(size_t)7;
	char key[64], next[64];
	void *vals = calloc(ncpus, vstride);
	void *prev = NULL;
	int ret = 0;

	if (!vals)
		return -ENOMEM;
	while (bpf_map_get_next_key(fd, prev, next) == 0) {
		memcpy(key, next, ksz);
		prev = key;
		if (bpf_map_lookup_elem(fd, key, vals))
			continue; /* deleted meanwhile */
		ret = fn(p, key, vals, arg);
		if (ret)
			break;
	}
	free(vals);
	return ret;
}

static int flush_iface(struct netprobe *p, const void *key, const void *vals, void *arg)
{
	const struct bin_key *k = key;

	(void)arg;
	for (int c = 0; c < p->ncpus; c++) {
		const struct bin_acc *a = (const struct bin_acc *)((const char *)vals + c * sizeof(*a));
		struct ft_iface_bin r = {
			.hdr = { FT_REC_IFACE_BIN, sizeof(r), (__u32)c },
			.start_ns = a->start_ns, .bytes = a->bytes, .pkts = a->pkts,
			.ce_pkts = a->ce_pkts, .netns = k->netns, .ifindex = k->ifindex,
			.dir = (__u8)k->dir,
		};

		if (a->pkts && p->fn(p->ctx, &r.hdr) < 0)
			return -EIO;
	}
	return 0;
}

static int flush_qdisc_one(struct netprobe *p, const struct qdisc_key *k, const struct qdisc_acc *a,
			   int c)
{
	struct ft_qdisc_bin r = {
		.hdr = { FT_REC_QDISC_BIN, sizeof(r), (__u32)c },
		.start_ns = a->start_ns, .max_backlog = a->max_backlog,
		.enq_bytes = a->enq_bytes, .sojourn_sum_ns = a->sojourn_sum_ns,
		.sojourn_max_ns = a->sojourn_max_ns, .sojourn_cnt = a->sojourn_cnt,
		.max_qlen = a->max_qlen, .enq_pkts = a->enq_pkts, .drops = a->drops,
		.netns = k->netns, .ifindex = k->ifindex, .handle = k->handle,
		.parent = a->parent,
	};

	memcpy(r.kind, a->kind, sizeof(r.kind));
	if ((a->enq_pkts || a->sojourn_cnt) && p->fn(p->ctx, &r.hdr) < 0)
		return -EIO;
	return 0;
}

static int flush_qdisc(struct netprobe *p, const void *key, const void *vals, void *arg)
{
	(void)arg;
	for (int c = 0; c < p->ncpus; c++)
		if (flush_qdisc_one(p, key, (const struct qdisc_acc *)((const char *)vals +
								     c * sizeof(struct qdisc_acc)), c))
			return -EIO;
	return 0;
}

/* Zero every CPU's value of KEY in per-CPU array FD (VSZ bytes each). */
static int percpu_zero(struct netprobe *p, int fd, __u32 key, size_t vsz)
{
	void *z = calloc((size_t)p->ncpus, (vsz + 7) & ~(size_t)7);
	int ret;

	if (!z)
		return -ENOMEM;
	ret = bpf_map_update_elem(fd, &key, z, BPF_ANY) ? -errno : 0;
	free(z);
	return ret;
}

/* Slot S's open qdisc bins (its ways in slot_qdisc) handed on, and with CLEAR
 * zeroed after.  VALS holds a value per CPU. */
static int flush_slot_qdisc(struct netprobe *p, int s, struct qdisc_acc *vals, bool clear)
{
	int fd = bpf_map__fd(p->net->maps.slot_qdisc), ret = 0;

	for (__u32 w = 0; w < FT_QDISC_WAYS && !ret; w++) {
		__u32 idx = (__u32)s * FT_QDISC_WAYS + w;

		if (bpf_map_lookup_elem(fd, &idx, vals))
			continue;
		/* each CPU's entry names its own qdisc (ways are claimed per CPU) */
		for (int c = 0; c < p->ncpus && !ret; c++) {
			struct qdisc_key qk = { .netns = p->slots[s][0], .ifindex = p->slots[s][1],
						.handle = vals[c].handle };

			if (vals[c].kind[0])
				ret = flush_qdisc_one(p, &qk, &vals[c], c);
		}
		if (!ret && clear)
			ret = percpu_zero(p, fd, idx, sizeof(*vals));
	}
	return ret;
}

/* The closed qdisc bins staged in qdisc_stage[K] on each CPU handed on, and
 * with CLEAR emptied after.  VALS holds a value per CPU. */
static int flush_qdisc_stage(struct netprobe *p, __u32 k, struct qdisc_stage *vals, bool clear)
{
	int fd = bpf_map__fd(p->net->maps.qdisc_stage), ret = 0;

	if (bpf_map_lookup_elem(fd, &k, vals) == 0)
		for (int c = 0; c < p->ncpus && !ret; c++)
			for (__u32 i = 0; i < vals[c].n && i < FT_BATCH && !ret; i++)
				ret = p->fn(p->ctx, &vals[c].b[i].hdr) < 0 ? -EIO : 0;
	if (!ret && clear)
		ret = percpu_zero(p, fd, k, sizeof(*vals));
	return ret;
}

/* The open bins of the chosen interfaces (slot_bins, slot_qdisc). */
static int flush_slots(struct netprobe *p)
{
	size_t vsz = sizeof(struct qdisc_acc) > sizeof(struct bin_acc) ? sizeof(struct qdisc_acc)
									: sizeof(struct bin_acc);
	void *vals = calloc((size_t)p->ncpus, vsz);
	int ret = 0;

	if (!vals)
		return -ENOMEM;
	for (int s = 0; s < p->n_slots && !ret; s++) {
		struct bin_key bk = { .netns = p->slots[s][0], .ifindex = p->slots[s][1] };

		for (__u32 dir = 0; dir < 2 && !ret; dir++) {
			__u32 idx = (__u32)s * 2 + dir;

			bk.dir = dir;
			if (bpf_map_lookup_elem(bpf_map__fd(p->net->maps.slot_bins), &idx, vals) == 0)
				ret = flush_iface(p, &bk, vals, NULL);
		}
		if (!ret)
			ret = flush_slot_qdisc(p, s, vals, false);
	}
	free(vals);
	return ret;
}

/* Closed bins still staged for a batch (iface_stage, qdisc_stage), per CPU. */
static int flush_stages(struct netprobe *p)
{
	_Static_assert(sizeof(struct iface_stage) % 8 == 0, "per-CPU value stride");
	_Static_assert(sizeof(struct qdisc_stage) % 8 == 0, "per-CPU value stride");
	struct qdisc_stage *vals = calloc((size_t)p->ncpus, sizeof(*vals));
	int ret = 0;

	if (!vals)
		return -ENOMEM;
	for (__u32 k = 0; k < 2 && !ret; k++) {
		struct iface_stage *iv = (struct iface_stage *)vals;

		if (bpf_map_lookup_elem(bpf_map__fd(p->net->maps.iface_stage), &k, vals) == 0)
			for (int c = 0; c < p->ncpus && !ret; c++)
				for (__u32 i = 0; i < iv[c].n && i < FT_BATCH && !ret; i++)
					ret = p->fn(p->ctx, &iv[c].b[i].hdr) < 0 ? -EIO : 0;
		if (!ret)
			ret = flush_qdisc_stage(p, k, vals, false);
	}
	free(vals);
	return ret;
}

int netprobe__flush_bins(struct netprobe *p)
{
	_Static_assert(sizeof(struct bin_acc) % 8 == 0, "per-CPU value stride");
	_Static_assert(sizeof(struct qdisc_acc) % 8 == 0, "per-CPU value stride");
	int ret;

	if (!p->net)
		return 0;
	ret = flush_stages(p);
	if (!ret)
		ret = percpu_walk(bpf_map__fd(p->net->maps.iface_bins), sizeof(struct bin_key),
				  sizeof(struct bin_acc), p->ncpus, flush_iface, p, NULL);
	if (!ret)
		ret = percpu_walk(bpf_map__fd(p->net->maps.qdisc_bins), sizeof(struct qdisc_key),
				  sizeof(struct qdisc_acc), p->ncpus, flush_qdisc, p, NULL);
	if (!ret)
		ret = flush_slots(p);
	return ret;
}

void netp_hold_timers(struct netprobe *p, enum netp_timers state)
{
	_Static_assert(NETP_TIMERS_PAUSE == 1 && NETP_TIMERS_STOP == 2, "net.bpf.c's STAGE_PAUSE, STAGE_STOP");
	if (!p->net || !p->net->bss)
		return;
	p->net->bss->stage_hold = (__u32)state;
	/*
	 * A callback runs in softirq context, which an RCU grace period waits
	 * for: once this returns, none still reads the old state.  Where the
	 * kernel refuses (nohz_full CPUs), a pause far longer than a callback.
	 */
	if (state != NETP_TIMERS_RUN && syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) != 0) {
		struct timespec pause = { 0, 5L * 1000 * 1000 };

		nanosleep(&pause, NULL);
	}
}

int netp_flush_qdisc(struct netprobe *p)
{
	struct qdisc_stage *st;
	struct qdisc_acc *acc;
	int ret = 0, fd;
	char key[sizeof(struct qdisc_key)];

	if (!p->net)
		return 0;
	st = calloc((size_t)p->ncpus, sizeof(*st));
	acc = calloc((size_t)p->ncpus, sizeof(*acc));
	if (!st || !acc) {
		free(st);
		free(acc);
		return -ENOMEM;
	}
	for (__u32 k = 0; k < 2 && !ret; k++)
		ret = flush_qdisc_stage(p, k, st, true);
	fd = bpf_map__fd(p->net->maps.qdisc_bins);
	if (!ret)
		ret = percpu_walk(fd, sizeof(struct qdisc_key), sizeof(struct qdisc_acc), p->ncpus, flush_qdisc, p, NULL);
	while (!ret && bpf_map_get_next_key(fd, NULL, key) == 0)
		if (bpf_map_delete_elem(fd, key))
			ret = -errno;
	for (int s = 0; s < p->n_slots && !ret; s++)
		ret = flush_slot_qdisc(p, s, acc, true);
	/* the followed skbs: one left queued at detach would be measured from
	 * its old enqueue if its address came back after the next attach */
	fd = bpf_map__fd(p->net->maps.soj_track);
	for (__u32 i = 0; i < FT_SOJ_TRACK && !ret; i++) {
		struct soj_track z = {0};

		ret = bpf_map_update_elem(fd, &i, &z, BPF_ANY) ? -errno : 0;
	}
	free(st);
	free(acc);
	return ret;
}

int netprobe__lost(struct netprobe *p, enum ft_source src, uint64_t *per_cpu, int ncpus)
{
	struct bpf_map *m = NULL;
	__u32 zero = 0;
	uint64_t *v;
	int ret;

	memset(per_cpu, 0, sizeof(*per_cpu) * ncpus);
	if (src == FT_SRC_NET && p->net)
		m = p->net->maps.lost;
	else if (src == FT_SRC_TCP && p->tcp)
		m = p->tcp->maps.lost;
	if (!m)
		return 0;
	v = calloc(p->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	ret = bpf_map_lookup_elem(bpf_map__fd(m), &zero, v) ? -errno : 0;
	for (int c = 0; !ret && c < p->ncpus && c < ncpus; c++)
		per_cpu[c] = v[c];
	free(v);
	return ret;
}

struct ce_walk {
	netprobe_sample_fn fn;
	void *ctx;
};

static int ce_one(struct netprobe *p, const void *key, const void *vals, void *arg)
{
	const struct ce_walk *w = arg;
	const struct ce_val *v = vals;
	struct ft_ce_flow r = { .hdr = { FT_REC_CE_FLOW, sizeof(r), 0 } };

	memcpy(&r.flow, key, sizeof(r.flow));
	for (int c = 0; c < p->ncpus; c++) {
		if (!v[c].pkts)
			continue;
		r.ce_pkts += v[c].pkts;
		if (!r.first_ns || v[c].first_ns < r.first_ns)
			r.first_ns = v[c].first_ns;
		if (v[c].last_ns > r.last_ns)
			r.last_ns = v[c].last_ns;
	}
	return r.ce_pkts ? w->fn(w->ctx, &r.hdr) : 0;
}

int netprobe__ce_flows(struct netprobe *p, netprobe_sample_fn fn, void *ctx)
{
	struct ce_walk w = { fn, ctx };

	if (!p->net)
		return 0;
	return percpu_walk(bpf_map__fd(p->net->maps.ce_flows), sizeof(struct ft_flow),
			   sizeof(struct ce_val), p->ncpus, ce_one, p, &w);
}
