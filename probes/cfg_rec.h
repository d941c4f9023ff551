/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The configuration record (struct ft_config in bpf/fabtrace.h): building
 * one from its object and KEY = VALUE, and reading the key and value back
 * out of one with every length checked.  Shared by the writers (the
 * recorder, the phase probes for a rank's environment) and the readers
 * (the model, info, merge).
 */
#ifndef FABTRACE_CFG_REC_H
#define FABTRACE_CFG_REC_H

#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"

/* The largest record cfgrec__build() writes. */
#define CFGREC_MAX (sizeof(struct ft_config) + FT_CFG_KEY_MAX + FT_CFG_VALUE_MAX + 2 + 8)

/*
 * A record into BUF (at least CFGREC_MAX bytes): PROTO's fields (its
 * header, lengths and padding are set here), then KEY and VALUE (NULL:
 * ""), cut at FT_CFG_KEY_MAX and FT_CFG_VALUE_MAX bytes.  Returns the
 * record, ready to append.
 */
struct ft_config *cfgrec__build(void *buf, const struct ft_config *proto, const char *key,
				const char *value);

/*
 * The key and value of REC, a FT_REC_CONFIG record of REC->size bytes:
 * 0, or -EINVAL when it is shorter than its struct, its strings run past
 * its end or are not terminated where their lengths say.
 */
int cfgrec__parse(const struct ft_rec_hdr *rec, const char **key, const char **value);

/* "netns", "iface", "qdisc", "flow", "nic", "rank"; NULL for a scope this build does not know. */
const char *cfgrec__scope_name(unsigned scope);

#endif
