/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The members of the JSON report (docs/report-json.md), in the order
 * report__write() writes them (userspace/report/report_write.c): the network ones
 * (report_json_net.c), then the collective phases (report_json_phases.c,
 * report_json_collectives.c).
 */
#ifndef FABTRACE_REPORT_JSON_H
#define FABTRACE_REPORT_JSON_H

#include <stdint.h>
#include "userspace/correlate/correlate.h"
#include "lib/json.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"

#define REPORT_SCHEMA "fabtrace-report/1"

/* report_json_net.c: "schema" and the capture's header members */
void report_json__header(struct json *j, const struct model *m, const struct report_opts *o);
void report_json__ifaces(struct json *j, const struct model *m);
void report_json__bursts(struct json *j, const struct model *m, const struct report_opts *o);
void report_json__queues(struct json *j, const struct model *m);
void report_json__retrans(struct json *j, const struct model *m, const struct corr *c);
void report_json__cong(struct json *j, const struct model *m, const struct corr *c);
void report_json__drops(struct json *j, const struct model *m);
void report_json__ce(struct json *j, const struct model *m, const struct corr *c);
void report_json__conserve(struct json *j, const struct model *m);
void report_json__lost(struct json *j, const struct model *m);
/* "interface", "netns", "ifindex" members */
void report_json__iface_ref(struct json *j, const struct model *m, uint32_t iface, uint32_t netns,
			    uint32_t ifindex);
/* a "flow" member, with the processes that used its socket and their ranks */
void report_json__flow(struct json *j, const struct model *m, const struct corr *c, const struct model_flow *w);

/* report_json_phases.c */
void report_json__phases_head(struct json *j, const struct model *m, const struct corr *c);
void report_json__processes(struct json *j, const struct model *m, const struct corr *c);
void report_json__ranks(struct json *j, const struct corr *c);
void report_json__steps(struct json *j, const struct model *m, const struct corr *c);
void report_json__inferred(struct json *j, const struct model *m, const struct corr *c);

/* report_json_collectives.c: "collectives" and "slowest" */
void report_json__collectives(struct json *j, const struct model *m, const struct corr *c,
			      const struct report_opts *o);

#endif
