// SPDX-License-Identifier: GPL-2.0-or-later
/* The hosts of a merged capture in `fabtrace report` (userspace/report/report_hosts.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "userspace/capture/capture.h"
#include "userspace/report/report_hosts.h"
#include "lib/util.h"

#define MAX_HOSTS 4096
#define MAX_NS 65536

struct hosts {
	struct ft_host *h; size_t n;
	struct ft_host_netns *ns; size_t nns;
	size_t below;          /* rank-bound instances whose skew is within the clocks' uncertainty */
	size_t rank_bound;
	uint64_t worst_unc;    /* largest finite uncertainty */
	bool unknown;          /* a host with no bound */
};

/* The merge writes its FT_REC_HOST / FT_REC_HOST_NETNS records first. */
static int load(const char *path, const struct model *m, struct hosts *hs)
{
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	char err[256];

	memset(hs, 0, sizeof(*hs));
	if (!path || !(m->hdr.flags & FT_FILE_MERGED) || capture__open(&r, path, err, sizeof(err)))
		return -1;
	hs->h = calloc(MAX_HOSTS, sizeof(*hs->h));
	hs->ns = calloc(MAX_NS, sizeof(*hs->ns));
	if (!hs->h || !hs->ns) {
		capture__free(r);
		return -1;
	}
	while (capture__next(r, &rec) == 1) {
		if (rec->type == FT_REC_HOST && hs->n < MAX_HOSTS)
			hs->h[hs->n++] = *(const struct ft_host *)(const void *)rec;
		else if (rec->type == FT_REC_HOST_NETNS && hs->nns < MAX_NS)
			hs->ns[hs->nns++] = *(const struct ft_host_netns *)(const void *)rec;
		else
			break;
	}
	capture__free(r);
	return hs->n ? 0 : -1;
}

static const struct ft_host *host_of(const struct hosts *hs, uint32_t netns)
{
	for (size_t i = 0; i < hs->nns; i++)
		if (hs->ns[i].netns == netns && hs->ns[i].host < hs->n)
			return &hs->h[hs->ns[i].host];
	return NULL;
}

static bool bounded(const struct ft_host *h)
{
	return h && h->uncertainty_ns != UINT64_MAX;
}

/* Count the rank-bound verdicts whose straggler's own lateness is within the
 * uncertainty between its host's clock and the latest other member's. */
static void judge(struct hosts *hs, const struct corr *c)
{
	for (size_t i = 0; i < hs->n; i++) {
		if (!bounded(&hs->h[i]))
			hs->unknown = true;
		else if (hs->h[i].uncertainty_ns > hs->worst_unc)
			hs->worst_unc = hs->h[i].uncertainty_ns;
	}
	if (!c)
		return;
	for (size_t i = 0; i < c->ninstances; i++) {
		const struct corr_instance *in = &c->instances[i];
		const struct ft_host *sh;
		uint64_t other = 0;
		bool unk = false;

		if (in->verdict != CORR_RANK || in->straggler == CORR_NONE || in->straggler >= c->nranks)
			continue;
		hs->rank_bound++;
		if (in->budget.stalled_ns * 2 > in->budget.waiting_ns)
			continue; /* held without a CPU, as its own host measured: no clock in it */
		sh = host_of(hs, c->ranks[in->straggler].netns);
		unk = !bounded(sh);
		for (size_t k = 0; k < hs->n; k++) {
			if (&hs->h[k] == sh)
				continue;
			if (!bounded(&hs->h[k]))
				unk = true;
			else if (hs->h[k].uncertainty_ns > other)
				other = hs->h[k].uncertainty_ns;
		}
		if (unk || in->own_late_ns <= (sh ? sh->uncertainty_ns : 0) + other)
			hs->below++;
	}
}

void report_hosts__text(FILE *f, const char *path, const struct model *m, const struct corr *c)
{
	struct hosts hs;

	if (load(path, m, &hs) == 0) {
		char b1[32];

		judge(&hs, c);
		fprintf(f, "\nHosts (merged capture, one clock: %.*s's)\n", (int)sizeof(hs.h[0].label), hs.h[0].label);
		for (size_t i = 0; i < hs.n; i++) {
			const struct ft_host *h = &hs.h[i];

			const char *dmg = (h->flags & FT_HOST_DAMAGED) ? "  damaged capture: as far as readable" : "";

			if (h->flags & FT_HOST_REFERENCE) {
				fprintf(f, "  %-24.64s reference clock  (%.64s)%s\n", h->label, h->source, dmg);
				continue;
			}
			fprintf(f, "  %-24.64s offset %+.6f s  drift %+lld ppb  +- %s  %s  (%.64s)%s\n", h->label,
				(double)h->offset_ns / 1e9, (long long)h->drift_ppb,
				bounded(h) ? fmt_ns(h->uncertainty_ns, b1, sizeof(b1)) : "unknown",
				(h->flags & FT_HOST_SAME_KERNEL) ? "same kernel as an earlier host" :
				(h->flags & FT_HOST_TRAFFIC) ? "from traffic" : "realtime anchors only", h->source, dmg);
		}
		if (hs.below)
			fprintf(f, "  warning: %zu of %zu rank-bound verdicts rest on a skew within the clocks' "
				"uncertainty (%s%s): not evidence of a straggler\n", hs.below, hs.rank_bound,
				hs.unknown ? "unknown for some hosts" : "up to ",
				hs.unknown ? "" : fmt_ns(hs.worst_unc, b1, sizeof(b1)));
	}
	free(hs.h);
	free(hs.ns);
}

void report_hosts__json(struct json *j, const char *path, const struct model *m, const struct corr *c)
{
	struct hosts hs;

	if (load(path, m, &hs) == 0) {
		judge(&hs, c);
		json_key(j, "hosts");
		json_object_begin(j);
		json_key(j, "items");
		json_array_begin(j);
		for (size_t i = 0; i < hs.n; i++) {
			const struct ft_host *h = &hs.h[i];
			char b[80];

			json_object_begin(j);
			snprintf(b, sizeof(b), "%.64s", h->label);
			json_kv_string(j, "label", b);
			snprintf(b, sizeof(b), "%.64s", h->source);
			json_kv_string(j, "source", b);
			json_kv_bool(j, "reference", (h->flags & FT_HOST_REFERENCE) != 0);
			json_kv_bool(j, "from_traffic", (h->flags & FT_HOST_TRAFFIC) != 0);
			json_kv_bool(j, "same_kernel", (h->flags & FT_HOST_SAME_KERNEL) != 0);
			json_kv_bool(j, "damaged", (h->flags & FT_HOST_DAMAGED) != 0);
			json_kv_i64(j, "offset_ns", h->offset_ns);
			json_kv_i64(j, "drift_ppb", h->drift_ppb);
			if (bounded(h))
				json_kv_u64(j, "uncertainty_ns", h->uncertainty_ns);
			else
				json_kv_string(j, "uncertainty_ns", NULL);
			json_key(j, "netns");
			json_array_begin(j);
			for (size_t k = 0; k < hs.nns; k++)
				if (hs.ns[k].host == i)
					json_u64(j, hs.ns[k].netns);
			json_array_end(j);
			json_object_end(j);
		}
		json_array_end(j);
		json_kv_u64(j, "rank_bound", hs.rank_bound);
		json_kv_u64(j, "rank_bound_within_clock_uncertainty", hs.below);
		json_object_end(j);
	}
	free(hs.h);
	free(hs.ns);
}
