// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The probe profiles (record --profile, netprobe.h): their names and what
 * each leaves out.  Pure tables: the unit tests check them without a kernel.
 */
#include <string.h>

#include "probes/netprobe.h"

static const char *const names[NP_PROFILE_N] = {
	[NP_PROFILE_FULL] = "full",
	[NP_PROFILE_ALWAYS] = "always",
};

/*
 * What the always profile leaves out: the probes that run per packet
 * without being the bins (qdisc_enqueue and qdisc_dequeue: sojourn and
 * depth; tcp_sample: RTT/cwnd samples) and the congestion-state changes.
 * Drops and retransmits run per drop and per retransmit only.
 */
static const uint64_t skips[NP_PROFILE_N] = {
	[NP_PROFILE_FULL] = 0,
	[NP_PROFILE_ALWAYS] = (1ull << FT_PROBE_QDISC_ENQ) | (1ull << FT_PROBE_QDISC_DEQ) |
			      (1ull << FT_PROBE_CONG_STATE) | (1ull << FT_PROBE_TCP_SAMPLE),
};

const char *netprobe__profile_name(int profile)
{
	return profile >= 0 && profile < NP_PROFILE_N ? names[profile] : NULL;
}

int netprobe__profile_parse(const char *name)
{
	for (int i = 0; name && i < NP_PROFILE_N; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

uint64_t netprobe__profile_skip(int profile)
{
	return profile >= 0 && profile < NP_PROFILE_N ? skips[profile] : 0;
}

bool netprobe__profile_owners(int profile)
{
	return profile != NP_PROFILE_ALWAYS;
}

/*
 * The counters' period: 10 ms for a recording someone started, 100 ms for
 * the one left running.  Each sample is a wake-up and, for the NIC
 * statistics, an ioctl whose kernel buffer is vzalloc'ed and mapped on
 * every call: at 10 ms that was a third of the always recorder's CPU under
 * load (docs/performance.md section 8); the bins keep the fine time.
 */
static const uint64_t counter_periods[NP_PROFILE_N] = {
	[NP_PROFILE_FULL] = 10000000ull,
	[NP_PROFILE_ALWAYS] = 100000000ull,
};

uint64_t netprobe__profile_counter_period_ns(int profile)
{
	return counter_periods[profile >= 0 && profile < NP_PROFILE_N ? profile : NP_PROFILE_FULL];
}

/*
 * The rings' drain timer (with batched wake-ups, the recorder is woken
 * only when a ring's backlog crosses a multiple of --wakeup, so a busy
 * ring is drained sooner).  The always profile writes a fifth to a twelfth
 * of the full one's bytes (docs/performance.md section 8), so it wakes a
 * fifth as often: every wake-up takes a CPU from the traffic beside it.
 */
static const unsigned drain_ms[NP_PROFILE_N] = {
	[NP_PROFILE_FULL] = 20,
	[NP_PROFILE_ALWAYS] = 100,
};

unsigned netprobe__profile_drain_ms(int profile)
{
	return drain_ms[profile >= 0 && profile < NP_PROFILE_N ? profile : NP_PROFILE_FULL];
}
