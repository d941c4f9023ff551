// SPDX-License-Identifier: GPL-2.0-or-later
/* Why a snapshot was taken, in a report (report_trigger.h). */
#include <inttypes.h>
#include <string.h>

#include "lib/util.h"
#include "userspace/capture/trigger.h"
#include "userspace/report/report_trigger.h"

/* The trigger that opened the snapshot: the earliest with that action (a
 * merged capture has one per host); else the earliest of any. */
static const struct ft_trigger *opener(const struct model *m)
{
	const struct ft_trigger *best = NULL;

	for (size_t i = 0; i < m->ntriggers; i++) {
		const struct ft_trigger *t = &m->triggers[i];
		bool opens = t->action == FT_TRIGA_SNAPSHOT, best_opens = best && best->action == FT_TRIGA_SNAPSHOT;

		if (!best || (opens && !best_opens) || (opens == best_opens && t->mono_ns < best->mono_ns))
			best = t;
	}
	return best;
}

static size_t count_action(const struct model *m, uint32_t action)
{
	size_t n = 0;

	for (size_t i = 0; i < m->ntriggers; i++)
		n += m->triggers[i].action == action;
	return n;
}

static int64_t rel(const struct model *m, uint64_t t)
{
	return (int64_t)(t - m->capture_start_ns);
}

/* "value 4.20x, threshold 3.00x", for a rule's trigger */
static void text_value(FILE *f, const struct ft_trigger *t)
{
	char v[48];

	trigger__value_text(t->value, t->unit, sizeof(t->unit), v, sizeof(v));
	if (v[0]) {
		char th[48];

		fprintf(f, "  value %s, threshold %s\n", v,
			trigger__value_text(t->threshold, t->unit, sizeof(t->unit), th, sizeof(th)));
	}
}

/* "window: 30.0 s before to 10.0 s after", or what became of the trigger */
static void text_window(FILE *f, const struct model *m, const struct ft_trigger *t)
{
	char a[32], b[32];

	if (t->action != FT_TRIGA_SNAPSHOT || t->mono_ns < t->from_ns || t->to_ns < t->mono_ns) {
		char what[96];

		fprintf(f, "  %s\n", trigger__action_text(t, what, sizeof(what)));
		return;
	}
	fprintf(f, "  window: %s before to %s after (snapshot %u)%s\n", fmt_ns(t->mono_ns - t->from_ns, a, sizeof(a)),
		fmt_ns(t->to_ns - t->mono_ns, b, sizeof(b)), t->snapshot,
		t->from_ns < m->capture_start_ns ? "; the recording began later" : "");
}

static void text_one(FILE *f, const struct model *m, const struct ft_trigger *t, bool first)
{
	char when[48], r[40];

	fmt_wall(t->realtime_ns, when, sizeof(when));
	fprintf(f, "%s %.64s: %s %.64s%s%.128s%s at %s (%s s into the capture)\n",
		first ? (t->action == FT_TRIGA_SNAPSHOT ? "Snapshot taken on" : "Trigger on") : "  and on",
		t->hostname, trigger__kind_name(t->kind), t->rule, t->reason[0] ? " (\"" : "", t->reason,
		t->reason[0] ? "\")" : "", when, fmt_rel(rel(m, t->mono_ns), r, sizeof(r)));
	text_value(f, t);
	if (t->sender_pid)
		fprintf(f, "  sent by pid %u (uid %u)\n", t->sender_pid, t->sender_uid);
	text_window(f, m, t);
}

void report_trigger__text(FILE *f, const struct model *m)
{
	const struct ft_trigger *o = opener(m);
	size_t ext = count_action(m, FT_TRIGA_EXTENDED) + count_action(m, FT_TRIGA_FULL);
	size_t joined = count_action(m, FT_TRIGA_JOINED);
	size_t held = m->ntriggers - ext - joined - count_action(m, FT_TRIGA_SNAPSHOT);

	if (!o)
		return;
	text_one(f, m, o, true);
	for (size_t i = 0; i < m->ntriggers; i++) /* the other hosts' of a merged snapshot */
		if (&m->triggers[i] != o && m->triggers[i].action == FT_TRIGA_SNAPSHOT)
			text_one(f, m, &m->triggers[i], false);
	if (ext || joined || held)
		fprintf(f, "  %zu more trigger%s extended %s, %zu came inside %s window; %zu held back (rate policy, "
			"cool-down)\n", ext, ext == 1 ? "" : "s", ext == 1 ? "it" : "them", joined,
			o->action == FT_TRIGA_SNAPSHOT ? "its" : "the", held);
	fprintf(f, "\n");
}

static void json_one(struct json *j, const struct model *m, const struct ft_trigger *t)
{
	trigger__json_fields(j, t);
	json_kv_i64(j, "rel_ns", rel(m, t->mono_ns));
	if (t->from_ns) {
		json_kv_i64(j, "from_rel_ns", rel(m, t->from_ns));
		json_kv_i64(j, "to_rel_ns", rel(m, t->to_ns));
	}
}

void report_trigger__json(struct json *j, const struct model *m)
{
	const struct ft_trigger *o = opener(m);

	if (!o)
		return;
	json_key(j, "trigger");
	json_object_begin(j);
	json_one(j, m, o);
	json_kv_u64(j, "extended_by", count_action(m, FT_TRIGA_EXTENDED) + count_action(m, FT_TRIGA_FULL));
	json_kv_u64(j, "joined_by", count_action(m, FT_TRIGA_JOINED));
	json_key(j, "all");
	json_array_begin(j);
	for (size_t i = 0; i < m->ntriggers; i++) {
		json_object_begin(j);
		json_one(j, m, &m->triggers[i]);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}
