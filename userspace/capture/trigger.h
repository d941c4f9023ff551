/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The words for a flight recorder's trigger records (FT_REC_TRIGGER,
 * docs/flight-recorder.md): one table for every reader (info, report, the
 * recorder's own messages).
 */
#ifndef FABTRACE_TRIGGER_H
#define FABTRACE_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/fabtrace.h"
#include "lib/json.h"

/* The highest action (enum ft_trigger_action) this fabtrace knows; a newer recorder's may be higher. */
#define TRIGGER_ACTION_LAST FT_TRIGA_JOINED

/* "signal", "command", "rule", "job"; "unknown" for another value */
const char *trigger__kind_name(uint32_t kind);
/* "snapshot", "extended", "rate", "cooldown", "full", "covered", "joined"; "unknown" */
const char *trigger__action_name(uint32_t action);
/* The action of that name (FT_TRIGA_*), 0 for none: the control socket's answers name it */
uint32_t trigger__action_by_name(const char *name);
/* What the action means, for people: "opened snapshot 3", "held back by the rate policy" */
const char *trigger__action_text(const struct ft_trigger *t, char *buf, size_t len);
/* Whether ACTION puts its trigger in a snapshot (opened, extended, joined, at its longest): it has one. */
bool trigger__action_in_snapshot(uint32_t action);
/* The value that fired as text ("12.0 ms", "1500 1/s", "3.20x"; "" without one). */
const char *trigger__value_text(int64_t v, const char *unit, size_t unitlen, char *buf, size_t len);

/* The trigger's own fields as JSON members (info and report share them):
 * host, kind, rule, reason, action, snapshot, fired, wall, wall_ns,
 * mono_ns, value and threshold (null without a unit), unit, sender_pid,
 * sender_uid. */
void trigger__json_fields(struct json *j, const struct ft_trigger *t);

/* What `fabtrace info` keeps and shows of a capture's triggers. */
#define TRIGGERINFO_MAX 64
struct triggerinfo {
	struct ft_trigger t[TRIGGERINFO_MAX];
	size_t n;                   /* kept */
	uint64_t total;             /* seen */
};
void triggerinfo__add(struct triggerinfo *ti, const struct ft_trigger *t);
/* "flight recorder: snapshot" and the triggers (nothing for an ordinary capture). */
void triggerinfo__print(const struct triggerinfo *ti, uint32_t file_flags);
/* "flight_file" ("snapshot", "segment", "") and "triggers" [...]. */
void triggerinfo__json(const struct triggerinfo *ti, uint32_t file_flags, struct json *j);

#endif
