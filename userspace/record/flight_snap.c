// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The snapshot writer thread (flight_snap.h): a queue of jobs in, a queue
 * of finished work out, one snapshot open at a time.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "lib/util.h"
#include "userspace/capture/capture.h"
#include "userspace/record/flight_file.h"
#include "userspace/record/flight_snap.h"

enum job_kind { JOB_COPY, JOB_SAVE };

struct job {
	struct job *next;
	enum job_kind kind;
	uint32_t snap, skip;
	uint64_t seq, floor_ns;
	char seg[4096], out[4096];
};

struct done_item {
	struct done_item *next;
	struct flight_done d;
};

struct flight_snapper {
	pthread_t thread;
	bool running, stopping;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *head, *tail;
	struct done_item *dhead, *dtail;
	int efd;
	/* the thread's own: the snapshot being written */
	struct flight_file ff;
	bool open;
	uint32_t snap;
	struct flight_lost lost;
	uint32_t end_reason;
	uint64_t end_ns;
	char warn[512];
};

static void post(struct flight_snapper *sp, const struct flight_done *d)
{
	struct done_item *it = malloc(sizeof(*it));
	uint64_t one = 1;

	if (!it)
		return; /* the recorder then never unpins: its ring keeps that segment, no worse */
	it->next = NULL;
	it->d = *d;
	pthread_mutex_lock(&sp->mu);
	if (sp->dtail)
		sp->dtail->next = it;
	else
		sp->dhead = it;
	sp->dtail = it;
	pthread_mutex_unlock(&sp->mu);
	(void)!write(sp->efd, &one, sizeof(one));
}

/* Open snapshot OUT with the header of the segment R reads. */
static int open_snapshot(struct flight_snapper *sp, const struct job *j, struct capture_reader *r,
			 char *err, size_t errlen)
{
	struct ft_file_header h = *capture__header(r);
	int rc;

	h.flags = (h.flags & ~(uint32_t)FT_FILE_SEGMENT) | FT_FILE_SNAPSHOT; /* the profile's bit stays */
	if (h.start_mono_ns < j->floor_ns) /* the segment's start reached back to the bins left out */
		h.start_mono_ns = j->floor_ns;
	h.crc = 0;
	rc = flight_file__create(&sp->ff, j->out, &h, err, errlen);
	if (rc)
		return rc;
	memset(sp->lost.base, 0, FT_SRC_MAX * sizeof(*sp->lost.base));
	memset(sp->lost.last, 0, FT_SRC_MAX * sizeof(*sp->lost.last));
	sp->open = true;
	sp->snap = j->snap;
	sp->end_reason = FT_STOP_ROTATED;
	sp->end_ns = 0;
	sp->warn[0] = 0;
	return 0;
}

/* Whether REC is a bin that closed before FLOOR_NS: one a CPU held until its
 * next packet (they leave in batches, docs/known-issues.md), from long
 * before the snapshot's window and its first segment. */
static bool held_bin(const struct ft_rec_hdr *rec, uint64_t floor_ns)
{
	uint64_t ts;

	if (rec->type != FT_REC_IFACE_BIN && rec->type != FT_REC_QDISC_BIN)
		return false;
	ts = flight_rec_ts(rec);
	return ts && ts < floor_ns;
}

static void do_copy(struct flight_snapper *sp, const struct job *j)
{
	struct flight_done d = { .kind = FLIGHT_DONE_COPY, .snap = j->snap, .seq = j->seq };
	struct capture_reader *r = NULL;
	const struct ft_rec_hdr *rec;
	bool first = !sp->open || sp->snap != j->snap;
	uint64_t i = 0;

	if (capture__open(&r, j->seg, d.err, sizeof(d.err))) {
		d.rc = -EIO;
		snprintf(sp->warn, sizeof(sp->warn), "%s", d.err);
		post(sp, &d);
		return;
	}
	if (first && open_snapshot(sp, j, r, d.err, sizeof(d.err))) {
		d.rc = -EIO;
		capture__free(r);
		post(sp, &d);
		return;
	}
	while (capture__next(r, &rec) == 1) {
		struct ft_lost l;

		if (!first && i++ < j->skip)
			continue; /* repeats what the snapshot holds */
		if (held_bin(rec, j->floor_ns))
			continue;
		if (rec->type == FT_REC_END) {
			const struct ft_end *e = (const void *)rec;

			sp->end_reason = e->stop_reason;
			sp->end_ns = e->ts_ns;
			break;
		}
		if (rec->type == FT_REC_LOST && rec->size >= sizeof(l)) {
			memcpy(&l, rec, sizeof(l));
			l.hdr.size = sizeof(l);
			flight_lost__to_snapshot(&sp->lost, &l);
			rec = &l.hdr;
		}
		if (flight_file__append(&sp->ff, rec)) {
			d.rc = -EIO;
			snprintf(d.err, sizeof(d.err), "%s", capture__last_error(sp->ff.w));
			break;
		}
	}
	if (capture__state(r) != CAPTURE_OK && !d.err[0]) /* what was readable is in */
		snprintf(sp->warn, sizeof(sp->warn), "%.200s: %.280s", j->seg,
			 capture__error(r)[0] ? capture__error(r) : "no END");
	flight_lost__carry(&sp->lost);
	capture__free(r);
	post(sp, &d);
}

static void do_save(struct flight_snapper *sp, const struct job *j)
{
	struct flight_done d = { .kind = FLIGHT_DONE_SAVED, .snap = j->snap };

	if (!sp->open || sp->snap != j->snap) {
		d.rc = -ENOENT;
		snprintf(d.err, sizeof(d.err), "no segment of its window could be read%s%.460s",
			 sp->warn[0] ? ": " : "", sp->warn);
		post(sp, &d);
		return;
	}
	str_copy(d.path, sp->ff.path, sizeof(d.path));
	d.records = sp->ff.records;
	d.rc = flight_file__finish(&sp->ff, sp->end_reason, sp->end_ns ? sp->end_ns : mono_ns(),
				   FT_FILE_SNAPSHOT, d.err, sizeof(d.err));
	if (!d.rc && sp->warn[0])
		snprintf(d.err, sizeof(d.err), "%s", sp->warn);
	d.bytes = 0;
	{
		FILE *f = fopen(d.path, "rb");

		if (f) {
			fseek(f, 0, SEEK_END);
			d.bytes = (uint64_t)ftell(f);
			fclose(f);
		}
	}
	sp->open = false;
	post(sp, &d);
}

static void *run(void *arg)
{
	struct flight_snapper *sp = arg;

	pthread_mutex_lock(&sp->mu);
	for (;;) {
		struct job *j;

		while (!sp->head && !sp->stopping)
			pthread_cond_wait(&sp->cv, &sp->mu);
		j = sp->head;
		if (!j)
			break; /* stopping, and nothing left */
		sp->head = j->next;
		if (!sp->head)
			sp->tail = NULL;
		pthread_mutex_unlock(&sp->mu);
		if (j->kind == JOB_COPY)
			do_copy(sp, j);
		else
			do_save(sp, j);
		free(j);
		pthread_mutex_lock(&sp->mu);
	}
	pthread_mutex_unlock(&sp->mu);
	return NULL;
}

int flight_snapper__start(struct flight_snapper **out, char *err, size_t errlen)
{
	struct flight_snapper *sp = calloc(1, sizeof(*sp));
	sigset_t all, old;
	int rc;

	*out = sp;
	if (sp)
		sp->efd = -1;
	if (!sp || flight_lost__init(&sp->lost)) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&sp->mu, NULL);
	pthread_cond_init(&sp->cv, NULL);
	sp->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sp->efd < 0) {
		rc = -errno;
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		return rc;
	}
	/* signals are the main thread's business (its signalfd) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&sp->thread, NULL, run, sp);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "cannot start the snapshot thread: %s", strerror(rc));
		return -rc;
	}
	sp->running = true;
	return 0;
}

int flight_snapper__fd(const struct flight_snapper *sp)
{
	return sp->efd;
}

static int push(struct flight_snapper *sp, struct job *j)
{
	pthread_mutex_lock(&sp->mu);
	if (sp->tail)
		sp->tail->next = j;
	else
		sp->head = j;
	sp->tail = j;
	pthread_cond_signal(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
	return 0;
}

static struct job *new_job(enum job_kind kind, uint32_t snap)
{
	struct job *j = calloc(1, sizeof(*j));

	if (j) {
		j->kind = kind;
		j->snap = snap;
	}
	return j;
}

int flight_snapper__copy(struct flight_snapper *sp, uint32_t snap, const char *out_path, uint64_t seq,
			 const char *seg_path, uint32_t skip, uint64_t floor_ns)
{
	struct job *j = new_job(JOB_COPY, snap);

	if (!j)
		return -ENOMEM;
	j->seq = seq;
	j->skip = skip;
	j->floor_ns = floor_ns;
	str_copy(j->seg, seg_path, sizeof(j->seg));
	str_copy(j->out, out_path, sizeof(j->out));
	return push(sp, j);
}

int flight_snapper__save(struct flight_snapper *sp, uint32_t snap)
{
	struct job *j = new_job(JOB_SAVE, snap);

	return j ? push(sp, j) : -ENOMEM;
}

size_t flight_snapper__reap(struct flight_snapper *sp, struct flight_done *out, size_t max)
{
	uint64_t v;
	size_t n = 0;

	(void)!read(sp->efd, &v, sizeof(v));
	pthread_mutex_lock(&sp->mu);
	while (sp->dhead && n < max) {
		struct done_item *it = sp->dhead;

		sp->dhead = it->next;
		if (!sp->dhead)
			sp->dtail = NULL;
		out[n++] = it->d;
		free(it);
	}
	if (sp->dhead) { /* more than MAX: come back */
		uint64_t one = 1;

		(void)!write(sp->efd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&sp->mu);
	return n;
}

void flight_snapper__stop(struct flight_snapper *sp)
{
	if (!sp || !sp->running)
		return;
	pthread_mutex_lock(&sp->mu);
	sp->stopping = true;
	pthread_cond_signal(&sp->cv);
	pthread_mutex_unlock(&sp->mu);
	pthread_join(sp->thread, NULL);
	sp->running = false;
}

void flight_snapper__free(struct flight_snapper *sp)
{
	if (!sp)
		return;
	flight_snapper__stop(sp);
	while (sp->head) {
		struct job *j = sp->head;

		sp->head = j->next;
		free(j);
	}
	while (sp->dhead) {
		struct done_item *it = sp->dhead;

		sp->dhead = it->next;
		free(it);
	}
	if (sp->open) { /* never asked to save: keep what was copied, readable */
		char err[512];

		flight_file__finish(&sp->ff, FT_STOP_ERROR, mono_ns(), FT_FILE_SNAPSHOT, err, sizeof(err));
	}
	if (sp->efd >= 0)
		close(sp->efd);
	flight_lost__free(&sp->lost);
	pthread_mutex_destroy(&sp->mu);
	pthread_cond_destroy(&sp->cv);
	free(sp);
}
