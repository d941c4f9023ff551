// SPDX-License-Identifier: GPL-2.0
/*
 * ftphase_test.c — libftphase_test.so, a tiny library for testing
 * `fabtrace record --phase LIB:SYMBOL[=NAME]` (generic phase probes) with
 * tools/phase_workload.
 *
 *   int fttest_work(int usec)   sleeps usec microseconds, returns usec: a
 *                               phase whose duration the test knows
 *   int fttest_other(void)      returns 42 at once: a second symbol, to check
 *                               that only the requested one is traced
 *
 * Both are exported, out of line, and have different bodies (so no
 * identical-code folding can give them one address).
 */
#include <errno.h>
#include <time.h>

#define FTTEST_API __attribute__((visibility("default"), noinline, used))

FTTEST_API int fttest_work(int usec);
FTTEST_API int fttest_other(void);

static volatile int fttest_other_calls;

int fttest_work(int usec)
{
	struct timespec ts;

	if (usec <= 0)
		return usec < 0 ? -1 : 0;
	ts.tv_sec = usec / 1000000;
	ts.tv_nsec = (long)(usec % 1000000) * 1000;
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
	return usec;
}

int fttest_other(void)
{
	fttest_other_calls = fttest_other_calls + 1;
	return 42;
}
