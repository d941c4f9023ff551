/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `fabtrace compare` (docs/compare.md): runs A against runs B.  Each capture
 * is loaded through the model and the correlator once and reduced to a run
 * (struct cmp_run): its configuration flattened into settings, its job's
 * shape, one value per metric (per collective group, link, queue, counter
 * group and the job) and the samples behind the CDFs and time series.  The
 * runs of both sides are then paired metric by metric (struct cmp_metric):
 * the per-run values of each side, the difference of their medians, a
 * bootstrap interval, a Mann-Whitney p and whether it is significant.
 *
 * The code (userspace/compare/), each file over the ones after it:
 * cmp_build.c (cmp__build: the driver); cmp_run.c (a capture into a run)
 * over cmp_extract_coll.c (collective groups, the time budget),
 * cmp_extract_net.c (links, queues, counters) and cmp_config_flat.c (the
 * settings flattened); cmp_config.c (the sides' diff, knobs, warnings);
 * cmp_metrics.c (pairing and statistics); cmp_store.c (a run's arrays).
 * cmp_text.c and cmp_json.c write the result, with cmp_fmt.c (names and
 * units); viz/compare_html.c draws it.
 */
#ifndef FABTRACE_COMPARE_H
#define FABTRACE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CMP_SCHEMA "fabtrace-compare-1"
#define CMP_DEF_ALPHA 0.05
#define CMP_DEF_BOOT 2000
#define CMP_DEF_SEED 1
#define CMP_DEF_LEVEL 0.95
#define CMP_DEF_BURST_SHARE 0.8
#define CMP_AA_MIN_RUNS 4          /* --aa: side A needs this many runs */

struct cmp_opts {
	double alpha;               /* significant at p < alpha (and the interval excludes 0) */
	unsigned nboot;             /* bootstrap resamples */
	uint64_t seed;              /* the bootstrap's seed: the same data, the same interval */
	double level;               /* the interval's level (0.95) */
	double burst_share;         /* a microburst: bins at >= this share of the link's capacity */
	bool aa;                    /* also split side A into two halves (A/A: the noise floor) */
	bool force;                 /* compare jobs of different shapes (else refused) */
};

void cmp_opts__init(struct cmp_opts *o);

/* Which way is better for a metric. */
enum cmp_better {
	CMP_LOWER = 0,              /* time, drops, sojourn, shares of waiting and network */
	CMP_HIGHER,                 /* bandwidth */
	CMP_NEUTRAL,                /* neither (the usual share, bursts of a faster link) */
};

/* One value of one run: metric NAME of GROUP. */
struct cmp_obs {
	char group[96];             /* "allreduce 1.0 MB x4", "eth0@h2", "tbf 1: on eth0@h2", "job" */
	char name[40];              /* "time_p50", "drops_per_gb", ... */
	const char *unit;           /* static: "s", "B/s", "share", "1/GB", "count", "B" */
	unsigned better;            /* enum cmp_better */
	bool zero_fill;             /* a run that has GROUP but not this metric counts 0 */
	double v;
};

/* Samples behind a CDF and a time series: X at T (seconds since the capture start). */
struct cmp_dist {
	char group[96];
	char name[40];              /* "duration" (collectives), "sojourn" (queues) */
	const char *unit;
	double *t, *x;
	size_t n, cap;
};

/* One setting, flattened so that two recordings name it alike (cmp_config.c). */
struct cmp_setting {
	char *object;               /* "qdisc tbf 1: on eth0@h2", "netns h1", "sockets in h1" */
	char *cls;                  /* what kind of knob it is: "qdisc tbf 1:", "sysctl", "sockets" */
	char *key;                  /* "limit_bytes", "net.ipv4.tcp_congestion_control", "cc" */
	char *value;                /* a set's values sorted, joined by "," */
	bool set;                   /* a set of observations (sockets, processes): a run without it says nothing */
	bool changed;               /* changed during the recording (the first value is kept) */
};

/* The job's shape: its (op, size, ranks) groups and its ranks. */
struct cmp_shape_group {
	char name[96];
	uint64_t count;
};

struct cmp_run {
	char *path;
	bool truncated;
	uint64_t duration_ns;
	struct cmp_obs *obs; size_t nobs, cap_obs;
	struct cmp_dist *dists; size_t ndists, cap_dists;
	struct cmp_setting *settings; size_t nsettings, cap_settings; /* sorted by object, key */
	struct cmp_shape_group *groups; size_t ngroups, cap_groups;
	uint32_t nranks;            /* ranks with a world rank */
	bool have_config;           /* the capture has configuration records */
};

/* One difference of configuration between the sides. */
struct cmp_diff {
	char *object, *cls, *key;
	char *a, *b;                /* the side's value; "(absent)" when not recorded there */
};

/* Differences of one key from one value to one other, on one or more objects. */
struct cmp_knob {
	char *cls, *key, *a, *b;
	char *objects;              /* "eth0@h2, p2@sw" */
	bool derived;               /* follows from another knob (the sockets' cc from tcp_congestion_control) */
};

struct cmp_metric {
	char group[96], name[40];
	const char *unit;
	unsigned better;
	double *a, *b;              /* per-run values of each side (runs without a value left out) */
	size_t na, nb;
	double a_med, b_med;
	double delta, delta_pct;    /* b_med - a_med; its share of a_med (NaN when a_med is 0) */
	double ci_lo, ci_hi;        /* bootstrap interval of the difference of medians */
	double p;                   /* Mann-Whitney, two-sided */
	bool tested;                /* both sides have a value */
	bool significant;
	int direction;              /* +1 better in B, -1 worse, 0 not significant or neutral */
	bool aa_significant;        /* --aa: the same metric between A's halves */
	double aa_p;
};

struct cmp_side {
	struct cmp_run *runs;
	size_t nruns;
};

struct cmp {
	struct cmp_opts opts;
	struct cmp_side a, b;
	struct cmp_diff *diffs; size_t ndiffs;
	struct cmp_knob *knobs; size_t nknobs;
	size_t nknobs_counted;      /* knobs not derived */
	const char *config_unknown; /* who has no configuration records ("side A has", "side B
				     * has", "sides A and B have"): no diff at all; NULL when both have some */
	char **warnings; size_t nwarnings;
	struct cmp_metric *metrics; size_t nmetrics;
	size_t significant, better, worse; /* counts over metrics */
	bool aa_done;
	size_t aa_tested, aa_significant;
	bool shape_differs;
};

/*
 * Load PATH into RUN (model, correlation, extraction).  0, or -errno with
 * the reason in ERR (-EIO: corrupt, -EINVAL: not a capture, -ENOMEM).
 */
int cmp__run_load(const char *path, const struct cmp_opts *o, struct cmp_run *run, char *err, size_t errlen);
void cmp__run_free(struct cmp_run *run);

/*
 * The comparison of the runs of A and B (taken over: freed with the result).
 * 0; -EMLINK when the jobs differ in shape and opts.force is not set (the
 * warning says how, in ERR); -ENOMEM.
 */
int cmp__build(const struct cmp_opts *o, struct cmp_run *a, size_t na, struct cmp_run *b, size_t nb,
	       struct cmp **out, char *err, size_t errlen);
void cmp__free(struct cmp *c);

/* The parts, exposed for cmp_build.c and the unit tests. */

/* Append an observation / a sample; 0 or -ENOMEM. */
int cmp_run__obs(struct cmp_run *r, const char *group, const char *name, const char *unit, unsigned better,
		 bool zero_fill, double v);
int cmp_run__sample(struct cmp_run *r, const char *group, const char *name, const char *unit, double t, double x);
int cmp_run__setting(struct cmp_run *r, const char *object, const char *cls, const char *key, const char *value,
		     bool set, bool changed);

/* The metrics of the runs of both sides, each with its statistics.  0 or -ENOMEM. */
int cmp_metrics__pair(const struct cmp_run *a, size_t na, const struct cmp_run *b, size_t nb,
		      const struct cmp_opts *o, struct cmp_metric **out, size_t *nout);
/* The statistics of one metric from its values (a, na, b, nb set).  0 or -ENOMEM. */
int cmp_metrics__stats(struct cmp_metric *m, const struct cmp_opts *o);
void cmp_metrics__free(struct cmp_metric *v, size_t n);

/* The configuration diff of the sides (C's runs), its knobs and warnings.  0 or -ENOMEM. */
int cmp_config__diff(struct cmp *c);
/* Sort a run's settings (object, key); sets of observations merged.  0 or -ENOMEM. */
int cmp_config__finish(struct cmp_run *r);

/* A warning for the result (printf-like).  0 or -ENOMEM. */
int cmp__warn(struct cmp *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A value of UNIT for people: "2.10 ms", "1.2 GB/s", "12.5%", "340/GB". */
const char *cmp__fmt(const char *unit, double v, char *buf, size_t len);
/* A metric's name for people: "time p50", "drops per GB". */
const char *cmp__metric_label(const char *name);

/* Output: text (the first screen first; ALL: also the metrics 0 everywhere), JSON (docs/compare.md;
 * SCRIPT_SAFE: to sit in an HTML <script> element). */
int cmp__text(const struct cmp *c, FILE *f, bool all);
int cmp__json(const struct cmp *c, FILE *f, bool pretty, bool script_safe);

#endif
