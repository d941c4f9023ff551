// SPDX-License-Identifier: GPL-2.0-or-later
/* Network namespaces and their links through rtnetlink (see netns.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include "probes/netns.h"
#include "lib/util.h"

static int ns_add(struct netns_set *s, uint32_t inum, const char *name, const char *path)
{
	struct netns *n = netns_set__find_inum(s, inum);

	if (n) {
		/* the first path this scan finds (/run/netns comes first): the
		 * process it was found through before may be gone */
		if (!n->seen && !n->self)
			str_copy(n->path, path, sizeof(n->path));
		if (name && !n->name[0])
			str_copy(n->name, name, sizeof(n->name));
		n->seen = true;
		return 0;
	}
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 16;
		struct netns *p = realloc(s->ns, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		s->ns = p;
		s->cap = cap;
	}
	n = &s->ns[s->n++];
	memset(n, 0, sizeof(*n));
	n->inum = inum;
	n->seen = true;
	n->nl_fd = n->ioctl_fd = -1;
	n->self = inum == s->self_inum;
	str_copy(n->name, name ? name : "", sizeof(n->name));
	str_copy(n->path, path, sizeof(n->path));
	return 0;
}

static void ns_close(struct netns *n)
{
	if (n->nl_fd >= 0)
		close(n->nl_fd);
	if (n->ioctl_fd >= 0)
		close(n->ioctl_fd);
	n->nl_fd = n->ioctl_fd = -1;
}

/* Drop the namespaces the scan did not find (a scan cut short drops none). */
static void drop_unseen(struct netns_set *s)
{
	int k = 0;

	for (int i = 0; i < s->n; i++) {
		if (!s->ns[i].seen && !s->ns[i].self && !s->ns[i].pinned) {
			ns_close(&s->ns[i]);
			continue;
		}
		s->ns[k++] = s->ns[i];
	}
	s->n = k;
}

int netns_set__scan(struct netns_set *s, char *err, size_t errlen)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	char path[64];
	bool whole = true;

	if (stat("/proc/self/ns/net", &st)) {
		int e = errno;

		snprintf(err, errlen, "cannot read /proc/self/ns/net: %s", strerror(e));
		return -e;
	}
	for (int i = 0; i < s->n; i++)
		s->ns[i].seen = false;
	s->self_inum = (uint32_t)st.st_ino;
	if (!netns_set__find_inum(s, s->self_inum) &&
	    ns_add(s, s->self_inum, NULL, "/proc/self/ns/net"))
		return -ENOMEM;

	d = opendir("/run/netns");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= 32)
			continue;
		snprintf(path, sizeof(path), "/run/netns/%.31s", de->d_name);
		if (stat(path, &st) == 0 && ns_add(s, (uint32_t)st.st_ino, de->d_name, path)) {
			whole = false;
			break;
		}
	}
	if (d)
		closedir(d);

	/* Namespaces no name points at, held by processes (containers, ranks). */
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/ns/net", de->d_name);
		if (stat(path, &st) == 0 && ns_add(s, (uint32_t)st.st_ino, NULL, path)) {
			whole = false;
			break;
		}
	}
	if (d)
		closedir(d);
	else
		whole = false;
	if (whole)
		drop_unseen(s);
	return 0;
}

/* Does N's path still lead to it? (`ip netns del` removes the name, a process its /proc entry) */
static bool path_holds(const struct netns *n)
{
	struct stat st;

	return stat(n->path, &st) == 0 && (uint32_t)st.st_ino == n->inum;
}

int netns_set__refresh(struct netns_set *s, char *err, size_t errlen)
{
	for (int i = 0; i < s->n; i++) {
		const struct netns *n = &s->ns[i];
		int ret;

		if (n->self || n->pinned || path_holds(n)) /* self and pinned are kept anyway */
			continue;
		ret = netns_set__scan(s, err, errlen);
		return ret ? ret : 1;
	}
	return 0;
}

struct netns *netns_set__find_inum(struct netns_set *s, uint32_t inum)
{
	for (int i = 0; i < s->n; i++)
		if (s->ns[i].inum == inum)
			return &s->ns[i];
	return NULL;
}

struct netns *netns_set__find_name(struct netns_set *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->ns[i].name, name))
			return &s->ns[i];
	return NULL;
}

int netns__run_in(const char *path, int (*fn)(void *arg), void *arg, char *err, size_t errlen)
{
	int self = -1, target = -1, ret;

	if (!path || !*path)
		return fn(arg);
	/* thread-self: setns() moves this thread only, so come back to its own */
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (self < 0 || target < 0 || setns(target, CLONE_NEWNET)) {
		ret = -errno;
		snprintf(err, errlen, "cannot enter network namespace %s: %s%s", path, strerror(errno),
			 errno == EPERM ? " (entering one needs CAP_SYS_ADMIN: run with sudo)" : "");
		goto out;
	}
	ret = fn(arg);
	if (setns(self, CLONE_NEWNET)) {
		/* Cannot get back: nothing after this would be where we think. */
		ret = -errno;
		snprintf(err, errlen, "cannot return to own network namespace: %s", strerror(errno));
	}
out:
	if (self >= 0)
		close(self);
	if (target >= 0)
		close(target);
	return ret;
}

struct open_socks {
	struct netns *n;
	char *err;
	size_t errlen;
};

static int open_socks(void *arg)
{
	struct open_socks *a = arg;
	struct netns *n = a->n;

	n->nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	n->ioctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (n->nl_fd < 0 || n->ioctl_fd < 0) {
		int e = errno;

		snprintf(a->err, a->errlen, "netlink socket in %s: %s", n->path, strerror(e));
		return -e;
	}
	return 0;
}

int netns__open(struct netns *n, char *err, size_t errlen)
{
	struct open_socks a = { n, err, errlen };

	if (n->nl_fd >= 0)
		return 0;
	return netns__run_in(n->self ? NULL : n->path, open_socks, &a, err, errlen);
}

void netns_set__free(struct netns_set *s)
{
	for (int i = 0; i < s->n; i++)
		ns_close(&s->ns[i]);
	free(s->ns);
	memset(s, 0, sizeof(*s));
}

/* ---- rtnetlink ---- */

typedef int (*nl_msg_cb)(struct nlmsghdr *h, void *ctx);

/* One netlink request with FLAGS: its answers to CB until the kernel's
 * NLMSG_DONE (a dump) or NLMSG_ERROR (an error, or the ack of a request). */
static int nl_talk(int fd, int type, uint16_t flags, const void *body, size_t blen, nl_msg_cb cb, void *ctx)
{
	struct {
		struct nlmsghdr h;
		char body[64];
	} req = {0};
	static unsigned int seq;
	char buf[32768];
	int ret = 0;

	if (blen > sizeof(req.body))
		return -EINVAL;
	req.h.nlmsg_len = NLMSG_LENGTH(blen);
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = flags;
	req.h.nlmsg_seq = ++seq;
	memcpy(req.body, body, blen);
	if (send(fd, &req, req.h.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != req.h.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return ret;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error ? e->error : ret;
			}
			if (!ret)
				ret = cb(h, ctx);
		}
	}
}

static int nl_dump(int fd, int type, const void *body, size_t blen, nl_msg_cb cb, void *ctx)
{
	return nl_talk(fd, type, NLM_F_REQUEST | NLM_F_DUMP, body, blen, cb, ctx);
}

int netns__dump(int fd, int type, const void *body, size_t blen, netns_msg_fn cb, void *ctx)
{
	return nl_dump(fd, type, body, blen, cb, ctx);
}

int netns__get(int fd, int type, const void *body, size_t blen, netns_msg_fn cb, void *ctx)
{
	return nl_talk(fd, type, NLM_F_REQUEST | NLM_F_ACK, body, blen, cb, ctx);
}

static void parse_attrs(struct rtattr **tb, int max, struct rtattr *rta, int len)
{
	memset(tb, 0, sizeof(struct rtattr *) * (size_t)(max + 1));
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type <= max)
			tb[rta->rta_type] = rta;
}

/* Egress rate limits of root tbf qdiscs and top htb classes, per ifindex. */
struct rate_tab {
	uint32_t ifindex[256];
	uint32_t kbps[256];
	uint32_t htb_root[256]; /* handle of a root htb, to match its classes */
	int n;
};

/* Index of ifindex's slot (added if new), -1 when the table is full. */
static int rate_slot(struct rate_tab *t, uint32_t ifindex)
{
	for (int i = 0; i < t->n; i++)
		if (t->ifindex[i] == ifindex)
			return i;
	if (t->n == 256)
		return -1;
	t->ifindex[t->n] = ifindex;
	t->kbps[t->n] = 0;
	t->htb_root[t->n] = 0;
	return t->n++;
}

static uint32_t to_kbps(uint64_t bytes_per_s)
{
	uint64_t k = bytes_per_s * 8 / 1000;

	return k > UINT32_MAX ? UINT32_MAX : (uint32_t)k;
}

static int qdisc_cb(struct nlmsghdr *h, void *ctx)
{
	struct rate_tab *t = ctx;
	struct tcmsg *tc = NLMSG_DATA(h);
	struct rtattr *tb[TCA_MAX + 1], *opt[TCA_TBF_MAX + 1];
	int s;

	if (h->nlmsg_type != RTM_NEWQDISC || tc->tcm_parent != TC_H_ROOT)
		return 0;
	parse_attrs(tb, TCA_MAX, TCA_RTA(tc), (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*tc))));
	if (!tb[TCA_KIND])
		return 0;
	s = rate_slot(t, (uint32_t)tc->tcm_ifindex);
	if (s < 0)
		return 0;
	if (!strcmp(RTA_DATA(tb[TCA_KIND]), "htb")) {
		t->htb_root[s] = tc->tcm_handle;
	} else if (!strcmp(RTA_DATA(tb[TCA_KIND]), "tbf") && tb[TCA_OPTIONS]) {
		parse_attrs(opt, TCA_TBF_MAX, RTA_DATA(tb[TCA_OPTIONS]), RTA_PAYLOAD(tb[TCA_OPTIONS]));
		if (opt[TCA_TBF_RATE64] && RTA_PAYLOAD(opt[TCA_TBF_RATE64]) >= 8)
			t->kbps[s] = to_kbps(*(uint64_t *)RTA_DATA(opt[TCA_TBF_RATE64]));
		else if (opt[TCA_TBF_PARMS] && RTA_PAYLOAD(opt[TCA_TBF_PARMS]) >= sizeof(struct tc_tbf_qopt))
			t->kbps[s] = to_kbps(((struct tc_tbf_qopt *)RTA_DATA(opt[TCA_TBF_PARMS]))->rate.rate);
	}
	return 0;
}

static int class_cb(struct nlmsghdr *h, void *ctx)
{
	struct rate_tab *t = ctx;
	struct tcmsg *tc = NLMSG_DATA(h);
	struct rtattr *tb[TCA_MAX + 1], *opt[TCA_HTB_MAX + 1];
	uint32_t kbps = 0;
	int i;

	if (h->nlmsg_type != RTM_NEWTCLASS)
		return 0;
	for (i = 0; i < t->n; i++)
		if (t->ifindex[i] == (uint32_t)tc->tcm_ifindex)
			break;
	/* the top class of a root htb: its ceil bounds the link */
	if (i == t->n || !t->htb_root[i] || tc->tcm_parent != t->htb_root[i])
		return 0;
	parse_attrs(tb, TCA_MAX, TCA_RTA(tc), (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*tc))));
	if (!tb[TCA_OPTIONS])
		return 0;
	parse_attrs(opt, TCA_HTB_MAX, RTA_DATA(tb[TCA_OPTIONS]), RTA_PAYLOAD(tb[TCA_OPTIONS]));
	if (opt[TCA_HTB_CEIL64] && RTA_PAYLOAD(opt[TCA_HTB_CEIL64]) >= 8)
		kbps = to_kbps(*(uint64_t *)RTA_DATA(opt[TCA_HTB_CEIL64]));
	else if (opt[TCA_HTB_PARMS] && RTA_PAYLOAD(opt[TCA_HTB_PARMS]) >= sizeof(struct tc_htb_opt))
		kbps = to_kbps(((struct tc_htb_opt *)RTA_DATA(opt[TCA_HTB_PARMS]))->ceil.rate);
	if (kbps > t->kbps[i])
		t->kbps[i] = kbps;
	return 0;
}

static uint32_t link_speed(int fd, const char *ifname)
{
	struct ethtool_cmd ec = { .cmd = ETHTOOL_GSET };
	struct ifreq ifr = {0};
	uint32_t speed;

	str_copy(ifr.ifr_name, ifname, sizeof(ifr.ifr_name));
	ifr.ifr_data = (void *)&ec;
	if (fd < 0 || ioctl(fd, SIOCETHTOOL, &ifr))
		return 0;
	/* ethtool_cmd_speed() shifts a promoted int: overflow for SPEED_UNKNOWN */
	speed = ((uint32_t)ec.speed_hi << 16) | ec.speed;
	return speed == (uint32_t)SPEED_UNKNOWN || speed == 0xffff ? 0 : speed;
}

struct link_walk {
	struct netns *ns;
	struct rate_tab rates;
	link_cb cb;
	void *ctx;
	uint32_t only; /* ifindex, or 0 for all */
	uint64_t asked_ns; /* when the link dump was asked for: the kernel read
			    * each link's counters after it */
};

static int link_msg_cb(struct nlmsghdr *h, void *ctx)
{
	struct link_walk *w = ctx;
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct rtattr *tb[IFLA_MAX + 1], *li[IFLA_INFO_MAX + 1];
	struct link_info l;
	struct ft_iface_info *in = &l.info;
	uint64_t now = mono_ns(); /* the counters were read before this (and after asked_ns) */

	if (h->nlmsg_type != RTM_NEWLINK || (w->only && (uint32_t)ifi->ifi_index != w->only))
		return 0;
	parse_attrs(tb, IFLA_MAX, IFLA_RTA(ifi), (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi))));
	memset(&l, 0, sizeof(l));
	in->hdr.type = FT_REC_IFACE;
	in->hdr.size = sizeof(*in);
	in->netns = w->ns->inum;
	in->ifindex = (uint32_t)ifi->ifi_index;
	in->flags = (ifi->ifi_flags & IFF_UP) ? FT_IFACE_UP : 0;
	str_copy(in->netns_name, w->ns->name, sizeof(in->netns_name));
	if (tb[IFLA_IFNAME])
		str_copy(in->name, RTA_DATA(tb[IFLA_IFNAME]), sizeof(in->name));
	if (tb[IFLA_MTU])
		in->mtu = *(uint32_t *)RTA_DATA(tb[IFLA_MTU]);
	if (tb[IFLA_LINKINFO]) {
		parse_attrs(li, IFLA_INFO_MAX, RTA_DATA(tb[IFLA_LINKINFO]), RTA_PAYLOAD(tb[IFLA_LINKINFO]));
		if (li[IFLA_INFO_KIND])
			str_copy(in->kind, RTA_DATA(li[IFLA_INFO_KIND]), sizeof(in->kind));
	}
	in->speed_mbps = link_speed(w->ns->ioctl_fd, in->name);
	for (int i = 0; i < w->rates.n; i++)
		if (w->rates.ifindex[i] == in->ifindex)
			in->tx_rate_kbps = w->rates.kbps[i];

	l.stats.hdr.type = FT_REC_IFACE_STATS;
	l.stats.hdr.size = sizeof(l.stats);
	l.stats.ts_ns = now;
	l.stats.read_ns = now - w->asked_ns >= UINT32_MAX ? UINT32_MAX : (uint32_t)(now - w->asked_ns);
	if (!l.stats.read_ns)
		l.stats.read_ns = 1; /* 0 means unknown */
	l.stats.netns = in->netns;
	l.stats.ifindex = in->ifindex;
	if (tb[IFLA_STATS64] && RTA_PAYLOAD(tb[IFLA_STATS64]) >= sizeof(struct rtnl_link_stats64)) {
		struct rtnl_link_stats64 st;

		memcpy(&st, RTA_DATA(tb[IFLA_STATS64]), sizeof(st));
		l.stats.rx_bytes = st.rx_bytes;
		l.stats.rx_packets = st.rx_packets;
		l.stats.tx_bytes = st.tx_bytes;
		l.stats.tx_packets = st.tx_packets;
		l.stats.rx_dropped = st.rx_dropped;
		l.stats.tx_dropped = st.tx_dropped;
	}
	return w->cb(&l, w->ctx);
}

static int links_walk(struct netns *n, uint32_t only, link_cb cb, void *ctx)
{
	struct link_walk *w = calloc(1, sizeof(*w));
	struct tcmsg tc = { .tcm_family = AF_UNSPEC };
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	char err[128];
	int ret;

	if (!w)
		return -ENOMEM;
	ret = netns__open(n, err, sizeof(err));
	if (ret)
		goto out;
	w->ns = n;
	w->cb = cb;
	w->ctx = ctx;
	w->only = only;
	/* Rate limits are best effort: a failed qdisc dump leaves them 0. */
	if (nl_dump(n->nl_fd, RTM_GETQDISC, &tc, sizeof(tc), qdisc_cb, &w->rates) == 0) {
		for (int i = 0; i < w->rates.n; i++) {
			if (!w->rates.htb_root[i])
				continue;
			tc.tcm_ifindex = (int)w->rates.ifindex[i];
			nl_dump(n->nl_fd, RTM_GETTCLASS, &tc, sizeof(tc), class_cb, &w->rates);
		}
	}
	w->asked_ns = mono_ns();
	ret = nl_dump(n->nl_fd, RTM_GETLINK, &ifi, sizeof(ifi), link_msg_cb, w);
out:
	free(w);
	return ret;
}

int netns__links(struct netns *n, link_cb cb, void *ctx)
{
	return links_walk(n, 0, cb, ctx);
}

static int copy_link(const struct link_info *l, void *ctx)
{
	*(struct link_info *)ctx = *l;
	return 1;
}

int netns__link(struct netns *n, uint32_t ifindex, struct link_info *out)
{
	int ret;

	out->info.ifindex = 0;
	ret = links_walk(n, ifindex, copy_link, out);
	if (ret < 0)
		return ret;
	return out->info.ifindex == ifindex ? 0 : -ENOENT;
}

int netns__attrs(const void *data, size_t len, const struct rtattr *tb[], int max)
{
	const struct rtattr *rta = data;
	int left = len > INT32_MAX ? INT32_MAX : (int)len;

	memset(tb, 0, sizeof(const struct rtattr *) * (size_t)(max + 1));
	for (; RTA_OK(rta, left); rta = RTA_NEXT(rta, left))
		if (rta->rta_type <= max)
			tb[rta->rta_type] = rta;
	return left >= (int)sizeof(struct rtattr) ? -EINVAL : 0;
}
