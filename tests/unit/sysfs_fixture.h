/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where the sysfs fixture tree (tests/fixtures/sysfs) is, for the tests that
 * read it (test_sampler.c, test_config.c): the source tree's, as
 * tests/run.sh runs them from it, else found upward from the test binary.
 */
#ifndef FABTRACE_TEST_SYSFS_FIXTURE_H
#define FABTRACE_TEST_SYSFS_FIXTURE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

/* DIR holds the fixture: its class/infiniband and class/net directories. */
static inline bool sysfs_fixture_is(const char *dir)
{
	char p[PATH_MAX + 32];
	struct stat st;

	snprintf(p, sizeof(p), "%s/class/infiniband", dir);
	if (stat(p, &st) || !S_ISDIR(st.st_mode))
		return false;
	snprintf(p, sizeof(p), "%s/class/net", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The fixture's absolute path into OUT (PATH_MAX bytes): 0, or -1 (said on stderr). */
static inline int sysfs_fixture_find(char *out, const char *test)
{
	char exe[PATH_MAX];
	ssize_t n;

	if (sysfs_fixture_is("tests/fixtures/sysfs") && realpath("tests/fixtures/sysfs", out))
		return 0;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	for (int up = 0; up < 5; up++) {
		char *slash = strrchr(exe, '/');

		if (!slash)
			break;
		*slash = '\0';
		snprintf(out, PATH_MAX, "%.4000s/tests/fixtures/sysfs", exe);
		if (sysfs_fixture_is(out))
			return 0;
	}
	fprintf(stderr, "%s: cannot find tests/fixtures/sysfs\n", test);
	return -1;
}

#endif
