// SPDX-License-Identifier: GPL-2.0-or-later
/* ethtool statistics via SIOCETHTOOL (see ethtool.h). */
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "ethtool.h"
#include "sysattr.h"

static int eth_ioctl(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	sysattr__copy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name));
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

int ethstats__ifindex(int fd, const char *ifname, uint32_t *ifindex)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	sysattr__copy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name));
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
		return -errno;
	*ifindex = (uint32_t)ifr.ifr_ifindex;
	return 0;
}

/* How many ETH_SS_STATS strings the device has now: >= 0 or -errno. */
static int stats_count(int fd, const char *ifname, uint32_t *n)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t data[1];
	} info;
	int err;

	memset(&info, 0, sizeof(info));
	info.hdr.cmd = ETHTOOL_GSSET_INFO;
	info.hdr.sset_mask = 1ull << ETH_SS_STATS;
	err = eth_ioctl(fd, ifname, &info);
	if (err)
		return err;
	/* the kernel clears the bit of a set the driver does not have */
	*n = (info.hdr.sset_mask & (1ull << ETH_SS_STATS)) ? info.data[0] : 0;
	return 0;
}

static int load_names(struct ethstats *e, uint32_t n)
{
	struct ethtool_gstrings *gs;
	char *names;
	int err;

	gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	if (!gs)
		return -ENOMEM;
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	err = eth_ioctl(e->fd, e->ifname, gs);
	if (!err && gs->len != n)
		err = -EAGAIN; /* changed between the two calls */
	if (err) {
		free(gs);
		return err;
	}
	names = malloc((size_t)n * ETHSTATS_NAME_LEN + 1);
	if (!names) {
		free(gs);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		char *dst = names + (size_t)i * ETHSTATS_NAME_LEN;

		memcpy(dst, gs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		dst[ETHSTATS_NAME_LEN - 1] = '\0'; /* drivers fill all 32 bytes at times */
	}
	free(gs);
	free(e->names);
	e->names = names;
	e->n = n;
	return 0;
}

/* Room for N values and then some: the kernel writes as many as the driver has at that moment. */
static int ensure_cap(struct ethstats *e, uint32_t n)
{
	uint32_t cap = n + n / 2 + 16;
	void *buf;
	uint64_t *vals;

	if (e->buf && e->cap >= n + n / 4 + 16)
		return 0;
	buf = calloc(1, sizeof(struct ethtool_stats) + (size_t)cap * sizeof(uint64_t));
	vals = calloc((size_t)cap, sizeof(uint64_t));
	if (!buf || !vals) {
		free(buf);
		free(vals);
		return -ENOMEM;
	}
	free(e->buf);
	free(e->values);
	e->buf = buf;
	e->values = vals;
	e->cap = cap;
	return 0;
}

int ethstats__open(struct ethstats *e, int fd, const char *ifname)
{
	uint32_t n = 0;
	int err;

	memset(e, 0, sizeof(*e));
	e->fd = fd;
	sysattr__copy(e->ifname, ifname, sizeof(e->ifname));
	err = stats_count(fd, ifname, &n);
	if (err == -EINVAL)
		err = -EOPNOTSUPP; /* very old drivers: no GSSET_INFO */
	if (!err && n == 0)
		err = -EOPNOTSUPP;
	if (!err)
		err = load_names(e, n);
	if (!err)
		err = ensure_cap(e, n);
	if (err)
		ethstats__free(e);
	return err;
}

int ethstats__read(struct ethstats *e)
{
	struct ethtool_stats *st;
	uint32_t n;
	int err, changed = 0;

	/*
	 * The kernel writes as many values as the driver has at the time of
	 * GSTATS, whatever n_stats says, so size the buffer from a fresh count
	 * (with slack for a change between the two calls).
	 */
	err = stats_count(e->fd, e->ifname, &n);
	if (err)
		return err;
	if (n != e->n) {
		if (n == 0)
			return -EOPNOTSUPP;
		err = load_names(e, n);
		if (err)
			return err;
		changed = 1;
	}
	err = ensure_cap(e, e->n);
	if (err)
		return err;
	st = e->buf;
	memset(st, 0, sizeof(*st));
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = e->n;
	err = eth_ioctl(e->fd, e->ifname, st);
	if (err)
		return err;
	if (st->n_stats > e->cap)
		return -EOVERFLOW;
	if (st->n_stats != e->n) {
		/* the set changed between the calls: names for what was read */
		err = load_names(e, st->n_stats);
		if (err)
			return err;
		changed = 1;
	}
	memcpy(e->values, st->data, (size_t)e->n * sizeof(uint64_t));
	return changed;
}

void ethstats__free(struct ethstats *e)
{
	free(e->names);
	free(e->values);
	free(e->buf);
	e->names = NULL;
	e->values = NULL;
	e->buf = NULL;
	e->n = e->cap = 0;
}
