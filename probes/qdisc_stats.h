/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An interface's root qdisc's own counters, as `tc -s qdisc` shows them:
 * what it sent (bytes, packets), dropped, found over its limits and
 * requeued, since it was created.  The counter sampler reads them beside
 * the NIC statistics (a FT_CTR_QDISC group): with the always profile's
 * transmit bins at tc egress (what was offered to the qdisc), they are
 * what left through it.
 */
#ifndef FABTRACE_QDISC_STATS_H
#define FABTRACE_QDISC_STATS_H

#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;

/* The counters, in the sampler's order (QDISC_STATS_NAMES). */
enum qdisc_stat {
	QS_SENT_BYTES, QS_SENT_PACKETS, QS_DROPS, QS_OVERLIMITS, QS_REQUEUES,
	QS_MAX,
};

/* "qdisc_sent_bytes", ... : the counter names a capture carries. */
extern const char *const qdisc_stats_names[QS_MAX];

struct qdisc_stats {
	uint32_t ifindex;           /* its interface */
	uint32_t handle;            /* the root qdisc's handle (1: = 0x10000) */
	char kind[16];              /* "tbf", "mq"; "" when the interface has none (noqueue) */
	uint64_t v[QS_MAX];
};

/*
 * One RTM_NEWQDISC message: when it is the root qdisc of IFINDEX (0: of any
 * interface), its interface, kind, handle and counters (TCA_STATS2, else the
 * older TCA_STATS) into OUT: 0; 1 when it is not (nothing written); -EINVAL
 * when its attributes run past its end.
 */
int qdisc_stats__parse(const struct nlmsghdr *h, uint32_t ifindex, struct qdisc_stats *out);

/* The root qdiscs of a namespace's interfaces (those with a queue: not noqueue). */
struct qdisc_roots {
	struct qdisc_stats *v;
	size_t n, cap;
};

/*
 * One RTM_GETQDISC dump of the namespace of the rtnetlink socket NL_FD: its
 * root qdiscs into R (emptied first).  0, or -errno (R then empty).  Every
 * interface of the namespace in one exchange: the sampler reads each
 * namespace once a period, not each interface.
 */
int qdisc_stats__dump(int nl_fd, struct qdisc_roots *r);
/* IFINDEX's root qdisc in R, NULL when it has none. */
const struct qdisc_stats *qdisc_stats__find(const struct qdisc_roots *r, uint32_t ifindex);
void qdisc_roots__free(struct qdisc_roots *r);

#endif
