/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Counter semantics shared by the sampler (rdma/sampler_run.c) and the model
 * (userspace/model/model_counters.c): parsing sysfs values, classifying counter names,
 * and turning two raw reads into a delta with wrap and reset handling.
 * Pure functions, unit-tested in tests/unit/test_counters.c.
 */
#ifndef FABTRACE_COUNTERS_H
#define FABTRACE_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../bpf/fabtrace.h"

/*
 * Parse one sysfs counter file's text ("123\n", "0x1f", "N/A (no PMA)\n").
 * 0 and *out set; -ENODATA for N/A-like text (tolerated, recorded as
 * FT_CTR_NA); -EINVAL for anything else.
 */
int ctr__parse(const char *text, size_t len, uint64_t *out);

/*
 * Class and flags of a counter by name and kind (enum ft_ctr_kind):
 * e.g. np_cnp_sent -> FT_CLS_CONGESTION; port_xmit_data -> FT_CLS_DATA with
 * FT_CTRF_BYTES | FT_CTRF_DIV4; legacy PMA error counters -> FT_CTRF_WIDTH32;
 * rx_prio3_pause_duration -> FT_CLS_PAUSE | FT_CTRF_USEC.  Unknown names
 * are FT_CLS_OTHER with no flags.
 */
void ctr__classify(unsigned kind, const char *name, uint16_t *cls, uint16_t *flags);
const char *ctr__class_name(unsigned cls);  /* "congestion", ..., "other" */
const char *ctr__unit_name(unsigned flags); /* "bytes", "us" or "count" (enum ft_ctr_flags) */

enum ctr_delta_flags {
	CTR_DELTA_WRAP32 = 1 << 0,  /* went backwards from near 2^32: wrapped */
	CTR_DELTA_WRAP64 = 1 << 1,
	CTR_DELTA_RESET  = 1 << 2,  /* went backwards otherwise: counter reset, delta = cur */
	CTR_DELTA_NA     = 1 << 3,  /* one side FT_CTR_NA: delta 0 */
	CTR_DELTA_SAT    = 1 << 4,  /* FT_CTRF_WIDTH32 and CUR = 2^32-1: a saturated PMA
				     * counter, the growth is a lower bound */
};

/*
 * Growth between two raw reads PREV and CUR of a counter with FLAGS
 * (enum ft_ctr_flags), in raw units (no x4).  Backwards moves: a counter
 * seen to be 32-bit (PREV < 2^32; FT_CTRF_WIDTH32 counters always are
 * unless a value says otherwise) whose wrapped growth (CUR + 2^32 - PREV)
 * is below 2^31 wrapped; the same test at 2^64 for wider values; anything
 * else is a reset and the growth is CUR.  PMA counters (FT_CTRF_WIDTH32)
 * saturate on real hardware: one at 2^32-1 stays there (growth 0,
 * CTR_DELTA_SAT), and a move down from exactly 2^32-1 is a reset.
 * *dflags (may be NULL) gets CTR_DELTA_* bits.
 */
uint64_t ctr__delta(uint64_t prev, uint64_t cur, uint16_t flags, unsigned *dflags);
/* A raw delta in the counter's unit: x4 for FT_CTRF_DIV4. */
uint64_t ctr__scale(uint64_t raw, uint16_t flags);

/* Comma-separated glob list match (fnmatch); an empty or NULL list matches nothing. */
bool ctr__glob_match(const char *list, const char *name);
/*
 * The default ethtool name filter: pause/PFC (*pause*, *pfc*,
 * tx_pause_storm_*), buffer thresholds (*_thres*), discards and drops
 * (*discard*, *drop*, *out_of_buffer*), ECN marks (*ecn*, *marked*).
 */
extern const char ctr__default_nic_filter[];

#endif
