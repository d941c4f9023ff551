// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The ranks' run-queue wait (probes/schedwait.c, FT_REC_SCHED_WAIT): the
 * schedstat line parsed; a followed thread that shares one CPU with a busy
 * one waits in its run queue and the sampler says so, on the kernel's own
 * counters; a socket owner's thread is followed only once its process is a
 * rank; an exited thread is forgotten.  And the model's reading of the
 * intervals (model__sched_held): held only by a wait longer than the
 * interval that credits it and than 50 ms, from its beginning, clipped to
 * the span asked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/util.h"
#include "probes/schedwait.h"
#include "userspace/model/model.h"
#include "records.h"

#define MS 1000000ull

static void test_parse(void **state)
{
	uint64_t c = 1, w = 1;

	(void)state;
	assert_int_equal(schedwait__parse("26241951 291061 19\n", &c, &w), 0);
	assert_int_equal(c, 26241951);
	assert_int_equal(w, 291061);
	assert_int_equal(schedwait__parse("0 0 0", &c, &w), 0);
	assert_int_equal(c, 0);
	assert_int_equal(schedwait__parse("", &c, &w), -EINVAL);
	assert_int_equal(schedwait__parse("12 x 3", &c, &w), -EINVAL);
	assert_int_equal(schedwait__parse("12 13", &c, &w), -EINVAL);
}

struct got {
	struct ft_sched_wait r[64];
	int n;
};

static int collect(void *ctx, const struct ft_rec_hdr *h)
{
	struct got *g = ctx;

	assert_int_equal(h->type, FT_REC_SCHED_WAIT);
	assert_int_equal(h->size, sizeof(struct ft_sched_wait));
	if (g->n < 64)
		memcpy(&g->r[g->n++], h, sizeof(g->r[0]));
	return 0;
}

static volatile int spin_stop;

static void *spinner(void *arg)
{
	cpu_set_t *one = arg;

	sched_setaffinity(0, sizeof(*one), one);
	while (!spin_stop)
		;
	return NULL;
}

static void spin_ms(uint64_t ms)
{
	uint64_t end = mono_ns() + ms * MS;

	while (mono_ns() < end)
		;
}

static void test_live_wait(void **state)
{
	struct schedwait *w = schedwait__new();
	pid_t me = (pid_t)syscall(SYS_gettid);
	struct got g = { .n = 0 };
	cpu_set_t one, was;
	pthread_t th;
	uint64_t t0;

	(void)state;
	assert_non_null(w);
	/* a socket owner's thread waits until its process is a rank */
	assert_int_equal(schedwait__follow(w, getpid(), me, 7, false), 0);
	assert_int_equal(schedwait__threads(w), 0);
	assert_int_equal(schedwait__follow(w, getpid(), me, 7, true), 0);
	assert_int_equal(schedwait__threads(w), 1);
	assert_int_equal(schedwait__follow(w, getpid(), me, 7, true), 0); /* once */
	assert_int_equal(schedwait__threads(w), 1);
	/* a thread that does not exist is not followed */
	assert_int_equal(schedwait__follow(w, getpid(), 0x3fffffff, 7, true), 0);
	assert_int_equal(schedwait__threads(w), 1);

	/* this thread and a busy one on one CPU: each waits while the other runs */
	assert_int_equal(sched_getaffinity(0, sizeof(was), &was), 0);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	spin_stop = 0;
	assert_int_equal(pthread_create(&th, NULL, spinner, &one), 0);
	t0 = mono_ns();
	assert_int_equal(schedwait__sample(w, t0, collect, &g), 0);
	spin_ms(300);
	assert_int_equal(schedwait__sample(w, mono_ns(), collect, &g), 0);
	spin_stop = 1;
	pthread_join(th, NULL);
	sched_setaffinity(0, sizeof(was), &was);

	assert_true(g.n >= 1);
	{
		const struct ft_sched_wait *r = &g.r[g.n - 1];

		assert_int_equal(r->pid, (uint32_t)getpid());
		assert_int_equal(r->netns, 7);
		assert_int_equal(r->threads, 1);
		assert_true(r->end_ns > r->start_ns && r->start_ns >= t0);
		/* it ran a part and waited a part of the 300 ms: both well above 1 ms */
		assert_true(r->wait_ns >= 10 * MS);
		assert_true(r->cpu_ns >= 10 * MS);
		assert_true(r->wait_ns + r->cpu_ns <= r->end_ns - r->start_ns + 5 * MS);
		assert_int_equal(r->max_wait_ns, r->wait_ns); /* one thread */
	}
	schedwait__free(w);
}

/* A thread that has exited is forgotten at the next sample. */
static void *quick(void *arg)
{
	*(pid_t *)arg = (pid_t)syscall(SYS_gettid);
	return NULL;
}

static void test_exited_thread(void **state)
{
	struct schedwait *w = schedwait__new();
	struct got g = { .n = 0 };
	pthread_t th;
	pid_t tid = 0;

	(void)state;
	assert_int_equal(pthread_create(&th, NULL, quick, &tid), 0);
	pthread_join(th, NULL);
	/* followed after its exit: nothing to open */
	assert_int_equal(schedwait__follow(w, getpid(), tid, 1, true), 0);
	assert_int_equal(schedwait__threads(w), 0);
	assert_int_equal(schedwait__sample(w, mono_ns(), collect, &g), 0);
	assert_int_equal(g.n, 0);
	schedwait__free(w);
}

static void test_model_held(void **state)
{
	struct ft_file_header h = rec_file_header(1000 * MS, 100000);
	struct model *m = model__new(&h, NULL);
	uint64_t t = 5000 * MS;

	(void)state;
	assert_non_null(m);
	/* the kernel credits a wait when it ends: 250 ms in the interval that ends at +300 */
	rec_sched_wait(m, 11, 5, t + 280 * MS, t + 300 * MS, 250 * MS, 15 * MS);
	rec_sched_wait(m, 11, 5, t + 300 * MS, t + 320 * MS, 15 * MS, 5 * MS); /* a fair share: not held */
	rec_sched_wait(m, 11, 5, t + 320 * MS, t + 340 * MS, 40 * MS, 0);      /* under 50 ms: not held */
	rec_sched_wait(m, 11, 5, t + 360 * MS, t + 380 * MS, 60 * MS, 0);      /* held from +320 */
	rec_sched_wait(m, 11, 6, t, t + 20 * MS, 100 * MS, 0);                 /* pid 11 of another namespace */
	rec_sched_wait(m, 12, 5, t + 500 * MS, t + 520 * MS, 55 * MS, 0);      /* another process */
	rec_sched_wait(m, 13, 5, t, t + 20 * MS, 20 * MS, 0);                  /* waited its interval: not over it */
	rec_end(m, t + 600 * MS);
	assert_int_equal(model__finish(m), 0);

	assert_int_equal(model__sched_held(m, 5, 11, t, t + 400 * MS), 310 * MS);
	/* clipped to the span asked; a wait credited after it still reaches back into it */
	assert_int_equal(model__sched_held(m, 5, 11, t + 100 * MS, t + 200 * MS), 100 * MS);
	/* a wait ends before the CPU time its interval holds: A at +285 */
	assert_int_equal(model__sched_held(m, 5, 11, t + 280 * MS, t + 330 * MS), 15 * MS);
	assert_int_equal(model__sched_held(m, 5, 11, t + 380 * MS, t + 400 * MS), 0);
	assert_int_equal(model__sched_held(m, 6, 11, t - 50 * MS, t), 50 * MS);
	assert_int_equal(model__sched_held(m, 5, 12, t, t + 470 * MS), 5 * MS);
	assert_int_equal(model__sched_held(m, 5, 13, t, t + 400 * MS), 0);
	assert_int_equal(model__sched_held(m, 5, 14, t, t + 400 * MS), 0);
	model__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_live_wait),
		cmocka_unit_test(test_exited_thread),
		cmocka_unit_test(test_model_held),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
