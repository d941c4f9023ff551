/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sysctls that govern congestion control and queueing (one table,
 * docs/configuration.md says why each): TCP's congestion control and ECN,
 * the default qdisc, socket buffer limits, pacing, loss recovery and the
 * behaviour after idle.  Read from /proc/sys as the calling thread's
 * network namespace shows it: run it inside a namespace (netns__run_in())
 * for that namespace's values.
 */
#ifndef FABTRACE_SYSCTL_CONFIG_H
#define FABTRACE_SYSCTL_CONFIG_H

#include <stddef.h>
#include "probes/cfg_kv.h"

/*
 * Every sysctl of the table under ROOT (NULL: "/proc/sys") through KV, its
 * value with runs of blanks made one space ("4096 131072 6291456").  One
 * that does not exist (a global sysctl seen from another namespace, an
 * older kernel) is left out; one that cannot be read comes with its error.
 * 0, or what KV returned.
 */
int sysctl_config__read(const char *root, cfg_kv_fn kv, void *ctx);

/* The table: its size and its I-th name ("net.ipv4.tcp_ecn"), NULL past the end. */
size_t sysctl_config__count(void);
const char *sysctl_config__name(size_t i);

#endif
