/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Capture file writer and reader.  Format: docs/capture-format.md.
 *
 * The writer keeps one block of records in memory (bounded), compresses it
 * (zstd; zlib in a version 1 capture) and appends it with its CRC; a crash
 * loses at most the block in progress.  The reader walks blocks and hands
 * out one record at a time.
 */
#ifndef FABTRACE_CAPTURE_H
#define FABTRACE_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>
#include "bpf/fabtrace.h"

#define CAPTURE_BLOCK_TARGET ((size_t)256 * 1024) /* uncompressed bytes per block */
/* Room for a writer's error: it names the file (a path can be long), the
 * offset, the reason and what the capture keeps; ft_err prints up to 1 KiB. */
#define CAPTURE_ERR_MAX 1024

struct capture_writer;

/*
 * Create PATH (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600; if it exists as a regular
 * file owned by us it is replaced, a symlink is refused), write HDR (the crc is
 * filled in here).  HDR's version picks the format written: 0 (or
 * FT_FORMAT_VERSION) the current one, 1 zlib blocks for a fabtrace older than
 * version 2; another is -EINVAL.  When `owner_uid` is not (uid_t)-1 the file
 * is chowned to it.  Returns 0 or -errno; on error `err` holds a one-line reason.
 */
int capture__create(struct capture_writer **w, const char *path,
		    struct ft_file_header *hdr, uid_t owner_uid, gid_t owner_gid,
		    char *err, size_t errlen);
/* A --format-version argument: "1" or FT_FORMAT_VERSION into *version; else -EINVAL. */
int capture__parse_version(const char *arg, uint32_t *version);
/* Append one record (starts with struct ft_rec_hdr, hdr.size bytes). */
int capture__append(struct capture_writer *w, const void *rec);
/* Compress and write the block in progress, if any. */
int capture__flush(struct capture_writer *w);
/* Bytes written to the file so far (complete blocks). */
uint64_t capture__bytes(const struct capture_writer *w);
uint64_t capture__records(const struct capture_writer *w);
/* Flush, fsync, close, free.  Returns 0 or the first error seen. */
int capture__close(struct capture_writer *w);
/*
 * capture__close(), and where writing failed (the close's own error, or
 * FAILED: the caller's) before one record was kept, the file removed: a
 * header alone is no capture, and a full disk is the usual cause.  *KEPT:
 * the records the file holds; *REMOVED: 1 removed, 0 kept, -errno when it
 * could not be removed.  Returns capture__close()'s result.
 */
int capture__close_unless_bare(struct capture_writer *w, bool failed, uint64_t *kept, int *removed);
/* Last error as text ("" when none). */
const char *capture__last_error(const struct capture_writer *w);

struct capture_reader;

enum capture_state {
	CAPTURE_OK = 0,        /* END record seen: the capture is complete */
	CAPTURE_TRUNCATED,     /* ends without END record or in a partial block */
	CAPTURE_CORRUPT,       /* bad CRC/magic/zlib in a block */
};

/* Whether PATH can be read more than once (merge, report --windows): not a
 * pipe or a socket.  A missing file passes here and is reported when opened. */
bool capture__rereadable(const char *path);
/* Whether PATH is a regular file that begins with a capture's magic: an
 * output named by mistake where a capture lies (`merge -o n1.ftr n2.ftr`
 * without the output's name) must not replace it.  *FLAGS (may be NULL):
 * its header's flags (enum ft_file_flags), 0 when the header is cut short. */
bool capture__is_capture(const char *path, uint32_t *flags);
/* Open and validate the header.  0 or -errno with a one-line reason in err. */
int capture__open(struct capture_reader **r, const char *path, char *err, size_t errlen);
const struct ft_file_header *capture__header(const struct capture_reader *r);
/*
 * Next record: 1 and *rec set, 0 at the end of readable data, -1 on corrupt
 * data (capture__state() says which and capture__error() names the offset).
 * Records are aligned so their structs may be read in place; the pointer is
 * valid until the next call.  Records shorter than ft_rec_hdr, whose size
 * runs past their block, or damaged for their type (capture__rec_check() in
 * records.h) are corruption; unknown types are returned as is.
 */
int capture__next(struct capture_reader *r, const struct ft_rec_hdr **rec);
/*
 * Every record from here on to the end of the readable data, each handed
 * to its callback of V (userspace/capture/records.h).  0 at the end of the
 * data (capture__state() says how it ended), or the first non-zero return
 * of a callback, which stops the walk.
 */
struct capture_visitor;
int capture__visit_reader(struct capture_reader *r, const struct capture_visitor *v, void *ctx);
enum capture_state capture__state(const struct capture_reader *r);
const char *capture__error(const struct capture_reader *r);
/* Offset just past the last complete block read, and blocks read. */
uint64_t capture__good_offset(const struct capture_reader *r);
uint64_t capture__blocks(const struct capture_reader *r);
void capture__free(struct capture_reader *r);

/*
 * A capture's blocks, summed up on one read, so that a later read of the
 * same file can pass over the blocks it does not need unread, unchecked and
 * not inflated (report --windows reads a capture once per window).
 */
struct capture_block_sum {
	uint64_t off, next_off;     /* file offsets of its header and of the next block's */
	uint64_t types;             /* bit (1 << type) per record type in it; types 63 and up: bit 63 */
	uint64_t min_ns;            /* the earliest of its records' first times (capture__rec_times) */
	uint64_t max_ns;            /* the latest of all their times; min_ns > max_ns: none has one */
	uint64_t groups;            /* bit per counter group its records name; groups 63 and up: bit 63 */
	uint32_t phase_flags;       /* its phases' flags, or'ed */
	uint32_t nrec;
	uint64_t kept_off;          /* its records the index keeps: at kept + kept_off, */
	uint32_t kept_len, nkept;   /* kept_len bytes, nkept records */
	bool kept_all;              /* every one the index's keep chose (none dropped for room) */
};
/* Which records an index keeps a copy of (a later read can get them without their block). */
typedef bool (*capture_keep_fn)(const struct ft_rec_hdr *rec);
#define CAPTURE_INDEX_KEEP_MAX (64u << 20) /* bytes of kept records, at most */
struct capture_block_index {
	struct capture_block_sum *b; /* in file order */
	size_t n, cap;
	capture_keep_fn keep;        /* NULL: none kept */
	size_t kept_max;             /* bytes kept at most (0: CAPTURE_INDEX_KEEP_MAX) */
	uint8_t *kept;               /* the kept records, block after block, 8-aligned as in a block */
	size_t kept_len, kept_cap;
};
/*
 * Sum up into IDX (appended to) every block this reader loads from here
 * on, keeping a copy of the records KEEP chooses (NULL: none).
 */
void capture__index_blocks(struct capture_reader *r, struct capture_block_index *idx, capture_keep_fn keep);
/*
 * From here on, ask SKIP(CTX, its sum) of each block of IDX: read it
 * (CAPTURE_BLOCK_READ), pass over it (CAPTURE_BLOCK_PASS: none of its
 * records is returned), or return only its kept records
 * (CAPTURE_BLOCK_KEPT, only of a block that kept them all).  A block
 * passed over counts as read; SKIP may count it so, it is never read after
 * all.  A block IDX does not hold at its offset (a file that grew or
 * changed) is read.
 */
enum capture_block_use { CAPTURE_BLOCK_READ, CAPTURE_BLOCK_PASS, CAPTURE_BLOCK_KEPT };
typedef enum capture_block_use (*capture_skip_fn)(void *ctx, const struct capture_block_sum *b);
void capture__skip_blocks(struct capture_reader *r, const struct capture_block_index *idx, capture_skip_fn skip,
			  void *ctx);
void capture_block_index__free(struct capture_block_index *idx);

/* Expected size of a known record type (its struct), 0 when the type is unknown;
 * records.h has the rest of the record types' table. */
size_t capture__rec_size(uint16_t type);
const char *capture__rec_name(uint16_t type);
/* The END record's stop reason as every command prints it: "duration",
 * "signal", "command exited", "error", "mixed", "rotated", "processes
 * exited" ("unknown" for a newer value). */
const char *capture__stop_reason_name(uint32_t reason);

#endif
