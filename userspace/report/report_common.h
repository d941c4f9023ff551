/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers the text and JSON sections of `fabtrace report` share
 * (userspace/report/report_common.c).  The report layer's own: nothing
 * outside userspace/report/ includes this.
 */
#ifndef FABTRACE_REPORT_COMMON_H
#define FABTRACE_REPORT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"

/* Said where NCCL calls were timed at enqueue (report__enqueue_only()). */
#define ENQUEUE_NOTE "NCCL calls mark enqueue, not completion: their times are host-side enqueue " \
		     "times, not the collective's duration on the GPU"

/* A qdisc handle as tc prints it: "1:10", "1:". */
const char *report__fmt_handle(uint32_t h, char *buf, size_t len);
/* "tx" or "rx" (FT_DIR_*). */
const char *report__dir_name(int dir);
/* An interface's label, "-" for none, else "netns N ifindex I". */
const char *report__iface_str(const struct model *m, uint32_t iface, uint32_t netns,
			      uint32_t ifindex, char *buf, size_t len);
/* "bytes", "peak" or "time". */
const char *report__sort_name(enum report_sort s);
/*
 * The bursts to show, sorted by o->sort, in a malloc'ed array (free it);
 * *n out: how many to show (o->top).  NULL with *n = 0 if none.
 */
const struct model_burst **report__top_bursts(const struct model *m, const struct report_opts *o,
					      size_t *n);
/* Interface directions whose conservation check came out C. */
size_t report__count_conserve(const struct model *m, enum model_conserve c);
/* C is a result of the check (OK, OK with skipped runs, MISMATCH), not "not checked". */
bool report__conserve_checked(enum model_conserve c);
/* Some NCCL calls were timed at enqueue only (corr_plugin.h). */
bool report__enqueue_only(const struct model *m);
/* Packets the kernel dropped for congestion (corr__congestion_drop() reasons). */
uint64_t report__congestion_drops(const struct model *m);
/* A collective's communicator: "0x44000000", "ptr#0/4", "MPI_COMM_WORLD", "tag/4", "-". */
const char *report__comm_str(const struct corr_instance *in, char *buf, size_t len);
/* How many of N items to show (o->top, 0 = all). */
size_t report__top_n(const struct report_opts *o, size_t n);

#endif
