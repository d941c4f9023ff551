/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `info`'s configuration section: the settings a capture was taken under
 * (FT_REC_CONFIG records, docs/configuration.md), as text and as the
 * `config` object of `info --json`.  Nothing is printed, and the JSON key
 * is absent, for a capture without configuration records.
 */
#ifndef FABTRACE_INFO_CONFIG_H
#define FABTRACE_INFO_CONFIG_H

#include <stdio.h>
#include "bpf/fabtrace.h"
#include "userspace/model/model_config.h"

struct json;

/* Keep REC if it is one of the configuration's (*C is made on the first). */
void info_config__add(struct model_config **c, const struct ft_rec_hdr *rec);
/* The section, as text on F / as the "config" member of the object J is in. */
void info_config__print(struct model_config *c, FILE *f);
void info_config__json(struct model_config *c, struct json *j);

#endif
