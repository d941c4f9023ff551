// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target: the command line of `fabtrace report`.  The input is a list
 * of NUL-separated arguments; the target runs cmd_report() with them, "--"
 * and a fixed capture (tests/fuzz/corpus/fuzz_capture/synth_3hosts.capture, or
 * $FUZZ_REPORT_CAPTURE).  An empty argument starts another command line in
 * the same process (as the unit tests run report several times): up to 4.  This reaches the option
 * parsers that are private to report.c (--threshold, --tolerance, --skew,
 * --from/--to, --weight, --spike-rate, ...), their combinations and the
 * timeline window they set.
 *
 * Output files are written into a private directory (the working directory
 * while cmd_report runs); an argument with a '/' is refused so nothing is written
 * elsewhere, and one naming a hidden file is refused so that any hidden
 * file left afterwards is a temporary that outfile_*() failed to remove.
 * Checks: the exit code is 0, 1 or 2; no temporary is left behind.
 */
#include <dirent.h>
#include <getopt.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"
#include "userspace/cli/commands.h"
#include "lib/util.h"

#define MAX_ARGS 24

#ifndef FZ_SRCDIR
#define FZ_SRCDIR "."
#endif

static char capture[PATH_MAX];
static char dir[PATH_MAX];
static int home = -1, work = -1;   /* the working directory libFuzzer knows, and ours */

static void cleanup_dir(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

static void remove_dir(void)
{
	cleanup_dir();
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *cap = getenv("FUZZ_REPORT_CAPTURE"), *tmp = getenv("TMPDIR");
	int devnull;

	(void)argc;
	(void)argv;
	if (!cap)
		cap = FZ_SRCDIR "/tests/fuzz/corpus/fuzz_capture/synth_3hosts.capture";
	FZ_CHECK(realpath(cap, capture) != NULL, "%s: %s (set FUZZ_REPORT_CAPTURE)", cap, strerror(errno));
	snprintf(dir, sizeof(dir), "%s/fuzz_report_args.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	FZ_CHECK(mkdtemp(dir) != NULL, "%s: %s", dir, strerror(errno));
	home = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	work = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	FZ_CHECK(home >= 0 && work >= 0, "open working directories: %s", strerror(errno));
	atexit(remove_dir);
	/* the summary goes nowhere; errors (stderr) stay for -close_fd_mask to handle */
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	FZ_CHECK(devnull >= 0 && dup2(devnull, STDOUT_FILENO) == STDOUT_FILENO, "stdout to /dev/null");
	close(devnull);
	return 0;
}

/* One `fabtrace report ARGS... -- CAPTURE` with each argument a separate allocation. */
static void run_report(char **args, int nargs)
{
	char *argv[MAX_ARGS + 4];
	int argc = 0, rc;
	DIR *d;
	struct dirent *de;

	argv[argc++] = "report";
	for (int i = 0; i < nargs; i++)
		argv[argc++] = args[i];
	/* after "--", the capture can never be taken as an option's argument (an output!) */
	argv[argc++] = "--";
	argv[argc++] = capture;
	argv[argc] = NULL;

	/* only inside cmd_report: libFuzzer's own paths are relative to its directory */
	FZ_CHECK(fchdir(work) == 0, "fchdir: %s", strerror(errno));
	rc = cmd_report(argc, argv);
	FZ_CHECK(fchdir(home) == 0, "fchdir: %s", strerror(errno));
	util_set_json(false);   /* --json switches it on for the process */
	fflush(stdout);
	FZ_CHECK(rc >= 0 && rc <= 2, "report exited %d", rc);

	d = opendir(dir);
	FZ_CHECK(d != NULL, "opendir: %s", strerror(errno));
	while ((de = readdir(d)))
		FZ_CHECK(de->d_name[0] != '.' || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."),
			 "report left a temporary file behind: %s (exit %d)", de->d_name, rc);
	closedir(d);
	cleanup_dir();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *args[MAX_ARGS];
	int nargs = 0, runs = 0;
	const uint8_t *p = data, *end = data + size;

	if (size > 4096 || memchr(data, '/', size))
		return -1;
	/* getopt's hidden state starts fresh per input, so a finding reproduces from its input alone */
	{
		char *dummy[] = { "report", NULL };

		optind = 0;
		(void)getopt(1, dummy, "");
	}
	/* arguments end at a NUL; an empty argument ends a command line (up to 4 per input) */
	while (p <= end && runs < 4) {
		const uint8_t *z = memchr(p, '\0', (size_t)(end - p));
		size_t n = z ? (size_t)(z - p) : (size_t)(end - p);

		if (n && nargs < MAX_ARGS) {
			args[nargs] = fz_strndup(p, n);
			if (args[nargs][0] == '.' || strstr(args[nargs], "=.")) {
				for (int i = 0; i <= nargs; i++)
					free(args[i]);
				return -1;  /* a hidden output name: see the top of the file */
			}
			nargs++;
		}
		if (!n || !z) {
			if (nargs || !z)
				run_report(args, nargs);
			for (int i = 0; i < nargs; i++)
				free(args[i]);   /* freed between runs, as a caller's argv would be */
			nargs = 0;
			runs++;
		}
		if (!z)
			break;
		p = z + 1;
	}
	for (int i = 0; i < nargs; i++)
		free(args[i]);
	return 0;
}
