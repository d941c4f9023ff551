/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What `record` says about its flight recorder (--switch-output): the start line and the summary. */
#ifndef FABTRACE_RECORD_FLIGHT_H
#define FABTRACE_RECORD_FLIGHT_H

#include <stdint.h>

#include "lib/json.h"
#include "userspace/record/flight.h"

/* "fabtrace: recording to DIR (flight recorder: ...); Ctrl-C to stop" */
void record_flight__started(const struct flight *f, const struct flight_opts *o, int n_ifs, uint64_t duration_ns);
/* The summary's flight object (JSON) and its line (text, on stderr). */
void record_flight__json(struct json *j, const struct flight *f);
void record_flight__text(const struct flight *f, double secs, const char *stop_reason, uint64_t lost);

#endif
