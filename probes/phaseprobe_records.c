// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The phase probes' records (phaseprobe_state.h): kept until start, then
 * handed on; the records the kernel lost (ring full).  The lowest of the
 * phase probes' files: it calls none of the others.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "phase.skel.h"
#include "bpf/phase.h"
#include "probes/phaseprobe_state.h"

/* ---- records: kept until start, then handed on ---- */

int ph_emit(struct phaseprobe *p, const struct ft_rec_hdr *h)
{
	if (p->started)
		return p->fn(p->ctx, h) < 0 ? -EIO : 0;
	if (p->plen + h->size > p->pcap) {
		size_t cap = p->pcap ? p->pcap * 2 : 8192;
		char *n;

		while (cap < p->plen + h->size)
			cap *= 2;
		n = realloc(p->pending, cap);
		if (!n)
			return -ENOMEM;
		p->pending = n;
		p->pcap = cap;
	}
	memcpy(p->pending + p->plen, h, h->size);
	p->plen += h->size;
	return 0;
}

int phaseprobe__start(struct phaseprobe *p)
{
	size_t off = 0;
	int ret = 0;

	p->started = true;
	if (p->skel->bss)
		p->skel->bss->armed = true; /* calls count from here */
	while (off < p->plen && !ret) {
		const struct ft_rec_hdr *h = (const void *)(p->pending + off);

		ret = p->fn(p->ctx, h) < 0 ? -EIO : 0;
		off += h->size;
	}
	free(p->pending);
	p->pending = NULL;
	p->plen = p->pcap = 0;
	return ret;
}

/* ---- records lost in the kernel ---- */

int phaseprobe__lost(struct phaseprobe *p, uint64_t *per_cpu, int ncpus)
{
	__u32 zero = 0;
	uint64_t *v;
	int ret;

	memset(per_cpu, 0, sizeof(*per_cpu) * (size_t)ncpus);
	if (!p->skel || p->ncpus <= 0)
		return 0;
	v = calloc((size_t)p->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	ret = bpf_map_lookup_elem(bpf_map__fd(p->skel->maps.lost), &zero, v) ? -errno : 0;
	for (int c = 0; !ret && c < p->ncpus && c < ncpus; c++)
		per_cpu[c] = v[c];
	free(v);
	return ret;
}
