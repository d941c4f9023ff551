/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the live aggregator: live.c (interfaces, drops, counters, the
 * records' dispatch and the periods) over live_phases.c (processes and
 * collectives), whose callbacks and period steps are these.
 */
#ifndef FABTRACE_LIVE_PRIV_H
#define FABTRACE_LIVE_PRIV_H

#include <stdint.h>
#include "bpf/fabtrace.h"

struct live;

/* records of the phase probes (ctx: struct live); 0 */
int lp_on_slot(void *ctx, const struct ft_phase_slot *r);
int lp_on_proc(void *ctx, const struct ft_proc *r);
int lp_on_comm_info(void *ctx, const struct ft_comm_info *r);
int lp_on_phase(void *ctx, const struct ft_phase *r);
int lp_on_req_done(void *ctx, const struct ft_req_done *r);
int lp_on_sock_owner(void *ctx, const struct ft_sock_owner *r);

/* live__tick's part: collectives held for alignment, the processes' period, the slowest */
void lp_tick(struct live *l, uint64_t now_ns);
/* live__begin_period's part: the processes' open period */
void lp_begin_period(struct live *l);

#endif
