/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The views of `fabtrace top` (userspace/cli/top.c runs the command): the
 * full-screen terminal view and the --once text snapshot (top_screen.c), and
 * the --json snapshot (top_json.c), of the live aggregator's last period
 * (userspace/live/live.h).  What they show is chosen in top_select.c; the
 * terminal itself is top_term.c; the keys and the window size that change
 * the view are top_input.c.
 */
#ifndef FABTRACE_TOP_VIEW_H
#define FABTRACE_TOP_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include "userspace/live/live.h"

struct session;
struct metrics_server;

/* Interface orders (--sort, the s key). */
enum top_sort { TOP_SORT_RATE, TOP_SORT_PEAK, TOP_SORT_BURSTS, TOP_SORT_BACKLOG, TOP_SORT_DROPS, TOP_SORT_NAME,
		TOP_SORT_N };
/* Their names: "rate", "peak", "bursts", "backlog", "drops", "name". */
extern const char *const top_sort_names[TOP_SORT_N];

/* What the views show and how: the command's state they read. */
struct top_view {
	struct live *l;            /* the aggregator */
	struct session *s;         /* the title's host name, the snapshot's "host" */
	struct metrics_server *ms; /* --listen: its address in the title; NULL: none */
	const char *recording;     /* --record: the capture in the title; NULL: none */
	uint64_t refresh_ns;
	int rows, cols;            /* the terminal's size */
	int sort;                  /* enum top_sort */
	char filter[64];           /* interfaces whose label contains it; "" = all */
	bool editing, help;        /* the filter being typed (in edit), the help screen */
	char edit[64];
};

/* The terminal view: the whole screen, with its footer, in one write to stdout. */
void top_view__draw(const struct top_view *t);
/* A --once snapshot: the view without ANSI, every row.  0, or -1 when stdout fails. */
int top_view__print_text(const struct top_view *t);
/* A --json snapshot: one line of JSON (docs/top.md).  0, or -1 when stdout fails or out of memory. */
int top_view__print_json(const struct top_view *t);

#endif
