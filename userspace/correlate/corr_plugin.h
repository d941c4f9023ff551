/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The correlator's part for fabtrace's NCCL profiler plugin
 * (probes/nccl_profiler): records whose slot has FT_SLOT_PLUGIN.
 *
 *  - A plugin Coll/P2p record is a call whose start and end are the
 *    collective's own (GPU kernel channels, else NCCL's proxy), not a host
 *    call's: it is marked CORR_CALL_PLUGIN and never ENQUEUE_ONLY.
 *  - In a process with plugin calls, the host-side ENQUEUE_ONLY calls that
 *    the libnccl uprobes recorded are dropped: the plugin times the same
 *    collectives for real, so they would only count twice.
 *  - Identity: (commHash, function, seqNumber).  NCCL's comm hash is the
 *    same on every rank and its seqNumber counts per communicator and
 *    function, so the instance key is the hash as a handle and the function
 *    as the key's `order` (userspace/model/comm_key.c).
 *  - Proxy-op records (one channel, one peer) are not calls: they are
 *    counted and summed per instance window for the report.
 */
#ifndef FABTRACE_CORR_PLUGIN_H
#define FABTRACE_CORR_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"

bool corr_plugin__is_plugin(const struct model_slot *s);
/* A proxy-op record: a child, not a call. */
bool corr_plugin__is_child(const struct model_slot *s);
/* Drop the ENQUEUE_ONLY calls of processes the plugin times (c->calls compacted). */
void corr_plugin__drop_enqueue(struct corr *c);
/* Counts for the report. */
void corr_plugin__summary(const struct model *m, const struct corr *c, struct corr_plugin_sum *out);
/* Some NCCL call is timed at enqueue only: an ENQUEUE_ONLY record of a process without plugin records. */
bool corr_plugin__enqueue_uncovered(const struct model *m);

#endif
