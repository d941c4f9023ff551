// SPDX-License-Identifier: GPL-2.0-or-later
/* The network probes' names (probe_names.h). */
#include <string.h>

#include "bpf/fabtrace.h"
#include "probes/probe_names.h"

/* By enum ft_probe_id.  A name fits ft_probe_info.name (char[32]) and is
 * what users type after --no-probes: renaming one breaks their scripts. */
static const char *const names[FT_PROBE_MAX] = {
	[FT_PROBE_IFACE_TX] = "iface_tx",
	[FT_PROBE_IFACE_RX] = "iface_rx",
	[FT_PROBE_QDISC_ENQ] = "qdisc_enqueue",
	[FT_PROBE_QDISC_DEQ] = "qdisc_dequeue",
	[FT_PROBE_DROP] = "drop",
	[FT_PROBE_RETRANS] = "retransmit",
	[FT_PROBE_CONG_STATE] = "cong_state",
	[FT_PROBE_TCP_SAMPLE] = "tcp_sample",
};

const char *probe__name(uint32_t id)
{
	return id < FT_PROBE_MAX ? names[id] : NULL;
}

int probe__id(const char *name)
{
	for (int i = 0; i < FT_PROBE_MAX; i++)
		if (names[i] && !strcmp(name, names[i]))
			return i;
	return -1;
}
