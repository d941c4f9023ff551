/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TCP sockets of a network namespace through sock_diag (INET_DIAG): each
 * connected socket's flow, the congestion control it uses (INET_DIAG_CONG)
 * and, asked once per socket, whether ECN was negotiated (tcp_info's
 * TCPI_OPT_ECN).  The flow is named as the TCP records name it (struct
 * ft_flow, ifindex 0), so the settings meet the flow's events.
 */
#ifndef FABTRACE_SOCKDIAG_H
#define FABTRACE_SOCKDIAG_H

#include <stdbool.h>
#include <stdint.h>
#include "bpf/fabtrace.h"

struct nlmsghdr;

struct sockdiag_sock {
	struct ft_flow flow;
	uint64_t cookie;    /* the kernel's socket cookie: one socket, not one 4-tuple */
	uint32_t bound_if;  /* the interface it is bound to (SO_BINDTODEVICE), 0 none */
	uint8_t state;      /* TCP_ESTABLISHED = 1, ... */
	bool have_info;     /* tcp_info came (sockdiag__info): ecn and ecn_seen are known */
	bool ecn;           /* ECN negotiated */
	bool ecn_seen;      /* a CE mark was received */
	char cc[16];        /* its congestion control, "" when not told */
};

/*
 * One SOCK_DIAG_BY_FAMILY answer (H->nlmsg_len bytes) of namespace NETNS
 * into OUT.  0; 1 when H is not one (or not IPv4/IPv6 TCP); -EINVAL when
 * it is cut short or its attributes overrun it.
 */
int sockdiag__parse(const struct nlmsghdr *h, uint32_t netns, struct sockdiag_sock *out);

/* A sock_diag socket in the calling thread's namespace: the fd, or -errno. */
int sockdiag__open(void);

/*
 * Every connected TCP socket (established until closed, not listening or
 * in TIME_WAIT) of FD's namespace, IPv4 then IPv6, through FN; a non-zero
 * return of FN stops the dump.  0, -errno, or what FN returned.  Without
 * tcp_info (have_info false): the kernel takes each socket's lock for it,
 * and sleeps on a busy sender's, so a dump a second that asked for it cost
 * a third of the always-on recorder's CPU under load.
 */
typedef int (*sockdiag_fn)(void *ctx, const struct sockdiag_sock *s);
int sockdiag__dump(int fd, uint32_t netns, sockdiag_fn fn, void *ctx);

/*
 * tcp_info of the one socket S a dump gave (its 4-tuple, interface and
 * cookie) into S's have_info, ecn and ecn_seen.  Not from inside FN: one
 * netlink socket answers one request at a time.  0; -ENOENT when it is
 * gone; -errno.
 */
int sockdiag__info(int fd, struct sockdiag_sock *s);

#endif
