/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state of one merge (hosts, pair fits, windows, warnings), shared by
 * capture/merge.c (passes 1 and 2, the clock fit) and capture/merge_write.c
 * (ids, labels, pass 3, summary).  Not for use outside these two files.
 */
#ifndef FABTRACE_MERGE_PRIV_H
#define FABTRACE_MERGE_PRIV_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/mergefit.h"
#include "userspace/capture/retime.h"

#define MAX_WINDOWS 12                     /* SPREAD_WINDOWS, and one more for pairs that had none */
#define SPREAD_WINDOWS 6                   /* spread over the time pairs overlap */
#define MAX_ADDRS 64
#define COLL_BITS 15                       /* collective instances kept per host */
#define WINDOW_LEN_NS 2000000000ull

struct coll {
	uint64_t comm, seq;       /* seq 0 = empty slot */
	uint32_t op, pad;
	uint64_t max_start, min_end;
};

struct host {
	const char *path;
	struct ft_file_header hdr;
	struct ft_host_id id;
	bool have_id;
	char label[64];
	enum capture_state state;
	char error[300];
	struct capture_block_index blocks; /* summed up by pass 1: pass 2 reads the blocks of its windows */
	uint64_t t_first, t_last;         /* host clock */
	int64_t stop_reason;              /* its END's enum ft_stop_reason; -1 without END */
	/* clock pairs: realtime - mono against mono, as a line */
	size_t nclk;
	double clk_t0, clk_sw, clk_sx, clk_sy, clk_sxx, clk_sxy;
	int64_t maxerror_us;
	bool unsynced, sync_known;
	/* ids */
	uint32_t *netns; size_t nnetns, capnetns;
	uint64_t *tif; size_t ntif, captif;  /* interfaces it traced: netns << 32 | ifindex */
	uint32_t *pids; size_t npids, cappids;
	uint32_t max_slot, max_group, max_port, max_cpu;
	struct { uint32_t netns, ifindex; } *lo; size_t nlo, caplo;
	uint8_t addrs[MAX_ADDRS][16]; size_t naddrs;     /* its own (flow saddr) */
	uint8_t peers[MAX_ADDRS][16]; size_t npeers;     /* flow daddr */
	struct { uint32_t slot, op; } *slots; size_t nslots, capslots;
	struct coll *coll; size_t ncoll;
	/* coarse map to the reference: t' = t + c_off + (t - t0) * c_drift */
	int64_t c_off;
	double c_drift;
	double c_unc;                       /* ns, < 0 unknown */
	struct mf_series win[MAX_WINDOWS];
	/* result */
	double e_a, e_b;                    /* residual e(t') = a + b (t' - tref) */
	double unc;                         /* < 0 unknown */
	uint32_t pairs;
	uint32_t flags;
	int same_as;                        /* earlier host of the same boot (one kernel, one clock), -1 */
	struct retime rt;
};

/* Recorded by one kernel (the same boot id): one clock, one pid and netns space. */
static inline bool mrg_same_kernel(const struct host *a, const struct host *b)
{
	return a->have_id && b->have_id && a->id.boot_id[0] &&
	       !strncmp(a->id.boot_id, b->id.boot_id, sizeof(a->id.boot_id));
}

struct pairfit {
	int a, b;
	bool bounds;
	double lo, hi;                      /* collective window for e_b - e_a, ns */
	size_t nwin;
	double t[MAX_WINDOWS], e[MAX_WINDOWS], s[MAX_WINDOWS], mg[MAX_WINDOWS]; /* mg: best - second score */
	double fa, fb, unc;                 /* fit; unc < 0: none */
	bool causal_ok;
};

struct merge {
	const char *out;
	bool json, quiet, anchors_only;
	uint64_t max_window;
	uint32_t format_version;            /* of the output (merge_opts) */
	struct host *h;
	size_t n;
	uint64_t bin_ns;
	size_t nwin;
	struct mf_window win[MAX_WINDOWS];  /* cores of the traffic windows, coarse clock */
	uint64_t pad_ns;
	double tref;                        /* coarse-clock time the fits are centred on */
	struct pairfit *pf; size_t npf, cappf;
	char **warnings; size_t nwarn;
	int argc; char **argv;
};


/* A warning: printed unless --json or --quiet (a damaged input: unless --json),
 * and kept for the JSON summary. */
void mrg_warnf(struct merge *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The start of a damaged input's warning: printed even with --quiet. */
#define MRG_DAMAGED "damaged input "

/* capture/merge.c */
/* The file name of a path. */
static inline const char *mrg_base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* X rounded to int64, saturated: a damaged capture's times may be anything. */
static inline int64_t mrg_sat_round(double x)
{
	return x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : x == x ? (int64_t)llround(x) : 0;
}

/* A + B, saturated. */
static inline int64_t mrg_sat_add(int64_t a, int64_t b)
{
	int64_t v;

	return __builtin_add_overflow(a, b, &v) ? (b > 0 ? INT64_MAX : INT64_MIN) : v;
}

/* A - B, saturated. */
static inline int64_t mrg_sat_sub(int64_t a, int64_t b)
{
	int64_t v;

	return __builtin_sub_overflow(a, b, &v) ? (b < 0 ? INT64_MAX : INT64_MIN) : v;
}

/* Host time on the coarse merged clock (saturated). */
static inline int64_t mrg_to_coarse(const struct host *h, uint64_t t)
{
	int64_t v, c = mrg_sat_round(((double)t - (double)h->rt.t0_ns) * h->c_drift);

	if (t > INT64_MAX)
		return INT64_MAX;
	if (__builtin_add_overflow((int64_t)t, h->c_off, &v))
		return h->c_off > 0 ? INT64_MAX : INT64_MIN;
	if (__builtin_add_overflow(v, c, &v))
		return c > 0 ? INT64_MAX : INT64_MIN;
	return v;
}

/* capture/merge_write.c */
/* merge_scan.c: pass 1 (H's capture: h->hdr, state, identity, clocks, ids,
 * collectives; -1 said); pass 2 (its traffic in M's windows; -1 out of memory) */
int mrg_pass1(struct host *h);
int mrg_pass2(const struct merge *m, struct host *h);
/* H's collective instance (comm, seq, op), added when ADD (NULL when full or absent) */
struct coll *mrg_coll_find(struct host *h, uint64_t comm, uint64_t seq, uint32_t op, bool add);

void mrg_assign_ids(struct merge *m);
void mrg_make_labels(struct merge *m);
int mrg_write_merged(struct merge *m);
void mrg_print_summary(const struct merge *m);

#endif
