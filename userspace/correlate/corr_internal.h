/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the correlator (the files of userspace/correlate/): the stages that
 * corr__build() (corr_build.c) runs in order, and the small helpers the stages
 * share.  Callers outside correlate/ use correlate.h only.
 *
 * Stages, in the order corr__build() runs them (each fills part of struct
 * corr from the model and the parts before it; 0 or -errno):
 *   processes.c   corr_build_procs       processes and ranks
 *   calls.c       corr_build_calls       calls and their completions
 *   spans.c       corr_build_spans       marker spans
 *                 corr_parent_calls      the span and step around each call
 *   matching.c    corr_build_instances   collectives matched across ranks
 *   op_stats.c    corr_build_opstats     per (op, size, ranks) percentiles
 *   verdicts.c    corr_verdicts          evidence, time budget (budget.c over
 *                                        costs.c) and verdict of each instance,
 *                                        and the job's budget
 *   rank_stats.c  corr_rank_stats        per-rank waits, straggling, ops
 *   steps.c       corr_build_steps       steps and named phases
 *   inferred.c    corr_infer             phases inferred from the traffic
 *   inferred_compare.c corr_compare_real inferred phases against the real windows
 */
#ifndef FABTRACE_CORR_INTERNAL_H
#define FABTRACE_CORR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "userspace/correlate/correlate.h"

int corr_build_procs(struct corr *c);
int corr_build_calls(struct corr *c);
int corr_build_spans(struct corr *c);
int corr_parent_calls(struct corr *c);
int corr_build_instances(struct corr *c);
int corr_build_opstats(struct corr *c);
int corr_verdicts(struct corr *c);
/* budget.c, run by corr_verdicts: every instance's items and each group's expected
 * transfer; then, in instance order, one instance's shares (the verdicts of
 * those before it decide whose its carried lateness is); then the job's sums */
int corr_budget_prepare(struct corr *c);
/* A baseline's sample: every rank there and closed (baseline.c says which are clean). */
bool corr_budget_judged(const struct corr_instance *in);
void corr_budget_shares(struct corr *c, size_t i);
int corr_budget_job(struct corr *c);
int corr_rank_stats(struct corr *c);
int corr_build_steps(struct corr *c);
int corr_infer(struct corr *c);
int corr_compare_real(struct corr *c);

/* ---- lookups in the model and the corr (lookup.c) ---- */

/* First phase record of PID (phases are sorted by pid), NULL if none. */
const struct model_phase *corr_first_phase_of(const struct model *m, uint32_t pid);
/* Communicators of PID: a slice of m->comms (NULL, *N = 0 when none). */
const struct model_comm *corr_comms_of(const struct model *m, uint32_t pid, size_t *n);
/* PID's record of communicator COMM, NULL if none. */
const struct model_comm *corr_comm_info(const struct model *m, uint32_t pid, uint64_t comm);
/* PID's job from its launcher's environment (FT_SLOT_JOB), 0 unknown. */
uint64_t corr_job_of(const struct model *m, uint32_t pid);
/* The process PID in c->procs (sorted by pid), NULL if none. */
const struct corr_proc *corr_proc_of(const struct corr *c, uint32_t pid);
/* A marker record (step or named phase), not a library call. */
bool corr_is_marker(const struct model_phase *p, const struct model_slot *s);
/* First event (of N sorted by time, stride SZ, time first) at or after A. */
size_t corr_first_ts_at(const void *ev, size_t n, size_t sz, uint64_t a);

/* ---- the participants of an instance (evidence.c) ---- */

struct corr_pset {
	uint32_t *netns, *pids;
	size_t nnetns, npids;
};

/* The namespaces and processes of instance IN's members.  0 or -ENOMEM. */
int corr_instance_pset(const struct corr *c, const struct corr_instance *in, struct corr_pset *ps);
void corr_pset_free(struct corr_pset *ps);
bool corr_pset_netns(const struct corr_pset *ps, uint32_t netns);
/* Is interface II on the ranks' paths: in their namespaces, or the other end of one's wire? */
bool corr_pset_iface(const struct corr *c, const struct corr_pset *ps, size_t ii);
/* budget.c: the other end of each traced interface's wire (corr.iface_peer).  0 or -ENOMEM. */
int corr_find_peers(struct corr *c);
bool corr_pset_pid(const struct corr_pset *ps, uint32_t pid);
/* Does counter group GI speak for these ranks (their namespaces; a port without a netdev)? */
bool corr_ctr_group_relevant(const struct model *m, const struct corr_pset *ps, uint32_t gi);
/* Is flow FI the ranks' (owned by a participant, else in a participant's namespace)? */
bool corr_flow_of(const struct model *m, const struct corr_pset *ps, size_t fi);
/* First bin (of N sorted by start, stride SZ) that ends after A. */
size_t corr_first_bin_after(const void *bins, size_t n, size_t sz, uint64_t a, uint64_t bin);

/* ---- the network's cost items of a transfer window (costs.c) ---- */

/* Append to *V (*N items, *CAP room) the items in [A, B) on the ranks' paths.  0 or -ENOMEM. */
int corr_costs(const struct corr *c, const struct corr_pset *ps, uint64_t a, uint64_t b,
	       struct corr_cost **v, size_t *n, size_t *cap);

/* ---- small helpers ---- */

static inline int cmp_u32(uint32_t a, uint32_t b) { return a < b ? -1 : a > b; }
static inline int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }
static inline int cmp_i64(int64_t a, int64_t b) { return a < b ? -1 : a > b; }

static inline uint64_t dur(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static inline bool is_loopback(const struct model_iface *f)
{
	return f->known && !strcmp(f->name, "lo");
}

static inline bool iface_observed(const struct model_iface *f)
{
	return (f->known && (f->flags & FT_IFACE_TRACED)) || f->dir[0].nbins || f->dir[1].nbins;
}

#endif
