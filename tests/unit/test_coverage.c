// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The coverage check's tracepoint counters (probes/coverage.c): counting a
 * tracepoint's hits in one process's threads (coverage__open_tgid, what
 * --coverage pid1 opens on PID 1) must count exactly the hits in that
 * process's context: its threads, those it starts later, but not the
 * processes it forks nor anyone else.  The per-CPU counters (--coverage
 * counters) count them all.  Needs root (perf tracepoint events) and the
 * syscall tracepoints; skipped otherwise.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "probes/coverage.h"

#define TP_SYS "syscalls"
#define TP_EV "sys_enter_getppid"

/* n getppid() calls, each a real syscall (glibc does not cache it) */
static void calls(int n)
{
	for (int i = 0; i < n; i++)
		(void)syscall(SYS_getppid);
}

static void *thread_calls(void *arg)
{
	calls((int)(intptr_t)arg);
	return NULL;
}

static bool can_count(void)
{
	struct tp_counter c;
	char why[160];

	if (geteuid() != 0 || coverage__tp_id(TP_SYS, TP_EV) < 0)
		return false;
	if (coverage__open_tgid(&c, TP_SYS, TP_EV, getpid(), why, sizeof(why)))
		return false;
	coverage__close(&c);
	return true;
}

/* A thread that runs before the counters open: waits for a byte on FD, then calls 50 times. */
static void *early_thread(void *arg)
{
	char b;

	if (read((int)(intptr_t)arg, &b, 1) == 1)
		calls(50);
	return NULL;
}

/*
 * The child: a thread already running when the counters open, then on GO:
 * 100 calls in the main thread, 50 in that thread, 25 in a thread started
 * after the counters opened (it inherits them), and 1000 in a process it
 * forks (must not count).  Writes one byte to DONE when through.
 */
static void child(int go, int done)
{
	pthread_t early, late;
	int wake[2];
	pid_t p;
	char b;

	if (pipe(wake) || pthread_create(&early, NULL, early_thread, (void *)(intptr_t)wake[0]))
		_exit(2);
	if (read(go, &b, 1) != 1)
		_exit(3);
	calls(100);
	if (write(wake[1], "w", 1) != 1 || pthread_join(early, NULL))
		_exit(4);
	if (pthread_create(&late, NULL, thread_calls, (void *)(intptr_t)25) || pthread_join(late, NULL))
		_exit(4);
	p = fork();
	if (p == 0) {
		calls(1000);
		_exit(0);
	}
	if (p < 0 || waitpid(p, NULL, 0) != p)
		_exit(5);
	if (write(done, "x", 1) != 1)
		_exit(6);
	_exit(0);
}

static void test_tgid_counts_its_threads_only(void **state)
{
	struct tp_counter task, cpus;
	uint64_t n_task, n_cpus;
	int go[2], done[2], st;
	char why[160], b;
	pid_t pid;

	(void)state;
	if (!can_count()) {
		skip();
		return;
	}
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		close(done[0]);
		child(go[0], done[1]);
	}
	close(go[0]);
	close(done[1]);
	usleep(100 * 1000); /* the child's threads exist */
	assert_int_equal(coverage__open_tgid(&task, TP_SYS, TP_EV, pid, why, sizeof(why)), 0);
	assert_int_equal(coverage__open(&cpus, TP_SYS, TP_EV, (int)sysconf(_SC_NPROCESSORS_CONF), why,
					sizeof(why)), 0);
	assert_true(task.nopen >= 1);
	calls(7); /* ours: not the child's */
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(read(done[0], &b, 1), 1);
	assert_int_equal(coverage__read(&task, &n_task), 0);
	assert_int_equal(coverage__read(&cpus, &n_cpus), 0);
	/* the child's own calls, its later threads' too; not its forked process's, not ours */
	assert_int_equal(n_task, 175);
	assert_true(n_cpus >= 100 + 25 + 50 + 1000 + 7);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	/* the counts stay readable after the threads are gone */
	assert_int_equal(coverage__read(&task, &n_task), 0);
	assert_int_equal(n_task, 175);
	coverage__close(&task);
	coverage__close(&cpus);
	close(go[1]);
	close(done[0]);
}

static void test_tgid_errors(void **state)
{
	struct tp_counter c;
	char why[160] = "";
	uint64_t n;

	(void)state;
	if (!can_count()) {
		skip();
		return;
	}
	/* a process that does not exist: an error that says which, nothing open */
	assert_true(coverage__open_tgid(&c, TP_SYS, TP_EV, 0x3fffffff, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "1073741823"));
	assert_int_equal(c.nopen, 0);
	assert_int_equal(coverage__read(&c, &n), -ENODATA);
	/* a tracepoint that does not exist */
	assert_true(coverage__open_tgid(&c, TP_SYS, "no_such_event", getpid(), why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "no_such_event"));
	coverage__close(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tgid_counts_its_threads_only),
		cmocka_unit_test(test_tgid_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
