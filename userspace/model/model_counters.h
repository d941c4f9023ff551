/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading the counter sampler's records into the model (model.c calls
 * these; the results are the model.ctr_* and model.rdma_ports arrays).
 */
#ifndef FABTRACE_MODEL_COUNTERS_H
#define FABTRACE_MODEL_COUNTERS_H

#include <stddef.h>
#include <stdint.h>
#include "userspace/model/model.h"

struct ctr_load;

struct ctr_load *model_ctr__new(void);
void model_ctr__free(struct ctr_load *c);
/* Minimum size of a counter record type, 0 for other types. */
size_t model_ctr__min_size(uint16_t type);
int model_ctr__add(struct ctr_load *c, const struct ft_rec_hdr *rec);
/* After the interfaces are final: sort, index, derive rates and spikes.  Hands the arrays to M. */
int model_ctr__finish(struct model *m, struct ctr_load *c);

#endif
