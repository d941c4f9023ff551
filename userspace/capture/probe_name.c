// SPDX-License-Identifier: GPL-2.0-or-later
/* How every output names a network probe (probe_name.h). */
#include <stdio.h>

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
