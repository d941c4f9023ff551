/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Snapshots are written by a thread of their own, so that recording never
 * waits for one (docs/flight-recorder.md): the recorder queues the closed
 * segments of a snapshot's window as they close, and the thread copies
 * them into one capture.  The first segment comes whole (its preamble
 * describes what follows); the next ones without their preamble, which
 * repeats what the snapshot holds already, and without their END; lost
 * counts, each segment's own, are summed.  A segment stays pinned in the
 * ring until it is copied.  Finished work comes back through an eventfd.
 */
#ifndef FABTRACE_FLIGHT_SNAP_H
#define FABTRACE_FLIGHT_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum flight_done_kind {
	FLIGHT_DONE_COPY,     /* a segment was copied (or could not be): unpin it */
	FLIGHT_DONE_SAVED,    /* a snapshot is complete under its name (rc 0), or failed */
};

struct flight_done {
	enum flight_done_kind kind;
	uint32_t snap;
	uint64_t seq;         /* COPY: the segment */
	int rc;               /* 0, or -errno */
	uint64_t bytes, records; /* SAVED */
	char path[4096];      /* SAVED: the snapshot */
	char err[512];        /* why not, or a warning ("" none) */
};

struct flight_snapper;

int flight_snapper__start(struct flight_snapper **sp, char *err, size_t errlen);
/* Readable when finished work waits for flight_snapper__reap(). */
int flight_snapper__fd(const struct flight_snapper *sp);
/*
 * Copy segment SEG_PATH (SEQ) into snapshot SNAP, which is created as
 * OUT_PATH (+ ".part" until it is saved) with the first segment that can
 * be read; SKIP: the segment's preamble records, left out unless it is
 * that first one; FLOOR_NS: bins older than this (CLOCK_MONOTONIC: when the
 * snapshot's first segment was opened) are left out, a CPU's that it held
 * until its traffic came back, long before the window.  0 or -ENOMEM.
 */
int flight_snapper__copy(struct flight_snapper *sp, uint32_t snap, const char *out_path, uint64_t seq,
			 const char *seg_path, uint32_t skip, uint64_t floor_ns);
/* Snapshot SNAP has every segment: save it. */
int flight_snapper__save(struct flight_snapper *sp, uint32_t snap);
/* Finished work into OUT (up to MAX items); how many. */
size_t flight_snapper__reap(struct flight_snapper *sp, struct flight_done *out, size_t max);
/* Finish everything queued and stop the thread (what it finished can
 * still be reaped). */
void flight_snapper__stop(struct flight_snapper *sp);
void flight_snapper__free(struct flight_snapper *sp);

#endif
