// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The interfaces a session sees: the known ones, which the filters trace,
 * appending records to the capture (and the sink), and describing new
 * interfaces (IFACE and start stats records).
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
#include "probes/schedwait.h"
#include "userspace/capture/capture.h"
#include "userspace/capture/records.h"
#include "userspace/record/hostclock.h"
#include "userspace/record/session.h"
#include "userspace/record/session_priv.h"
#include "lib/util.h"

/* ---- interfaces ---- */

/* netns__links callback: stop at the link named like out->info.name. */
int sess_match_name(const struct link_info *l, void *arg)
{
	struct link_info *out = arg;

	if (strcmp(l->info.name, out->info.name) != 0)
		return 0;
	*out = *l;
	return 1;
}

static struct known_if *find_if(struct session *s, uint32_t netns, uint32_t ifindex)
{
	for (int i = 0; i < s->n_ifs; i++)
		if (s->ifs[i].netns == netns && s->ifs[i].ifindex == ifindex)
			return &s->ifs[i];
	return NULL;
}

struct known_if *sess_add_if(struct session *s, uint32_t netns, uint32_t ifindex)
{
	struct known_if *k = find_if(s, netns, ifindex);

	if (k)
		return k;
	if (s->n_ifs == s->cap_ifs) {
		int cap = s->cap_ifs ? s->cap_ifs * 2 : 32;
		struct known_if *p = realloc(s->ifs, cap * sizeof(*p));

		if (!p)
			return NULL;
		s->ifs = p;
		s->cap_ifs = cap;
	}
	k = &s->ifs[s->n_ifs++];
	*k = (struct known_if){ .netns = netns, .ifindex = ifindex };
	s->st.n_ifs++; /* seen: a forgotten one (sess_netns_tick) still counts */
	return k;
}

bool sess_filter_has(const struct session *s, uint32_t netns, uint32_t ifindex)
{
	for (int i = 0; i < s->n_filter; i++)
		if (s->filter[i][0] == netns && s->filter[i][1] == ifindex)
			return true;
	return false;
}

bool sess_if_traced(const struct session *s, uint32_t netns, uint32_t ifindex)
{
	if (s->netns_filter && netns != s->netns_filter)
		return false;
	return !s->n_filter || sess_filter_has(s, netns, ifindex);
}

/* Could any traced interface live in this namespace? */
bool netns_traced(const struct session *s, uint32_t netns)
{
	if (s->netns_filter && netns != s->netns_filter)
		return false;
	for (int i = 0; i < s->n_filter; i++)
		if (s->filter[i][0] == netns)
			return true;
	return !s->n_filter;
}

/* Every record: the capture first, then the sink. */
int sess_append(struct session *s, const struct ft_rec_hdr *h)
{
	if (s->write_failed)
		return -EIO;
	if (s->w && capture__append(s->w, h)) {
		s->write_failed = true;
		s->st.stop_reason = FT_STOP_ERROR;
		return -EIO;
	}
	if (h->type < 64)
		s->st.counts[h->type]++;
	if (s->sink && s->sink(s->sink_ctx, h)) {
		s->write_failed = true;
		s->st.stop_reason = FT_STOP_ERROR;
		return -EIO;
	}
	return 0;
}

int sess_append_cb(void *ctx, const struct ft_rec_hdr *h)
{
	return sess_append(ctx, h);
}

/*
 * An interface a kernel record names: described at the next tick.  One given
 * up on (its namespace not found) is tried again: a namespace created after
 * one was deleted may have its inode number, and late bins of the deleted
 * one may have come first.  (At most one rescan a tick, sess_describe_new.)
 */
static int see_if(struct session *s, uint32_t netns, uint32_t ifindex)
{
	struct known_if *k;

	if (!ifindex)
		return 1;
	k = find_if(s, netns, ifindex);
	if (!k)
		sess_add_if(s, netns, ifindex);
	else if (k->described && !k->found)
		k->described = false;
	return 1;
}

static int seen_bin(void *ctx, const struct ft_iface_bin *b)
{
	struct session *s = ctx;

	s->st.bins++;
	return see_if(s, b->netns, b->ifindex);
}

static int seen_qdisc_bin(void *ctx, const struct ft_qdisc_bin *b)
{
	struct session *s = ctx;

	s->st.bins++;
	return see_if(s, b->netns, b->ifindex);
}

static int seen_drop(void *ctx, const struct ft_drop *d)
{
	struct session *s = ctx;

	s->st.events++;
	return see_if(s, d->netns, d->ifindex);
}

/* The records of the phase probes, counted apart from the network's events. */
#define SESS_PHASE_RECS (1ull << FT_REC_PHASE | 1ull << FT_REC_REQ_DONE | 1ull << FT_REC_COMM_INFO | \
			 1ull << FT_REC_PROC | 1ull << FT_REC_SOCK_OWNER | 1ull << FT_REC_PHASE_SLOT)

/* A thread that made a collective call (seq: a collective's): its run-queue wait is sampled. */
static int seen_phase(void *ctx, const struct ft_phase *r)
{
	struct session *s = ctx;

	if (r->seq && s->sw && schedwait__follow(s->sw, (pid_t)r->pid, (pid_t)r->tid, r->netns, true))
		return -ENOMEM;
	return 0;
}

/* A thread that moved a flow's data: sampled too once its process is a rank. */
static int seen_sock_owner(void *ctx, const struct ft_sock_owner *r)
{
	struct session *s = ctx;

	if (s->sw && schedwait__follow(s->sw, (pid_t)r->pid, (pid_t)r->tid, r->flow.netns, false))
		return -ENOMEM;
	return 0;
}

/*
 * Kernel records name interfaces by (netns, ifindex); make sure each gets
 * described.  The phase probes' records name the threads whose run-queue
 * wait is sampled.
 */
int sess_on_record(void *ctx, const struct ft_rec_hdr *h)
{
	static const struct capture_visitor v = { .iface_bin = seen_bin, .qdisc_bin = seen_qdisc_bin,
						  .drop = seen_drop, .phase = seen_phase,
						  .sock_owner = seen_sock_owner };
	struct session *s = ctx;

	/* 1: a record that names an interface, counted; else (a damaged one too) by its kind */
	int seen = capture__visit(&v, s, h);

	if (seen == -ENOMEM)
		return -ENOMEM;
	if (seen != 1) {
		if (h->type < CAPTURE_REC_TYPES && ((SESS_PHASE_RECS >> h->type) & 1))
			s->st.phases++;
		else
			s->st.events++;
	}
	return sess_append(s, h);
}

struct describe_ctx {
	struct session *s;
	int phase;          /* FT_STATS_START / FT_STATS_STOP, -1 = none */
};

static int describe_link(const struct link_info *l, void *arg)
{
	struct describe_ctx *d = arg;
	struct session *s = d->s;
	struct known_if *k;
	struct ft_iface_info info = l->info;
	struct ft_iface_stats st = l->stats;

	if (!sess_if_traced(s, info.netns, info.ifindex))
		return 0;
	k = sess_add_if(s, info.netns, info.ifindex);
	if (!k)
		return -ENOMEM;
	k->found = true;
	if (d->phase == FT_STATS_STOP) {
		if (!k->has_start)
			return 0;
		st.phase = FT_STATS_STOP;
		return sess_append(s, &st.hdr);
	}
	if (!k->described) {
		info.flags |= FT_IFACE_TRACED;
		k->described = true;
		k->traced = true;
		str_copy(k->name, info.name, sizeof(k->name));
		if (sess_append(s, &info.hdr))
			return -EIO;
	}
	if (d->phase == FT_STATS_START) {
		st.phase = FT_STATS_START;
		k->has_start = true;
		return sess_append(s, &st.hdr);
	}
	return 0;
}

/* Describe every traced interface of every namespace, with counters. */
int sess_describe_all(struct session *s, int phase)
{
	struct describe_ctx d = { s, phase };
	int denied = 0;

	for (int i = 0; i < s->ns.n; i++) {
		struct netns *n = &s->ns.ns[i];
		int ret;

		if (!netns_traced(s, n->inum))
			continue;
		ret = netns__links(n, describe_link, &d);
		if (ret == -EIO || ret == -ENOMEM)
			return ret;
		denied += ret == -EPERM;
		/* a namespace that vanished or cannot be entered is skipped */
	}
	if (denied && phase == FT_STATS_START && !s->o->quiet)
		ft_warn("%s: cannot enter %d network namespace%s without CAP_SYS_ADMIN: %s interfaces are not "
			"described and their counters not checked; run with sudo", s->o->cmd_name, denied,
			denied > 1 ? "s" : "", denied > 1 ? "their" : "its");
	return 0;
}

/* Interfaces that appeared in records but were not described yet. */
void sess_describe_new(struct session *s)
{
	bool rescanned = false;
	char err[160];

	for (int i = 0; i < s->n_ifs; i++) {
		struct known_if *k = &s->ifs[i];
		struct netns *n;
		struct link_info l;

		if (k->described)
			continue;
		n = netns_set__find_inum(&s->ns, k->netns);
		if (!n && !rescanned) {
			netns_set__scan(&s->ns, err, sizeof(err));
			rescanned = true;
			n = netns_set__find_inum(&s->ns, k->netns);
		}
		k->described = true; /* not found: tried again when a record names it (see_if) */
		k->found = n != NULL;
		if (n && netns__link(n, k->ifindex, &l) == 0) {
			l.info.flags |= sess_if_traced(s, k->netns, k->ifindex) ? FT_IFACE_TRACED : 0;
			sess_append(s, &l.info.hdr);
		}
	}
}

void sess_netns_tick(struct session *s)
{
	char err[160];
	int k = 0;

	netns_set__refresh(&s->ns, err, sizeof(err));
	/*
	 * A namespace created later may get a dropped one's inode number, and its
	 * interfaces the same ifindexes: they are described afresh.  Those whose
	 * namespace was never found are kept (see_if tries them again).
	 */
	for (int i = 0; i < s->n_ifs; i++)
		if (!s->ifs[i].found || netns_set__find_inum(&s->ns, s->ifs[i].netns))
			s->ifs[k++] = s->ifs[i];
	s->n_ifs = k;
}
