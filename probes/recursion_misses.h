/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether the running kernel counts the probe runs it skips, so that the
 * coverage check can read them (runs + recursion_misses = tracepoint hits)
 * instead of opening a counting perf event per CPU on every tracepoint.
 * Decided by trying it, never by the kernel's version.
 */
#ifndef FABTRACE_PROBES_RECURSION_MISSES_H
#define FABTRACE_PROBES_RECURSION_MISSES_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True when a raw tracepoint program that would recurse is skipped and
 * counted in its recursion_misses (tried once, then remembered), and the
 * kernel's BTF shows no patch that skips programs without counting
 * (docs/known-issues.md).  False, with WHY (may be NULL) saying why, when
 * either is not so or cannot be told.
 */
bool recursion_misses__counted(char *why, size_t whylen);

/*
 * True when the kernel counts recursing runs, and the only runs it skips
 * uncounted are those in the context of a task of PID 1 (the patch of
 * docs/known-issues.md, seen in the kernel's BTF): then counting the
 * tracepoint's hits in PID 1's threads alone (coverage__open_tgid) completes
 * the count, for about half the cost of counting every hit.
 */
bool recursion_misses__all_but_pid1(void);

#endif
