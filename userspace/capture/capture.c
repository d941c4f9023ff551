// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Capture file writer and reader.  The format is specified in
 * docs/capture-format.md; the structs are in bpf/fabtrace.h.
 *
 * Writer: records accumulate in one in-memory block (CAPTURE_BLOCK_TARGET
 * bytes); a full block is compressed with zstd and appended as
 * [struct ft_block_header][clen bytes of one zstd frame] in a single write.
 * zstd, not zlib, since format version 2: at level 1 it compressed the
 * recorder's blocks three times as fast as zlib's level 1, and smaller
 * (docs/performance.md), and compressing is most of the recorder's CPU.
 * A version 1 capture (zlib blocks) is still written on request, for a
 * fabtrace older than version 2 elsewhere in the fleet.
 * If a write fails the file is cut back to the end of the last complete
 * block, so what is on disk is always a readable (if truncated) capture.
 *
 * Reader: validates the header, then reads, checks and inflates one block at
 * a time (memory is bounded by one block) and hands records out in place.
 * Every length that comes from the file is checked before it is used.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
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

#include "userspace/capture/capture.h"

/* Level 1, the fastest but for zstd's negative levels, which were hardly
 * faster on the recorder's blocks and gave up a third of the ratio */
#define CAPTURE_ZSTD_LEVEL 1
/* A version 1 capture: zlib's fastest level, as version 1 writers used */
#define CAPTURE_ZLIB_LEVEL 1

/* ------------------------------------------------------------------ */
/* record table                                                        */

static const struct {
	uint16_t type;
	uint16_t size;
	const char *name;
} rec_types[] = {
	{ FT_REC_IFACE_BIN,   sizeof(struct ft_iface_bin),   "iface_bin" },
	{ FT_REC_QDISC_BIN,   sizeof(struct ft_qdisc_bin),   "qdisc_bin" },
	{ FT_REC_DROP,        sizeof(struct ft_drop),        "drop" },
	{ FT_REC_RETRANS,     sizeof(struct ft_retrans),     "retrans" },
	{ FT_REC_CONG_STATE,  sizeof(struct ft_cong_state),  "cong_state" },
	{ FT_REC_TCP_SAMPLE,  sizeof(struct ft_tcp_sample),  "tcp_sample" },
	{ FT_REC_PHASE,       sizeof(struct ft_phase),       "phase" },
	{ FT_REC_REQ_DONE,    sizeof(struct ft_req_done),    "req_done" },
	{ FT_REC_COMM_INFO,   sizeof(struct ft_comm_info),   "comm_info" },
	{ FT_REC_PROC,        sizeof(struct ft_proc),        "proc" },
	{ FT_REC_SOCK_OWNER,  sizeof(struct ft_sock_owner),  "sock_owner" },
	{ FT_REC_IFACE,       sizeof(struct ft_iface_info),  "iface" },
	{ FT_REC_IFACE_STATS, sizeof(struct ft_iface_stats), "iface_stats" },
	{ FT_REC_CE_FLOW,     sizeof(struct ft_ce_flow),     "ce_flow" },
	{ FT_REC_LOST,        sizeof(struct ft_lost),        "lost" },
	{ FT_REC_DROP_REASON, sizeof(struct ft_drop_reason), "drop_reason" },
	{ FT_REC_PROBE,       sizeof(struct ft_probe_info),  "probe" },
	{ FT_REC_COVERAGE,    sizeof(struct ft_coverage),    "coverage" },
	{ FT_REC_PHASE_SLOT,  sizeof(struct ft_phase_slot),  "phase_slot" },
	{ FT_REC_RDMA_PORT,   sizeof(struct ft_rdma_port),   "rdma_port" },
	{ FT_REC_CTR_GROUP,   sizeof(struct ft_ctr_group),   "ctr_group" },
	{ FT_REC_CTR_NAME,    sizeof(struct ft_ctr_name),    "ctr_name" },
	{ FT_REC_CTR_SAMPLE,  sizeof(struct ft_ctr_sample),  "ctr_sample" },
	{ FT_REC_SAMPLER,     sizeof(struct ft_sampler_event), "sampler_event" },
	{ FT_REC_TRIGGER,     sizeof(struct ft_trigger),     "trigger" },
	{ FT_REC_HOST_ID,     sizeof(struct ft_host_id),     "host_id" },
	{ FT_REC_CLOCK,       sizeof(struct ft_clock),       "clock" },
	{ FT_REC_HOST,        sizeof(struct ft_host),        "host" },
	{ FT_REC_HOST_NETNS,  sizeof(struct ft_host_netns),  "host_netns" },
	{ FT_REC_END,         sizeof(struct ft_end),         "end" },
};

size_t capture__rec_size(uint16_t type)
{
	for (size_t i = 0; i < sizeof(rec_types) / sizeof(rec_types[0]); i++)
		if (rec_types[i].type == type)
			return rec_types[i].size;
	return 0;
}

const char *capture__rec_name(uint16_t type)
{
	for (size_t i = 0; i < sizeof(rec_types) / sizeof(rec_types[0]); i++)
		if (rec_types[i].type == type)
			return rec_types[i].name;
	return NULL;
}

const char *capture__stop_reason_name(uint32_t reason)
{
	switch (reason) {
	case FT_STOP_DURATION: return "duration";
	case FT_STOP_SIGNAL: return "signal";
	case FT_STOP_COMMAND: return "command exited";
	case FT_STOP_ERROR: return "error";
	case FT_STOP_MIXED: return "mixed";
	case FT_STOP_ROTATED: return "rotated";
	default: return "unknown";
	}
}

static void set_msg(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static uint32_t block_crc(const struct ft_block_header *bh, const void *payload, size_t clen)
{
	struct ft_block_header tmp = *bh;
	uLong crc;

	tmp.crc = 0;
	crc = crc32(0L, (const Bytef *)&tmp, sizeof(tmp));
	/* zlib's crc32 takes uInt lengths; clen is bounded by FT_BLOCK_MAX_ULEN-ish */
	crc = crc32(crc, (const Bytef *)payload, (uInt)clen);
	return (uint32_t)crc;
}

static uint32_t header_crc(const struct ft_file_header *h)
{
	struct ft_file_header tmp = *h;

	tmp.crc = 0;
	return (uint32_t)crc32(0L, (const Bytef *)&tmp, sizeof(tmp));
}

/* ------------------------------------------------------------------ */
/* writer                                                              */

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
		set_msg(w->errmsg, sizeof(w->errmsg),
			"%s: %s at offset %llu: %s; could not cut the file back to the last complete block: %s",
			w->path, what, (unsigned long long)w->good_off, strerror(-err), strerror(terr));
	else
		set_msg(w->errmsg, sizeof(w->errmsg),
			"%s: %s at offset %llu: %s; the capture keeps the %llu records written before",
			w->path, what, (unsigned long long)w->good_off, strerror(-err),
			(unsigned long long)w->records);
	/* the block in progress is lost */
	w->used = 0;
	w->nrec = 0;
	return err;
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
static bool being_written(int fd)
{
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		(void)flock(fd, LOCK_UN);
		return false;
	}
	return errno == EWOULDBLOCK;
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

		set_msg(err, errlen, "%s: cannot create: %s", path, strerror(e));
		return -e;
	}
	if (lstat(path, &st) < 0) {
		int e = errno;

		set_msg(err, errlen, "%s: cannot create: %s", path, strerror(e));
		return -e;
	}
	if (S_ISLNK(st.st_mode)) {
		set_msg(err, errlen,
			"%s: is a symbolic link; refusing to write a capture through it; remove it or choose another path",
			path);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		set_msg(err, errlen, "%s: exists and is not a regular file; choose another path", path);
		return -EEXIST;
	}
	if (st.st_uid != geteuid() && (owner_uid == (uid_t)-1 || st.st_uid != owner_uid)) {
		set_msg(err, errlen,
			"%s: exists and belongs to uid %u; refusing to replace it; remove it or choose another path",
			path, (unsigned)st.st_uid);
		return -EEXIST;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		bool busy = being_written(fd);

		close(fd);
		if (busy) {
			set_msg(err, errlen,
				"%s: another fabtrace is recording into it; choose another path (with -o "
				"NAME-%%h.ftr, hosts sharing a directory need distinct host names)", path);
			return -EBUSY;
		}
	}
	if (unlink(path) < 0) {
		int e = errno;

		set_msg(err, errlen, "%s: cannot replace the existing file: %s", path, strerror(e));
		return -e;
	}
	fd = open(path, flags, 0600);
	if (fd < 0) {
		int e = errno;

		/* EEXIST here means someone recreated it in between: refuse */
		set_msg(err, errlen, "%s: cannot create: %s", path, strerror(e));
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
		set_msg(err, errlen, "capture__create: invalid arguments");
		return -EINVAL;
	}
	*wp = NULL;
	set_msg(err, errlen, "%s", "");

	w = calloc(1, sizeof(*w));
	if (!w) {
		set_msg(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	w->fd = -1;
	w->version = hdr->version ? hdr->version : FT_FORMAT_VERSION;
	if (w->version != 1 && w->version != FT_FORMAT_VERSION) {
		set_msg(err, errlen, "%s: cannot write capture format version %u; this fabtrace writes 1 or %u",
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
		set_msg(err, errlen, "%s: out of memory", path);
		ret = -ENOMEM;
		goto fail;
	}
	/* the block CRC covers the frame: no checksum of zstd's own */
	if (w->zc &&
	    (ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, CAPTURE_ZSTD_LEVEL)) ||
	     ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 0)) ||
	     ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_contentSizeFlag, 1)))) {
		set_msg(err, errlen, "%s: the zstd library refused its settings", path);
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
		set_msg(err, errlen, "%s: cannot give the capture to uid %u: %s", path,
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
	hdr->crc = header_crc(hdr);

	ret = write_all(fd, hdr, sizeof(*hdr));
	if (ret < 0) {
		set_msg(err, errlen, "%s: cannot write the capture header: %s", path, strerror(-ret));
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
		set_msg(w->errmsg, sizeof(w->errmsg), "%s: zlib compress failed (%d)", w->path, zret);
		return 0;
	}
	clen = ZSTD_compress2(w->zc, w->out + sizeof(struct ft_block_header),
			      w->out_cap - sizeof(struct ft_block_header), w->buf, w->used);
	if (!ZSTD_isError(clen))
		return clen;
	w->err = ZSTD_getErrorCode(clen) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
	set_msg(w->errmsg, sizeof(w->errmsg), "%s: zstd compress failed (%s)", w->path,
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
	bh.crc = block_crc(&bh, w->out + sizeof(bh), clen);
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
	want = capture__rec_size(h.type);
	if (want && size < want)
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

int capture__close(struct capture_writer *w)
{
	int ret;

	if (!w)
		return 0;
	ret = capture__flush(w);
	/* fsync even after a write error: the blocks before it are worth keeping */
	if (fsync(w->fd) < 0 && ret == 0 && errno != EINVAL) {
		ret = -errno;
		set_msg(w->errmsg, sizeof(w->errmsg), "%s: fsync failed: %s", w->path,
			strerror(errno));
	}
	if (close(w->fd) < 0 && ret == 0 && errno != EINTR) {
		ret = -errno;
		set_msg(w->errmsg, sizeof(w->errmsg), "%s: close failed: %s", w->path,
			strerror(errno));
	}
	if (ret == 0 && w->err)
		ret = w->err;
	writer_free(w);
	return ret;
}

/* ------------------------------------------------------------------ */
/* reader                                                              */

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
	size_t ucap;
	ZSTD_DCtx *zd;       /* made at the first zstd block, kept for the others */
	size_t upos, ulen;   /* cursor in the current block */
	uint64_t block_off;  /* file offset of the current block */
	enum capture_state state;
	bool done;           /* no more records: END seen, EOF or error */
	bool seen_end;
	bool recording;      /* a recorder was writing it when it was opened */
	char err[320];
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
		set_msg(err, errlen, "capture__open: invalid arguments");
		return -EINVAL;
	}
	*rp = NULL;
	set_msg(err, errlen, "%s", "");

	r = calloc(1, sizeof(*r));
	if (!r) {
		set_msg(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	r->path = strdup(path);
	if (!r->path) {
		free(r);
		set_msg(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	/* not blocking in open(): a FIFO nobody writes to yet would hang us
	 * there without a word; we wait for its writer below, saying so */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (r->fd < 0) {
		ret = -errno;
		set_msg(err, errlen, "%s: cannot open: %s", path, strerror(-ret));
		goto fail;
	}
	wait_for_writer(r->fd, path);
	r->recording = being_written(r->fd);
	if (fcntl(r->fd, F_SETFL, fcntl(r->fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		ret = -errno;
		set_msg(err, errlen, "%s: cannot open: %s", path, strerror(-ret));
		goto fail;
	}

	h = &r->hdr;
	n = read_full(r->fd, h, sizeof(*h));
	if (n < 0) {
		ret = (int)n;
		set_msg(err, errlen, "%s: cannot read: %s", path, strerror(-ret));
		goto fail;
	}
	if ((size_t)n < sizeof(h->magic) || memcmp(h->magic, FT_MAGIC, sizeof(h->magic)) != 0) {
		ret = -EINVAL;
		set_msg(err, errlen, "%s: not a fabtrace capture", path);
		goto fail;
	}
	/* version sits right after the magic: check it before anything else */
	if ((size_t)n >= offsetof(struct ft_file_header, version) + sizeof(h->version)) {
		if (h->version > FT_FORMAT_VERSION) {
			ret = -EPROTONOSUPPORT;
			set_msg(err, errlen,
				"%s: capture format version %u is newer than this fabtrace supports (%u); upgrade fabtrace",
				path, (unsigned)h->version, (unsigned)FT_FORMAT_VERSION);
			goto fail;
		}
		if (h->version == 0) {
			ret = -EPROTONOSUPPORT;
			set_msg(err, errlen, "%s: capture format version 0 is not valid", path);
			goto fail;
		}
	}
	if ((size_t)n < sizeof(*h)) {
		ret = -EBADMSG;
		set_msg(err, errlen, "%s: capture header is truncated (%zd of %zu bytes)", path,
			n, sizeof(*h));
		goto fail;
	}
	if (h->header_size != sizeof(*h)) {
		ret = -EBADMSG;
		set_msg(err, errlen, "%s: capture header size is %u, expected %zu (corrupt header)",
			path, (unsigned)h->header_size, sizeof(*h));
		goto fail;
	}
	if (header_crc(h) != h->crc) {
		ret = -EBADMSG;
		set_msg(err, errlen, "%s: capture header CRC mismatch (corrupt header)", path);
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
	set_msg(r->err, sizeof(r->err), "block at offset %llu: %s",
		(unsigned long long)r->block_off, why);
	r->state = CAPTURE_CORRUPT;
	r->done = true;
	r->ulen = r->upos = 0;
	return -1;
}

static int reader_truncated(struct capture_reader *r, bool partial)
{
	if (r->recording)
		set_msg(r->err, sizeof(r->err),
			"capture is still being recorded (a fabtrace holds it open): %llu complete blocks are "
			"readable so far; read it again once the recording stops",
			(unsigned long long)r->blocks);
	else if (partial)
		set_msg(r->err, sizeof(r->err),
			"capture ends in a partial block at offset %llu (recording was interrupted); %llu complete blocks are readable",
			(unsigned long long)r->block_off, (unsigned long long)r->blocks);
	else
		set_msg(r->err, sizeof(r->err),
			"capture ends at offset %llu without an end record (recording was interrupted); %llu complete blocks are readable",
			(unsigned long long)r->block_off, (unsigned long long)r->blocks);
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
	if (block_crc(&bh, r->zbuf, bh.clen) != bh.crc)
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
		size_t want;

		if (bh.ulen - pos < sizeof(rh))
			return reader_corrupt(r, "record at payload offset %zu runs past the block", pos);
		memcpy(&rh, r->ubuf + pos, sizeof(rh));
		if (rh.size < sizeof(rh) || rh.size % 8)
			return reader_corrupt(r, "record at payload offset %zu has bad size %u",
					      pos, (unsigned)rh.size);
		if (rh.size > bh.ulen - pos)
			return reader_corrupt(r, "record at payload offset %zu (size %u) runs past the block",
					      pos, (unsigned)rh.size);
		want = capture__rec_size(rh.type);
		if (want && rh.size < want)
			return reader_corrupt(r, "%s record at payload offset %zu is %u bytes, expected %zu",
					      capture__rec_name(rh.type), pos, (unsigned)rh.size, want);
		pos += rh.size;
	}
	if (nrec != bh.nrec)
		return reader_corrupt(r, "holds %u records, header says %u",
				      (unsigned)nrec, (unsigned)bh.nrec);

	r->off += sizeof(bh) + bh.clen;
	r->good_off = r->off;
	r->blocks++;
	r->ulen = bh.ulen;
	r->upos = 0;
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

	h = (const struct ft_rec_hdr *)(r->ubuf + r->upos); /* 8-aligned, size checked */
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
