// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The capture writer (capture.h).  The format is specified in
 * docs/capture-format.md; the structs are in bpf/fabtrace.h.
 *
 * Records accumulate in one in-memory block (CAPTURE_BLOCK_TARGET bytes); a
 * full block is compressed with zstd and appended as
 * [struct ft_block_header][clen bytes of one zstd frame] in a single write.
 * zstd, not zlib, since format version 2: at level 1 it compressed the
 * recorder's blocks three times as fast as zlib's level 1, and smaller
 * (docs/performance.md), and compressing is most of the recorder's CPU.
 * A version 1 capture (zlib blocks) is still written on request, for a
 * fabtrace older than version 2 elsewhere in the fleet.
 * If a write fails the file is cut back to the end of the last complete
 * block, so what is on disk is always a readable (if truncated) capture.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "lib/util.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/capture_priv.h"
#include "userspace/capture/records.h"

/* Level 1, the fastest but for zstd's negative levels, which were hardly
 * faster on the recorder's blocks and gave up a third of the ratio */
#define CAPTURE_ZSTD_LEVEL 1
/* A version 1 capture: zlib's fastest level, as version 1 writers used */
#define CAPTURE_ZLIB_LEVEL 1

struct capture_writer {
	int fd;
	char *path;
	uint8_t *buf;       /* block in progress, CAPTURE_BLOCK_TARGET bytes */
	size_t used;
	uint32_t nrec;      /* records in the block in progress */
	uint8_t *out;       /* block header + compressed payload */
	size_t out_cap;
	/*
	 * One compression context for the writer's life, reused per block:
	 * allocating and freeing its state per block shrank the heap after
	 * each free, and that sends TLB-flush IPIs to the traced workload's
	 * CPUs (docs/performance.md).
	 */
	ZSTD_CCtx *zc;      /* version 2 */
	z_stream zs;        /* version 1: one deflate stream, reset per block */
	bool zs_ready;
	uint32_t version;   /* the capture's format version: 1 zlib, 2 zstd */
	uint64_t good_off;  /* end of the last complete block on disk */
	uint64_t records;   /* records in complete blocks */
	int err;            /* sticky -errno once a write failed */
	char errmsg[CAPTURE_ERR_MAX];
};

static void writer_free(struct capture_writer *w)
{
	ZSTD_freeCCtx(w->zc);
	if (w->zs_ready)
		deflateEnd(&w->zs);
	free(w->path);
	free(w->buf);
	free(w->out);
	free(w);
}

/* Write all of buf, retrying short writes and EINTR.  0 or -errno. */
static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A write failed: cut the file back to the last complete block, go sticky. */
static int writer_fail(struct capture_writer *w, int err, const char *what)
{
	int terr = 0;

	if (ftruncate(w->fd, (off_t)w->good_off) < 0)
		terr = errno;
	if (lseek(w->fd, (off_t)w->good_off, SEEK_SET) < 0 && !terr)
		terr = errno;
	w->err = err;
	if (terr)
		cap_msg(w->errmsg, sizeof(w->errmsg),
			"%s: %s at offset %llu: %s; could not cut the file back to the last complete block: %s",
			w->path, what, (unsigned long long)w->good_off, strerror(-err), strerror(terr));
	else
		cap_msg(w->errmsg, sizeof(w->errmsg),
			"%s: %s at offset %llu: %s; the capture keeps the %llu records written before",
			w->path, what, (unsigned long long)w->good_off, strerror(-err),
			(unsigned long long)w->records);
	/* the block in progress is lost */
	w->used = 0;
	w->nrec = 0;
	return err;
}

/*
 * Open PATH for writing without following symlinks.  An existing regular file
 * owned by us (or by the capture's future owner) is unlinked and recreated;
 * symlinks, other file types and files owned by someone else are refused.
 */
static int open_output(const char *path, uid_t owner_uid, char *err, size_t errlen)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	struct stat st;
	int fd;

	fd = open(path, flags, 0600);
	if (fd >= 0)
		return fd;
	if (errno != EEXIST) {
		int e = errno;

		cap_msg(err, errlen, "%s: cannot create: %s%s", path, strerror(e), create_hint(e, path));
		return -e;
	}
	if (lstat(path, &st) < 0) {
		int e = errno;

		cap_msg(err, errlen, "%s: cannot create: %s%s", path, strerror(e), create_hint(e, path));
		return -e;
	}
	if (S_ISLNK(st.st_mode)) {
		cap_msg(err, errlen,
			"%s: is a symbolic link; refusing to write a capture through it; remove it or choose another path",
			path);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		cap_msg(err, errlen, "%s: exists and is not a regular file; choose another path", path);
		return -EEXIST;
	}
	if (st.st_uid != geteuid() && (owner_uid == (uid_t)-1 || st.st_uid != owner_uid)) {
		cap_msg(err, errlen,
			"%s: exists and belongs to uid %u; refusing to replace it; remove it or choose another path",
			path, (unsigned)st.st_uid);
		return -EEXIST;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		bool busy = cap_being_written(fd);

		close(fd);
		if (busy) {
			cap_msg(err, errlen,
				"%s: another fabtrace is recording into it; choose another path (with -o "
				"NAME-%%h.ftr, hosts sharing a directory need distinct host names)", path);
			return -EBUSY;
		}
	}
	if (unlink(path) < 0) {
		int e = errno;

		cap_msg(err, errlen, "%s: cannot replace the existing file: %s", path, strerror(e));
		return -e;
	}
	fd = open(path, flags, 0600);
	if (fd < 0) {
		int e = errno;

		/* EEXIST here means someone recreated it in between: refuse */
		cap_msg(err, errlen, "%s: cannot create: %s%s", path, strerror(e), create_hint(e, path));
		return -e;
	}
	return fd;
}

int capture__parse_version(const char *arg, uint32_t *version)
{
	char want[16];

	snprintf(want, sizeof(want), "%u", (unsigned)FT_FORMAT_VERSION);
	if (!arg || !version || (strcmp(arg, "1") != 0 && strcmp(arg, want) != 0))
		return -EINVAL;
	*version = (uint32_t)strtoul(arg, NULL, 10);
	return 0;
}

int capture__create(struct capture_writer **wp, const char *path,
		    struct ft_file_header *hdr, uid_t owner_uid, gid_t owner_gid,
		    char *err, size_t errlen)
{
	struct capture_writer *w;
	int fd, ret;

	if (!wp || !path || !hdr) {
		cap_msg(err, errlen, "capture__create: invalid arguments");
		return -EINVAL;
	}
	*wp = NULL;
	cap_msg(err, errlen, "%s", "");

	w = calloc(1, sizeof(*w));
	if (!w) {
		cap_msg(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	w->fd = -1;
	w->version = hdr->version ? hdr->version : FT_FORMAT_VERSION;
	if (w->version != 1 && w->version != FT_FORMAT_VERSION) {
		cap_msg(err, errlen, "%s: cannot write capture format version %u; this fabtrace writes 1 or %u",
			path, (unsigned)w->version, (unsigned)FT_FORMAT_VERSION);
		free(w);
		return -EINVAL;
	}
	w->path = strdup(path);
	w->buf = malloc(CAPTURE_BLOCK_TARGET);
	w->out_cap = sizeof(struct ft_block_header) +
		     (w->version == 1 ? compressBound(CAPTURE_BLOCK_TARGET)
				      : ZSTD_compressBound(CAPTURE_BLOCK_TARGET));
	w->out = malloc(w->out_cap);
	if (w->version == 1)
		w->zs_ready = deflateInit(&w->zs, CAPTURE_ZLIB_LEVEL) == Z_OK;
	else
		w->zc = ZSTD_createCCtx();
	if (!w->path || !w->buf || !w->out || !(w->zc || w->zs_ready)) {
		cap_msg(err, errlen, "%s: out of memory", path);
		ret = -ENOMEM;
		goto fail;
	}
	/* the block CRC covers the frame: no checksum of zstd's own */
	if (w->zc &&
	    (ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, CAPTURE_ZSTD_LEVEL)) ||
	     ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 0)) ||
	     ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_contentSizeFlag, 1)))) {
		cap_msg(err, errlen, "%s: the zstd library refused its settings", path);
		ret = -EINVAL;
		goto fail;
	}

	fd = open_output(path, owner_uid, err, errlen);
	if (fd < 0) {
		ret = fd;
		goto fail;
	}
	w->fd = fd;
	(void)flock(fd, LOCK_EX | LOCK_NB); /* ours, new: held until the close (being_written) */

	if (owner_uid != (uid_t)-1 && fchown(fd, owner_uid, owner_gid) < 0) {
		ret = -errno;
		cap_msg(err, errlen, "%s: cannot give the capture to uid %u: %s", path,
			(unsigned)owner_uid, strerror(-ret));
		goto fail_unlink;
	}

	memcpy(hdr->magic, FT_MAGIC, sizeof(hdr->magic));
	hdr->version = w->version;
	hdr->header_size = sizeof(*hdr);
	hdr->hostname[sizeof(hdr->hostname) - 1] = '\0';
	hdr->kernel[sizeof(hdr->kernel) - 1] = '\0';
	hdr->tool_version[sizeof(hdr->tool_version) - 1] = '\0';
	hdr->command[sizeof(hdr->command) - 1] = '\0';
	hdr->crc = 0;
	hdr->crc = cap_header_crc(hdr);

	ret = write_all(fd, hdr, sizeof(*hdr));
	if (ret < 0) {
		cap_msg(err, errlen, "%s: cannot write the capture header: %s", path, strerror(-ret));
		goto fail_unlink;
	}
	w->good_off = sizeof(*hdr);
	*wp = w;
	return 0;

fail_unlink:
	unlink(path);
fail:
	if (w->fd >= 0)
		close(w->fd);
	writer_free(w);
	return ret;
}

/* Compress the block in progress into w->out after its header: the frame's
 * length, or 0 with the writer failed. */
static size_t compress_block(struct capture_writer *w)
{
	size_t clen;

	if (w->version == 1) {
		/* the same bytes compress2() writes, without its allocations */
		int zret = deflateReset(&w->zs);

		if (zret == Z_OK) {
			w->zs.next_in = w->buf;
			w->zs.avail_in = (uInt)w->used;
			w->zs.next_out = w->out + sizeof(struct ft_block_header);
			w->zs.avail_out = (uInt)(w->out_cap - sizeof(struct ft_block_header));
			zret = deflate(&w->zs, Z_FINISH);
			zret = zret == Z_STREAM_END ? Z_OK : zret == Z_OK ? Z_BUF_ERROR : zret;
		}
		if (zret == Z_OK)
			return (size_t)w->zs.total_out;
		w->err = zret == Z_MEM_ERROR ? -ENOMEM : -EIO;
		cap_msg(w->errmsg, sizeof(w->errmsg), "%s: zlib compress failed (%d)", w->path, zret);
		return 0;
	}
	clen = ZSTD_compress2(w->zc, w->out + sizeof(struct ft_block_header),
			      w->out_cap - sizeof(struct ft_block_header), w->buf, w->used);
	if (!ZSTD_isError(clen))
		return clen;
	w->err = ZSTD_getErrorCode(clen) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
	cap_msg(w->errmsg, sizeof(w->errmsg), "%s: zstd compress failed (%s)", w->path,
		ZSTD_getErrorName(clen));
	return 0;
}

int capture__flush(struct capture_writer *w)
{
	struct ft_block_header bh;
	size_t clen;
	int ret;

	if (!w)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->used == 0)
		return 0;

	clen = compress_block(w);
	if (!clen) {
		w->used = 0;
		w->nrec = 0;
		return w->err;
	}

	memset(&bh, 0, sizeof(bh));
	bh.magic = FT_BLOCK_MAGIC;
	bh.clen = (uint32_t)clen;
	bh.ulen = (uint32_t)w->used;
	bh.nrec = w->nrec;
	bh.codec = w->version == 1 ? FT_CODEC_ZLIB : FT_CODEC_ZSTD;
	bh.crc = cap_block_crc(&bh, w->out + sizeof(bh), clen);
	memcpy(w->out, &bh, sizeof(bh));

	ret = write_all(w->fd, w->out, sizeof(bh) + clen);
	if (ret < 0)
		return writer_fail(w, ret, "write failed");

	w->good_off += sizeof(bh) + clen;
	w->records += w->nrec;
	w->used = 0;
	w->nrec = 0;
	return 0;
}

int capture__append(struct capture_writer *w, const void *rec)
{
	struct ft_rec_hdr h;
	size_t size, padded, want;

	if (!w || !rec)
		return -EINVAL;
	if (w->err)
		return w->err;

	memcpy(&h, rec, sizeof(h));
	size = h.size;
	if (size < sizeof(h))
		return -EINVAL;
	if (w->version == 1 && h.type == FT_REC_CONFIG)
		return 0; /* not in version 1 captures (docs/capture-format.md) */
	/* what a reader needs of its type (records.h): never write a record it rejects */
	want = capture__rec_need(rec);
	if (size < want)
		return -EINVAL;
	/* keep every record 8-byte aligned: pad with zeros, and say so in size */
	padded = (size + 7) & ~(size_t)7;
	if (padded > UINT16_MAX)
		return -EINVAL;

	if (w->used + padded > CAPTURE_BLOCK_TARGET) {
		int ret = capture__flush(w);

		if (ret < 0)
			return ret;
	}
	memcpy(w->buf + w->used, rec, size);
	if (padded != size) {
		memset(w->buf + w->used + size, 0, padded - size);
		h.size = (uint16_t)padded;
		memcpy(w->buf + w->used, &h, sizeof(h));
	}
	w->used += padded;
	w->nrec++;
	return 0;
}

uint64_t capture__bytes(const struct capture_writer *w)
{
	return w ? w->good_off : 0;
}

uint64_t capture__records(const struct capture_writer *w)
{
	return w ? w->records : 0;
}

const char *capture__last_error(const struct capture_writer *w)
{
	return w ? w->errmsg : "";
}

/* Flush, fsync and close W's file; the writer stays for its caller to free. */
static int writer_close(struct capture_writer *w)
{
	int ret = capture__flush(w);

	/* fsync even after a write error: the blocks before it are worth keeping */
	if (fsync(w->fd) < 0 && ret == 0 && errno != EINVAL) {
		ret = -errno;
		cap_msg(w->errmsg, sizeof(w->errmsg), "%s: fsync failed: %s", w->path,
			strerror(errno));
	}
	if (close(w->fd) < 0 && ret == 0 && errno != EINTR) {
		ret = -errno;
		cap_msg(w->errmsg, sizeof(w->errmsg), "%s: close failed: %s", w->path,
			strerror(errno));
	}
	if (ret == 0 && w->err)
		ret = w->err;
	return ret;
}

int capture__close(struct capture_writer *w)
{
	int ret;

	if (!w)
		return 0;
	ret = writer_close(w);
	writer_free(w);
	return ret;
}

int capture__close_unless_bare(struct capture_writer *w, bool failed, uint64_t *kept, int *removed)
{
	int ret;

	*kept = 0;
	*removed = 0;
	if (!w)
		return 0;
	(void)capture__flush(w); /* the block in progress: then the count is what the file holds */
	*kept = w->records;
	ret = writer_close(w);
	if ((ret || failed) && !*kept)
		*removed = unlink(w->path) ? -errno : 1;
	writer_free(w);
	return ret;
}
