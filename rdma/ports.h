/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * RDMA port discovery for the counter sampler: the ports under
 * ROOT/class/infiniband, their attributes from sysfs (and libibverbs on the
 * real /sys), the RoCE netdev, and the hw_counters/lifespan setting.
 * Internal to rdma/.
 */
#ifndef FABTRACE_RDMA_PORTS_H
#define FABTRACE_RDMA_PORTS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../bpf/fabtrace.h"

struct port_info {
	struct ft_rdma_port rec;    /* the record; port_id is the index */
	char dir[PATH_MAX];         /* ROOT/class/infiniband/DEV/ports/N */
	bool has_lifespan;          /* hw_counters/lifespan exists */
	bool lifespan_changed;      /* set by us and not restored yet */
	uint64_t lifespan_set_ns;   /* CLOCK_MONOTONIC when it was changed */
};

struct port_scan_opts {
	const char *root;           /* sysfs root ("/sys" or a fixture tree) */
	const char *devices;        /* -D list, NULL = all */
	bool use_verbs;             /* root is the real /sys: ask libibverbs too */
	int (*resolve_netdev)(void *ctx, const char *name, uint32_t *netns, uint32_t *ifindex);
	void *resolve_ctx;
};

/*
 * Find the ports.  0 with OUT and N set (possibly no port: NDEVS tells
 * whether there were devices at all); -EINVAL/-ENODEV with ERR for a bad -D list.
 */
int ports__scan(const struct port_scan_opts *o, struct port_info **out, size_t *n, size_t *ndevs,
		char *err, size_t errlen);

/*
 * Set hw_counters/lifespan to MS, remembering the value found: 0 (also
 * when already MS: nothing changed), -errno with ERR.
 */
int ports__set_lifespan(struct port_info *p, uint32_t ms, char *err, size_t errlen);
/* Put the remembered lifespan back if it was changed: 0, or -errno. */
int ports__restore_lifespan(struct port_info *p);

#endif
