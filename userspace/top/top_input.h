/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The keyboard and the window of `fabtrace top`'s live view
 * (userspace/top/top_input.c), in the session's event loop: keys sort,
 * filter, reset the peaks, show the help and quit; a resize redraws.
 */
#ifndef FABTRACE_TOP_INPUT_H
#define FABTRACE_TOP_INPUT_H

#include <stddef.h>

#include "userspace/top/top_view.h"

struct top_input {
	struct top_view *v;        /* NULL until top_input__start() */
	int wfd;                   /* the SIGWINCH signalfd, -1 = none */
};

/*
 * Watch the keys (stdin) and the window size (SIGWINCH) in V->s's loop,
 * enter the terminal (top_term.h) and draw the first frame.  0, or -1 with
 * the reason printed.
 */
int top_input__start(struct top_input *in, struct top_view *v);
/* Close what top_input__start() opened; nothing if it never ran.  The
 * terminal itself is restored by top_term__restore(). */
void top_input__close(struct top_input *in);
/* The keys of one read (a paste, key repeat: each key once; an escape
 * sequence, such as an arrow key, as one key) applied to the view. */
void top_input__keys(struct top_view *v, const char *k, size_t n);

#endif
