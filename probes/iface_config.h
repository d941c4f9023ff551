/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An interface's configuration beyond its identity record: from rtnetlink
 * its MTU, transmit queue length and queues, GSO/GRO/TSO size limits and
 * root qdisc; from the ethtool ioctls its offloads (tso, gso, gro, lro, sg,
 * tx/rx checksumming), "on" or "off".
 */
#ifndef FABTRACE_IFACE_CONFIG_H
#define FABTRACE_IFACE_CONFIG_H

#include <stdint.h>
#include "probes/cfg_kv.h"

struct nlmsghdr;

/*
 * The settings of one RTM_NEWLINK message (H->nlmsg_len bytes) through KV.
 * 0; 1 when H is not one; -EINVAL when its attributes overrun it; else
 * what KV returned.
 */
int iface_config__parse_link(const struct nlmsghdr *h, cfg_kv_fn kv, void *ctx);

/*
 * Interface IFINDEX of the namespace of NL_FD (rtnetlink) and IOCTL_FD (any
 * socket there): its link settings, then its offloads; an offload the
 * driver cannot tell comes with its error.  0, -ENOENT when there is no
 * such interface, -errno, or what KV returned.
 */
int iface_config__read(int nl_fd, int ioctl_fd, uint32_t ifindex, cfg_kv_fn kv, void *ctx);

#endif
