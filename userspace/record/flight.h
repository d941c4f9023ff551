/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder (docs/flight-recorder.md): `record --switch-output`
 * runs indefinitely, writing rotating segments (each a complete capture)
 * into a directory and keeping the last --keep of them (at most
 * --keep-size, at most --switch-max-files); a trigger saves a snapshot,
 * the segments of [t - pre, t + post] copied into one capture that says
 * why it was taken.  Triggers: SIGUSR1, `fabtrace trigger` over the
 * control socket, and rules (one evaluator calling flight__trigger()).
 *
 * The session (session.h) hands every record to flight__sink() (it writes
 * no capture itself); the recorder's command drives the rest:
 *
 *   flight__open()    the directory, its lock, the control socket
 *   session__open(.., flight__sink, f); flight__attach(f, s)
 *   session__start(); flight__start()   SIGUSR1, the control socket and
 *                                       the snapshot thread in the loop
 *   flight__tick() every second          rotation, post-windows, retention
 *   session__finish(); flight__finish()  the last segment closed by the
 *                                       session's END; a snapshot in its
 *                                       post-window is cut there and saved
 *   flight__free()
 */
#ifndef FABTRACE_FLIGHT_H
#define FABTRACE_FLIGHT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bpf/fabtrace.h"
#include "userspace/record/flight_policy.h"
#include "userspace/record/session.h"

struct flight_opts {
	bool on;                    /* --switch-output was given: the flight recorder */
	const char *bound_opt;      /* --keep, --keep-size or --switch-max-files, the first given */
	uint64_t seg_ns, seg_bytes; /* --switch-output TIME and/or SIZE */
	bool seg_ns_set, seg_bytes_set; /* each given once at most */
	struct flight_limits lim;   /* --keep, --keep-size, --switch-max-files */
	struct flight_policy pol;   /* --snapshot-pre/-post/-max/-cooldown/-policy */
	bool snap_opt;              /* a --snapshot-* option was given */
	const char *snap_dir;       /* --snapshot-dir, NULL: the segments' directory */
	const char *control;        /* --control NAME */
};

/* Defaults: 10 s segments, keep 5 min and at most 1 GiB; snapshots 30 s + 10 s,
 * at most 5 min, every trigger, no cool-down; control socket "flight". */
void flight_opts__init(struct flight_opts *o);

enum flight_opt {
	FOPT_SWITCH_OUTPUT = SOPT_END, FOPT_MAX_FILES, FOPT_KEEP, FOPT_KEEP_SIZE,
	FOPT_PRE, FOPT_POST, FOPT_SNAP_MAX, FOPT_POLICY, FOPT_COOLDOWN, FOPT_SNAP_DIR, FOPT_CONTROL,
	FOPT_END,                   /* record numbers its own options from here */
};
#define FLIGHT_LONG_OPTS \
	{ "switch-output", required_argument, NULL, FOPT_SWITCH_OUTPUT }, \
	{ "switch-max-files", required_argument, NULL, FOPT_MAX_FILES }, \
	{ "keep", required_argument, NULL, FOPT_KEEP }, \
	{ "keep-size", required_argument, NULL, FOPT_KEEP_SIZE }, \
	{ "snapshot-pre", required_argument, NULL, FOPT_PRE }, \
	{ "snapshot-post", required_argument, NULL, FOPT_POST }, \
	{ "snapshot-max", required_argument, NULL, FOPT_SNAP_MAX }, \
	{ "snapshot-policy", required_argument, NULL, FOPT_POLICY }, \
	{ "snapshot-cooldown", required_argument, NULL, FOPT_COOLDOWN }, \
	{ "snapshot-dir", required_argument, NULL, FOPT_SNAP_DIR }, \
	{ "control", required_argument, NULL, FOPT_CONTROL }
/* One option C with ARG: 1 handled, 0 not one of these, -1 bad value (printed). */
int flight_opts__parse(struct flight_opts *o, int c, const char *arg);
/* After parsing, with the session's options and whether -o was given:
 * 0, or -1 (printed: a usage error). */
int flight_opts__check(const struct flight_opts *o, const struct session_opts *so, bool out_given);

/* ---- the recorder ---- */

struct flight;

/* What fired (flight__trigger()). */
struct flight_trigger {
	enum ft_trigger_kind kind;
	const char *rule;           /* names it, and counts its firings: "SIGUSR1", "coll.slow > 3x" */
	int64_t value, threshold;   /* the value that fired and the rule's threshold, in UNIT */
	const char *unit;           /* "ns", "1/s", "x1000", NULL none */
	const char *reason;         /* free text, NULL none */
	uint64_t at_ns;             /* the moment (CLOCK_MONOTONIC); 0: now */
	pid_t pid;                  /* who asked, 0 unknown */
	uid_t uid;
	const struct flight_rate *rate; /* its rule's own rate policy; NULL: --snapshot-policy */
};

struct flight_trigger_result {
	int action;                 /* enum ft_trigger_action */
	uint32_t snap;              /* the snapshot it opened or joined, 0 none */
	uint64_t at_ns, from_ns, to_ns;
	char path[4096];            /* that snapshot's file */
};

struct flight_stats {
	uint64_t segments_written, segments_deleted, segments_adopted;
	uint64_t segments_kept, disk_bytes;
	uint64_t triggers, held_back;
	uint64_t snapshots_saved, snapshots_failed;
	uint64_t cache_dropped;     /* records a segment could not repeat (memory bound) */
};

/*
 * DIR (-o) must exist.  SO: the session's options (netns, quiet, bin).
 * 0, or -1 (printed).
 */
int flight__open(struct flight **f, const struct flight_opts *o, const struct session_opts *so,
		 const char *dir);
/* The session's sink (session_sink_fn): every record, in order. */
int flight__sink(void *ctx, const struct ft_rec_hdr *rec);
/* Before session__start(): the session whose header the segments take. */
void flight__attach(struct flight *f, struct session *s);
/* After session__start(): SIGUSR1, the control socket and the snapshot thread.  0 or -1 (printed). */
int flight__start(struct flight *f);
void flight__tick(struct flight *f, uint64_t now_ns);
/*
 * One trigger (the entry point for every kind, rules included): counted
 * against its rule's rate policy, recorded in the recording, and a
 * snapshot opened or extended.  0 with RES filled, or -1 (not running).
 */
int flight__trigger(struct flight *f, const struct flight_trigger *t, struct flight_trigger_result *res);
/* After session__finish(): close what is open, save a snapshot cut short,
 * wait for the snapshot thread.  0, or -1 (a write failed: printed). */
int flight__finish(struct flight *f);
void flight__free(struct flight *f);

/*
 * FN(CTX, PATH, NAME) each time a segment is closed and renamed into place,
 * on the recorder's thread, before retention may delete it: it must not
 * wait (the summaries open the file and hand it to a thread of their own).
 */
typedef void (*flight_closed_fn)(void *ctx, const char *path, const char *name);
void flight__on_closed(struct flight *f, flight_closed_fn fn, void *ctx);

void flight__stats(const struct flight *f, struct flight_stats *st);
const char *flight__dir(const struct flight *f);
/* Whether the recorder made its directory (-o did not exist). */
bool flight__made_dir(const struct flight *f);
/* It never began recording (a bad -i, a control socket in use): the lock
 * and the directory it made go (flight_ring__abandon). */
void flight__abandon(struct flight *f);
/* The snapshot whose post-window runs at NOW (before it is due), 0 none. */
uint32_t flight__post_window(const struct flight *f, uint64_t now_ns);
/* Why writing failed ("" none). */
const char *flight__error(const struct flight *f);

#endif
