/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a capture needs so that captures of several hosts can be merged
 * (docs/multihost.md): the host's identity, clock pairs (REALTIME and TAI
 * against MONOTONIC) with the kernel's sync state, and output names made
 * from a pattern (%h host, %t start time, %p pid) so that one command line
 * serves every node.
 */
#ifndef FABTRACE_HOSTCLOCK_H
#define FABTRACE_HOSTCLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include "bpf/fabtrace.h"

/* Clock daemons running now (enum ft_clock_daemon bits), from /proc/PID/comm. */
uint16_t hostclock__daemons(void);
/*
 * Fill C (header included) with the tightest of a few MONOTONIC-bracketed
 * REALTIME/TAI reads and adjtimex()'s state.
 */
void hostclock__sample(struct ft_clock *c, uint8_t kind, uint16_t daemons);
/* Fill H (header included): hostname, machine-id, boot-id, NETNS_NAME/NETNS. */
void hostclock__host_id(struct ft_host_id *h, const char *netns_name, uint32_t netns);

/*
 * Expand an output pattern: %h hostname (up to its first '.'), %H the full
 * hostname, %t the start time as UTC YYYYmmddTHHMMSSZ, %p PID, %% a '%'.
 * 0, or -EINVAL (unknown or trailing %, or an expansion that is empty or
 * has a '/' from the hostname) / -ENAMETOOLONG with a one-line reason in ERR.
 */
int hostclock__expand_path(const char *pattern, const char *hostname, time_t start, pid_t pid,
			   char *out, size_t outlen, char *err, size_t errlen);

#endif
