/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A scratch directory for a test group: setup_dir() / teardown_dir() as the
 * cmocka group setup and teardown, tpath("x") for a file in it.  Define
 * TMPDIR_NAME (e.g. "capture") before including: the directory is
 * /tmp/ft-test-TMPDIR_NAME.XXXXXX.
 */
#ifndef FABTRACE_TEST_TMPDIR_H
#define FABTRACE_TEST_TMPDIR_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef TMPDIR_NAME
#error "define TMPDIR_NAME before including tests/unit/tmpdir.h"
#endif

static char tmpdir[64];

static int setup_dir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ft-test-" TMPDIR_NAME ".XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* TMPDIR/NAME; the last four results stay valid. */
static const char *tpath(const char *name)
{
	static char buf[4][PATH_MAX];
	static int n;
	char *p = buf[n++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", tmpdir, name);
	return p;
}

#endif
