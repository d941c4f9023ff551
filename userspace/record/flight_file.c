// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A flight recorder's output file (flight_file.h): created as NAME.part,
 * closed with END, its header's start pulled back to its earliest record,
 * then renamed to NAME.  And lost-event counts made relative to a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/util.h"
#include "userspace/capture/records.h"
#include "userspace/record/flight_file.h"

int flight_file__create(struct flight_file *ff, const char *path, const struct ft_file_header *hdr,
			char *err, size_t errlen)
{
	uid_t uid;
	gid_t gid;
	int rc;

	memset(ff, 0, sizeof(*ff));
	if ((size_t)snprintf(ff->path, sizeof(ff->path), "%s", path) >= sizeof(ff->path) ||
	    (size_t)snprintf(ff->part, sizeof(ff->part), "%s" FLIGHT_PART, path) >= sizeof(ff->part)) {
		snprintf(err, errlen, "%s: name too long", path);
		return -ENAMETOOLONG;
	}
	ft_sudo_owner(&uid, &gid); /* the files belong to whoever ran sudo, as captures do */
	ff->hdr = *hdr;
	rc = capture__create(&ff->w, ff->part, &ff->hdr, uid, gid, err, errlen);
	if (rc)
		ff->w = NULL;
	return rc;
}

uint64_t flight_rec_ts(const struct ft_rec_hdr *rec)
{
	uint64_t t[2];

	if (capture__rec_check(rec, NULL, 0) || !capture__rec_times(rec, t))
		return 0;
	/* the later time places these: a CE flow's first_ns is since the
	 * recorder started, a trigger's moment may be asked for in the past (--at) */
	return rec->type == FT_REC_CE_FLOW || rec->type == FT_REC_TRIGGER ? t[1] : t[0];
}

int flight_file__append(struct flight_file *ff, const struct ft_rec_hdr *rec)
{
	uint64_t t = flight_rec_ts(rec);
	int rc;

	if (ff->failed)
		return -EIO;
	rc = capture__append(ff->w, rec);
	if (rc) {
		ff->failed = true;
		return rc;
	}
	if (t && (!ff->min_ts || t < ff->min_ts))
		ff->min_ts = t;
	ff->records++;
	return 0;
}

int flight_file__flush(struct flight_file *ff)
{
	int rc;

	if (ff->failed)
		return -EIO;
	rc = capture__flush(ff->w);
	if (rc)
		ff->failed = true;
	return rc;
}

uint64_t flight_file__bytes(const struct flight_file *ff)
{
	return ff->w ? capture__bytes(ff->w) : 0;
}

/* The header's start and flags, in place (the CRC follows). */
static int fix_header(const char *path, uint64_t min_ts, uint32_t flags)
{
	struct ft_file_header h;
	int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW), rc = 0;

	if (fd < 0)
		return -errno;
	if (pread(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h)) {
		close(fd);
		return -EIO;
	}
	if (min_ts && min_ts < h.start_mono_ns)
		h.start_mono_ns = min_ts;
	h.flags = (h.flags & ~(uint32_t)(FT_FILE_SEGMENT | FT_FILE_SNAPSHOT)) | flags; /* the profile's bit stays */
	h.crc = 0;
	h.crc = (uint32_t)crc32(0L, (const Bytef *)&h, sizeof(h));
	if (pwrite(fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || fsync(fd))
		rc = errno ? -errno : -EIO;
	close(fd);
	return rc;
}

/* Make the rename durable: the directory's entry. */
static void sync_dir(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	fd = open(path_dir(path, dir, sizeof(dir)), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
}

int flight_file__finish(struct flight_file *ff, uint32_t stop_reason, uint64_t end_ns, uint32_t flags,
			char *err, size_t errlen)
{
	struct ft_end end = { .hdr = { FT_REC_END, sizeof(end), 0 } };
	uint64_t kept;
	int rc = 0, wrc, removed;

	if (errlen)
		err[0] = 0;
	if (!ff->w)
		return -EBADF;
	end.ts_ns = end_ns;
	end.records = ff->records;
	end.stop_reason = stop_reason;
	if (!ff->failed)
		(void)flight_file__append(ff, &end.hdr);
	/* a failed writer left a readable, truncated capture, or removed a bare header */
	wrc = capture__close_unless_bare(ff->w, ff->failed, &kept, &removed);
	ff->w = NULL;
	if (removed) {
		snprintf(err, errlen, "%s: %s before any record was written; %s", ff->path,
			 strerror(wrc < 0 ? -wrc : EIO), removed < 0 ? "its .part file could not be removed" : "not kept");
		return wrc ? wrc : -EIO;
	}
	if (wrc || ff->failed) /* named by the file it becomes, not its .part */
		snprintf(err, errlen, "%s: write failed: %s; kept readable up to its last complete block (%llu "
			 "records)", ff->path, strerror(wrc < 0 ? -wrc : EIO), (unsigned long long)kept);
	rc = fix_header(ff->part, ff->min_ts, flags);
	if (rc) {
		snprintf(err, errlen, "%s: cannot finish its header: %s", ff->part, strerror(-rc));
		return rc;
	}
	if (rename(ff->part, ff->path)) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot rename it to %s: %s", ff->part, ff->path, strerror(errno));
		return rc;
	}
	sync_dir(ff->path);
	return wrc ? wrc : ff->failed ? -EIO : 0;
}

/* ---- lost-event counts ---- */

int flight_lost__init(struct flight_lost *l)
{
	l->base = calloc(FT_SRC_MAX, sizeof(*l->base));
	l->last = calloc(FT_SRC_MAX, sizeof(*l->last));
	l->seen = calloc(FT_SRC_MAX, sizeof(*l->seen));
	if (!l->base || !l->last || !l->seen) {
		flight_lost__free(l);
		return -ENOMEM;
	}
	return 0;
}

void flight_lost__free(struct flight_lost *l)
{
	free(l->base);
	free(l->last);
	free(l->seen);
	memset(l, 0, sizeof(*l));
}

static bool lost_slot(const struct ft_lost *rec)
{
	return rec->source < FT_SRC_MAX && rec->cpu < FLIGHT_LOST_CPUS;
}

void flight_lost__to_segment(struct flight_lost *l, struct ft_lost *rec)
{
	uint64_t base;

	if (!lost_slot(rec))
		return;
	/* last: the recorder's cumulative count; base: what it was when the segment began */
	l->last[rec->source][rec->cpu] = rec->lost;
	l->seen[rec->source][rec->cpu] = 1;
	base = l->base[rec->source][rec->cpu];
	rec->lost = rec->lost > base ? rec->lost - base : 0;
}

void flight_lost__rebase(struct flight_lost *l)
{
	memcpy(l->base, l->last, FT_SRC_MAX * sizeof(*l->base));
}

int flight_lost__write(const struct flight_lost *l, uint64_t ts, struct flight_file *ff)
{
	for (uint32_t src = 0; src < FT_SRC_MAX; src++)
		for (uint32_t cpu = 0; cpu < FLIGHT_LOST_CPUS; cpu++) {
			struct ft_lost r = { .hdr = { FT_REC_LOST, sizeof(r), 0 } };
			uint64_t v = l->last[src][cpu], b = l->base[src][cpu];
			int rc;

			if (!l->seen[src][cpu])
				continue;
			r.ts_ns = ts;
			r.lost = v > b ? v - b : 0;
			r.source = src;
			r.cpu = cpu;
			rc = flight_file__append(ff, &r.hdr);
			if (rc)
				return rc;
		}
	return 0;
}

void flight_lost__to_snapshot(struct flight_lost *l, struct ft_lost *rec)
{
	if (!lost_slot(rec))
		return;
	/* last: the segment's own count; base: what the snapshot's earlier segments lost */
	l->last[rec->source][rec->cpu] = rec->lost;
	rec->lost += l->base[rec->source][rec->cpu];
}

void flight_lost__carry(struct flight_lost *l)
{
	for (int src = 0; src < FT_SRC_MAX; src++)
		for (int cpu = 0; cpu < FLIGHT_LOST_CPUS; cpu++) {
			l->base[src][cpu] += l->last[src][cpu];
			l->last[src][cpu] = 0;
		}
}

bool flight_file__holds_none(const char *path)
{
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	char err[CAPTURE_ERR_MAX];
	bool none;

	if (capture__open(&r, path, err, sizeof(err)) < 0) { /* killed before its header was whole */
		struct stat st;

		return !stat(path, &st) && (size_t)st.st_size < sizeof(struct ft_file_header);
	}
	none = capture__next(r, &rec) == 0 && capture__state(r) == CAPTURE_TRUNCATED;
	capture__free(r);
	return none;
}
