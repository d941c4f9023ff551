// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The capture reader (capture.h).  The format is specified in
 * docs/capture-format.md; the structs are in bpf/fabtrace.h.
 *
 * Validates the header, then reads, checks and inflates one block at a time
 * (memory is bounded by one block) and hands records out in place.  Every
 * length that comes from the file is checked before it is used, and every
 * record against its type (records.h) as its block is loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "userspace/capture/capture.h"
#include "userspace/capture/capture_priv.h"
#include "userspace/capture/records.h"

struct capture_reader {
	int fd;
	char *path;
	struct ft_file_header hdr;
	uint64_t off;        /* file offset of the next block */
	uint64_t good_off;   /* end of the last complete, valid block */
	uint64_t blocks;     /* complete blocks read */
	uint8_t *zbuf;       /* compressed payload */
	size_t zcap;
	uint8_t *ubuf;       /* inflated payload, records read in place */
	const uint8_t *cur;  /* the records being returned: ubuf, or a block's kept records */
	size_t ucap;
	ZSTD_DCtx *zd;       /* made at the first zstd block, kept for the others */
	size_t upos, ulen;   /* cursor in the current block */
	uint64_t block_off;  /* file offset of the current block */
	enum capture_state state;
	bool done;           /* no more records: END seen, EOF or error */
	bool seen_end;
	bool recording;      /* a recorder was writing it when it was opened */
	char err[320];
	struct capture_block_index *index;      /* capture__index_blocks(): summed into */
	const struct capture_block_index *skip; /* capture__skip_blocks(): passed over by */
	capture_skip_fn skip_fn;
	void *skip_ctx;
	size_t skip_cursor;
};

/* Read up to len bytes; returns bytes read (short only at EOF) or -errno. */
static ssize_t read_full(int fd, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, p + got, len - got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

bool capture__rereadable(const char *path)
{
	struct stat st;

	return stat(path, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

bool capture__is_capture(const char *path, uint32_t *flags)
{
	struct ft_file_header h;
	struct stat st;
	ssize_t got;
	int fd;

	if (flags)
		*flags = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	got = read(fd, &h, sizeof(h));
	close(fd);
	if (got < (ssize_t)sizeof(h.magic) || memcmp(h.magic, FT_MAGIC, sizeof(h.magic)) != 0)
		return false;
	if (flags && got == (ssize_t)sizeof(h))
		*flags = h.flags;
	return true;
}

/* A FIFO: until its writer sends something (or comes and goes), saying after
 * a second what we wait for.  Anything else returns at once. */
static void wait_for_writer(int fd, const char *path)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct stat st;

	if (fstat(fd, &st) || !S_ISFIFO(st.st_mode) || poll(&p, 1, 1000) != 0)
		return;
	fprintf(stderr, "fabtrace: %s is a FIFO with no writer yet: waiting for one (Ctrl-C to stop)\n", path);
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

int capture__open(struct capture_reader **rp, const char *path, char *err, size_t errlen)
{
	struct capture_reader *r;
	struct ft_file_header *h;
	ssize_t n;
	int ret;

	if (!rp || !path) {
		cap_msg(err, errlen, "capture__open: invalid arguments");
		return -EINVAL;
	}
	*rp = NULL;
	cap_msg(err, errlen, "%s", "");

	r = calloc(1, sizeof(*r));
	if (!r) {
		cap_msg(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	r->path = strdup(path);
	if (!r->path) {
		free(r);
		cap_msg(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	/* not blocking in open(): a FIFO nobody writes to yet would hang us
	 * there without a word; we wait for its writer below, saying so */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		ret = -errno;
		cap_msg(err, errlen, "%s: cannot open: %s", path, strerror(-ret));
		goto fail;
	}
	wait_for_writer(r->fd, path);
	r->recording = cap_being_written(r->fd);
	if (fcntl(r->fd, F_SETFL, fcntl(r->fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		ret = -errno;
		cap_msg(err, errlen, "%s: cannot open: %s", path, strerror(-ret));
		goto fail;
	}

	h = &r->hdr;
	n = read_full(r->fd, h, sizeof(*h));
	if (n < 0) {
		ret = (int)n;
		cap_msg(err, errlen, "%s: cannot read: %s", path, strerror(-ret));
		goto fail;
	}
	if ((size_t)n < sizeof(h->magic) || memcmp(h->magic, FT_MAGIC, sizeof(h->magic)) != 0) {
		ret = -EINVAL;
		cap_msg(err, errlen, "%s: not a fabtrace capture", path);
		goto fail;
	}
	/* version sits right after the magic: check it before anything else */
	if ((size_t)n >= offsetof(struct ft_file_header, version) + sizeof(h->version)) {
		if (h->version > FT_FORMAT_VERSION) {
			ret = -EPROTONOSUPPORT;
			cap_msg(err, errlen,
				"%s: capture format version %u is newer than this fabtrace supports (%u); upgrade fabtrace",
				path, (unsigned)h->version, (unsigned)FT_FORMAT_VERSION);
			goto fail;
		}
		if (h->version == 0) {
			ret = -EPROTONOSUPPORT;
			cap_msg(err, errlen, "%s: capture format version 0 is not valid", path);
			goto fail;
		}
	}
	if ((size_t)n < sizeof(*h)) {
		ret = -EBADMSG;
		cap_msg(err, errlen, "%s: capture header is truncated (%zd of %zu bytes)", path,
			n, sizeof(*h));
		goto fail;
	}
	if (h->header_size != sizeof(*h)) {
		ret = -EBADMSG;
		cap_msg(err, errlen, "%s: capture header size is %u, expected %zu (corrupt header)",
			path, (unsigned)h->header_size, sizeof(*h));
		goto fail;
	}
	if (cap_header_crc(h) != h->crc) {
		ret = -EBADMSG;
		cap_msg(err, errlen, "%s: capture header CRC mismatch (corrupt header)", path);
		goto fail;
	}
	/* make the strings safe to print whatever the file says */
	h->hostname[sizeof(h->hostname) - 1] = '\0';
	h->kernel[sizeof(h->kernel) - 1] = '\0';
	h->tool_version[sizeof(h->tool_version) - 1] = '\0';
	h->command[sizeof(h->command) - 1] = '\0';

	r->off = r->good_off = sizeof(*h);
	r->state = CAPTURE_OK;
	*rp = r;
	return 0;

fail:
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r);
	return ret;
}

const struct ft_file_header *capture__header(const struct capture_reader *r)
{
	return r ? &r->hdr : NULL;
}

static int reader_corrupt(struct capture_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int reader_corrupt(struct capture_reader *r, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	cap_msg(r->err, sizeof(r->err), "block at offset %llu: %s",
		(unsigned long long)r->block_off, why);
	r->state = CAPTURE_CORRUPT;
	r->done = true;
	r->ulen = r->upos = 0;
	return -1;
}

static int reader_truncated(struct capture_reader *r, bool partial)
{
	const char *are = r->blocks == 1 ? " block is" : " blocks are";

	if (r->recording)
		cap_msg(r->err, sizeof(r->err),
			"capture is still being recorded (a fabtrace holds it open): %llu complete%s "
			"readable so far; read it again once the recording stops",
			(unsigned long long)r->blocks, are);
	else if (partial)
		cap_msg(r->err, sizeof(r->err),
			"capture ends in a partial block at offset %llu (recording was interrupted); %llu complete%s readable",
			(unsigned long long)r->block_off, (unsigned long long)r->blocks, are);
	else
		cap_msg(r->err, sizeof(r->err),
			"capture ends at offset %llu without an end record (recording was interrupted); %llu complete%s readable",
			(unsigned long long)r->block_off, (unsigned long long)r->blocks, are);
	r->state = CAPTURE_TRUNCATED;
	r->done = true;
	return 0;
}

static int grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *p;

	if (*cap >= need)
		return 0;
	p = realloc(*buf, need);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = need;
	return 0;
}

/* Inflate a zlib block's payload (zbuf) into ubuf.  0, or -1 = corrupt. */
static int inflate_zlib(struct capture_reader *r, const struct ft_block_header *bh)
{
	uLongf dlen = bh->ulen;
	uLong slen = bh->clen;
	int zret = uncompress2(r->ubuf, &dlen, r->zbuf, &slen);

	if (zret != Z_OK)
		return reader_corrupt(r, "zlib error %d (%s)", zret,
				      zret == Z_DATA_ERROR ? "bad data" :
				      zret == Z_BUF_ERROR ? "payload larger than its length" :
				      zret == Z_MEM_ERROR ? "out of memory" : "unexpected");
	if (dlen != bh->ulen)
		return reader_corrupt(r, "payload is %lu bytes, header says %u",
				      (unsigned long)dlen, (unsigned)bh->ulen);
	if (slen != bh->clen)
		return reader_corrupt(r, "%lu stray bytes after the compressed payload",
				      (unsigned long)(bh->clen - slen));
	return 0;
}

/* Decompress a zstd block's payload: one frame, all clen bytes, ulen out. */
static int inflate_zstd(struct capture_reader *r, const struct ft_block_header *bh)
{
	size_t flen = ZSTD_findFrameCompressedSize(r->zbuf, bh->clen);
	unsigned long long csize;
	size_t got;

	if (ZSTD_isError(flen))
		return reader_corrupt(r, "zstd error (%s)", ZSTD_getErrorName(flen));
	if (flen != bh->clen)
		return reader_corrupt(r, "%lu stray bytes after the compressed payload",
				      (unsigned long)(bh->clen - flen));
	/* the writer always states the size: a frame without it is not ours */
	csize = ZSTD_getFrameContentSize(r->zbuf, bh->clen);
	if (csize == ZSTD_CONTENTSIZE_UNKNOWN || csize == ZSTD_CONTENTSIZE_ERROR)
		return reader_corrupt(r, "zstd frame without its content size");
	if (csize != bh->ulen)
		return reader_corrupt(r, "payload is %llu bytes, header says %u", csize, (unsigned)bh->ulen);
	if (!r->zd) {
		r->zd = ZSTD_createDCtx();
		if (!r->zd)
			return reader_corrupt(r, "out of memory");
	}
	got = ZSTD_decompressDCtx(r->zd, r->ubuf, bh->ulen, r->zbuf, bh->clen);
	if (ZSTD_isError(got))
		return reader_corrupt(r, "zstd error (%s)", ZSTD_getErrorName(got));
	if (got != bh->ulen)
		return reader_corrupt(r, "payload is %zu bytes, header says %u", got, (unsigned)bh->ulen);
	return 0;
}

/*
 * Read, check and inflate the next block.  1 = a block is loaded,
 * 0 = end of data (state says why), -1 = corrupt.
 */
static int load_block(struct capture_reader *r)
{
	struct ft_block_header bh;
	size_t pos;
	uint32_t nrec;
	ssize_t n;

	r->block_off = r->off;
	if (r->skip) {
		const struct capture_block_sum *b = cap_index_find(r->skip, &r->skip_cursor, r->off);
		enum capture_block_use use = CAPTURE_BLOCK_READ;

		/* never the block with the END record: it tells a complete capture */
		if (b && !(b->types & 1ull << FT_REC_END))
			use = r->skip_fn(r->skip_ctx, b);
		if (use != CAPTURE_BLOCK_READ) {
			/* no reading it after all: the caller counted it as passed over */
			if (lseek(r->fd, (off_t)b->next_off, SEEK_SET) != (off_t)b->next_off)
				return reader_corrupt(r, "seek error: %s", strerror(errno));
			r->off = r->good_off = b->next_off;
			r->blocks++;
			r->upos = 0;
			r->ulen = use == CAPTURE_BLOCK_KEPT ? b->kept_len : 0;
			r->cur = r->ulen ? r->skip->kept + b->kept_off : r->ubuf;
			return 1; /* as a block of its kept records, or none: then the caller loads the next */
		}
	}
	n = read_full(r->fd, &bh, sizeof(bh));
	if (n < 0)
		return reader_corrupt(r, "read error: %s", strerror((int)-n));
	if (n == 0)
		return reader_truncated(r, false);
	if ((size_t)n >= sizeof(bh.magic) && bh.magic != FT_BLOCK_MAGIC)
		return reader_corrupt(r, "bad block magic 0x%08x", (unsigned)bh.magic);
	if ((size_t)n < sizeof(bh))
		return reader_truncated(r, true);
	if (bh.clen == 0 || bh.clen > FT_BLOCK_MAX_ULEN)
		return reader_corrupt(r, "compressed length %u out of range", (unsigned)bh.clen);
	if (bh.ulen < sizeof(struct ft_rec_hdr) || bh.ulen > FT_BLOCK_MAX_ULEN)
		return reader_corrupt(r, "length %u out of range", (unsigned)bh.ulen);
	if (grow(&r->zbuf, &r->zcap, bh.clen) < 0 || grow(&r->ubuf, &r->ucap, bh.ulen) < 0)
		return reader_corrupt(r, "out of memory");

	n = read_full(r->fd, r->zbuf, bh.clen);
	if (n < 0)
		return reader_corrupt(r, "read error: %s", strerror((int)-n));
	if ((size_t)n < bh.clen)
		return reader_truncated(r, true);
	if (cap_block_crc(&bh, r->zbuf, bh.clen) != bh.crc)
		return reader_corrupt(r, "CRC mismatch");

	if (bh.codec == FT_CODEC_ZLIB) {
		if (inflate_zlib(r, &bh) < 0)
			return -1;
	} else if (bh.codec == FT_CODEC_ZSTD && r->hdr.version >= 2) {
		if (inflate_zstd(r, &bh) < 0)
			return -1;
	} else {
		return reader_corrupt(r, "unknown codec %u in a version %u capture", (unsigned)bh.codec,
				      (unsigned)r->hdr.version);
	}

	/* walk the records once so the caller never sees a bad length */
	for (pos = 0, nrec = 0; pos < bh.ulen; nrec++) {
		struct ft_rec_hdr rh;
		char why[120];

		if (bh.ulen - pos < sizeof(rh))
			return reader_corrupt(r, "record at payload offset %zu runs past the block", pos);
		memcpy(&rh, r->ubuf + pos, sizeof(rh));
		if (rh.size < sizeof(rh) || rh.size % 8)
			return reader_corrupt(r, "record at payload offset %zu has bad size %u",
					      pos, (unsigned)rh.size);
		if (rh.size > bh.ulen - pos)
			return reader_corrupt(r, "record at payload offset %zu (size %u) runs past the block",
					      pos, (unsigned)rh.size);
		/* the one check of a record against its type: callbacks trust it */
		if (capture__rec_check((const void *)(r->ubuf + pos), why, sizeof(why)))
			return reader_corrupt(r, "%s record at payload offset %zu %s",
					      capture__rec_name(rh.type), pos, why);
		pos += rh.size;
	}
	if (nrec != bh.nrec)
		return reader_corrupt(r, "holds %u records, header says %u",
				      (unsigned)nrec, (unsigned)bh.nrec);

	if (r->index && cap_index_add(r->index, r->off, r->off + sizeof(bh) + bh.clen, r->ubuf, bh.ulen, nrec))
		return reader_corrupt(r, "out of memory");
	r->off += sizeof(bh) + bh.clen;
	r->good_off = r->off;
	r->blocks++;
	r->ulen = bh.ulen;
	r->upos = 0;
	r->cur = r->ubuf;
	return 1;
}

int capture__next(struct capture_reader *r, const struct ft_rec_hdr **rec)
{
	const struct ft_rec_hdr *h;

	if (!r || !rec)
		return -1;
	*rec = NULL;
	while (!r->done && r->upos >= r->ulen) {
		int ret = load_block(r);

		if (ret <= 0)
			return ret;
	}
	if (r->done)
		return r->state == CAPTURE_CORRUPT ? -1 : 0;

	h = (const struct ft_rec_hdr *)(const void *)(r->cur + r->upos); /* 8-aligned, size checked */
	r->upos += h->size;
	if (h->type == FT_REC_END) {
		/* the capture is complete; anything after END is ignored */
		r->seen_end = true;
		r->done = true;
		r->state = CAPTURE_OK;
		r->err[0] = '\0';
	}
	*rec = h;
	return 1;
}

int capture__visit_reader(struct capture_reader *r, const struct capture_visitor *v, void *ctx)
{
	const struct ft_rec_hdr *rec;

	while (capture__next(r, &rec) == 1) {
		int ret = capture__dispatch(v, ctx, rec); /* checked as its block was loaded */

		if (ret)
			return ret;
	}
	return 0;
}

void capture__index_blocks(struct capture_reader *r, struct capture_block_index *idx, capture_keep_fn keep)
{
	r->index = idx;
	idx->keep = keep;
}

void capture__skip_blocks(struct capture_reader *r, const struct capture_block_index *idx, capture_skip_fn skip,
			  void *ctx)
{
	r->skip = idx && idx->n && skip ? idx : NULL;
	r->skip_fn = skip;
	r->skip_ctx = ctx;
	r->skip_cursor = 0;
}

enum capture_state capture__state(const struct capture_reader *r)
{
	return r ? r->state : CAPTURE_CORRUPT;
}

const char *capture__error(const struct capture_reader *r)
{
	return r ? r->err : "";
}

uint64_t capture__good_offset(const struct capture_reader *r)
{
	return r ? r->good_off : 0;
}

uint64_t capture__blocks(const struct capture_reader *r)
{
	return r ? r->blocks : 0;
}

void capture__free(struct capture_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r->zbuf);
	free(r->ubuf);
	ZSTD_freeDCtx(r->zd);
	free(r);
}
