/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of synthcap share (the tool and its scenario: main.c):
 *   main.c      the command line, and the capture's size from --events
 *   scenario.c  the capture from start to end: one period per collective
 *   setup.c     the records that describe the run once (probes,
 *               interfaces, phase slots, processes)
 *   counters.c  the counter sampler's port, groups, names and samples
 *   gen.c       the writer: records out (--only-host), the jitter, flows
 * Each calls only the files listed below it.
 */
#ifndef FABTRACE_SYNTHCAP_H
#define FABTRACE_SYNTHCAP_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "userspace/capture/capture.h"


#define US ((uint64_t)1000)
#define MS ((uint64_t)1000000)
#define SEC ((uint64_t)1000000000)
#define START_NS (1000ull * SEC)                      /* CLOCK_MONOTONIC at "record" start */
#define EPOCH_2024 1704067200ll                        /* 2024-01-01T00:00:00Z */
#define NETNS0 4026532000u
#define WORLD 0x44000000ull                            /* MPICH's MPI_COMM_WORLD */
#define REASON_QDISC_DROP 5u
#define QDISC_HANDLE 0x10000u
#define OFFSET_NS (10 * MS)                            /* first period starts here */

enum { SL_ALLREDUCE = 1, SL_STEP, SL_PHASE, SL_COMM_RANK };

/* A set of sequence numbers: "3", "3-5", "3/10" (3, 13, 23, ...), "none". */
struct seqset {
	uint64_t a, b, every;       /* a..b, or a + k * every when every > 0; a = 0: empty */
};

struct opts {
	const char *out;
	uint64_t duration, bin, period, compute, optimizer, ctr_period, lost_len, seed;
	uint64_t size;
	unsigned hosts, rpp, link_mbit, congest_factor;
	unsigned congest_host;      /* 1-based */
	struct seqset congest;
	int straggler;              /* world rank, -1 none */
	struct seqset straggle;
	uint64_t straggle_ns;
	bool steps, rdma, lost, quiet;
	uint64_t lost_seq;          /* 0: auto */
	uint64_t events;
	unsigned only_host;         /* 1-based: write only that host's records (0: all) */
	unsigned stop_reason;       /* the END's enum ft_stop_reason */
	char cmdline[256];
};

struct gen {
	struct opts o;
	struct capture_writer *w;
	uint64_t rng;
	uint64_t end_ns;
	unsigned nranks;
	uint64_t ncoll;
	uint64_t records;
	/* per host: conservation counters and RDMA counters (raw) */
	uint64_t *tx_bytes, *tx_pkts, *rx_bytes, *rx_pkts;
	uint64_t *qdrops;
	uint64_t (*hw)[4], (*pc)[3], (*eth)[2];
	uint64_t next_ctr;          /* next counter sample time */
	uint64_t lost_from, lost_to, lost_count;
	uint64_t ce_total;
	int err;
};

#define REC(r, t) do { memset(&(r), 0, sizeof(r)); (r).hdr.type = (t); (r).hdr.size = sizeof(r); } while (0)

static inline uint32_t host_netns(unsigned h) { return NETNS0 + 1 + h; }          /* h 0-based */
static inline uint32_t rank_pid(unsigned r) { return 4000 + r; }
static inline unsigned rank_host(const struct gen *g, unsigned r) { return r / g->o.rpp; }

/* Counter group K (0 RDMA hw counters, 1 port counters, 2 ethtool) of host H (0-based). */
static inline uint32_t group_id(unsigned h, unsigned k) { return h * 3 + k + 1; }

/* The host of counter group GROUP (group_id's inverse), -1 for none. */
static inline int group_host(const struct gen *g, uint32_t group)
{
	return group >= 1 && group <= g->o.hosts * 3 ? (int)((group - 1) / 3) : -1;
}


/* ---- scenario.c */

/* Write the whole capture to G->o.out.  0 or -errno, said on stderr. */
int generate(struct gen *g);

/* ---- setup.c */

/* The records that describe the run, written once at the start. */
void setup_records(struct gen *g);

/* ---- counters.c */

/* The RDMA ports, counter groups and counter names (--rdma). */
void rdma_records(struct gen *g);
/* The counter samples due up to T (the counters grow between them as the periods add to them). */
void ctr_until(struct gen *g, uint64_t t);

/* ---- gen.c */

uint64_t jitter(struct gen *g, uint64_t max);
/* Whether SEQ is in S. */
bool in_set(const struct seqset *s, uint64_t seq);
/* Append REC to the capture, unless --only-host leaves its host out; errors stop at the first (g->err). */
void emit(struct gen *g, const void *rec);
/* The ring flow host H (0-based) of NH sends on. */
struct ft_flow flow_of(unsigned h, unsigned nh);

#endif
