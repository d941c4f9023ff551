/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which kernel drop reasons (enum skb_drop_reason, names without the
 * SKB_DROP_REASON_ prefix) mean congestion: a queue, ring, backlog or buffer
 * with no room.  Only those count as evidence in a verdict; the others (a
 * socket closed, a checksum, NOT_SPECIFIED...) are shown, never counted.
 * docs/report-json.md lists them; `fabtrace features --drop-reasons` shows
 * the running kernel's reasons and how each is taken.
 */
#ifndef FABTRACE_DROP_REASONS_H
#define FABTRACE_DROP_REASONS_H

#include <stdbool.h>

bool drop_reason__congestion(const char *name);
/* A drop of what the receiver already had (TCP_OLD_DATA, PAWS): a duplicate arrived, nothing was lost */
bool drop_reason__duplicate(const char *name);
/* Print the running kernel's drop reasons with their class (text or JSON); 0 or -errno. */
int drop_reasons__print(bool json);

#endif
