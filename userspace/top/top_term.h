/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The terminal of `fabtrace top`'s live view (userspace/top/top_term.c). */
#ifndef FABTRACE_TOP_TERM_H
#define FABTRACE_TOP_TERM_H

/*
 * Alternate screen, hidden cursor, raw input; the first call also hooks the
 * restoration to exit() and to the crash signals.  0 or -errno (the terminal
 * is left as it was).
 */
int top_term__enter(void);
/* Back to the terminal as it was; nothing if not entered.  Async-signal-safe. */
void top_term__restore(void);
/* The terminal's size; 24 x 80 when it cannot say. */
void top_term__size(int *rows, int *cols);

#endif
