/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef FABTRACE_BTF_NAMES_H
#define FABTRACE_BTF_NAMES_H

#include "bpf/fabtrace.h"

/* Call fn with one FT_REC_DROP_REASON record per value of the running
 * kernel's enum skb_drop_reason.  0, or -errno (-ENOENT: no such enum). */
int btf_drop_reasons(int (*fn)(void *ctx, const struct ft_rec_hdr *rec), void *ctx);

#endif
