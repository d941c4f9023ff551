/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why a flight recorder's snapshot was taken (docs/flight-recorder.md): the
 * trigger that opened it (its kind, rule, value, reason, time in REALTIME
 * and relative to the capture), its window, and the triggers that extended
 * it or were held back.  Printed before the headline; nothing for a
 * capture without trigger records.
 */
#ifndef FABTRACE_REPORT_TRIGGER_H
#define FABTRACE_REPORT_TRIGGER_H

#include <stdio.h>

#include "lib/json.h"
#include "userspace/model/model.h"

void report_trigger__text(FILE *f, const struct model *m);
/* The report's "trigger" object (docs/report-json.md). */
void report_trigger__json(struct json *j, const struct model *m);

#endif
