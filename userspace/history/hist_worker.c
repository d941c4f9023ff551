// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The summarizing thread (history.h).  The flight recorder calls
 * hist_worker__segment_closed() on its own thread as a segment is renamed
 * into place: the file is opened there (an open(2), nothing more), so that
 * retention may delete the name while the summary is still due, and queued.
 * The thread loads it through /proc/self/fd, at a low priority, and appends
 * the lines; recording never waits for it.  A full queue drops the segment
 * (counted) rather than make the recorder wait.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "lib/util.h"
#include "userspace/history/history.h"

#define QUEUE_MAX 64

struct job {
	int fd;
	char name[64];
};

struct hist_worker {
	char dir[4096];
	int64_t keep_s;
	pthread_t th;
	bool running, stopping;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job q[QUEUE_MAX];
	size_t head, n;
	struct hist_keys prev;
	struct hist_worker_stats st;
};

static void one(struct hist_worker *w, struct job *jb)
{
	struct hist_keys next = { 0 };
	char path[64], err[512];
	size_t nl = 0;
	int rc;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", jb->fd);
	rc = hist__summarize(path, jb->name, w->dir, &w->prev, &next, &nl, err, sizeof(err));
	close(jb->fd);
	pthread_mutex_lock(&w->mu);
	w->st.segments++;
	w->st.lines += nl;
	if (rc) {
		w->st.failed++;
		str_copy(w->st.last_error, err, sizeof(w->st.last_error));
	}
	if (w->keep_s)
		w->st.days_deleted += hist_store__retain(w->dir, (int64_t)time(NULL), w->keep_s);
	pthread_mutex_unlock(&w->mu);
	hist_keys__free(&w->prev);
	w->prev = next;
}

static void *run(void *arg)
{
	struct hist_worker *w = arg;

	/* below the recorder: the summaries may wait, the rings may not */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct job jb;

		while (!w->n && !w->stopping)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->n)
			break;
		jb = w->q[w->head];
		w->head = (w->head + 1) % QUEUE_MAX;
		w->n--;
		pthread_mutex_unlock(&w->mu);
		one(w, &jb);
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int hist_worker__start(struct hist_worker **out, const char *dir, int64_t keep_s, char *err, size_t errlen)
{
	struct hist_worker *w = calloc(1, sizeof(*w));
	sigset_t all, old;
	int rc;

	*out = w;
	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	str_copy(w->dir, dir, sizeof(w->dir));
	w->keep_s = keep_s;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	rc = hist_store__mkdir(dir, err, errlen);
	if (rc)
		return rc;
	if (keep_s)
		w->st.days_deleted += hist_store__retain(dir, (int64_t)time(NULL), keep_s);
	/* the thread takes no signal: Ctrl-C and SIGUSR1 are the recorder's loop's (its
	 * signalfd), and a thread that left them unblocked would take them instead */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->th, NULL, run, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "the summaries' thread: %s", strerror(rc));
		return -rc;
	}
	w->running = true;
	return 0;
}

void hist_worker__segment_closed(void *ctx, const char *path, const char *name)
{
	struct hist_worker *w = ctx;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	pthread_mutex_lock(&w->mu);
	if (fd < 0 || w->n == QUEUE_MAX || !w->running) {
		w->st.dropped++;
		if (fd >= 0)
			close(fd);
	} else {
		struct job *jb = &w->q[(w->head + w->n) % QUEUE_MAX];

		jb->fd = fd;
		str_copy(jb->name, name, sizeof(jb->name));
		w->n++;
		pthread_cond_signal(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
}

void hist_worker__stop(struct hist_worker *w)
{
	if (!w || !w->running)
		return;
	pthread_mutex_lock(&w->mu);
	w->stopping = true;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	w->running = false;
}

void hist_worker__stats(struct hist_worker *w, struct hist_worker_stats *st)
{
	pthread_mutex_lock(&w->mu);
	*st = w->st;
	pthread_mutex_unlock(&w->mu);
}

void hist_worker__free(struct hist_worker *w)
{
	if (!w)
		return;
	hist_worker__stop(w);
	for (size_t i = 0; i < w->n; i++)
		close(w->q[(w->head + i) % QUEUE_MAX].fd);
	hist_keys__free(&w->prev);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}
