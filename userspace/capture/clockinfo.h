/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `fabtrace info` shows of a capture's host identity, clock pairs and
 * sync state, and of a merged capture's hosts (docs/multihost.md).
 */
#ifndef FABTRACE_CLOCKINFO_H
#define FABTRACE_CLOCKINFO_H

#include <stdbool.h>
#include <stdint.h>
#include "bpf/fabtrace.h"
#include "lib/json.h"

#define CLOCKINFO_MAX_HOSTS 4096

struct clockinfo {
	bool have_id;
	struct ft_host_id id;
	uint64_t nclock;
	struct ft_clock first, last;       /* of this capture (its own host) */
	int64_t max_maxerror_us;
	bool unsynced;                     /* any pair said STA_UNSYNC */
	struct ft_host *hosts;             /* merged captures: by index */
	size_t nhosts;
};

/* Account one record, checked (a reader's): host identity, clock pairs, merged hosts. */
void clockinfo__add(struct clockinfo *c, const struct ft_rec_hdr *r);
/* REALTIME - MONOTONIC drift over the capture in ppb (0 with < 2 pairs). */
double clockinfo__drift_ppb(const struct clockinfo *c);
void clockinfo__print(const struct clockinfo *c);
void clockinfo__json(const struct clockinfo *c, struct json *j);
void clockinfo__free(struct clockinfo *c);

/* "chrony,ptp4l" from enum ft_clock_daemon bits ("" none). */
const char *clockinfo__daemons(uint16_t bits, char *buf, size_t len);

#endif
