// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ring of segments (flight_ring.h): the directory and its lock, the
 * segments found there, the one being written, retention.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "lib/util.h"
#include "userspace/record/flight_file.h"
#include "userspace/record/flight_ring.h"

struct flight_ring {
	char dir[4096];
	int lockfd;
	bool made_dir;              /* the directory is this recorder's (flight_ring__abandon) */
	struct flight_limits lim;
	struct flight_seg *segs;    /* closed, oldest first */
	size_t n, cap;
	struct flight_file cur;
	bool writing;
	uint64_t cur_seq, cur_start;
	uint32_t cur_preamble;
	uint64_t next_seq;
	struct flight_lost lost;
	uint64_t written, deleted, adopted;
	char error[CAPTURE_ERR_MAX];
};

/* "seg-00000042-20261201T101502Z.ftr": its sequence number, or -1. */
static int64_t seg_seq(const char *name, bool *part)
{
	size_t len = strlen(name);
	char *end;
	unsigned long long v;

	*part = len > strlen(FLIGHT_PART) && !strcmp(name + len - strlen(FLIGHT_PART), FLIGHT_PART);
	if (*part)
		len -= strlen(FLIGHT_PART);
	if (strncmp(name, "seg-", 4) != 0 || len < 8 || strncmp(name + len - 4, ".ftr", 4) != 0)
		return -1;
	v = strtoull(name + 4, &end, 10);
	if (end == name + 4 || *end != '-')
		return -1;
	return (int64_t)v;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct flight_seg *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* CLOCK_REALTIME (ns) as CLOCK_MONOTONIC now, 0 when before the boot. */
static uint64_t real_to_mono(int64_t rt_ns)
{
	struct timespec rt;
	int64_t off;

	clock_gettime(CLOCK_REALTIME, &rt);
	off = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec - (int64_t)mono_ns();
	return rt_ns > off ? (uint64_t)(rt_ns - off) : 0;
}

/* Segments an earlier recorder left: they count against the bounds. */
static int adopt(struct flight_ring *r)
{
	DIR *d = opendir(r->dir);
	struct dirent *e;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		bool part;
		int64_t seq = seg_seq(e->d_name, &part);
		struct flight_seg *s;
		struct stat st;
		char path[4096];

		if (seq < 0 || (size_t)snprintf(path, sizeof(path), "%s/%s", r->dir, e->d_name) >= sizeof(path) ||
		    lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (part) { /* a killed recorder's: readable up to its last block, and closed now */
			char fin[4096];

			if (flight_file__holds_none(path)) { /* a header alone is no segment */
				unlink(path);
				continue;
			}

			snprintf(fin, sizeof(fin), "%.*s", (int)(strlen(path) - strlen(FLIGHT_PART)), path);
			if (rename(path, fin))
				continue;
			str_copy(path, fin, sizeof(path));
		}
		if (grow_array((void **)&r->segs, &r->cap, r->n + 1, sizeof(*r->segs))) {
			closedir(d);
			return -ENOMEM;
		}
		s = &r->segs[r->n++];
		memset(s, 0, sizeof(*s));
		s->seq = (uint64_t)seq;
		s->bytes = (uint64_t)st.st_size;
		s->end_ns = real_to_mono((int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
		s->start_ns = s->end_ns;
		str_copy(s->name, strrchr(path, '/') + 1, sizeof(s->name));
		if ((uint64_t)seq >= r->next_seq)
			r->next_seq = (uint64_t)seq + 1;
		r->adopted++;
	}
	closedir(d);
	if (r->n) /* none: no array at all */
		qsort(r->segs, r->n, sizeof(*r->segs), cmp_seq);
	return 0;
}

int flight_ring__open(struct flight_ring **out, const char *dir, const struct flight_limits *lim,
		      char *err, size_t errlen)
{
	struct flight_ring *r = calloc(1, sizeof(*r));
	char lock[4200];
	struct stat st;
	int rc;

	*out = r;
	if (!r || flight_lost__init(&r->lost)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->lockfd = -1;
	r->lim = *lim;
	r->next_seq = 1;
	if ((size_t)snprintf(r->dir, sizeof(r->dir), "%s", dir) >= sizeof(r->dir) - 64) {
		snprintf(err, errlen, "%s: directory name too long", dir);
		return -ENAMETOOLONG;
	}
	/* a directory of its own, as a service's -o /var/lib/fabtrace is on its
	 * first start: made where its parent exists (not a whole path: a typo
	 * should not grow a tree) */
	if (stat(dir, &st)) {
		if (errno != ENOENT || mkdir(dir, 0755) || stat(dir, &st)) {
			rc = -errno;
			snprintf(err, errlen, "%s: %s%s", dir, strerror(-rc), create_hint(-rc, dir));
			return rc;
		}
		r->made_dir = true;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a directory (with --switch-output, -o names the directory "
			 "the segments go into)", dir);
		return -ENOTDIR;
	}
	snprintf(lock, sizeof(lock), "%s/" FLIGHT_LOCK, dir);
	r->lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (r->lockfd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot write there: %s", dir, strerror(errno));
		return rc;
	}
	if (flock(r->lockfd, LOCK_EX | LOCK_NB)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", dir, errno == EWOULDBLOCK ?
			 "another flight recorder writes its segments there; give each its own directory" :
			 strerror(errno));
		return rc;
	}
	rc = adopt(r);
	if (rc)
		snprintf(err, errlen, "%s: cannot read it: %s", dir, strerror(-rc));
	return rc;
}

bool flight_ring__made_dir(const struct flight_ring *r)
{
	return r && r->made_dir;
}

void flight_ring__abandon(struct flight_ring *r)
{
	char lock[4200];

	if (!r || !r->made_dir || r->writing || r->n || r->written)
		return;
	snprintf(lock, sizeof(lock), "%s/" FLIGHT_LOCK, r->dir);
	unlink(lock);
	rmdir(r->dir); /* empty by now, or something else is in it and it stays */
}

void flight_ring__free(struct flight_ring *r)
{
	if (!r)
		return;
	if (r->writing) { /* an error path: what was written stays, readable and truncated */
		char err[CAPTURE_ERR_MAX];

		flight_file__finish(&r->cur, FT_STOP_ERROR, mono_ns(), FT_FILE_SEGMENT, err, sizeof(err));
	}
	if (r->lockfd >= 0)
		close(r->lockfd);
	flight_lost__free(&r->lost);
	free(r->segs);
	free(r);
}

int flight_ring__begin(struct flight_ring *r, const struct ft_file_header *hdr, uint64_t now_ns,
		       char *err, size_t errlen)
{
	struct ft_file_header h = *hdr;
	struct timespec rt;
	struct tm tm;
	char path[4200], stamp[32];
	int rc;

	clock_gettime(CLOCK_REALTIME, &rt);
	gmtime_r(&rt.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(path, sizeof(path), "%s/seg-%08" PRIu64 "-%s.ftr", r->dir, r->next_seq, stamp);
	if (!h.start_mono_ns || h.start_mono_ns > now_ns)
		h.start_mono_ns = now_ns;
	h.flags = (h.flags & ~(uint32_t)FT_FILE_SNAPSHOT) | FT_FILE_SEGMENT; /* the profile's bit stays */
	rc = flight_file__create(&r->cur, path, &h, err, errlen);
	if (rc) {
		snprintf(r->error, sizeof(r->error), "%s", err);
		return rc;
	}
	r->writing = true;
	r->cur_seq = r->next_seq++;
	r->cur_start = h.start_mono_ns;
	r->cur_preamble = 0;
	flight_lost__rebase(&r->lost);
	return 0;
}

bool flight_ring__writing(const struct flight_ring *r)
{
	return r->writing;
}

int flight_ring__append(struct flight_ring *r, const struct ft_rec_hdr *rec)
{
	int rc;

	if (!r->writing)
		return -EBADF;
	if (rec->type == FT_REC_LOST && rec->size >= sizeof(struct ft_lost)) {
		struct ft_lost l;

		memcpy(&l, rec, sizeof(l));
		l.hdr.size = sizeof(l);
		flight_lost__to_segment(&r->lost, &l);
		rc = flight_file__append(&r->cur, &l.hdr);
	} else {
		rc = flight_file__append(&r->cur, rec);
	}
	if (rc && !r->error[0])
		snprintf(r->error, sizeof(r->error), "%s", capture__last_error(r->cur.w));
	return rc;
}

int flight_ring__flush(struct flight_ring *r)
{
	int rc;

	if (!r->writing)
		return 0;
	rc = flight_file__flush(&r->cur);
	if (rc && !r->error[0])
		snprintf(r->error, sizeof(r->error), "%s", capture__last_error(r->cur.w));
	return rc;
}

void flight_ring__preamble_done(struct flight_ring *r)
{
	r->cur_preamble = (uint32_t)r->cur.records;
}

uint64_t flight_ring__open_start(const struct flight_ring *r)
{
	return r->writing ? r->cur_start : 0;
}

uint64_t flight_ring__open_bytes(const struct flight_ring *r)
{
	return r->writing ? flight_file__bytes(&r->cur) : 0;
}

const char *flight_ring__error(const struct flight_ring *r)
{
	return r->error;
}

int flight_ring__end(struct flight_ring *r, uint32_t stop_reason, uint64_t now_ns, char *err, size_t errlen)
{
	struct flight_seg *s;
	struct stat st;
	int rc;

	if (!r->writing)
		return -EBADF;
	if (!r->cur.failed)
		(void)flight_lost__write(&r->lost, now_ns, &r->cur);
	rc = flight_file__finish(&r->cur, stop_reason, now_ns, FT_FILE_SEGMENT, err, errlen);
	r->writing = false;
	if (rc) /* what became of the file: the append's error named its .part */
		snprintf(r->error, sizeof(r->error), "%s", err);
	if (lstat(r->cur.path, &st)) /* not renamed: not a segment */
		return rc ? rc : -errno;
	if (grow_array((void **)&r->segs, &r->cap, r->n + 1, sizeof(*r->segs)))
		return -ENOMEM;
	s = &r->segs[r->n++];
	memset(s, 0, sizeof(*s));
	s->seq = r->cur_seq;
	s->start_ns = r->cur.min_ts && r->cur.min_ts < r->cur_start ? r->cur.min_ts : r->cur_start;
	s->open_ns = r->cur_start;
	s->end_ns = now_ns;
	s->bytes = (uint64_t)st.st_size;
	s->preamble = r->cur_preamble;
	s->this_run = true;
	str_copy(s->name, strrchr(r->cur.path, '/') + 1, sizeof(s->name));
	r->written++;
	return rc;
}

size_t flight_ring__retain(struct flight_ring *r, uint64_t now_ns)
{
	struct flight_seg_span *span = r->n ? calloc(r->n, sizeof(*span)) : NULL;
	size_t k, gone = 0;

	if (!span)
		return 0;
	for (size_t i = 0; i < r->n; i++)
		span[i] = (struct flight_seg_span){ r->segs[i].start_ns, r->segs[i].end_ns, r->segs[i].bytes,
						    r->segs[i].pins > 0 };
	k = flight_retain_drop(span, r->n, flight_ring__open_bytes(r), now_ns, &r->lim);
	free(span);
	for (size_t i = 0; i < k; i++) {
		char path[4200];

		/* one that is gone already (removed by hand) is gone all the same */
		if (unlink(flight_ring__path(r, &r->segs[i], path, sizeof(path))) && errno != ENOENT)
			break;
		gone++;
	}
	memmove(r->segs, r->segs + gone, (r->n - gone) * sizeof(*r->segs));
	r->n -= gone;
	r->deleted += gone;
	return gone;
}

size_t flight_ring__count(const struct flight_ring *r)
{
	return r->n;
}

struct flight_seg *flight_ring__seg(struct flight_ring *r, size_t i)
{
	return i < r->n ? &r->segs[i] : NULL;
}

struct flight_seg *flight_ring__find(struct flight_ring *r, uint64_t seq)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->segs[i].seq == seq)
			return &r->segs[i];
	return NULL;
}

uint64_t flight_ring__disk_bytes(const struct flight_ring *r)
{
	uint64_t t = flight_ring__open_bytes(r);

	for (size_t i = 0; i < r->n; i++)
		t += r->segs[i].bytes;
	return t;
}

uint64_t flight_ring__written(const struct flight_ring *r)
{
	return r->written;
}

uint64_t flight_ring__deleted(const struct flight_ring *r)
{
	return r->deleted;
}

uint64_t flight_ring__adopted(const struct flight_ring *r)
{
	return r->adopted;
}

const char *flight_ring__dir(const struct flight_ring *r)
{
	return r->dir;
}

const char *flight_ring__path(const struct flight_ring *r, const struct flight_seg *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", r->dir, s->name);
	return buf;
}
