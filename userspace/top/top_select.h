/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `fabtrace top` shows and in which order, and the names it shows
 * (userspace/top/top_select.c); for the terminal view and the JSON snapshot.
 */
#ifndef FABTRACE_TOP_SELECT_H
#define FABTRACE_TOP_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "userspace/live/live.h"
#include "userspace/top/top_view.h"

/* The interfaces that pass T's filter into IDX (room for all), sorted by T's key; their count. */
size_t top_view__select_ifaces(const struct top_view *t, uint32_t *idx);
/*
 * Processes that made traced calls and are still around (or were in the last
 * period) into IDX (LIVE_MAX_PROCS), by rank then pid; their count.
 */
size_t top_view__select_procs(const struct top_view *t, uint32_t *idx);
/* Drop series with drops in the last period (ALL: every one) into IDX (LIVE_MAX_DROPS), most first. */
size_t top_view__select_drops(const struct top_view *t, uint32_t *idx, bool all);
/* The higher peak-bin rate of the two directions, bits/s. */
double top_view__if_peak(const struct live_iface *f);
/* A process's command name (from /proc when the records had none), "?" if unknown. */
const char *top_view__proc_comm(const struct live_proc *p, char *buf, size_t len);
/* A network namespace's name, else its inode number. */
const char *top_view__ns_name(const struct live *l, uint32_t netns, char *buf, size_t len);
/* A drop reason's name: "other", the kernel's name, else "reason N". */
const char *top_view__reason_name(const struct live *l, uint32_t reason, char *buf, size_t len);

#endif
