/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The configuration a capture was taken under (FT_REC_CONFIG records,
 * docs/configuration.md): every setting with the value first read and the
 * last, looked up by what it belongs to.  A store of its own, so that
 * `info` can keep it without a model; the model keeps one (model.config)
 * and the model__config_* lookups read it.
 *
 * Feed records with model_config__add() (others are ignored), then call
 * model_config__finish() once; the lookups need it.
 */
#ifndef FABTRACE_MODEL_CONFIG_H
#define FABTRACE_MODEL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "bpf/fabtrace.h"

/* One setting: KEY of one object, its first and last value. */
struct model_cfg {
	uint8_t scope;              /* enum ft_config_scope */
	uint8_t flags;              /* enum ft_config_flags of the first value */
	bool unknown;               /* it could not be read: VALUE says why */
	bool changed;               /* LAST differs from VALUE (read again at the stop) */
	uint32_t netns, id, handle, parent;
	struct ft_flow flow;        /* FLOW: the socket (ifindex and padding zeroed) */
	uint32_t host;              /* merged captures: the host its namespace belongs to (0 else) */
	char object[33];
	const char *key;
	const char *value;          /* as first read */
	const char *last;           /* as last read (== VALUE unless changed) */
	uint64_t first_ns, last_ns;
};

struct model_config;

struct model_config *model_config__new(void);
void model_config__free(struct model_config *c);
/*
 * One record: FT_REC_CONFIG (and FT_REC_HOST_NETNS, which says which host
 * of a merged capture a namespace belongs to); other types are ignored.
 * 0; -ENOMEM.  A damaged record is counted (model_config__damaged()), not
 * an error.
 */
int model_config__add(struct model_config *c, const struct ft_rec_hdr *rec);
/* Sort: scope, namespace, object (interface, qdisc handle, flow, pid), key.  0 or -ENOMEM. */
int model_config__finish(struct model_config *c);

/* Every setting, in the order above. */
const struct model_cfg *model_config__all(const struct model_config *c, size_t *n);
/* The settings of one scope and namespace and ID (IFACE, QDISC, NIC: ifindex; RANK: pid; others 0): a slice. */
const struct model_cfg *model_config__of(const struct model_config *c, unsigned scope, uint32_t netns,
					 uint32_t id, size_t *n);
size_t model_config__damaged(const struct model_config *c);
size_t model_config__unknown(const struct model_config *c);

/*
 * A sysctl ("net.ipv4.tcp_ecn") as namespace NETNS saw it: its own value
 * where it differed from the host's, else the host's (the recorder's own
 * namespace; in a merged capture, that of NETNS's host).  NULL when not
 * recorded, or *UNKNOWN (may be NULL) when it could not be read.
 */
const char *model_config__sysctl(const struct model_config *c, uint32_t netns, const char *key, bool *unknown);
/* The recorder's own namespace (the host's sysctls); 0 when none was recorded. */
uint32_t model_config__host_netns(const struct model_config *c);
/* A setting of an interface ("mtu", "tso"), NULL when not recorded or unknown. */
const char *model_config__iface(const struct model_config *c, uint32_t netns, uint32_t ifindex, const char *key);
/* A parameter ("limit_bytes") of the qdisc or class HANDLE of an interface; NULL when absent. */
const char *model_config__qdisc(const struct model_config *c, uint32_t netns, uint32_t ifindex,
				uint32_t handle, const char *key);
/* A socket's congestion control ("cubic") and ECN ("on"/"off"), by its flow; NULL when not seen. */
const char *model_config__flow(const struct model_config *c, const struct ft_flow *f, const char *key);
/* An environment variable of process PID ("NCCL_ALGO"); NULL when unset or not read. */
const char *model_config__env(const struct model_config *c, uint32_t pid, const char *key);
/* Whether PID's environment was read (then a NULL from model_config__env means unset). */
bool model_config__env_read(const struct model_config *c, uint32_t pid);

/* ---- the model's part (model.config; NULL lookups when the capture has none) ---- */

struct model;
/* model__add()'s part: FT_REC_CONFIG and FT_REC_HOST_NETNS records into model.config. */
int model__config_add(struct model *m, const struct ft_rec_hdr *rec);
/* model_config__sysctl(), __qdisc(), __iface(), __flow(), __env() of M's configuration. */
const char *model__config_sysctl(const struct model *m, uint32_t netns, const char *key);
const char *model__config_qdisc(const struct model *m, uint32_t netns, uint32_t ifindex, uint32_t handle,
				const char *key);
const char *model__config_iface(const struct model *m, uint32_t netns, uint32_t ifindex, const char *key);
const char *model__config_flow(const struct model *m, const struct ft_flow *f, const char *key);
const char *model__config_env(const struct model *m, uint32_t pid, const char *key);

#endif
