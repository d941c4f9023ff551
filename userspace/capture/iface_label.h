/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How an interface of a capture (FT_REC_IFACE) is named and what it can
 * carry: one rule for the model (report, timelines) and the live view
 * (top, metrics), so both say the same.
 */
#ifndef FABTRACE_CAPTURE_IFACE_LABEL_H
#define FABTRACE_CAPTURE_IFACE_LABEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/fabtrace.h"

/* "eth0@ns1", "eth0" (no namespace name), or "netns N ifindex I" when the
 * interface was never described (KNOWN false) or has no name. */
void iface_label(char *buf, size_t len, bool known, const char *name, const char *netns_name,
		 uint32_t netns, uint32_t ifindex);

/* Capacity of direction DIR (enum ft_dir) in bit/s, 0 unknown: the link
 * speed, and on TX the qdisc's rate limit when that is lower. */
double iface_capacity_bps(uint32_t speed_mbps, uint32_t tx_rate_kbps, int dir);

/* The text fields of an interface record, each NUL-terminated (a record's
 * fixed-size fields need not be), into arrays of the record's sizes: the
 * compiler refuses a pointer to an array of another size. */
#define IFACE_NAME_LEN 16
#define IFACE_NETNS_NAME_LEN 32
#define IFACE_KIND_LEN 16
void iface_info_names(const struct ft_iface_info *in, char (*name)[IFACE_NAME_LEN],
		      char (*netns_name)[IFACE_NETNS_NAME_LEN], char (*kind)[IFACE_KIND_LEN]);

#endif
