// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe profiles (record --profile, netprobe.h): one table of what
 * each is called, leaves out and how often the recorder wakes for it.
 * Pure data: the unit tests check it without a kernel.
 */
#include <string.h>

#include "probes/netprobe.h"

struct profile {
	const char *name;
	uint64_t skips;             /* bits (1 << ft_probe_id) of the probes left out */
	bool owners;                /* the phase probes' socket owners (sock_send, sock_recv) */
	uint64_t counter_period_ns; /* the counter sampler's, unless --counter-period says */
	unsigned drain_ms;          /* the rings' drain timer */
};

/*
 * The always profile leaves out the probes that run per packet without
 * being the bins (qdisc_enqueue and qdisc_dequeue: sojourn and depth;
 * tcp_sample: RTT/cwnd samples) and the socket owners; drops, retransmits
 * and congestion-state changes run per drop, per retransmit and per change
 * only.  The verdict needs the changes: a loss probe's loss was real when
 * the window shrank after it, and a segment the host's own qdisc dropped
 * stalls its flow in CWR (docs/verdicts.md).
 *
 * It samples the counters every 100 ms, not 10: each sample is a wake-up
 * and, for the NIC statistics, an ioctl whose kernel buffer is vzalloc'ed
 * and mapped on every call; at 10 ms that was a third of the always
 * recorder's CPU under load (docs/performance.md section 8), and the bins
 * keep the fine time.
 *
 * It drains the rings every 100 ms, not 20 (with batched wake-ups, a ring
 * whose backlog crosses a multiple of --wakeup wakes the recorder sooner):
 * it writes a fifth to a twelfth of the full profile's bytes, and every
 * wake-up takes a CPU from the traffic beside it.
 */
static const struct profile profiles[NP_PROFILE_N] = {
	[NP_PROFILE_FULL] = { .name = "full", .skips = 0, .owners = true,
			      .counter_period_ns = 10000000ull, .drain_ms = 20 },
	[NP_PROFILE_ALWAYS] = { .name = "always",
				.skips = (1ull << FT_PROBE_QDISC_ENQ) | (1ull << FT_PROBE_QDISC_DEQ) |
					 (1ull << FT_PROBE_TCP_SAMPLE),
				.owners = false, .counter_period_ns = 100000000ull, .drain_ms = 100 },
};

/* PROFILE's entry; the full profile's for an unknown one (what a capture without one ran). */
static const struct profile *profile_of(int profile)
{
	return &profiles[profile >= 0 && profile < NP_PROFILE_N ? profile : NP_PROFILE_FULL];
}

const char *netprobe__profile_name(int profile)
{
	return profile >= 0 && profile < NP_PROFILE_N ? profiles[profile].name : NULL;
}

int netprobe__profile_parse(const char *name)
{
	for (int i = 0; name && i < NP_PROFILE_N; i++)
		if (!strcmp(name, profiles[i].name))
			return i;
	return -1;
}

uint64_t netprobe__profile_skip(int profile)
{
	return profile_of(profile)->skips;
}

bool netprobe__profile_owners(int profile)
{
	return profile_of(profile)->owners;
}

uint64_t netprobe__profile_counter_period_ns(int profile)
{
	return profile_of(profile)->counter_period_ns;
}

unsigned netprobe__profile_drain_ms(int profile)
{
	return profile_of(profile)->drain_ms;
}
