// SPDX-License-Identifier: GPL-2.0-or-later
/* How every output names a network probe (probe_name.h). */
#include <stdio.h>

#include "bpf/fabtrace.h"
#include "probes/netprobe.h"
#include "probes/probe_names.h"
#include "userspace/capture/probe_name.h"

const char *capture__probe_name(uint32_t id, const char *recorded, char *buf, size_t len)
{
	const char *name = probe__name(id);

	if (name)
		return name;
	if (recorded && recorded[0])
		snprintf(buf, len, "%s", recorded);
	else
		snprintf(buf, len, "probe %u", (unsigned)id);
	return buf;
}

const char *capture__profile(const struct ft_file_header *h)
{
	return netprobe__profile_name(h->flags & FT_FILE_PROFILE_ALWAYS ? NP_PROFILE_ALWAYS : NP_PROFILE_FULL);
}

const char *capture__queues_missing(const struct ft_file_header *h)
{
	const uint64_t q = (1ull << FT_PROBE_QDISC_ENQ) | (1ull << FT_PROBE_QDISC_DEQ);

	if (h->probes & q)
		return NULL;
	if (h->flags & FT_FILE_PROFILE_ALWAYS)
		return "the always profile (--profile always) leaves out the qdisc probes";
	return "the qdisc probes were not attached (--no-probes, or not on this kernel)";
}
