// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests for userspace/record/pidwatch.c: when every -p process has exited. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "userspace/record/pidwatch.h"

/* A child that runs until its pipe closes; *wfd: the pipe's end that ends it. */
static pid_t child(int *wfd)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		/* only its own pipe's read end: an earlier child's write end held here would keep that one running */
		for (int fd = 3; fd < 256; fd++)
			if (fd != p[0])
				close(fd);
		_exit(read(p[0], &c, 1) < 0 ? 2 : 0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

/* Two processes: not gone while one runs; gone once both exited, before and after they are reaped. */
static void two_exit(bool pidfds)
{
	struct pidwatch w;
	int fa, fb, st;
	pid_t pids[2];

	pids[0] = child(&fa);
	pids[1] = child(&fb);
	pidwatch__open_mode(&w, pids, 2, pidfds);
	assert_int_equal(w.n, 2);
	assert_false(pidwatch__all_gone(&w));
	close(fa); /* the first exits: a zombie until reaped */
	for (int i = 0; i < 200 && !w.gone[0]; i++) {
		usleep(10000);
		assert_false(pidwatch__all_gone(&w));
	}
	assert_true(w.gone[0]);
	assert_false(w.gone[1]);
	assert_false(pidwatch__all_gone(&w));
	close(fb);
	for (int i = 0; i < 200 && !pidwatch__all_gone(&w); i++)
		usleep(10000);
	assert_true(pidwatch__all_gone(&w)); /* both zombies, neither reaped */
	assert_int_equal(waitpid(pids[0], &st, 0), pids[0]);
	assert_int_equal(waitpid(pids[1], &st, 0), pids[1]);
	assert_true(pidwatch__all_gone(&w));
	pidwatch__close(&w);
}

static void test_pidfd(void **state)
{
	(void)state;
	two_exit(true);
}

static void test_by_proc(void **state)
{
	(void)state;
	two_exit(false);
	/* by /proc, a process that is already a zombie at the start counts as gone */
	{
		struct pidwatch w;
		int f, st;
		pid_t pid = child(&f);

		close(f);
		for (int i = 0; i < 200; i++) {
			pidwatch__open_mode(&w, &pid, 1, false);
			if (w.gone[0])
				break;
			usleep(10000);
		}
		assert_true(w.gone[0]);
		assert_true(pidwatch__all_gone(&w));
		assert_int_equal(waitpid(pid, &st, 0), pid);
	}
}

/* A process already reaped is gone at the start; with none given, nothing is ever "all gone". */
static void test_gone_and_none(void **state)
{
	struct pidwatch w;
	int f, st;
	pid_t pid = child(&f), self = getpid();

	(void)state;
	close(f);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	pidwatch__open(&w, &pid, 1);
	assert_true(pidwatch__all_gone(&w));
	pidwatch__close(&w);
	pidwatch__open(&w, &pid, 0);
	assert_false(pidwatch__all_gone(&w));
	pidwatch__close(&w);
	pidwatch__open(&w, &self, 1); /* we run */
	assert_false(pidwatch__all_gone(&w));
	pidwatch__close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pidfd),
		cmocka_unit_test(test_by_proc),
		cmocka_unit_test(test_gone_and_none),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
