// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session's counter sampler (rdma/sampler.h): RDMA ports and NIC
 * statistics of the traced interfaces, opened, started, armed on its
 * timer and sampled from the loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <bpf/libbpf.h>

#include "probes/btf_names.h"
#include "probes/netns.h"
#include "probes/netprobe.h"
#include "probes/phaseprobe.h"
#include "probes/privs.h"
#include "userspace/capture/capture.h"
#include "userspace/record/hostclock.h"
#include "userspace/record/session.h"
#include "userspace/record/session_priv.h"
#include "lib/util.h"

/* ---- counters: RDMA ports and NIC statistics (rdma/sampler.h) ---- */

/*
 * A RoCE port names its netdev; find it in our own namespace first (where
 * shared-mode RDMA devices live), else in another namespace if exactly one
 * has that name (exclusive mode, or the lab).
 */
static int resolve_netdev(void *ctx, const char *name, uint32_t *netns, uint32_t *ifindex)
{
	struct session *s = ctx;
	char err[160];
	int found = 0;

	for (int pass = 0; pass < 2 && !found; pass++) {
		for (int i = 0; i < s->ns.n; i++) {
			struct netns *n = &s->ns.ns[i];
			struct link_info l = {0};

			if (n->self != (pass == 0) || netns__open(n, err, sizeof(err)))
				continue;
			str_copy(l.info.name, name, sizeof(l.info.name));
			l.info.ifindex = 0;
			netns__links(n, sess_match_name, &l);
			if (!l.info.ifindex)
				continue;
			if (found++)
				return -ENOENT; /* in two namespaces: ambiguous */
			*netns = n->inum;
			*ifindex = l.info.ifindex;
		}
	}
	if (!found)
		return -ENOENT;
	/* described as an interface (on the next tick) so the port has a label */
	return sess_add_if(s, *netns, *ifindex) ? 0 : -ENOMEM;
}

static int collect_link(const struct link_info *l, void *arg)
{
	struct session *s = arg;
	struct known_if *k;

	if (!sess_if_traced(s, l->info.netns, l->info.ifindex))
		return 0;
	k = sess_add_if(s, l->info.netns, l->info.ifindex);
	if (!k)
		return -ENOMEM;
	k->traced = true;
	k->found = true;
	str_copy(k->name, l->info.name, sizeof(k->name));
	return 0;
}

/* The traced interfaces, before anything is written: their NIC stats are sampled. */
static void collect_traced(struct session *s)
{
	char err[160];

	for (int i = 0; i < s->ns.n; i++) {
		struct netns *n = &s->ns.ns[i];

		if (netns_traced(s, n->inum) && !netns__open(n, err, sizeof(err)))
			netns__links(n, collect_link, s);
	}
}

int sess_open_sampler(struct session *s)
{
	struct sampler_opts so = s->o->so;
	struct sampler_netdev *nd;
	char err[256];
	int n = 0, ret;

	if (!s->o->period_set)
		so.period_ns = netprobe__profile_counter_period_ns(s->o->profile);
	if (!so.no_nic)
		collect_traced(s);
	nd = calloc(s->n_ifs ? s->n_ifs : 1, sizeof(*nd));
	if (!nd)
		return -1;
	for (int i = 0; i < s->n_ifs && !so.no_nic; i++) {
		const struct known_if *k = &s->ifs[i];
		struct netns *ns = netns_set__find_inum(&s->ns, k->netns);

		if (!k->traced || !strcmp(k->name, "lo") || !ns || netns__open(ns, err, sizeof(err)))
			continue;
		nd[n].netns = k->netns;
		nd[n].ifindex = k->ifindex;
		nd[n].ioctl_fd = ns->ioctl_fd;
		/* the always profile has no qdisc probes: the root qdisc's own counters say what left it */
		nd[n].nl_fd = s->o->profile == NP_PROFILE_ALWAYS ? ns->nl_fd : -1;
		ns->pinned = true; /* the sampler holds the fd: a rescan keeps it open */
		str_copy(nd[n].name, k->name, sizeof(nd[n].name));
		if (ns->name[0])
			snprintf(nd[n].label, sizeof(nd[n].label), "%s@%s", k->name, ns->name);
		else
			str_copy(nd[n].label, k->name, sizeof(nd[n].label));
		n++;
	}
	so.netdevs = nd;
	so.nnetdevs = (size_t)n;
	so.resolve_netdev = resolve_netdev;
	so.resolve_ctx = s;
	ret = sampler__open(&so, &s->smp, err, sizeof(err));
	free(nd);
	if (ret) {
		ft_err("%s: %s", s->o->cmd_name, err);
		s->smp = NULL;
		return -1;
	}
	return 0;
}

/* Describe the ports, groups and counters, and the RoCE netdevs as interfaces. */
int sess_start_sampler(struct session *s)
{
	if (!s->smp)
		return 0;
	if (sampler__describe(s->smp, sess_append_cb, s))
		return -EIO;
	sess_describe_new(s); /* the RoCE netdevs */
	if (!s->o->quiet && !s->o->json) {
		size_t nic = sampler__ngroups(s->smp) - sampler__nports(s->smp) * 2; /* two groups per RDMA port */

		fprintf(stderr, "fabtrace: %s\n", sampler__rdma_status(s->smp));
		if (sampler__ngroups(s->smp) > sampler__nports(s->smp) * 2 || !sampler__nports(s->smp))
			fprintf(stderr, "fabtrace: NIC stats: %zu group%s sampled every %.3g ms\n", nic,
				nic == 1 ? "" : "s", sampler__period_ns(s->smp) / 1e6);
	}
	return sampler__sample(s->smp, mono_ns(), sess_append_cb, s) ? -EIO : 0;
}

void sess_arm_sampler(const struct session *s, int fd)
{
	uint64_t p = sampler__period_ns(s->smp);
	struct itimerspec its = {
		.it_interval = { (time_t)(p / 1000000000ull), (long)(p % 1000000000ull) },
		.it_value = { (time_t)(p / 1000000000ull), (long)(p % 1000000000ull) },
	};

	timerfd_settime(fd, 0, &its, NULL);
}

void sess_sample_counters(struct session *s, int fd)
{
	uint64_t before = sampler__period_ns(s->smp);

	if (sampler__sample(s->smp, mono_ns(), sess_append_cb, s))
		return;
	if (sampler__period_ns(s->smp) != before) {
		sess_arm_sampler(s, fd);
		if (!s->o->quiet && !s->backoff_warned)
			ft_warn("%s: counter sampling took more than its CPU budget; period raised "
				"to %.3g ms (see --sampler-budget, --rdma-counters)", s->o->cmd_name,
				sampler__period_ns(s->smp) / 1e6);
		s->backoff_warned = true;
	}
}

/* Phase probes: a user error (bad --phase, -p) stops; a kernel that cannot is a warning. */
