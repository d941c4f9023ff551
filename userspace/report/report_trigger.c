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

/* A window's file ends with its last segment, closed once the window is due:
 * ending this much sooner, it was cut (the recorder stopped) */
#define FILE_END_SLACK_NS 500000000ULL

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

/* The end of snapshot SNAP's window as its last trigger left it (extended
 * or joined after T opened it), not as T opened it. */
static uint64_t window_end(const struct model *m, const struct ft_trigger *t)
{
	uint64_t to = t->to_ns;

	for (size_t i = 0; i < m->ntriggers; i++) {
		const struct ft_trigger *o = &m->triggers[i];

		if (o->snapshot == t->snapshot && trigger__action_in_snapshot(o->action) &&
		    !strncmp(o->hostname, t->hostname, sizeof(o->hostname)) && o->to_ns > to)
			to = o->to_ns;
	}
	return to;
}

/* "window: 30.0 s before to 10.0 s after", or what became of the trigger;
 * and where the file holds less than the window (the recording began later
 * or its older segments were no longer kept; it stopped sooner) */
static void text_window(FILE *f, const struct model *m, const struct ft_trigger *t)
{
	char a[32], b[32], c[32];
	uint64_t to = window_end(m, t);

	if (t->action != FT_TRIGA_SNAPSHOT || t->mono_ns < t->from_ns || to < t->mono_ns) {
		char what[96];

		fprintf(f, "  %s\n", trigger__action_text(t, what, sizeof(what)));
		return;
	}
	fprintf(f, "  window: %s before to %s after (snapshot %u%s)", fmt_ns(t->mono_ns - t->from_ns, a, sizeof(a)),
		fmt_ns(to - t->mono_ns, b, sizeof(b)), t->snapshot, to > t->to_ns ? ", extended" : "");
	if (t->from_ns < m->capture_start_ns)
		fprintf(f, "; the file begins %s %s it (the recording began then, or older segments were no "
			"longer kept)", fmt_ns(m->capture_start_ns > t->mono_ns ? m->capture_start_ns - t->mono_ns :
			t->mono_ns - m->capture_start_ns, c, sizeof(c)), m->capture_start_ns > t->mono_ns ? "after" :
			"before");
	if (m->capture_end_ns && m->capture_end_ns + FILE_END_SLACK_NS < to && m->capture_end_ns >= t->mono_ns)
		fprintf(f, "; the file ends %s after it (the recording stopped)",
			fmt_ns(m->capture_end_ns - t->mono_ns, c, sizeof(c)));
	fprintf(f, "\n");
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

/* Whether text_one printed T: the opener, and the other hosts' openers of a merged snapshot. */
static bool printed(const struct ft_trigger *t, const struct ft_trigger *o)
{
	return t == o || t->action == FT_TRIGA_SNAPSHOT;
}

/* "  3 more triggers: 2 extended the post-window of snapshot 1, 1 held back
 * by the cool-down", in the action table's words, action by action */
static void text_others(FILE *f, const struct model *m, const struct ft_trigger *o)
{
	size_t n = 0;
	const char *sep = ": ";

	for (size_t i = 0; i < m->ntriggers; i++)
		n += !printed(&m->triggers[i], o);
	if (!n)
		return;
	fprintf(f, "  %zu more trigger%s", n, n == 1 ? "" : "s");
	for (uint32_t a = 0; a <= TRIGGER_ACTION_LAST; a++) {
		const struct ft_trigger *first = NULL;
		size_t k = 0;

		for (size_t i = 0; i < m->ntriggers; i++) {
			const struct ft_trigger *t = &m->triggers[i];
			bool known = t->action >= 1 && t->action <= TRIGGER_ACTION_LAST;

			if (!printed(t, o) && (known ? t->action == a : a == 0)) {
				first = first ? first : t;
				k++;
			}
		}
		if (k) {
			char what[96];

			fprintf(f, "%s%zu %s", sep, k, trigger__action_text(first, what, sizeof(what)));
			sep = ", ";
		}
	}
	fprintf(f, "\n");
}

void report_trigger__text(FILE *f, const struct model *m)
{
	const struct ft_trigger *o = opener(m);

	if (!o)
		return;
	text_one(f, m, o, true);
	for (size_t i = 0; i < m->ntriggers; i++) /* the other hosts' of a merged snapshot */
		if (&m->triggers[i] != o && m->triggers[i].action == FT_TRIGA_SNAPSHOT)
			text_one(f, m, &m->triggers[i], false);
	text_others(f, m, o);
	fprintf(f, "\n");
}

/* T's keys; its window ends at TO (the opener's: as its last trigger left it). */
static void json_one(struct json *j, const struct model *m, const struct ft_trigger *t, uint64_t to)
{
	trigger__json_fields(j, t);
	json_kv_i64(j, "rel_ns", rel(m, t->mono_ns));
	if (t->from_ns) {
		json_kv_i64(j, "from_rel_ns", rel(m, t->from_ns));
		json_kv_i64(j, "to_rel_ns", rel(m, to));
	}
}

void report_trigger__json(struct json *j, const struct model *m)
{
	const struct ft_trigger *o = opener(m);

	if (!o)
		return;
	json_key(j, "trigger");
	json_object_begin(j);
	json_one(j, m, o, window_end(m, o));
	json_kv_u64(j, "extended_by", count_action(m, FT_TRIGA_EXTENDED) + count_action(m, FT_TRIGA_FULL));
	json_kv_u64(j, "joined_by", count_action(m, FT_TRIGA_JOINED));
	json_key(j, "all");
	json_array_begin(j);
	for (size_t i = 0; i < m->ntriggers; i++) {
		json_object_begin(j);
		json_one(j, m, &m->triggers[i], m->triggers[i].to_ns);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}
