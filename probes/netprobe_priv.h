/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the files of the network probe family share (probes/netprobe.h is
 * their public side).  netprobe_lifecycle.c loads, attaches and drains,
 * over:
 *   netprobe_variants.c  the hooks and their variants, chosen by trying them
 *                        on this kernel (features); the families
 *   netprobe_coverage.c  tracepoint hits against program runs
 *   netprobe_flush.c     the bins still open in the per-CPU maps at stop, and
 *                        the qdisc bins when the deferred probes detach
 * netprobe_coverage.c uses the hooks of netprobe_variants.c; neither calls
 * netprobe_lifecycle.c, and netprobe_flush.c calls none of them.
 */
#ifndef FABTRACE_NETPROBE_PRIV_H
#define FABTRACE_NETPROBE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>

#include "probes/coverage.h"
#include "probes/netprobe.h"

enum obj_id { OBJ_NET, OBJ_TCP, OBJ_MAX };

/* The most variants a hook has (netp_hooks[]). */
#define NETP_NVARIANTS 4

/* One hook (netp_hooks[], by enum ft_probe_id). */
struct netp_hook {
	enum ft_probe_id id;       /* its name: probe__name() */
	const char *tracepoint;
	const char *system;        /* tracefs event system of the tracepoint */
	enum obj_id obj;
	const char *progs[NETP_NVARIANTS];
	const char *kinds[NETP_NVARIANTS];
};
extern const struct netp_hook netp_hooks[FT_PROBE_MAX];

struct netprobe {
	struct net_bpf *net;
	struct tcp_bpf *tcp;
	struct ring_buffer *rb;
	struct bpf_link *links[FT_PROBE_MAX];
	int *tcx_fds[FT_PROBE_MAX];        /* per hook with a tcx variant: [n_slots] links, -1 = none */
	uint64_t tcx_hooks;                /* bit (1 << hook) per hook attached as tcx */
	int profile;                       /* enum netprobe_profile */
	int chosen[FT_PROBE_MAX];          /* variant index, -1 = none */
	struct probe_status st[FT_PROBE_MAX];
	netprobe_sample_fn fn;
	void *ctx;
	int ncpus;
	uint32_t (*slots)[2];              /* (netns, ifindex) of each slot (-i), for the flush */
	const char *const *iface_ns;       /* [n_slots] each slot's netns (netprobe_opts.iface_ns) */
	uint64_t deferred;                 /* bit (1 << hook) per loaded deferred hook */
	int n_slots;
	int cb_err;
	/* coverage: tracepoint hits (perf) against program runs (`runs` maps) */
	struct tp_counter hits[FT_PROBE_MAX];
	bool cov_attached[FT_PROBE_MAX];   /* counted: the hook was attached */
	bool cov_taken;                    /* cov_* below hold the final reading */
	bool cov_misses;                   /* hits = runs + the kernel's recursion_misses */
	bool cov_pid1;                     /* ... + the hits in PID 1's threads (hits[] count those) */
	int cov_mode;                      /* enum netprobe_coverage */
	bool cov_known[FT_PROBE_MAX];
	uint64_t cov_hits[FT_PROBE_MAX], cov_runs[FT_PROBE_MAX];
	/* a deferred hook's counters are open only while it is attached (open,
	 * they would cost the tracepoint's perf hook outside the windows too):
	 * the hits of the windows already over, and whether one failed to open */
	uint64_t cov_window_hits[FT_PROBE_MAX];
	bool cov_window_unknown[FT_PROBE_MAX];
};

/* Whether hook i is attached, to its tracepoint or to the chosen interfaces. */
static inline bool netp_hook_on(const struct netprobe *p, int i)
{
	return p->links[i] || (p->tcx_hooks & (1ull << i));
}

/* ---- netprobe_variants.c */

/* A BPF object of one skeleton: thin wrappers so hook code is not written twice per skeleton. */
struct netp_obj {
	enum obj_id id;
	void *skel;
	struct bpf_object *o;
};

int netp_obj_open(struct netp_obj *ob, enum obj_id id);
/* Load an opened object through its skeleton, which maps its global data
 * (.bss) so that the recorder and the programs share it; 0 or -errno. */
int netp_obj_load(struct netp_obj *ob);
void netp_obj_destroy(struct netp_obj *ob);
struct bpf_map *netp_obj_map(struct netp_obj *ob, const char *name);
/* Load no program of OB unless told (bpf_program__set_autoload). */
void netp_autoload_none(struct netp_obj *ob);
/* Whether variant V of hook H is a tcx program (attached per interface, with -i only). */
bool netp_variant_is_tcx(const struct netp_hook *h, int v);
/* Whether variant V of hook H exists and may be used (a tcx variant: only if TCX). */
bool netp_variant_allowed(const struct netp_hook *h, int v, bool tcx);
/* The tcx attach point of hook H: egress for the transmit bins, else ingress. */
bool netp_hook_egress(const struct netp_hook *h);
/*
 * Pick the first variant of each hook that is allowed and that loads
 * and attaches alone (-1: none, or left out by SKIP), with each one's
 * status; tcx only for the hooks in TCX_OK (bit 1 << hook; none without -i).
 */
void netp_choose_variants(int chosen[FT_PROBE_MAX], struct probe_status st[FT_PROBE_MAX], uint64_t skip,
			  uint64_t tcx_ok);

/* ---- netprobe_coverage.c */

/* Start counting the attached hooks' tracepoint hits, in P's --coverage mode. */
void netp_open_counters(struct netprobe *p);
/* The final reading of hits and runs (once; before the links go). */
void netp_take_coverage(struct netprobe *p);
/* A deferred hook's counters: opened after it attached (ON), else read into
 * its windows' hits and closed before it detaches. */
void netp_coverage_window(struct netprobe *p, int i, bool on);

/* ---- netprobe_flush.c */

/* With the qdisc programs detached and the timers held (netp_hold_timers():
 * they write out stages too): hand on their staged and open bins, then
 * clear them, so a later attach starts afresh.  0 or -errno. */
int netp_flush_qdisc(struct netprobe *p);

/* The timers that write out what a CPU holds (net.bpf.c's stage_timers):
 * STATE (enum netp_timers) set, and once held, every callback already
 * running finished. */
enum netp_timers { NETP_TIMERS_RUN, NETP_TIMERS_PAUSE, NETP_TIMERS_STOP };
void netp_hold_timers(struct netprobe *p, enum netp_timers state);

#endif
