// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests for probes/netns.c: netns_set__refresh() lets go of a namespace
 * whose path no longer leads to it (its sockets closed: they kept it alive),
 * keeps a pinned one, and follows a namespace from a process that exited to
 * another process still in it.  The second test makes a real namespace
 * (unshare, as root or in a user namespace) and skips where neither works.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "probes/netns.h"

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* A namespace entry as a scan would add it, with two fds standing in for its sockets. */
static struct netns *add_entry(struct netns_set *s, uint32_t inum, const char *path, int fds[2])
{
	struct netns *p = realloc(s->ns, (size_t)(s->n + 1) * sizeof(*p)), *n;

	assert_non_null(p);
	s->ns = p;
	s->cap = s->n + 1;
	n = &s->ns[s->n++];
	memset(n, 0, sizeof(*n));
	n->inum = inum;
	snprintf(n->path, sizeof(n->path), "%s", path);
	assert_int_equal(pipe(fds), 0);
	n->nl_fd = fds[0];
	n->ioctl_fd = fds[1];
	return n;
}

static void test_refresh_drops_gone(void **state)
{
	struct netns_set s = {0};
	char err[160];
	int gone[2], pinned[2];

	(void)state;
	assert_int_equal(netns_set__scan(&s, err, sizeof(err)), 0);
	assert_non_null(netns_set__find_inum(&s, s.self_inum));
	assert_int_equal(netns_set__refresh(&s, err, sizeof(err)), 0); /* every path holds */
	/* a path that exists but leads to another namespace (ours): as good as gone */
	add_entry(&s, 1, "/proc/self/ns/net", gone);
	add_entry(&s, 2, "/nonexistent/ns/net", pinned)->pinned = true;

	assert_int_equal(netns_set__refresh(&s, err, sizeof(err)), 1);
	assert_null(netns_set__find_inum(&s, 1));
	assert_false(fd_open(gone[0]));
	assert_false(fd_open(gone[1]));
	assert_non_null(netns_set__find_inum(&s, 2)); /* its socket is lent out: kept */
	assert_true(fd_open(pinned[0]) && fd_open(pinned[1]));
	assert_non_null(netns_set__find_inum(&s, s.self_inum));
	assert_int_equal(netns_set__refresh(&s, err, sizeof(err)), 0);

	netns_set__free(&s);
	assert_false(fd_open(pinned[0]));
}

/* A child in a new network namespace (its own child B in it too, pid in *b); 0 when none can be made. */
static pid_t ns_child(pid_t *b)
{
	int p[2];
	pid_t a;

	if (pipe(p))
		return 0;
	a = fork();
	if (a == 0) {
		pid_t kid;

		if (unshare(CLONE_NEWNET) && unshare(CLONE_NEWUSER | CLONE_NEWNET))
			_exit(1);
		kid = fork();
		if (kid == 0) {
			pause();
			_exit(0);
		}
		if (write(p[1], &kid, sizeof(kid)) != (ssize_t)sizeof(kid))
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (a < 0 || read(p[0], b, sizeof(*b)) != (ssize_t)sizeof(*b)) {
		if (a > 0)
			waitpid(a, NULL, 0);
		close(p[0]);
		return 0;
	}
	close(p[0]);
	return a;
}

static pid_t kid_a, kid_b; /* ns_child()'s, until they are reaped */

static void end_child(pid_t *pid)
{
	assert_int_equal(kill(*pid, SIGKILL), 0);
	assert_int_equal(waitpid(*pid, NULL, 0), *pid); /* B too: we are its subreaper */
	*pid = 0;
}

/* Teardown: whatever an assertion left running (B would hold the test's output open) */
static int end_children(void **state)
{
	(void)state;
	if (kid_a > 0)
		kill(kid_a, SIGKILL);
	if (kid_b > 0)
		kill(kid_b, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0) /* A, then B: orphaned, it becomes ours */
		;
	kid_a = kid_b = 0;
	return 0;
}

static void test_refresh_follows_processes(void **state)
{
	struct netns_set s = {0};
	struct netns *n;
	struct stat st;
	char err[160], path_a[64], path_b[64];
	int fds[2], via_a;

	(void)state;
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	kid_a = ns_child(&kid_b);
	if (!kid_a)
		skip(); /* no new network namespace here (neither root nor user namespaces) */
	snprintf(path_a, sizeof(path_a), "/proc/%d/ns/net", (int)kid_a);
	snprintf(path_b, sizeof(path_b), "/proc/%d/ns/net", (int)kid_b);
	assert_int_equal(stat(path_a, &st), 0);

	assert_int_equal(netns_set__scan(&s, err, sizeof(err)), 0);
	n = netns_set__find_inum(&s, (uint32_t)st.st_ino);
	assert_non_null(n);
	assert_false(n->self);
	via_a = !strcmp(n->path, path_a);
	assert_true(via_a || !strcmp(n->path, path_b)); /* A's, unless pids wrapped */
	assert_int_equal(pipe(fds), 0); /* standing in for its sockets */
	n->nl_fd = fds[0];
	n->ioctl_fd = fds[1];

	/* A exits: the namespace lives on in B, and its path follows */
	end_child(&kid_a);
	assert_int_equal(netns_set__refresh(&s, err, sizeof(err)), via_a);
	n = netns_set__find_inum(&s, (uint32_t)st.st_ino);
	assert_non_null(n);
	assert_string_equal(n->path, path_b);
	assert_true(fd_open(fds[0]) && fd_open(fds[1]));
	assert_int_equal(netns_set__refresh(&s, err, sizeof(err)), 0); /* no rescan every tick */

	/* B exits: the namespace is gone, and our sockets in it are closed */
	end_child(&kid_b);
	assert_int_equal(netns_set__refresh(&s, err, sizeof(err)), 1);
	assert_null(netns_set__find_inum(&s, (uint32_t)st.st_ino));
	assert_false(fd_open(fds[0]));
	assert_false(fd_open(fds[1]));
	netns_set__free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refresh_drops_gone),
		cmocka_unit_test_teardown(test_refresh_follows_processes, end_children),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
