// SPDX-License-Identifier: GPL-2.0-or-later
/* An interface's label and capacity (iface_label.h). */
#include <stdio.h>
#include <string.h>

#include "bpf/fabtrace.h"
#include "userspace/capture/iface_label.h"

void iface_label(char *buf, size_t len, bool known, const char *name, const char *netns_name,
		 uint32_t netns, uint32_t ifindex)
{
	if (!known || !name[0])
		snprintf(buf, len, "netns %u ifindex %u", netns, ifindex);
	else if (netns_name[0])
		snprintf(buf, len, "%s@%s", name, netns_name);
	else
		snprintf(buf, len, "%s", name);
}

double iface_capacity_bps(uint32_t speed_mbps, uint32_t tx_rate_kbps, int dir)
{
	double cap = (double)speed_mbps * 1e6;

	if (dir == FT_DIR_TX && tx_rate_kbps) {
		double r = (double)tx_rate_kbps * 1e3;

		if (!cap || r < cap)
			cap = r;
	}
	return cap;
}

/* a fixed-size record field into DST of the same size, NUL-terminated */
static void field_copy(char *dst, const char *src, size_t len)
{
	memcpy(dst, src, len);
	dst[len - 1] = '\0';
}

_Static_assert(sizeof(((struct ft_iface_info *)0)->name) == IFACE_NAME_LEN &&
	       sizeof(((struct ft_iface_info *)0)->netns_name) == IFACE_NETNS_NAME_LEN &&
	       sizeof(((struct ft_iface_info *)0)->kind) == IFACE_KIND_LEN,
	       "interface name fields differ from the record's");

void iface_info_names(const struct ft_iface_info *in, char (*name)[IFACE_NAME_LEN],
		      char (*netns_name)[IFACE_NETNS_NAME_LEN], char (*kind)[IFACE_KIND_LEN])
{
	field_copy(*name, in->name, sizeof(*name));
	field_copy(*netns_name, in->netns_name, sizeof(*netns_name));
	field_copy(*kind, in->kind, sizeof(*kind));
}
