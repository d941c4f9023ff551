// SPDX-License-Identifier: GPL-2.0-or-later
/* What the capture writer and reader share (capture_priv.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/file.h>
#include <zlib.h>

#include "userspace/capture/capture_priv.h"

void cap_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

uint32_t cap_block_crc(const struct ft_block_header *bh, const void *payload, size_t clen)
{
	struct ft_block_header tmp = *bh;
	uLong crc;

	tmp.crc = 0;
	crc = crc32(0L, (const Bytef *)&tmp, sizeof(tmp));
	/* zlib's crc32 takes uInt lengths; clen is bounded by FT_BLOCK_MAX_ULEN-ish */
	crc = crc32(crc, (const Bytef *)payload, (uInt)clen);
	return (uint32_t)crc;
}

uint32_t cap_header_crc(const struct ft_file_header *h)
{
	struct ft_file_header tmp = *h;

	tmp.crc = 0;
	return (uint32_t)crc32(0L, (const Bytef *)&tmp, sizeof(tmp));
}

/*
 * A recorder holds an exclusive flock on the capture it writes, for as long
 * as it writes it, so that readers can tell "still being recorded" from
 * "cut short", and a second recorder does not replace it.  Best effort: a
 * file system without flock (some cluster file systems) says nothing, and
 * two recorders started in the same instant may both find the path free
 * before either holds the lock (the second then replaces the first's file,
 * as before).
 */
bool cap_being_written(int fd)
{
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		(void)flock(fd, LOCK_UN);
		return false;
	}
	return errno == EWOULDBLOCK;
}

