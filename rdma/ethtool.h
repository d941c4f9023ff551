/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * NIC statistics through the ethtool ioctl (SIOCETHTOOL): the names of the
 * ETH_SS_STATS string set, then ETHTOOL_GSTATS reads.  The socket decides
 * the network namespace.  Internal to rdma/.
 */
#ifndef FABTRACE_RDMA_ETHTOOL_H
#define FABTRACE_RDMA_ETHTOOL_H

#include <stdint.h>

#define ETHSTATS_NAME_LEN 32    /* ETH_GSTRING_LEN */

struct ethstats {
	int fd;                 /* caller's socket, not closed here */
	char ifname[16];
	uint32_t n;             /* stats that names/values describe */
	char *names;            /* n * ETHSTATS_NAME_LEN, NUL terminated each */
	uint64_t *values;       /* n values of the last read */
	void *buf;              /* struct ethtool_stats + cap values */
	uint32_t cap;
};

/*
 * Load the stat names of IFNAME: 0; -EOPNOTSUPP when the device has no
 * stats (or none at all); -ENODEV; other -errno.
 */
int ethstats__open(struct ethstats *e, int fd, const char *ifname);
/*
 * Read every stat into e->values: 0, 1 when the set changed since the
 * names were loaded (they are reloaded: callers remap by name), or -errno
 * (the device is gone: -ENODEV).
 */
int ethstats__read(struct ethstats *e);
void ethstats__free(struct ethstats *e);
/* SIOCGIFINDEX of IFNAME through FD: 0 or -errno. */
int ethstats__ifindex(int fd, const char *ifname, uint32_t *ifindex);

#endif
