/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Network namespaces and their interfaces, seen through rtnetlink sockets
 * opened inside each namespace (a netlink socket stays bound to the netns it
 * was created in, so after one setns() round trip we can query any netns
 * without touching /sys, whose view depends on where it was mounted).
 */
#ifndef FABTRACE_NETNS_H
#define FABTRACE_NETNS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include "bpf/fabtrace.h"

struct netns {
	uint32_t inum;       /* namespace inode number, as BPF sees it */
	char name[32];       /* `ip netns` name, "" if unnamed */
	bool self;           /* the namespace fabtrace runs in */
	int nl_fd;           /* NETLINK_ROUTE socket inside it, -1 if not opened */
	int ioctl_fd;        /* AF_INET datagram socket inside it (ethtool) */
	char path[64];       /* how to enter it: /run/netns/NAME or /proc/PID/ns/net */
	bool seen;           /* found by the last scan */
	bool pinned;         /* its ioctl_fd was lent out (NIC stats): kept until freed */
};

struct netns_set {
	struct netns *ns;
	int n, cap;
	uint32_t self_inum;
};

struct link_info {
	struct ft_iface_info info;  /* record ready to write */
	struct ft_iface_stats stats; /* counters as of the query */
};

/*
 * Find every netns: our own, the ones `ip netns` names, those of running
 * processes.  One that is gone since the last scan is dropped, its sockets
 * closed (they kept it alive in the kernel, two fds per deleted namespace),
 * unless pinned: pointers into s->ns do not survive a scan.
 */
int netns_set__scan(struct netns_set *s, char *err, size_t errlen);
/*
 * The cheap check for each tick: when a namespace's path no longer leads to
 * it (deleted, or the process it was found through exited), rescan, so that
 * a deleted one is let go at once and not kept alive by our sockets until
 * the next full scan.  1 when it rescanned, 0 when every path holds,
 * -errno (err set) when the rescan failed.
 */
int netns_set__refresh(struct netns_set *s, char *err, size_t errlen);
struct netns *netns_set__find_inum(struct netns_set *s, uint32_t inum);
struct netns *netns_set__find_name(struct netns_set *s, const char *name);
/*
 * Run fn(arg) with this thread inside the network namespace at PATH (NULL or
 * "": where it is), and come back.  fn's result, or -errno with err set when
 * the namespace cannot be entered or left.
 */
int netns__run_in(const char *path, int (*fn)(void *arg), void *arg, char *err, size_t errlen);
/* Open the netlink/ioctl sockets of one namespace (setns round trip). */
int netns__open(struct netns *n, char *err, size_t errlen);
void netns_set__free(struct netns_set *s);

/*
 * Dump the links of a namespace: calls cb for each with info (name, mtu,
 * kind, flags, speed, tx rate limit) and stats (IFLA_STATS64) filled in.
 */
typedef int (*link_cb)(const struct link_info *l, void *ctx);
int netns__links(struct netns *n, link_cb cb, void *ctx);
/* One link by index; 0 when found, -ENOENT when not. */
int netns__link(struct netns *n, uint32_t ifindex, struct link_info *out);

/*
 * A netlink dump on FD (rtnetlink or sock_diag): the request TYPE with BODY
 * (up to 64 bytes), every answer to CB until the dump is done; after CB's
 * first non-zero the rest is read and dropped.  0, CB's result, or -errno.
 */
struct nlmsghdr;
typedef int (*netns_msg_fn)(struct nlmsghdr *h, void *ctx);
int netns__dump(int fd, int type, const void *body, size_t blen, netns_msg_fn cb, void *ctx);
/* One object (not a dump) the same way: its answer to CB, then the kernel's
 * ack.  0, CB's result, or -errno (-ENOENT: no such object). */
int netns__get(int fd, int type, const void *body, size_t blen, netns_msg_fn cb, void *ctx);

/* The rtattrs of DATA (LEN bytes) by type into TB[0..MAX], types above MAX ignored: 0, or
 * -EINVAL when one runs past the end. */
struct rtattr;
int netns__attrs(const void *data, size_t len, const struct rtattr *tb[], int max);

#endif
