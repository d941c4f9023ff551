// SPDX-License-Identifier: GPL-2.0-or-later
/* Making a counter group and its sample record (sampler_priv.h). */
#include <stdio.h>
#include <stdlib.h>

#include "sampler_priv.h"
#include "sysattr.h"

struct group *sampler_new_group(struct sampler *s, uint32_t kind, const char *label, size_t n)
{
	struct group *g;

	if (s->ngroups == s->gcap) {
		size_t ncap = s->gcap ? s->gcap * 2 : 16;
		struct group *ng = realloc(s->groups, ncap * sizeof(*ng));

		if (!ng)
			return NULL;
		s->groups = ng;
		s->gcap = ncap;
	}
	g = &s->groups[s->ngroups];
	memset(g, 0, sizeof(*g));
	g->ctrs = calloc(n ? n : 1, sizeof(*g->ctrs));
	g->smp = calloc(1, sizeof(*g->smp) + n * sizeof(uint64_t));
	if (!g->ctrs || !g->smp) {
		free(g->ctrs);
		free(g->smp);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		g->ctrs[i].fd = -1;
	g->n = n;
	g->rec.hdr.type = FT_REC_CTR_GROUP;
	g->rec.hdr.size = sizeof(g->rec);
	g->rec.group = (uint32_t)s->ngroups;
	g->rec.kind = kind;
	g->rec.port_id = UINT32_MAX;
	g->rec.ncounters = (uint32_t)n;
	g->rec.period_ns = s->period_ns;
	sysattr__copy(g->rec.label, label, sizeof(g->rec.label));
	g->smp->hdr.type = FT_REC_CTR_SAMPLE;
	g->smp->hdr.size = (uint16_t)(sizeof(*g->smp) + n * sizeof(uint64_t));
	g->smp->group = g->rec.group;
	g->smp->n = (uint32_t)n;
	s->ngroups++;
	return g;
}

struct group *sampler_new_chunk(struct sampler *s, uint32_t kind, const char *label, size_t k, size_t nsel,
				size_t *n)
{
	char glabel[48];
	int len = k == 0 ? snprintf(glabel, sizeof(glabel), "%s", label)
			 : snprintf(glabel, sizeof(glabel), "%.36s#%zu", label, k + 1);

	if (len < 0)
		glabel[0] = '\0';
	*n = nsel - k * SAMPLER_MAX_VALUES;
	if (*n > SAMPLER_MAX_VALUES)
		*n = SAMPLER_MAX_VALUES;
	return sampler_new_group(s, kind, glabel, *n);
}
