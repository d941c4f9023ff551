/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record types and the one record dispatch.
 *
 * CAPTURE_RECORDS is the table beside enum ft_rec_type (bpf/fabtrace.h):
 * one row per type, X(enum value, struct, name).  From it come each type's
 * name ("iface_bin"), its size (the struct's), its member of struct
 * capture_visitor, and the dispatch that hands a record to that member as
 * its own struct.  A reader of records fills a visitor with the callbacks
 * of the types it wants and lets capture__visit() (one record: top's live
 * records) or capture__visit_reader() (a capture) call them; nobody
 * switches on the type.
 *
 * A record is checked against its type once, before any callback sees
 * it (capture__rec_check): a known type must hold its struct (and a counter
 * sample its values), so callbacks read their struct without checking.
 * The reader checks every record of a block as it loads it, so the records
 * it hands out are checked already; capture__visit() checks the ones that
 * come from elsewhere.
 *
 * A new record type: its struct and enum value in bpf/fabtrace.h, its row
 * here, its size pinned in abi_check.c, docs/capture-format.md; if it
 * carries CLOCK_MONOTONIC times or ids that a merge renumbers, its row in
 * record_fields.c (docs/architecture.md, "Records").
 */
#ifndef FABTRACE_RECORDS_H
#define FABTRACE_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"

#define CAPTURE_RECORDS(X)                                  \
	X(FT_REC_IFACE_BIN,   ft_iface_bin,     iface_bin)      \
	X(FT_REC_QDISC_BIN,   ft_qdisc_bin,     qdisc_bin)      \
	X(FT_REC_DROP,        ft_drop,          drop)           \
	X(FT_REC_RETRANS,     ft_retrans,       retrans)        \
	X(FT_REC_CONG_STATE,  ft_cong_state,    cong_state)     \
	X(FT_REC_TCP_SAMPLE,  ft_tcp_sample,    tcp_sample)     \
	X(FT_REC_PHASE,       ft_phase,         phase)          \
	X(FT_REC_REQ_DONE,    ft_req_done,      req_done)       \
	X(FT_REC_COMM_INFO,   ft_comm_info,     comm_info)      \
	X(FT_REC_PROC,        ft_proc,          proc)           \
	X(FT_REC_SOCK_OWNER,  ft_sock_owner,    sock_owner)     \
	X(FT_REC_IFACE,       ft_iface_info,    iface)          \
	X(FT_REC_IFACE_STATS, ft_iface_stats,   iface_stats)    \
	X(FT_REC_CE_FLOW,     ft_ce_flow,       ce_flow)        \
	X(FT_REC_LOST,        ft_lost,          lost)           \
	X(FT_REC_DROP_REASON, ft_drop_reason,   drop_reason)    \
	X(FT_REC_PROBE,       ft_probe_info,    probe)          \
	X(FT_REC_COVERAGE,    ft_coverage,      coverage)       \
	X(FT_REC_PHASE_SLOT,  ft_phase_slot,    phase_slot)     \
	X(FT_REC_RDMA_PORT,   ft_rdma_port,     rdma_port)      \
	X(FT_REC_CTR_GROUP,   ft_ctr_group,     ctr_group)      \
	X(FT_REC_CTR_NAME,    ft_ctr_name,      ctr_name)       \
	X(FT_REC_CTR_SAMPLE,  ft_ctr_sample,    ctr_sample)     \
	X(FT_REC_SAMPLER,     ft_sampler_event, sampler_event)  \
	X(FT_REC_CONFIG,      ft_config,        config)         \
	X(FT_REC_TRIGGER,     ft_trigger,       trigger)        \
	X(FT_REC_PROBE_SPAN,  ft_probe_span,    probe_span)     \
	X(FT_REC_SCHED_WAIT,  ft_sched_wait,    sched_wait)     \
	X(FT_REC_HOST_ID,     ft_host_id,       host_id)        \
	X(FT_REC_CLOCK,       ft_clock,         clock)          \
	X(FT_REC_HOST,        ft_host,          host)           \
	X(FT_REC_HOST_NETNS,  ft_host_netns,    host_netns)     \
	X(FT_REC_END,         ft_end,           end)

/* Record types are below this (the table is indexed by type). */
#define CAPTURE_REC_TYPES 64

/* Limits of a counter group past which its record is damaged (the model's arrays). */
#define CAPTURE_MAX_CTR_GROUP   (1u << 20)  /* group ids are capture-wide and dense */
#define CAPTURE_MAX_CTR_COUNTERS 65536u     /* counters of one group */

/*
 * One callback per record type, named as the type, handed the record as
 * its struct; NULL skips that type.  A callback's non-zero return stops a
 * walk and is returned.  CTX is the caller's.
 */
struct capture_visitor {
#define CAPTURE_VISITOR_MEMBER(type, rec, name) int (*name)(void *ctx, const struct rec *r);
	CAPTURE_RECORDS(CAPTURE_VISITOR_MEMBER)
#undef CAPTURE_VISITOR_MEMBER
	/* a type this build does not know (a newer writer's), skipped when NULL */
	int (*unknown)(void *ctx, const struct ft_rec_hdr *r);
};

/*
 * Whether REC can be read as its type: 0, or -EINVAL when it is damaged,
 * with WHY (may be NULL) saying how ("is 16 bytes, expected 96").  Damaged:
 * shorter than its struct; a ctr_sample shorter than its n values; a
 * ctr_group past the limits above.  A type this build does not know passes.
 */
int capture__rec_check(const struct ft_rec_hdr *rec, char *why, size_t len);
/*
 * The bytes a record of REC's type needs: its struct, and a counter
 * sample's values (0 for a type this build does not know).
 */
size_t capture__rec_need(const struct ft_rec_hdr *rec);

/* Hand REC, checked already (a reader's, or capture__rec_check), to its callback. */
int capture__dispatch(const struct capture_visitor *v, void *ctx, const struct ft_rec_hdr *rec);
/* Check REC, then hand it to its callback: -EINVAL for a damaged one (no callback runs). */
int capture__visit(const struct capture_visitor *v, void *ctx, const struct ft_rec_hdr *rec);

/*
 * Where a record keeps its CLOCK_MONOTONIC times and the ids a merge
 * renumbers: byte offsets into the record, 0 for none (0 is the header).
 */
struct capture_rec_fields {
	uint16_t time[2];       /* u64 times (a phase's start and end, a CE flow's first and last) */
	bool bin;               /* time[0] is a bin's start, on the capture's bin grid */
	uint16_t netns;         /* u32 network namespace inode */
	uint16_t pid[2];        /* u32 pids and tids */
	uint16_t slot;          /* u32 phase slot */
	uint16_t group;         /* u32 counter group (~0: none) */
	uint16_t port;          /* u32 RDMA port id (~0: none) */
};

/*
 * Whether a retransmit record is a segment TCP sent again: kernels since
 * 6.13 run the tracepoint for a retransmit that failed as well (err
 * -EBUSY: the original still in the host's queue, so nothing was sent;
 * or the send's error), which TcpRetransSegs does not count either.
 */
static inline bool capture__retrans_sent(const struct ft_retrans *r)
{
	return r->err == 0;
}

/* REC's type's fields; every offset 0 for a type this build does not know. */
const struct capture_rec_fields *capture__rec_fields(uint16_t type);
/* The CLOCK_MONOTONIC times of REC (checked) into T (0 = unset): how many it has (0 to 2). */
int capture__rec_times(const struct ft_rec_hdr *rec, uint64_t t[2]);

#endif
