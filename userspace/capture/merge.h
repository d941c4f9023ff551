/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Merging the captures of several hosts of one job onto one clock (the
 * logic of `fabtrace merge`, userspace/cli/merge.c): capture/merge.c places
 * the clocks, capture/merge_write.c writes the merged capture and the summary.
 */
#ifndef FABTRACE_MERGE_H
#define FABTRACE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MERGE_MAX_HOSTS 1024
#define MERGE_DEFAULT_WINDOW_NS 1000000000ull /* search +-1 s when a clock gives no bound */
#define MERGE_MAX_WINDOW_NS 60000000000ull    /* --window: its buffers grow with it */

struct merge_opts {
	const char *out;            /* the merged capture (required) */
	bool json, quiet;           /* summary as JSON on stdout / none */
	bool anchors_only;          /* realtime anchors only, no traffic matching */
	uint64_t max_window;        /* search window where a clock gives no (or a wider) bound */
	uint32_t format_version;    /* of the merged capture: 0 the current one, 1 for older readers */
	int argc; char **argv;      /* the command line, into the merged header */
};

/*
 * Merge the N captures PATHS (1..MERGE_MAX_HOSTS) into O->out, written to a
 * temporary file and renamed; print the summary.  Errors are printed.
 * 0 on success, 1 on failure (nothing left behind).
 */
int merge__run(const struct merge_opts *o, char *const *paths, size_t n);

#endif
