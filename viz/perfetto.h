/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the files of the Perfetto renderer only (viz__perfetto,
 * viz/perfetto.c): the trace's ids, its state, and what each file writes.
 * Calls run one way: perfetto.c calls the tracks, the tracks and
 * perfetto.c call perfetto_event.c, which calls none of them.
 *   perfetto.c         viz__perfetto: the document, hosts and their metadata
 *   perfetto_ranks.c   the rank threads (complete events and async slices,
 *                      flow arrows), the collectives, lost-event gaps
 *   perfetto_fabric.c  counter tracks (run-length coded buckets) and the
 *                      network events as instants
 *   perfetto_event.c   the parts every event shares, written through
 *                      lib/json.h (one event per line)
 */
#ifndef FABTRACE_VIZ_PERFETTO_H
#define FABTRACE_VIZ_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/json.h"
#include "viz/common.h"

#define PF_MAX_BUCKETS 20000u
#define PF_TID_MUL 100000u          /* tid = pid * PF_TID_MUL + k: unique over the trace */
#define PF_TID_EVENTS 90000u
#define PF_TID_COUNTERS 90001u
#define PF_DETAIL_CALLS 100000u     /* more calls in the window: sub-phases go into the calls' args */

struct pf {
	struct json j;              /* one line per event (json_break) */
	const struct model *m;
	const struct corr *c;
	uint64_t from, to, res;
	struct viz_hosts hosts;
	uint32_t *rank_tid;         /* per rank */
	uint32_t *rank_pid;
	uint32_t *iface_host;       /* per interface: host index, hosts.n if none */
	uint8_t *flow_role;         /* per call: 0, 1 out, 2 in+out, 3 in */
	uint32_t coll_pid;
	bool subphases;             /* wait/transfer as slices (else in the call's args) */
	size_t ncalls;              /* calls in the window */
};

/* perfetto_event.c */
/* An event on a line of its own, left open: {"ph":PH[,"s":SCOPE],"pid":PID,"tid":TID */
void pf_ev_begin(struct pf *p, char ph, const char *scope, uint32_t pid, uint32_t tid);
/* A time as microseconds since the capture start, exactly (three decimals: ns). */
void pf_ts(struct pf *p, const char *key, uint64_t ts);
/* A metadata event WHAT: "name" NAME, or with NAME NULL "sort_index" SORT. */
void pf_meta(struct pf *p, uint32_t pid, uint32_t tid, const char *what, const char *name, long sort);

/* perfetto_ranks.c */
/* Which calls flow arrows start, pass through or end at (p->flow_role).  0 or -ENOMEM. */
int pf_flow_roles(struct pf *p);
/* Rank R's thread: nested items as complete events, overlapping ones as async slices. */
int pf_rank(struct pf *p, uint32_t r);
/* The collectives process's tracks: matched collectives, lost-event gaps. */
int pf_collectives(struct pf *p);
int pf_lost(struct pf *p);

/* perfetto_fabric.c */
/* The host (index into p->hosts, hosts.n if none) of an interface or flow in NETNS. */
uint32_t pf_host_of_netns(const struct pf *p, uint32_t netns);
/* Host H's network events (hosts.n: those on no host) as instants on PID/TID, of SCOPE ("t", "g"). */
int pf_instants(struct pf *p, uint32_t h, uint32_t pid, uint32_t tid, const char *scope);
/* Host H's counter tracks on PID/TID (hosts.n: the counters of no interface). */
void pf_counters(struct pf *p, uint32_t h, uint32_t pid, uint32_t tid);

#endif
