/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder's long tier (docs/flight-recorder.md, "Retention
 * tiers"): one line per collective, kept for days after the segments that
 * held it are gone.
 *
 *   hist_line.c       one summary line: written (JSON, one line) and read back
 *   hist_store.c      DIR/summaries/YYYY-MM-DD.jsonl: appending whole lines,
 *                     deleting whole days past --keep-summaries
 *   hist_summarize.c  one closed segment through the model and the correlator,
 *                     as `report` loads a capture, into lines
 *   hist_worker.c     the thread that summarizes segments off the recorder's path
 *   hist_read.c       the reader (`fabtrace history`): buckets, the budget, the worst
 *
 * The files call one way: the worker over summarize over line and store; the
 * reader over line and store.
 */
#ifndef FABTRACE_HISTORY_H
#define FABTRACE_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_SUBDIR "summaries"
#define HIST_LINE_MAX 2048

/* One collective instance, as its summary line says it. */
struct hist_line {
	int64_t wall_ns;            /* its first entry, CLOCK_REALTIME */
	char op[24];
	uint64_t seq;
	char comm[40];              /* as the report names it */
	uint64_t size_bytes;
	uint32_t nranks, members;
	bool partial, open;         /* not every rank in this segment; not returned */
	uint64_t span_ns;
	char verdict[12];           /* "ok", "network", "rank", "unknown" */
	/* its time budget (docs/verdicts.md): total = usual + waiting + network + unexplained */
	uint64_t total_ns, waiting_ns, usual_ns, network_ns, unexplained_ns;
	int64_t waiting_rank;       /* the rank waited for, -1 none */
	char link[64];              /* the network share's main link, "" none */
	char why[192];              /* the evidence bits' names, comma-separated */
	char seg[64];               /* the segment it was summarized from */
	int64_t start_rel_ns;       /* its first entry, from that segment's start (report's start_rel_ns) */
};

/* LINE as one JSON object and a newline into BUF.  Its length, or -1 when it does not fit. */
int hist_line__format(const struct hist_line *l, char *buf, size_t len);
/* One line (without or with its newline) into L.  0, or -1: not a summary line. */
int hist_line__parse(const char *s, struct hist_line *l);

/* ---- the day files ---- */

/* "YYYY-MM-DD.jsonl" of WALL_NS (UTC) into BUF. */
void hist_store__day_name(int64_t wall_ns, char *buf, size_t len);
/* Whether the day file NAME ends before NOW_S - KEEP_S (every line in it is older): a
 * name that is not a day file is never expired. */
bool hist_store__expired(const char *name, int64_t now_s, int64_t keep_s);
/* Make DIR/summaries.  0, or -errno with ERR. */
int hist_store__mkdir(const char *dir, char *err, size_t errlen);
/*
 * Append N lines (formatted into TEXT, LINES[i] the wall time of the i-th,
 * OFF[i] its offset in TEXT; sorted by time) to their day files in
 * DIR/summaries, each file opened O_APPEND and written whole lines at once,
 * then fsync'd.  0, or -errno with ERR.
 */
int hist_store__append(const char *dir, const char *text, const size_t *off, const int64_t *wall_ns,
		       size_t n, char *err, size_t errlen);
/* Delete the day files of DIR/summaries that ended more than KEEP_S before NOW_S.  How many. */
size_t hist_store__retain(const char *dir, int64_t now_s, int64_t keep_s);

/* ---- one segment ---- */

/* The keys (op, comm, seq) a segment summarized: the next one skips them. */
struct hist_keys {
	uint64_t *h;
	size_t n, cap;
};
void hist_keys__free(struct hist_keys *k);

/*
 * The capture at PATH (a closed segment called NAME) through the model and the correlator with the report's
 * defaults; every instance not in PREV (the previous segment's keys) gets a
 * line appended to DIR's day files; NEXT gets this segment's keys.  *NLINES
 * the lines written.  0, or -errno with ERR.
 */
int hist__summarize(const char *path, const char *name, const char *dir, const struct hist_keys *prev,
		    struct hist_keys *next, size_t *nlines, char *err, size_t errlen);

/* ---- the worker ---- */

struct hist_worker;
struct hist_worker_stats {
	uint64_t segments, lines, failed, dropped, days_deleted;
	char last_error[256];
};

/* Summaries of DIR's segments kept KEEP_S seconds (0: no bound).  0, or -errno with ERR. */
int hist_worker__start(struct hist_worker **w, const char *dir, int64_t keep_s, char *err, size_t errlen);
/*
 * A segment closed (the flight recorder's callback, on its thread): its file
 * is opened at once, so that retention deleting it does not lose it, and
 * queued for the worker.  Never waits.
 */
void hist_worker__segment_closed(void *ctx, const char *path, const char *name);
/* Finish what is queued, stop the thread. */
void hist_worker__stop(struct hist_worker *w);
void hist_worker__stats(struct hist_worker *w, struct hist_worker_stats *st);
void hist_worker__free(struct hist_worker *w);

/* ---- the reader ---- */

struct hist_read_opts {
	int64_t from_ns, to_ns;     /* REALTIME; 0: no bound */
	uint64_t bucket_ns;         /* default 1 h */
	size_t top;                 /* the worst collectives shown, default 10 */
	bool json;
};

/* DIR (a flight recorder's, or its summaries/) read and written to OUT.  0; 1 when
 * nothing could be read (printed). */
int hist__read(const char *dir, const struct hist_read_opts *o, FILE *out);

#endif
