/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The name of each network probe (enum ft_probe_id, bpf/fabtrace.h): one
 * table, read by every output.  netprobe writes these names into the
 * capture's probe records, `features` and `--no-probes` use them; the floors
 * above read them through capture__probe_name()
 * (userspace/capture/probe_name.h), which also names ids this build does not
 * know.
 */
#ifndef FABTRACE_PROBE_NAMES_H
#define FABTRACE_PROBE_NAMES_H

#include <stdint.h>

/* "iface_tx", "qdisc_enqueue", ...; NULL for an id at or above FT_PROBE_MAX. */
const char *probe__name(uint32_t id);
/* The id of a probe name, or -1. */
int probe__id(const char *name);

#endif
