/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the capture writer (capture_write.c) and reader (capture_read.c)
 * share, in capture_file.c: the CRCs of the file header and of a block,
 * the recorder's lock on the file it writes, and their error messages; and
 * the reader's block index (capture_index.c).
 */
#ifndef FABTRACE_CAPTURE_PRIV_H
#define FABTRACE_CAPTURE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"

/* vsnprintf into BUF (nothing when BUF is NULL or LEN 0) */
void cap_msg(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* CRC32 of a block header (its crc taken as 0), then of its CLEN payload bytes */
uint32_t cap_block_crc(const struct ft_block_header *bh, const void *payload, size_t clen);
/* CRC32 of a file header, its crc taken as 0 */
uint32_t cap_header_crc(const struct ft_file_header *h);
/* Whether a recorder holds FD's file open for writing (its flock) */
bool cap_being_written(int fd);

/* capture_index.c: sum up a loaded block (its checked payload) into IDX; 0 or -1 (out of memory) */
struct capture_block_index;
struct capture_block_sum;
int cap_index_add(struct capture_block_index *idx, uint64_t off, uint64_t next_off, const uint8_t *payload,
		  size_t ulen, uint32_t nrec);
/* The sum of the block at OFF, looked up from *CURSOR on (reads go forward); NULL if none */
const struct capture_block_sum *cap_index_find(const struct capture_block_index *idx, size_t *cursor, uint64_t off);

#endif
