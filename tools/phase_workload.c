// SPDX-License-Identifier: GPL-2.0
/*
 * phase_workload — calls fttest_work() of the test library
 * libftphase_test.so (tests/lib/ftphase_test.c) a known number of times, for
 * the tests of `fabtrace record --phase LIB:SYMBOL[=NAME]`.
 *
 * The library is always loaded with dlopen() and called through dlsym(), so
 * the binary has no DT_NEEDED on it: without --dlopen-after it is opened at
 * start; with --dlopen-after MS only after MS milliseconds, to test that a
 * tracer picks up libraries loaded after recording started.  --lib PATH
 * names the library; by default it is <dir of this binary>/../tests/lib/
 * libftphase_test.so (the build tree layout).
 *
 * Per call i (0..N-1): fttest_work(USEC); with --steps the call is wrapped
 * in fabtrace_step_begin(i)/fabtrace_step_end(i) (probes/marker).  After the
 * loop fttest_other() is called --other times (default 1).  Prints one line
 * (or --json) with the counts, the library path and when it was opened.
 * Exit 0 ok, 1 library or symbol missing / wrong return value, 2 bad
 * arguments.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../probes/marker/fabtrace_marker.h"
#include "toolargs.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: phase_workload [--calls N] [--usec U] [--other N] [--dlopen-after MS] [--lib PATH]\n"
		   "                      [--steps] [--json]\n"
		   "  --calls N          calls of fttest_work (default 10)\n"
		   "  --usec U           each call sleeps U microseconds (default 1000)\n"
		   "  --other N          calls of fttest_other after the loop (default 1)\n"
		   "  --dlopen-after MS  dlopen the library only after MS milliseconds (default: at start)\n"
		   "  --lib PATH         the library (default <bindir>/../tests/lib/libftphase_test.so)\n"
		   "  --steps            fabtrace_step_begin/end(i) around call i\n"
		   "  --json             one JSON line\n");
}

static int arg_error(const char *what, const char *why)
{
	fprintf(stderr, "phase_workload: %s: %s; run 'phase_workload --help'\n", what, why);
	return 2;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
}

/* <dir of /proc/self/exe>/../tests/lib/libftphase_test.so */
static int default_lib(char *out, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	return snprintf(out, len, "%s/../tests/lib/libftphase_test.so", exe) >= (int)len ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "calls", required_argument, NULL, 'c' }, { "usec", required_argument, NULL, 'u' },
		{ "other", required_argument, NULL, 'o' }, { "dlopen-after", required_argument, NULL, 'd' },
		{ "lib", required_argument, NULL, 'l' },   { "steps", no_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },        { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long calls = 10, usec = 1000, other = 1, after_ms = -1;
	int steps = 0, json = 0, c;
	char libpath[PATH_MAX], real[PATH_MAX];
	const char *lib = NULL;
	long long v;
	int (*work)(int);
	int (*oth)(void);
	void *h;
	double t_start, t_open, t_end;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (toolargs_num(optarg, 0, 100000000, &v, 0))
				return arg_error("--calls", "expected an integer >= 0");
			calls = (long)v;
			break;
		case 'u':
			if (toolargs_num(optarg, 0, 60000000, &v, 0))
				return arg_error("--usec", "expected microseconds from 0 to 60000000");
			usec = (long)v;
			break;
		case 'o':
			if (toolargs_num(optarg, 0, 100000000, &v, 0))
				return arg_error("--other", "expected an integer >= 0");
			other = (long)v;
			break;
		case 'd':
			if (toolargs_num(optarg, 0, 3600000, &v, 0))
				return arg_error("--dlopen-after", "expected milliseconds from 0 to 3600000");
			after_ms = (long)v;
			break;
		case 'l': lib = optarg; break;
		case 's': steps = 1; break;
		case 'j': json = 1; break;
		case 'h': usage(stdout); return 0;
		default:
			return arg_error(argv[optind - 1] ? argv[optind - 1] : "option",
					 "unknown option or missing value");
		}
	}
	if (optind < argc)
		return arg_error(argv[optind], "unexpected argument");
	if (!lib) {
		if (default_lib(libpath, sizeof(libpath)))
			return arg_error("--lib", "cannot locate libftphase_test.so next to the binary; pass --lib");
		lib = libpath;
	}
	/* Report (and open) the canonical path: what the tracer sees in the maps. */
	if (realpath(lib, real))
		lib = real;
	if (strpbrk(lib, "\"\\\n"))
		return arg_error("--lib", "path must not contain quotes, backslashes or newlines");

	t_start = now_s();
	if (after_ms > 0)
		sleep_ms(after_ms);
	t_open = now_s();
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "phase_workload: dlopen %s: %s; build it with 'make' or pass --lib\n", lib,
			dlerror());
		return 1;
	}
	*(void **)&work = dlsym(h, "fttest_work");
	*(void **)&oth = dlsym(h, "fttest_other");
	if (!work || !oth) {
		fprintf(stderr, "phase_workload: %s: fttest_work/fttest_other not found; is it libftphase_test.so?\n",
			lib);
		return 1;
	}
	for (long i = 0; i < calls; i++) {
		if (steps)
			fabtrace_step_begin((unsigned long)i);
		if (work((int)usec) != (int)usec) {
			fprintf(stderr, "phase_workload: fttest_work(%ld) returned a wrong value\n", usec);
			return 1;
		}
		if (steps)
			fabtrace_step_end((unsigned long)i);
	}
	for (long i = 0; i < other; i++)
		if (oth() != 42) {
			fprintf(stderr, "phase_workload: fttest_other() returned a wrong value\n");
			return 1;
		}
	t_end = now_s();
	if (json)
		printf("{\"workload\":\"phase_workload\",\"pid\":%d,\"lib\":\"%s\",\"calls\":{\"fttest_work\":%ld,"
		       "\"fttest_other\":%ld},\"usec\":%ld,\"steps\":%s,\"dlopen_after_ms\":%ld,"
		       "\"dlopen_at_s\":%.6f,\"wall_s\":%.6f}\n",
		       (int)getpid(), lib, calls, other, usec, steps ? "true" : "false", after_ms < 0 ? 0 : after_ms,
		       t_open - t_start, t_end - t_start);
	else
		printf("phase_workload: pid=%d lib=%s fttest_work=%ld fttest_other=%ld usec=%ld dlopen_at_s=%.3f "
		       "wall_s=%.3f\n",
		       (int)getpid(), lib, calls, other, usec, t_open - t_start, t_end - t_start);
	dlclose(h);
	return 0;
}
