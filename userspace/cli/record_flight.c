// SPDX-License-Identifier: GPL-2.0-or-later
/* What `record` says about its flight recorder (record_flight.h). */
#include <stdio.h>
#include <unistd.h>

#include "lib/util.h"
#include "userspace/cli/record_flight.h"
#include "userspace/record/flight_policy.h"

void record_flight__started(const struct flight *f, const struct flight_opts *o, int n_ifs, uint64_t duration_ns)
{
	char seg[32], seg_b[32], keep[32], keep_b[32], pre[32], post[32], d[32];
	uint64_t seg_bytes = flight_seg_bytes(o->seg_bytes, &o->lim); /* a quarter of --keep-size at most */

	/* also with --json (stdout): a script waits for "recording to" on stderr */
	fprintf(stderr, "fabtrace: recording to %s (flight recorder: segments of %s%s%s, keeping %s%s%s%s; "
		"snapshots %s before and %s after SIGUSR1 to pid %d or 'fabtrace trigger' (@fabtrace/%s); %d interfaces%s%s); "
		"Ctrl-C to stop\n", flight__dir(f), fmt_ns(o->seg_ns, seg, sizeof(seg)),
		seg_bytes ? " or " : "", seg_bytes ? fmt_ibytes((double)seg_bytes, seg_b, sizeof(seg_b)) : "",
		o->lim.keep_ns ? fmt_ns(o->lim.keep_ns, keep, sizeof(keep)) : "",
		o->lim.keep_ns && o->lim.keep_bytes ? ", at most " : o->lim.keep_bytes ? "at most " : "",
		o->lim.keep_bytes ? fmt_ibytes((double)o->lim.keep_bytes, keep_b, sizeof(keep_b)) : "",
		o->lim.max_files ? " and a file count" : "", fmt_ns(o->pol.pre_ns, pre, sizeof(pre)),
		fmt_ns(o->pol.post_ns, post, sizeof(post)), (int)getpid(), o->control, n_ifs, duration_ns ? ", for " : "",
		duration_ns ? fmt_ns(duration_ns, d, sizeof(d)) : "");
}

void record_flight__json(struct json *j, const struct flight *f)
{
	struct flight_stats st;

	flight__stats(f, &st);
	json_key(j, "flight");
	json_object_begin(j);
	json_kv_string(j, "directory", flight__dir(f));
	json_kv_u64(j, "segments_written", st.segments_written);
	json_kv_u64(j, "segments_kept", st.segments_kept);
	json_kv_u64(j, "segments_deleted", st.segments_deleted);
	json_kv_u64(j, "segments_adopted", st.segments_adopted);
	json_kv_u64(j, "disk_bytes", st.disk_bytes);
	json_kv_u64(j, "triggers", st.triggers);
	json_kv_u64(j, "held_back", st.held_back);
	json_kv_u64(j, "snapshots_saved", st.snapshots_saved);
	json_kv_u64(j, "snapshots_failed", st.snapshots_failed);
	json_kv_u64(j, "records_not_repeated", st.cache_dropped);
	json_object_end(j);
}

void record_flight__text(const struct flight *f, double secs, const char *stop_reason, uint64_t lost)
{
	struct flight_stats st;
	char b[32];

	flight__stats(f, &st);
	fprintf(stderr, "fabtrace: recorded %.1f s (%s) as %llu segment%s in %s: %llu kept (%s), %llu deleted%s; "
		"%llu trigger%s, %llu snapshot%s saved%s; %llu lost events\n", secs, stop_reason,
		(unsigned long long)st.segments_written, st.segments_written == 1 ? "" : "s", flight__dir(f),
		(unsigned long long)st.segments_kept,
		fmt_bytes((double)st.disk_bytes, b, sizeof(b)), (unsigned long long)st.segments_deleted,
		st.segments_adopted ? " (with an earlier recorder's)" : "", (unsigned long long)st.triggers,
		st.triggers == 1 ? "" : "s", (unsigned long long)st.snapshots_saved, st.snapshots_saved == 1 ? "" : "s",
		st.snapshots_failed ? ", some failed (see above)" : "",
		(unsigned long long)lost);
	if (st.cache_dropped)
		ft_warn("record: %llu records could not be repeated at the start of segments (memory bound); "
			"a segment read alone may miss some processes' ranks", (unsigned long long)st.cache_dropped);
}
