/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One output file of the flight recorder, a segment or a snapshot: written
 * under NAME.part and renamed to NAME once it is complete (an END, its
 * header's start and flags set), so that a file under its final name is
 * always a whole capture (docs/flight-recorder.md).  And the one rewrite
 * records get on the way: lost-event counts, cumulative since the recorder
 * started, are made cumulative since the file's own start.
 */
#ifndef FABTRACE_FLIGHT_FILE_H
#define FABTRACE_FLIGHT_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/fabtrace.h"
#include "userspace/capture/capture.h"

#define FLIGHT_PART ".part"

struct flight_file {
	struct capture_writer *w;
	struct ft_file_header hdr;   /* as created */
	char path[PATH_MAX];         /* the final name */
	char part[PATH_MAX + 8];     /* the name while it is written */
	uint64_t min_ts;             /* earliest CLOCK_MONOTONIC time of its records, 0 none */
	uint64_t records;
	bool failed;
};

/*
 * Create PATH.part with HDR (start_mono_ns and flags as the caller wants
 * them); as root under sudo it belongs to SUDO_UID like every capture.
 * 0 or -errno with a one-line reason in ERR.
 */
int flight_file__create(struct flight_file *ff, const char *path, const struct ft_file_header *hdr,
			char *err, size_t errlen);
/* Append one record.  0 or -errno (capture__last_error() of ff->w says why). */
int flight_file__append(struct flight_file *ff, const struct ft_rec_hdr *rec);
/*
 * Close it with END (STOP_REASON at END_NS, records counted here), set its
 * header's start to its earliest record where that is earlier, its flags to
 * FLAGS, and rename it into place.  Also after a write error: what was
 * written is a readable (truncated) capture.  0 or -errno (reason in ERR).
 */
int flight_file__finish(struct flight_file *ff, uint32_t stop_reason, uint64_t end_ns, uint32_t flags,
			char *err, size_t errlen);
/* Write out the records held for the next block, so that a recorder killed
 * now leaves them readable.  0 or -errno (capture__last_error() of ff->w). */
int flight_file__flush(struct flight_file *ff);
uint64_t flight_file__bytes(const struct flight_file *ff);
/* Whether the capture at PATH (a killed recorder's .part) holds no record
 * to read: a header alone or less, or no block complete.  false for a file
 * that is something else. */
bool flight_file__holds_none(const char *path);

/* The earliest CLOCK_MONOTONIC time REC carries (0 none). */
uint64_t flight_rec_ts(const struct ft_rec_hdr *rec);

/* Lost-event counts per (source, cpu). */
#define FLIGHT_LOST_CPUS 1024
struct flight_lost {
	uint64_t (*base)[FLIGHT_LOST_CPUS];  /* [FT_SRC_MAX] */
	uint64_t (*last)[FLIGHT_LOST_CPUS];
	uint8_t (*seen)[FLIGHT_LOST_CPUS];
};
int flight_lost__init(struct flight_lost *l);
void flight_lost__free(struct flight_lost *l);
/* Segments: L's count made relative to the segment's start (the base). */
void flight_lost__to_segment(struct flight_lost *l, struct ft_lost *rec);
/* A new segment begins: the counts so far become its base. */
void flight_lost__rebase(struct flight_lost *l);
/* Every count seen, relative to the base, as records at TS (a segment's
 * close proves what it did not lose too).  0 or the first append error. */
int flight_lost__write(const struct flight_lost *l, uint64_t ts, struct flight_file *ff);
/* Snapshots: a segment's relative count made relative to the snapshot's start. */
void flight_lost__to_snapshot(struct flight_lost *l, struct ft_lost *rec);
/* The next segment of a snapshot begins: what the last one lost is carried. */
void flight_lost__carry(struct flight_lost *l);

#endif
