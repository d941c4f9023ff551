// SPDX-License-Identifier: GPL-2.0-or-later
/* The words for trigger records (trigger.h). */
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/capture/trigger.h"

static const char *const kind_names[] = {
	[FT_TRIG_SIGNAL] = "signal",
	[FT_TRIG_COMMAND] = "command",
	[FT_TRIG_RULE] = "rule",
	[FT_TRIG_JOB] = "job",
};

static const struct {
	const char *name, *text;
} actions[] = {
	[FT_TRIGA_SNAPSHOT] = { "snapshot", "opened snapshot" },
	[FT_TRIGA_EXTENDED] = { "extended", "extended the post-window of snapshot" },
	[FT_TRIGA_RATE] = { "rate", "held back by the rate policy" },
	[FT_TRIGA_COOLDOWN] = { "cooldown", "held back by the cool-down" },
	[FT_TRIGA_FULL] = { "full", "inside the window (at its longest) of snapshot" },
	[FT_TRIGA_COVERED] = { "covered", "already covered by a saved snapshot" },
	[FT_TRIGA_JOINED] = { "joined", "joined the later-ending window of snapshot" },
};

const char *trigger__kind_name(uint32_t kind)
{
	return kind < sizeof(kind_names) / sizeof(kind_names[0]) && kind_names[kind] ? kind_names[kind] : "unknown";
}

const char *trigger__action_name(uint32_t action)
{
	return action < sizeof(actions) / sizeof(actions[0]) && actions[action].name ? actions[action].name
										       : "unknown";
}

uint32_t trigger__action_by_name(const char *name)
{
	for (uint32_t a = 0; a < sizeof(actions) / sizeof(actions[0]); a++)
		if (actions[a].name && !strcmp(actions[a].name, name))
			return a;
	return 0;
}

const char *trigger__action_text(const struct ft_trigger *t, char *buf, size_t len)
{
	uint32_t a = t->action;

	if (a >= sizeof(actions) / sizeof(actions[0]) || !actions[a].text)
		snprintf(buf, len, "unknown action %u", a);
	else if (trigger__action_in_snapshot(a))
		snprintf(buf, len, "%s %u", actions[a].text, t->snapshot);
	else
		snprintf(buf, len, "%s", actions[a].text);
	return buf;
}

bool trigger__action_in_snapshot(uint32_t action)
{
	return action == FT_TRIGA_SNAPSHOT || action == FT_TRIGA_EXTENDED || action == FT_TRIGA_FULL ||
	       action == FT_TRIGA_JOINED;
}

const char *trigger__value_text(int64_t v, const char *unit, size_t unitlen, char *buf, size_t len)
{
	char u[32];

	snprintf(u, sizeof(u), "%.*s", (int)strnlen(unit, unitlen), unit);
	if (!u[0])
		snprintf(buf, len, "%s", "");
	else if (!strcmp(u, "ns"))
		fmt_ns(v < 0 ? 0 : (uint64_t)v, buf, len);
	else if (!strcmp(u, "x1000"))
		snprintf(buf, len, "%.2fx", (double)v / 1000.0);
	else
		snprintf(buf, len, "%lld %s", (long long)v, u);
	return buf;
}

void trigger__json_fields(struct json *j, const struct ft_trigger *t)
{
	char when[48], unit[20];

	snprintf(unit, sizeof(unit), "%.*s", (int)strnlen(t->unit, sizeof(t->unit)), t->unit);
	json_kv_string(j, "host", t->hostname);
	json_kv_string(j, "kind", trigger__kind_name(t->kind));
	json_kv_string(j, "rule", t->rule);
	json_kv_string(j, "reason", t->reason);
	json_kv_string(j, "action", trigger__action_name(t->action));
	json_kv_u64(j, "snapshot", t->snapshot);
	json_kv_u64(j, "fired", t->fired);
	json_kv_string(j, "wall", fmt_wall(t->realtime_ns, when, sizeof(when)));
	json_kv_i64(j, "wall_ns", t->realtime_ns);
	json_kv_u64(j, "mono_ns", t->mono_ns);
	json_key(j, "value");
	if (unit[0])
		json_i64(j, t->value);
	else
		json_null(j);
	json_key(j, "threshold");
	if (unit[0])
		json_i64(j, t->threshold);
	else
		json_null(j);
	json_kv_string(j, "unit", unit);
	json_kv_u64(j, "sender_pid", t->sender_pid);
	json_kv_u64(j, "sender_uid", t->sender_uid);
}

void triggerinfo__add(struct triggerinfo *ti, const struct ft_trigger *t)
{
	ti->total++;
	if (ti->n < TRIGGERINFO_MAX)
		ti->t[ti->n++] = *t;
}

static const char *file_kind(uint32_t flags)
{
	return flags & FT_FILE_SNAPSHOT ? "snapshot" : flags & FT_FILE_SEGMENT ? "segment" : "";
}

void triggerinfo__print(const struct triggerinfo *ti, uint32_t file_flags)
{
	if (file_kind(file_flags)[0])
		printf("flight recorder: %s\n", file_kind(file_flags));
	if (!ti->total)
		return;
	printf("triggers:        %llu%s\n", (unsigned long long)ti->total, ti->total > ti->n ? " (the first shown)" : "");
	for (size_t i = 0; i < ti->n; i++) {
		const struct ft_trigger *t = &ti->t[i];
		char when[48], what[96];

		printf("  %s  %.64s  %s %.64s%s%.128s%s: %s", fmt_wall(t->realtime_ns, when, sizeof(when)), t->hostname,
		       trigger__kind_name(t->kind), t->rule, t->reason[0] ? " (\"" : "", t->reason,
		       t->reason[0] ? "\")" : "", trigger__action_text(t, what, sizeof(what)));
		if (t->action == FT_TRIGA_SNAPSHOT && t->to_ns >= t->mono_ns && t->mono_ns >= t->from_ns) {
			char a[32], b[32];

			printf(", %s before to %s after", fmt_ns(t->mono_ns - t->from_ns, a, sizeof(a)),
			       fmt_ns(t->to_ns - t->mono_ns, b, sizeof(b)));
		}
		printf("\n");
	}
}

void triggerinfo__json(const struct triggerinfo *ti, uint32_t file_flags, struct json *j)
{
	json_kv_string(j, "flight_file", file_kind(file_flags));
	json_kv_u64(j, "triggers_total", ti->total);
	json_key(j, "triggers");
	json_array_begin(j);
	for (size_t i = 0; i < ti->n; i++) {
		json_object_begin(j);
		trigger__json_fields(j, &ti->t[i]);
		json_kv_u64(j, "from_ns", ti->t[i].from_ns);
		json_kv_u64(j, "to_ns", ti->t[i].to_ns);
		json_object_end(j);
	}
	json_array_end(j);
}
