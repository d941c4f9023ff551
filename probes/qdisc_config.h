/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An interface's qdisc tree as configured: every qdisc and class rtnetlink
 * dumps for it, with the parameters its TCA_OPTIONS carries (limit, rate,
 * burst, ECN marking, CE threshold...), as KEY = VALUE strings.
 *
 * Keys name their unit: limit_pkts, limit_bytes, rate_bps (bits/s),
 * burst_bytes, target_us, ce_threshold_us; switches read "on" or "off".
 * The kinds parsed: tbf, htb (qdisc and classes), pfifo, bfifo,
 * pfifo_head_drop, prio, mq (no options), sfq, fq_codel, codel, fq, pie,
 * red, netem.  Any other kind gives its "kind" alone.  docs/configuration.md
 * lists the keys of each.
 */
#ifndef FABTRACE_QDISC_CONFIG_H
#define FABTRACE_QDISC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;

/* Which qdisc or class a setting belongs to. */
struct qdisc_desc {
	uint32_t ifindex;
	uint32_t handle;    /* qdisc handle (1: = 0x10000) or class id (1:10 = 0x10010) */
	uint32_t parent;    /* TC_H_ROOT for a root qdisc */
	bool is_class;
	char kind[16];
};

/* One setting of D; a non-zero return stops the parse or dump, which returns it. */
typedef int (*qdisc_kv_fn)(void *ctx, const struct qdisc_desc *d, const char *key, const char *value);

/*
 * One RTM_NEWQDISC or RTM_NEWTCLASS message of H->nlmsg_len bytes: "kind"
 * first, then its parameters, each through KV.  0; 1 when H is neither
 * message or has no kind (nothing called); -EINVAL when its attributes
 * run past its end; else what KV returned.
 */
int qdisc_config__parse(const struct nlmsghdr *h, qdisc_kv_fn kv, void *ctx);

/*
 * The qdiscs of IFINDEX (one RTM_GETQDISC dump of the namespace of the
 * rtnetlink socket NL_FD), then its classes (RTM_GETTCLASS), through KV.
 * 0, -errno, or what KV returned.
 */
int qdisc_config__dump(int nl_fd, uint32_t ifindex, qdisc_kv_fn kv, void *ctx);

/*
 * Whether IFINDEX's transmit queues have a qdisc that lets a packet which
 * finds it empty bypass its enqueue and dequeue (pfifo_fast, pfifo, bfifo
 * at the root, or as a child of an mq, mqprio or taprio root): 1 or 0,
 * else -errno.
 */
int qdisc_config__can_bypass(int nl_fd, uint32_t ifindex);

/* "root", "ingress", "none", "1:", "1:10" (the way tc writes handles). */
const char *qdisc_config__handle_str(uint32_t handle, char *buf, size_t len);
/*
 * The handle by which two recordings name the same qdisc or class: as
 * handle_str(), but one the kernel picked (major 8000 and up: added without
 * a handle; a new one each time) is named by where it sits: "root", "at :3"
 * (under a parent whose handle was picked as well: an mq's queue), "at 1:10"
 * (under a parent named by the user); a class of such a qdisc ":10".
 */
const char *qdisc_config__stable_handle(uint32_t handle, uint32_t parent, char *buf, size_t len);

#endif
