// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ranks' run-queue wait from the kernel's schedstat (schedwait.h).  Each
 * followed thread's file stays open and is read again at offset 0, which
 * makes the kernel format it anew: one system call a thread a sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util.h"
#include "probes/schedwait.h"

struct sw_thread {
	pid_t tid;
	int fd;
	uint64_t cpu_ns, wait_ns;   /* at the last read */
};

struct sw_proc {
	pid_t pid;
	uint32_t netns;
	uint64_t last_ns;           /* the last sample (or the first thread's baseline) */
	struct sw_thread *t;
	size_t nt, capt;
};

/* A thread that moved data for a process not (yet) known to be a rank. */
struct sw_pending {
	pid_t pid, tid;
	uint32_t netns;
};

struct schedwait {
	struct sw_proc *p;
	size_t np, capp;
	unsigned nthreads;
	struct sw_pending pending[SCHEDWAIT_PENDING]; /* a ring: the oldest is overwritten */
	unsigned npending, next_pending;
};

struct schedwait *schedwait__new(void)
{
	return calloc(1, sizeof(struct schedwait));
}

/* The next decimal field of *S (past it) into *V: 0, or -EINVAL. */
static int field(const char **s, uint64_t *v)
{
	char *end;

	while (**s == ' ')
		(*s)++;
	if (**s < '0' || **s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(*s, &end, 10);
	if (errno || (*end != ' ' && *end != '\n' && *end != '\0'))
		return -EINVAL;
	*s = end;
	return 0;
}

int schedwait__parse(const char *text, uint64_t *cpu_ns, uint64_t *wait_ns)
{
	uint64_t c, w, slices;

	if (field(&text, &c) || field(&text, &w) || field(&text, &slices))
		return -EINVAL;
	*cpu_ns = c;
	*wait_ns = w;
	return 0;
}

/* Read thread T's counters: 0, or -errno (-ESRCH: it has exited). */
static int read_thread(const struct sw_thread *t, uint64_t *cpu_ns, uint64_t *wait_ns)
{
	char buf[96];
	ssize_t n = pread(t->fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -errno;
	if (n == 0)
		return -ESRCH;
	buf[n] = '\0';
	return schedwait__parse(buf, cpu_ns, wait_ns);
}

static struct sw_proc *find_proc(struct schedwait *w, pid_t pid, uint32_t netns)
{
	for (size_t i = 0; i < w->np; i++)
		if (w->p[i].pid == pid && w->p[i].netns == netns)
			return &w->p[i];
	return NULL;
}

/* A new process to follow, its interval from now: NULL on -ENOMEM. */
static struct sw_proc *add_proc(struct schedwait *w, pid_t pid, uint32_t netns)
{
	struct sw_proc *p;

	if (grow_array((void **)&w->p, &w->capp, w->np + 1, sizeof(*w->p)))
		return NULL;
	p = &w->p[w->np++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->netns = netns;
	p->last_ns = mono_ns(); /* the first interval: from the first thread's baseline */
	return p;
}

static int follow_thread(struct schedwait *w, pid_t pid, pid_t tid, uint32_t netns)
{
	struct sw_proc *p = find_proc(w, pid, netns);
	struct sw_thread t = { .tid = tid };
	char path[64];

	if (p)
		for (size_t k = 0; k < p->nt; k++)
			if (p->t[k].tid == tid)
				return 0;
	if (w->nthreads >= SCHEDWAIT_MAX_THREADS || pid <= 0 || tid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	t.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t.fd < 0)
		return 0; /* gone already, or no schedstat in this kernel */
	if (read_thread(&t, &t.cpu_ns, &t.wait_ns)) {
		close(t.fd);
		return 0;
	}
	if (!p)
		p = add_proc(w, pid, netns);
	if (!p || grow_array((void **)&p->t, &p->capt, p->nt + 1, sizeof(*p->t))) {
		close(t.fd);
		return -ENOMEM;
	}
	p->t[p->nt++] = t;
	w->nthreads++;
	return 0;
}

int schedwait__follow(struct schedwait *w, pid_t pid, pid_t tid, uint32_t netns, bool collective)
{
	bool rank = find_proc(w, pid, netns) != NULL;
	int err;

	if (!collective && !rank) {
		struct sw_pending *q;

		for (unsigned k = 0; k < w->npending; k++)
			if (w->pending[k].pid == pid && w->pending[k].tid == tid && w->pending[k].netns == netns)
				return 0;
		q = &w->pending[w->next_pending];
		w->next_pending = (w->next_pending + 1) % SCHEDWAIT_PENDING;
		if (w->npending < SCHEDWAIT_PENDING)
			w->npending++;
		*q = (struct sw_pending){ pid, tid, netns };
		return 0;
	}
	err = follow_thread(w, pid, tid, netns);
	if (err || rank)
		return err;
	/* a new rank: the threads that moved its data before its first collective returned */
	for (unsigned k = 0; k < w->npending && !err; k++)
		if (w->pending[k].pid == pid && w->pending[k].netns == netns)
			err = follow_thread(w, pid, w->pending[k].tid, netns);
	return err;
}

/* Read P's threads into R (the interval from P's last sample to NOW); forget the ones gone. */
static void sample_proc(struct schedwait *w, struct sw_proc *p, uint64_t now, struct ft_sched_wait *r)
{
	size_t k = 0;

	memset(r, 0, sizeof(*r));
	r->hdr.type = FT_REC_SCHED_WAIT;
	r->hdr.size = sizeof(*r);
	r->start_ns = p->last_ns;
	r->end_ns = now;
	r->pid = (uint32_t)p->pid;
	r->netns = p->netns;
	while (k < p->nt) {
		struct sw_thread *t = &p->t[k];
		uint64_t cpu = 0, wait = 0;

		if (read_thread(t, &cpu, &wait)) {
			close(t->fd);
			*t = p->t[--p->nt];
			w->nthreads--;
			continue;
		}
		/* the counters only grow; a thread id reused by another thread would not */
		if (cpu >= t->cpu_ns && wait >= t->wait_ns) {
			r->cpu_ns += cpu - t->cpu_ns;
			r->wait_ns += wait - t->wait_ns;
			if (wait - t->wait_ns > r->max_wait_ns)
				r->max_wait_ns = wait - t->wait_ns;
		}
		t->cpu_ns = cpu;
		t->wait_ns = wait;
		r->threads++;
		k++;
	}
	p->last_ns = now;
}

int schedwait__sample(struct schedwait *w, uint64_t now_ns, schedwait_fn fn, void *ctx)
{
	size_t keep = 0;
	int ret = 0;

	for (size_t i = 0; i < w->np && !ret; i++) {
		struct ft_sched_wait r;

		sample_proc(w, &w->p[i], now_ns, &r);
		if (r.wait_ns >= FT_SCHED_MIN_WAIT_NS && r.threads && r.end_ns > r.start_ns)
			ret = fn(ctx, &r.hdr);
	}
	/* a process whose every thread is gone is forgotten */
	for (size_t i = 0; i < w->np; i++) {
		if (!w->p[i].nt) {
			free(w->p[i].t);
			continue;
		}
		if (keep != i)
			w->p[keep] = w->p[i];
		keep++;
	}
	w->np = keep;
	return ret;
}

unsigned schedwait__threads(const struct schedwait *w)
{
	return w ? w->nthreads : 0;
}

void schedwait__free(struct schedwait *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->np; i++) {
		for (size_t k = 0; k < w->p[i].nt; k++)
			close(w->p[i].t[k].fd);
		free(w->p[i].t);
	}
	free(w->p);
	free(w);
}
