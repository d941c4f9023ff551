// SPDX-License-Identifier: GPL-2.0-or-later
/* TCP sockets, their congestion control and ECN, through INET_DIAG (sockdiag.h). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>

#include "probes/netns.h"
#include "probes/sockdiag.h"

/* The kernel's TCP states (include/net/tcp_states.h) a connected socket can be in. */
enum {
	ST_ESTABLISHED = 1,
	ST_FIN_WAIT1 = 4,
	ST_FIN_WAIT2 = 5,
	ST_CLOSE_WAIT = 8,
	ST_LAST_ACK = 9,
	ST_CLOSING = 11,
};
#define CONNECTED_STATES ((1u << ST_ESTABLISHED) | (1u << ST_FIN_WAIT1) | (1u << ST_FIN_WAIT2) | \
			  (1u << ST_CLOSE_WAIT) | (1u << ST_LAST_ACK) | (1u << ST_CLOSING))

int sockdiag__parse(const struct nlmsghdr *h, uint32_t netns, struct sockdiag_sock *out)
{
	const struct inet_diag_msg *m = NLMSG_DATA(h);
	const struct rtattr *a;
	int left;

	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return 1;
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*m)))
		return -EINVAL;
	if (m->idiag_family != AF_INET && m->idiag_family != AF_INET6)
		return 1;
	memset(out, 0, sizeof(*out));
	out->flow.family = m->idiag_family == AF_INET ? 4 : 6;
	out->flow.proto = 6;
	out->flow.netns = netns;
	out->flow.sport = ntohs(m->id.idiag_sport);
	out->flow.dport = ntohs(m->id.idiag_dport);
	memcpy(out->flow.saddr, m->id.idiag_src, m->idiag_family == AF_INET ? 4 : 16);
	memcpy(out->flow.daddr, m->id.idiag_dst, m->idiag_family == AF_INET ? 4 : 16);
	out->cookie = (uint64_t)m->id.idiag_cookie[1] << 32 | m->id.idiag_cookie[0];
	out->bound_if = m->id.idiag_if;
	out->state = m->idiag_state;
	left = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
	for (a = (const struct rtattr *)(m + 1); RTA_OK(a, left); a = RTA_NEXT(a, left)) {
		if (a->rta_type == INET_DIAG_CONG) {
			size_t n = strnlen(RTA_DATA(a), RTA_PAYLOAD(a));

			snprintf(out->cc, sizeof(out->cc), "%.*s", (int)n, (const char *)RTA_DATA(a));
		} else if (a->rta_type == INET_DIAG_INFO &&
			   RTA_PAYLOAD(a) > (int)offsetof(struct tcp_info, tcpi_options)) {
			uint8_t opt = ((const uint8_t *)RTA_DATA(a))[offsetof(struct tcp_info, tcpi_options)];

			out->have_info = true;
			out->ecn = (opt & TCPI_OPT_ECN) != 0;
			out->ecn_seen = (opt & TCPI_OPT_ECN_SEEN) != 0;
		}
	}
	return left >= (int)sizeof(struct rtattr) ? -EINVAL : 0;
}

int sockdiag__open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

	return fd < 0 ? -errno : fd;
}

struct walk {
	uint32_t netns;
	sockdiag_fn fn;
	void *ctx;
};

static int walk_msg(struct nlmsghdr *h, void *arg)
{
	struct walk *w = arg;
	struct sockdiag_sock s;

	if (sockdiag__parse(h, w->netns, &s))
		return 0; /* not a socket, or a damaged one: the others still count */
	return w->fn(w->ctx, &s);
}

int sockdiag__dump(int fd, uint32_t netns, sockdiag_fn fn, void *ctx)
{
	static const uint8_t families[] = { AF_INET, AF_INET6 };
	struct walk w = { netns, fn, ctx };

	for (size_t i = 0; i < sizeof(families); i++) {
		struct inet_diag_req_v2 req = {
			.sdiag_family = families[i],
			.sdiag_protocol = IPPROTO_TCP,
			/* not INET_DIAG_INFO: tcp_info takes every socket's lock */
			.idiag_ext = 1 << (INET_DIAG_CONG - 1),
			.idiag_states = CONNECTED_STATES,
		};
		int ret = netns__dump(fd, SOCK_DIAG_BY_FAMILY, &req, sizeof(req), walk_msg, &w);

		if (ret)
			return ret;
	}
	return 0;
}

struct one {
	struct sockdiag_sock *s;
	bool found;
};

static int info_msg(struct nlmsghdr *h, void *arg)
{
	struct one *o = arg;
	struct sockdiag_sock got;

	if (sockdiag__parse(h, o->s->flow.netns, &got) || got.cookie != o->s->cookie)
		return 0;
	o->found = true;
	o->s->have_info = got.have_info;
	o->s->ecn = got.ecn;
	o->s->ecn_seen = got.ecn_seen;
	return 0;
}

int sockdiag__info(int fd, struct sockdiag_sock *s)
{
	bool v4 = s->flow.family == 4;
	struct inet_diag_req_v2 req = {
		.sdiag_family = v4 ? AF_INET : AF_INET6,
		.sdiag_protocol = IPPROTO_TCP,
		.idiag_ext = 1 << (INET_DIAG_INFO - 1),
		.idiag_states = CONNECTED_STATES,
		.id = {
			.idiag_sport = htons(s->flow.sport),
			.idiag_dport = htons(s->flow.dport),
			.idiag_if = s->bound_if,
			.idiag_cookie = { (uint32_t)s->cookie, (uint32_t)(s->cookie >> 32) },
		},
	};
	struct one o = { s, false };
	int ret;

	memcpy(req.id.idiag_src, s->flow.saddr, v4 ? 4 : 16);
	memcpy(req.id.idiag_dst, s->flow.daddr, v4 ? 4 : 16);
	s->have_info = false;
	ret = netns__get(fd, SOCK_DIAG_BY_FAMILY, &req, sizeof(req), info_msg, &o);
	if (ret)
		return ret == -ESTALE ? -ENOENT : ret; /* -ESTALE: its 4-tuple is another socket's now */
	return o.found ? 0 : -ENOENT;
}
