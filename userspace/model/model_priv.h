/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model's loading state, shared by its files (model_store.c,
 * model_add.c, model_links.c, model_phases.c, model_finish.c,
 * model_lookup.c, model_load.c): keyed vectors, plain vectors, the raw records kept
 * until model__finish(), and the sort orders more than one file uses.
 * Not for use outside userspace/model/.
 */
#ifndef FABTRACE_MODEL_PRIV_H
#define FABTRACE_MODEL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "userspace/capture/capture.h"
#include "userspace/model/model.h"
#include "userspace/model/model_config.h"
#include "userspace/model/model_counters.h"

/* ---- keyed vector ---- */

struct kvec {
	unsigned char *items;
	size_t isz, ksz, n, cap;
	uint32_t *slots;    /* index + 1, 0 = empty */
	size_t nslots;      /* power of two */
};

/* ---- private loading state ---- */

struct reason_name {
	uint32_t reason;
	char name[56];
};

/* A retransmit or a drop while loading: flows and interfaces get their final indices in finish. */
struct rtx_raw {
	uint64_t ts_ns;
	struct ft_flow key;
	uint32_t segs;
	uint32_t trigger;
	uint32_t srtt_us;
	uint32_t pad;
};

struct cong_raw {
	uint64_t ts_ns;
	struct ft_flow key;
	uint8_t old_state, new_state;
	uint8_t pad[6];
};

struct resume_raw {
	uint64_t from_ns, ts_ns;
	struct ft_flow key;
	uint32_t packets_out;
};

struct drop_raw {
	uint64_t ts_ns;
	uint32_t reason, netns, ifindex, pad;
};

/* A growable array of plain records. */
struct vec {
	void *items;
	size_t n, cap, isz;
};

/* What a window holds back (model_window.c). */
struct mdl_held_ctr {
	void *rec;                  /* a copy of the group's last sample before the window */
	bool closed;                /* its first sample at or after the window's end was kept */
};

struct mdl_window {
	struct ft_phase *open;      /* marker begins before the window, not yet ended */
	size_t nopen, capopen;
	struct mdl_held_ctr *ctr;   /* by counter group id */
	size_t nctr;
	uint8_t *pass;              /* per block of model_opts.blocks: enum capture_block_use (mdl_window_plan) */
};

struct model_priv {
	struct kvec ifaces, qdiscs, flows, drops, lost, cong, reasons, probes, coverage;
	struct kvec slots, comms, procs, owners;
	struct model_bin *raw;
	size_t nraw, capraw;
	struct model_qbin *qraw;
	size_t nqraw, capqraw;
	struct vec phases, req_dones, rtx, dropev, congev, resumeev;
	struct vec lostev;          /* struct model_lost_ev */
	struct ctr_load *ctr;       /* counter sampler records (model_counters.c) */
	struct mdl_window win;      /* with model_opts.window */
	uint64_t max_ts;
	bool any_ts;
};

/* The latest timestamp seen extends the capture's span. */
static inline void mdl_see_ts(struct model *m, uint64_t ts)
{
	struct model_priv *p = m->priv;

	if (!p->any_ts || ts > p->max_ts)
		p->max_ts = ts;
	p->any_ts = true;
}

/* window (model_window.c): ADD feeds a record to the model, unfiltered */
typedef int (*mdl_add_fn)(struct model *m, const struct ft_rec_hdr *rec);
/* Whether the window keeps REC: 1 or 0; -ENOMEM.  May feed held records through ADD first. */
int mdl_window_keep(struct model *m, const struct ft_rec_hdr *rec, mdl_add_fn add);
/* Which blocks of model_opts.blocks the window passes over (enum capture_block_use); 0 or -ENOMEM */
int mdl_window_plan(struct model *m);
/* capture_skip_fn for a windowed load: how the plan reads block B; one
 * passed over counts as read (the capture's span and records grow) */
enum capture_block_use mdl_window_skips(void *model, const struct capture_block_sum *b);
/* capture_keep_fn: the records a window needs wherever they are (markers) */
bool mdl_window_holds(const struct ft_rec_hdr *rec);
/* At finish: feed the marker begins still open at the window's start.  0 or -errno. */
int mdl_window_flush(struct model *m, mdl_add_fn add);
void mdl_window_free(struct mdl_window *w);
/* model_add.c: mdl_window_flush() with its own ADD; model__finish() calls it first */
int mdl_add_held(struct model *m);

/* keyed vector (model_store.c) */
void mdl_kvec_init(struct kvec *v, size_t isz, size_t ksz);
void mdl_kvec_free(struct kvec *v);
void *mdl_kvec_at(const struct kvec *v, size_t i);
/* Index of the item with KEY, -1 if none. */
long mdl_kvec_find(const struct kvec *v, const void *key);
/* Index of the item with KEY, created zeroed (with its key) if absent; -1 on ENOMEM. */
long mdl_kvec_get(struct kvec *v, const void *key, bool *created);
/* Rebuild the hash table with NSLOTS slots (after the items were reordered); -1 on ENOMEM. */
int mdl_kvec_reindex(struct kvec *v, size_t nslots);
/* plain vector (model_store.c): a new, uninitialised item at the end, NULL on ENOMEM */
void *mdl_vec_push(struct vec *v);
void mdl_vec_free(struct vec *v);

static inline int cmp_u32(uint32_t a, uint32_t b) { return a < b ? -1 : a > b; }
static inline int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }
/* Flow keys: by netns, family, addresses, ports (model_finish.c). */
int mdl_cmp_flow_key(const struct ft_flow *x, const struct ft_flow *y);
/* A flow's key: ifindex and padding zeroed, IPv4 addresses without trailing bytes (model_add.c). */
void mdl_flow_key(const struct ft_flow *f, struct ft_flow *key);

/* model_links.c: bins, bursts, link statistics, conservation, queues */
/* Sort the raw bins, sum equal keys, give the interfaces (renumbered by REMAP) their slices. */
int merge_bins(struct model *m, const uint32_t *remap);
void mdl_dir_stats(struct model *m, struct model_dir *d);
int mdl_detect_bursts(struct model *m, struct model_dir *d, uint32_t iface, uint32_t dir,
		  size_t *bcap);
/* Conservation check of one interface against its start/stop counters. */
void mdl_conserve(struct model *m, struct model_iface *f);
void mdl_conserve_explain_skipped(struct model *m, int dir);
/* The same as merge_bins for qdisc bins (qdiscs renumbered by QREMAP). */
void merge_qbins(struct model *m, const uint32_t *qremap);
void mdl_qdisc_stats(struct model_qdisc *q);
/* Take the sojourn samples a FIFO's bins show to be impossible out of Q's bins (model_links.c). */
void mdl_qdisc_bound_sojourn(struct model *m, struct model_qdisc *q);

/* model_phases.c: phase records and single events, after interfaces and flows are final */
int mdl_finish_phases(struct model *m);
/* model_sched.c: a run-queue wait record in; sorted at the finish */
int mdl_add_sched_wait(struct model *m, const struct ft_sched_wait *r);
void mdl_finish_sched(struct model *m);

#endif
