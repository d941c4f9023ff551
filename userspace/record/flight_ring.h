/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The flight recorder's ring of segments in one directory
 * (docs/flight-recorder.md): seg-SEQ-TIME.ftr files, each a complete
 * capture, the one being written under its name + ".part".  The directory
 * is locked for one recorder; segments left by an earlier one join the ring
 * (a .part a killed recorder left is a readable, truncated capture: it is
 * renamed into place), so the bounds hold across restarts.  Retention
 * (flight_policy.h) deletes the oldest.
 */
#ifndef FABTRACE_FLIGHT_RING_H
#define FABTRACE_FLIGHT_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/fabtrace.h"
#include "userspace/record/flight_policy.h"

#define FLIGHT_LOCK ".fabtrace-flight.lock"

/* A closed segment. */
struct flight_seg {
	uint64_t seq;
	uint64_t start_ns, end_ns;  /* CLOCK_MONOTONIC (from the file's time for an earlier run's) */
	uint64_t open_ns;           /* when this run opened it (start_ns may reach back further: bins a
				     * CPU held where its timer cannot run, docs/known-issues.md); 0 for an earlier run's */
	uint64_t bytes;
	uint32_t preamble;          /* records at its start that repeat the recording's state */
	int pins;                   /* snapshots that still have to copy it */
	bool this_run;              /* written by this recorder (snapshots copy only these) */
	char name[64];              /* in the ring's directory */
};

struct flight_ring;

/*
 * DIR must exist and be a directory this process can write.  0 or -errno
 * with a one-line reason in ERR (EWOULDBLOCK: another recorder has it).
 */
int flight_ring__open(struct flight_ring **r, const char *dir, const struct flight_limits *lim,
		      char *err, size_t errlen);
void flight_ring__free(struct flight_ring *r);
/* Whether flight_ring__open() made the directory (it did not exist). */
bool flight_ring__made_dir(const struct flight_ring *r);
/* A recorder that never wrote a segment: the lock and the directory it made
 * are removed (a typo in -i must not leave a tree); nothing otherwise. */
void flight_ring__abandon(struct flight_ring *r);

/* Begin a segment at NOW_NS: HDR (a copy is made; start and flags set here). */
int flight_ring__begin(struct flight_ring *r, const struct ft_file_header *hdr, uint64_t now_ns,
		       char *err, size_t errlen);
/* Whether a segment is being written. */
bool flight_ring__writing(const struct flight_ring *r);
/* Append to the open segment (lost counts made the segment's own).  0 or -errno. */
int flight_ring__append(struct flight_ring *r, const struct ft_rec_hdr *rec);
/* The records so far are the open segment's preamble. */
void flight_ring__preamble_done(struct flight_ring *r);
/* Write the open segment's held records out (flight_file__flush); 0 when none is open. */
int flight_ring__flush(struct flight_ring *r);
/* The open segment: its start, and bytes so far. */
uint64_t flight_ring__open_start(const struct flight_ring *r);
uint64_t flight_ring__open_bytes(const struct flight_ring *r);
/* The reason why the open segment could not be written ("" none). */
const char *flight_ring__error(const struct flight_ring *r);
/*
 * Close the open segment: its lost counts, END (STOP_REASON at NOW_NS),
 * renamed into place; it joins the ring.  0, or -errno with ERR (it joins
 * the ring all the same when it could be renamed).
 */
int flight_ring__end(struct flight_ring *r, uint32_t stop_reason, uint64_t now_ns, char *err, size_t errlen);
/* Delete the oldest segments retention lets go; how many went. */
size_t flight_ring__retain(struct flight_ring *r, uint64_t now_ns);

size_t flight_ring__count(const struct flight_ring *r);
struct flight_seg *flight_ring__seg(struct flight_ring *r, size_t i);   /* oldest first */
struct flight_seg *flight_ring__find(struct flight_ring *r, uint64_t seq);
/* Closed segments' bytes, and the open one's. */
uint64_t flight_ring__disk_bytes(const struct flight_ring *r);
uint64_t flight_ring__written(const struct flight_ring *r);   /* segments closed by this run */
uint64_t flight_ring__deleted(const struct flight_ring *r);
uint64_t flight_ring__adopted(const struct flight_ring *r);   /* found from an earlier run */
const char *flight_ring__dir(const struct flight_ring *r);
/* DIR/NAME of S into BUF. */
const char *flight_ring__path(const struct flight_ring *r, const struct flight_seg *s, char *buf, size_t len);

#endif
