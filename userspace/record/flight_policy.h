/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder's arithmetic, apart from any file or socket so that
 * it can be tested alone (docs/flight-recorder.md):
 *
 *  - retention: which of the oldest closed segments go, so that the ring
 *    keeps at least the last --keep, at most --keep-size bytes and at most
 *    --switch-max-files segments (a segment a snapshot still copies stays);
 *  - rate policies, LTTng's: every:N acts on every Nth firing of a rule,
 *    once-after:N on the Nth only;
 *  - snapshot windows: a trigger opens [t - pre, t + post]; one inside a
 *    running post-window extends it (up to the longest a snapshot may be)
 *    instead of copying the same time twice; a new window never starts
 *    before the previous one ended; a cool-down holds new ones back.
 */
#ifndef FABTRACE_FLIGHT_POLICY_H
#define FABTRACE_FLIGHT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/fabtrace.h"

/* ---- retention ---- */

struct flight_limits {
	uint64_t keep_ns;       /* keep segments until the younger ones cover this much; 0 no bound */
	uint64_t keep_bytes;    /* closed segments + the open one; 0 no bound */
	uint32_t max_files;     /* closed segments; 0 no bound */
};

/* A closed segment, as retention sees it. */
struct flight_seg_span {
	uint64_t start_ns, end_ns;  /* CLOCK_MONOTONIC */
	uint64_t bytes;
	bool pinned;                /* a snapshot still has to copy it */
};

/*
 * How many of SEGS[0..N) (closed, oldest first) to delete at NOW_NS, with
 * OPEN_BYTES in the segment being written.  The oldest goes while:
 *   - the ones after it still cover keep_ns (NOW_NS - its end >= keep_ns),
 *   - or all of them with the open one exceed keep_bytes,
 *   - or there are more than max_files;
 * and it is not pinned (retention stops at a pinned segment: the ring stays
 * one piece of time).
 */
size_t flight_retain_drop(const struct flight_seg_span *segs, size_t n, uint64_t open_bytes,
			  uint64_t now_ns, const struct flight_limits *l);

/* The size at which a segment is closed: SWITCH_BYTES (0: none), but at most
 * a quarter of keep_bytes, so that the ring holds several; 0 = no size bound. */
uint64_t flight_seg_bytes(uint64_t switch_bytes, const struct flight_limits *l);

/* ---- rate policy ---- */

enum flight_rate_kind {
	FLIGHT_RATE_ALL = 0,    /* every firing acts */
	FLIGHT_RATE_EVERY,      /* every:N: the Nth, 2Nth, ... */
	FLIGHT_RATE_ONCE_AFTER, /* once-after:N: the Nth only */
};

struct flight_rate {
	enum flight_rate_kind kind;
	uint32_t n;
};

/* "every:N" or "once-after:N" (N >= 1).  0 or -EINVAL. */
int flight_rate__parse(const char *s, struct flight_rate *r);
/* "every:3", "once-after:1", "all" */
const char *flight_rate__name(const struct flight_rate *r, char *buf, size_t len);
/* May the FIRED'th firing (from 1) of a rule act? */
bool flight_rate__allows(const struct flight_rate *r, uint64_t fired);

/* Firings per rule: the rule's text names it. */
#define FLIGHT_MAX_RULES 32
struct flight_rules {
	char name[FLIGHT_MAX_RULES][64];
	uint64_t fired[FLIGHT_MAX_RULES];
	size_t n;
};
/* Count one firing of RULE; the count so far, this one included.  Rules past
 * FLIGHT_MAX_RULES share the last entry. */
uint64_t flight_rules__fire(struct flight_rules *r, const char *rule);

/* ---- snapshot windows ---- */

struct flight_policy {
	uint64_t pre_ns, post_ns;
	uint64_t max_ns;        /* longest window a snapshot may grow to */
	uint64_t cooldown_ns;   /* after a window ends, new ones wait this long */
	struct flight_rate rate;
};

struct flight_window {
	uint32_t snap;          /* the latest snapshot's number (0: none yet) */
	bool active;            /* its post-window runs */
	uint64_t from_ns, to_ns;/* its window (CLOCK_MONOTONIC) */
	uint64_t ended_ns;      /* where the previous window ended (0: none) */
};

/*
 * A trigger for the moment T_NS, arriving at NOW_NS, whose rate policy said
 * RATE_OK: what to do (enum ft_trigger_action), with W updated: a new
 * window (SNAPSHOT) [T - pre, max(T + post, NOW)], clipped to start where
 * the previous one ended and to last at most max_ns; a longer one
 * (EXTENDED); or nothing (RATE, COOLDOWN, FULL: the window is as long as it
 * may grow, COVERED: it would hold nothing a snapshot does not hold).
 */
int flight_window__trigger(struct flight_window *w, const struct flight_policy *p, uint64_t t_ns,
			   uint64_t now_ns, bool rate_ok);
/* Whether the active window's post-window is over at NOW_NS (close it then). */
bool flight_window__due(const struct flight_window *w, uint64_t now_ns);
/* The active window is closed (saved, or cut short at the stop). */
void flight_window__close(struct flight_window *w, uint64_t end_ns);

#endif
