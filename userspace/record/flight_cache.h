/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a flight recorder's segment repeats at its start so that it can be
 * read alone (docs/flight-recorder.md, "What every segment carries"): the
 * latest of each record that names or describes something later records
 * refer to.  The recording's records pass through flight_cache__note(); a
 * new segment begins with flight_cache__replay():
 *
 *   host_id, a fresh clock pair, probe, drop_reason, phase_slot, iface,
 *   rdma_port, ctr_group, ctr_name, the last ctr_sample of each group (the
 *   base its next sample's growth is counted from), then the processes
 *   still followed (proc, as existing at the segment's start), their
 *   comm_info (ranks, sizes, job) and sock_owner records, and the latest
 *   value of every setting (config) but the sockets'.
 *
 * Memory is bounded: at most FLIGHT_CACHE_MAX records; those of a process
 * that exited are dropped at the next segment.
 */
#ifndef FABTRACE_FLIGHT_CACHE_H
#define FABTRACE_FLIGHT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/fabtrace.h"

#define FLIGHT_CACHE_MAX 65536

struct flight_cache;

int flight_cache__new(struct flight_cache **c);
void flight_cache__free(struct flight_cache *c);
/* Note one record of the recording (through the record visitor,
 * userspace/capture/records.h).  0; -ENOMEM: the record is not repeated
 * (flight_cache__dropped() counts them); -EINVAL: a damaged record,
 * shorter than its type's struct, is not kept either. */
int flight_cache__note(struct flight_cache *c, const struct ft_rec_hdr *rec);
uint64_t flight_cache__dropped(const struct flight_cache *c);
/* Clock daemons the recording's clock records named (for a fresh pair). */
uint16_t flight_cache__daemons(const struct flight_cache *c);

typedef int (*flight_emit_fn)(void *ctx, const struct ft_rec_hdr *rec);
/*
 * A segment's preamble through EMIT, CLOCK (a fresh pair) after host_id;
 * the processes' records are dated AT_NS, the segment's start.  The number
 * of records written, or the first error EMIT returned.
 */
long flight_cache__replay(struct flight_cache *c, const struct ft_clock *clock, uint64_t at_ns,
			  flight_emit_fn emit, void *ctx);

#endif
