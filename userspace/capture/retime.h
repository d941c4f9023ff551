/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rewrite one capture record in place for another clock and another id space:
 * every CLOCK_MONOTONIC timestamp t becomes t + offset + (t - t0) * drift,
 * bins stay on the bin grid, and pids, phase slots, counter groups, RDMA
 * ports, lost-event CPUs and network namespaces can be moved so that the
 * records of several hosts do not collide.  Used by `fabtrace merge` and
 * tools/capshift (docs/multihost.md).
 */
#ifndef FABTRACE_RETIME_H
#define FABTRACE_RETIME_H

#include <stdint.h>
#include "bpf/fabtrace.h"

#define RETIME_MAX_NETNS 256

struct retime {
	int64_t offset_ns;
	double drift;            /* fraction: 1e-6 = 1 ppm */
	uint64_t t0_ns;
	uint64_t bin_ns;         /* bins are rounded to this grid (0: not) */
	uint32_t pid_base;       /* added to pids and tids (0: unchanged) */
	uint32_t slot_base;      /* added to phase slots */
	uint32_t group_base;     /* added to counter groups */
	uint32_t port_base;      /* added to RDMA port ids */
	uint32_t cpu_base;       /* added to the CPU of lost-event records */
	uint32_t nnetns;         /* netns[i][0] is written as netns[i][1] */
	uint32_t netns[RETIME_MAX_NETNS][2];
	int64_t realtime_shift_ns; /* added to clock pairs' REALTIME/TAI (capshift) */
};

/* T on the new clock; 0 stays 0 (= unset). */
uint64_t retime__ts(const struct retime *rt, uint64_t t);
/* Rewrite R (a record of a known or unknown type; unknown ones are left alone). */
void retime__record(const struct retime *rt, struct ft_rec_hdr *r);

#endif
