/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How every output names a network probe (info, top and its metrics, the
 * report): the one table of probes/probe_names.c for the ids this build
 * knows, so a capture's own spelling of a known probe never shows.
 */
#ifndef FABTRACE_CAPTURE_PROBE_NAME_H
#define FABTRACE_CAPTURE_PROBE_NAME_H

#include <stddef.h>
#include <stdint.h>

/*
 * The name of probe ID: the table's for an id this build knows; else
 * RECORDED (the name a newer recorder wrote into its probe record; NULL or
 * "" for none) copied into BUF; else "probe ID" written into BUF.
 */
const char *capture__probe_name(uint32_t id, const char *recorded, char *buf, size_t len);

struct ft_file_header;

/* The probe profile a capture was recorded with (record --profile): "full" or "always". */
const char *capture__profile(const struct ft_file_header *h);
/*
 * Why the capture has no queue bins (qdisc sojourn and depth) although
 * queues may have been busy: its qdisc probes were not attached (the always
 * profile, --no-probes qdisc, or a kernel without them); NULL when they were.
 */
const char *capture__queues_missing(const struct ft_file_header *h);

#endif
