// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * `fabtrace info`'s description of a capture (info_priv.h), as text or as
 * one JSON document (docs/capture-format.md lists its keys).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/json.h"
#include "lib/util.h"
#include "userspace/capture/probe_name.h"
#include "userspace/cli/info_config.h"
#include "userspace/cli/info_priv.h"
#include "userspace/correlate/correlate.h"

static const char *const source_names[FT_SRC_MAX] = {
	[FT_SRC_NET] = "net",
	[FT_SRC_TCP] = "tcp",
	[FT_SRC_USER] = "user",
	[FT_SRC_PHASE] = "phase",
};

static const char *const lib_names[] = {
	[FT_LIB_NONE] = "none",
	[FT_LIB_MPI] = "mpi",
	[FT_LIB_NCCL] = "nccl",
	[FT_LIB_GLOO] = "gloo",
	[FT_LIB_MARKER] = "marker",
	[FT_LIB_GENERIC] = "generic",
};

static const char *const proc_event_names[FT_PROC_EXIT + 2] = {
	[FT_PROC_EXISTING] = "existing",
	[FT_PROC_FORK] = "fork",
	[FT_PROC_EXEC] = "exec",
	[FT_PROC_EXIT] = "exit",
	[FT_PROC_EXIT + 1] = "unknown",
};

static const char *lib_name(uint32_t kind, char *buf, size_t len)
{
	if (kind < sizeof(lib_names) / sizeof(lib_names[0]))
		return lib_names[kind];
	snprintf(buf, len, "lib %u", (unsigned)kind);
	return buf;
}

/* Copy a fixed-size char field (maybe not terminated) as printable text. */
static const char *field(const char *src, size_t srclen, char *buf, size_t buflen)
{
	size_t n = strnlen(src, srclen), k = 0;

	for (size_t i = 0; i < n && k + 1 < buflen; i++) {
		unsigned char c = (unsigned char)src[i];

		buf[k++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	buf[k] = '\0';
	return buf;
}
#define FIELD(arr, buf) field((arr), sizeof(arr), (buf), sizeof(buf))

/* ---- probe coverage (FT_REC_COVERAGE): tracepoint hits the programs did not see */

/* A probe record's name as every output says it (capture__probe_name). */
static const char *rec_probe_name(const struct ft_probe_info *p, char *buf, size_t len)
{
	char rec[sizeof(p->name) + 1];

	return capture__probe_name(p->id, FIELD(p->name, rec), buf, len);
}

static const char *cov_name(const struct info *in, uint32_t id, char *buf, size_t len)
{
	for (size_t i = 0; i < in->nprobes; i++)
		if (in->probes[i].id == id && in->probes[i].name[0])
			return rec_probe_name(&in->probes[i], buf, len);
	return capture__probe_name(id, NULL, buf, len);
}

static void print_coverage(const struct info *in)
{
	char nb[40];

	switch (in->cov_state) {
	case CAPTURE_COV_UNKNOWN:
		printf("probe coverage:  unknown (the capture has no coverage counters)\n");
		break;
	case CAPTURE_COV_COMPLETE:
		printf("probe coverage:  complete (every tracepoint hit ran its program)\n");
		break;
	case CAPTURE_COV_PARTIAL:
		printf("probe coverage:  complete for the probes counted, unknown for %zu\n", in->cov_unknown);
		break;
	case CAPTURE_COV_INCOMPLETE:
		printf("probe coverage:  incomplete: the kernel skipped %llu probe runs "
		       "(not in lost events)\n", (unsigned long long)in->cov_skipped);
		break;
	}
	for (size_t i = 0; i < in->ncov; i++) {
		const struct capture_cov *c = &in->cov[i];

		if (!c->known)
			printf("  %s probe coverage unknown (its tracepoint hits were not counted)\n",
			       cov_name(in, c->probe, nb, sizeof(nb)));
		else if (c->skipped)
			printf("  kernel skipped %llu of %llu %s probe runs (tracepoint hits the program "
			       "did not see)\n", (unsigned long long)c->skipped,
			       (unsigned long long)c->hits, cov_name(in, c->probe, nb, sizeof(nb)));
	}
}

static uint64_t start_ns(const struct info *in)
{
	if (in->hdr.start_mono_ns)
		return in->hdr.start_mono_ns;
	return in->have_ts ? in->min_ts : 0;
}

static uint64_t duration_ns(const struct info *in)
{
	uint64_t s = start_ns(in), e;

	if (in->have_end && in->end.ts_ns)
		e = in->end.ts_ns;
	else if (in->have_ts)
		e = in->max_ts;
	else
		return 0;
	return e > s ? e - s : 0;
}

/* ISO 8601 UTC with nanoseconds, "" when the clock offset is unknown. */
static const char *iso_time(const struct info *in, char *buf, size_t len)
{
	__int128 rt = (__int128)in->hdr.start_mono_ns + in->hdr.realtime_offset_ns;
	struct tm tm;
	time_t sec;
	long nsec;

	buf[0] = '\0';
	if (in->hdr.realtime_offset_ns == 0 || rt <= 0 || rt / 1000000000 > (__int128)INT32_MAX * 64)
		return buf;
	sec = (time_t)(rt / 1000000000);
	nsec = (long)(rt % 1000000000);
	if (!gmtime_r(&sec, &tm))
		return buf;
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, nsec);
	return buf;
}

static const char *state_name(enum capture_state s)
{
	switch (s) {
	case CAPTURE_OK:        return "complete";
	case CAPTURE_TRUNCATED: return "truncated";
	default:                return "corrupt";
	}
}

static uint64_t lost_by_source(const struct info *in, uint32_t src)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < in->nlost; i++)
		if (in->lost[i].source == src)
			sum += in->lost[i].lost;
	return sum;
}

static uint64_t lost_total(const struct info *in)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < in->nlost; i++)
		sum += in->lost[i].lost;
	return sum;
}

/* Sources that appear in the capture beyond the known ones, in order. */
static bool unknown_source_seen_before(const struct info *in, size_t idx)
{
	for (size_t i = 0; i < idx; i++)
		if (in->lost[i].source == in->lost[idx].source)
			return true;
	return false;
}

/* "collective, non-blocking, enqueue only, completion, marker, nccl plugin" or "-" */
static const char *slot_flags_str(uint32_t flags, char *buf, size_t len)
{
	static const struct { uint32_t bit; const char *name; } f[] = {
		{ FT_SLOT_COLLECTIVE, "collective" },
		{ FT_SLOT_NONBLOCKING, "non-blocking" },
		{ FT_SLOT_ENQUEUE_ONLY, "enqueue only" },
		{ FT_SLOT_COMPLETION, "completion" },
		{ FT_SLOT_MARKER, "marker" },
		{ FT_SLOT_COMM_POINTER, "comm pointer" },
		{ FT_SLOT_COMM_HANDLE, "comm handle" },
		{ FT_SLOT_PLUGIN, "nccl plugin" },
	};
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (flags & f[i].bit)
			k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s", k ? ", " : "", f[i].name);
	if (!k)
		snprintf(buf, len, "-");
	return buf;
}

static bool any_enqueue_only(const struct info *in)
{
	for (size_t i = 0; i < in->nslots; i++)
		if (in->slots[i].flags & FT_SLOT_ENQUEUE_ONLY)
			return true;
	return false;
}

/* Phase probes (FT_REC_PHASE_SLOT) and the followed processes (FT_REC_PROC). */
static void print_phase_slots(const struct info *in)
{
	char b1[40], b2[120], b3[140], fl[80], lk[24];

	printf("phase probes:\n");
	if (!in->nslots)
		printf("  (none recorded)\n");
	int wn = 16, ws = 28; /* columns as wide as their longest entry */

	for (size_t i = 0; i < in->nslots; i++) {
		int n = (int)strlen(FIELD(in->slots[i].name, b1)), y = (int)strlen(FIELD(in->slots[i].symbol, b2));

		wn = n > wn && n <= 24 ? n : wn; /* a longer one may stick out */
		ws = y > ws && y <= 48 ? y : ws;
	}
	for (size_t i = 0; i < in->nslots; i++) {
		const struct ft_phase_slot *p = &in->slots[i];

		printf("  slot %-4u %-8s %-*s %-*s %s  [%s]\n", (unsigned)p->slot,
		       lib_name(p->lib_kind, lk, sizeof(lk)), wn, FIELD(p->name, b1), ws, FIELD(p->symbol, b2),
		       FIELD(p->lib, b3), slot_flags_str(p->flags, fl, sizeof(fl)));
	}
	if (in->slots_overflow)
		printf("  (more than %d slots; the rest not listed)\n", INFO_MAX_SLOTS);
	if (any_enqueue_only(in))
		printf("  note: NCCL calls mark enqueue, not completion (their durations are host-side)\n");
	if (in->counts[FT_REC_PROC])
		printf("processes:       %llu existing, %llu fork, %llu exec, %llu exit events\n",
		       (unsigned long long)in->proc_events[FT_PROC_EXISTING],
		       (unsigned long long)in->proc_events[FT_PROC_FORK],
		       (unsigned long long)in->proc_events[FT_PROC_EXEC],
		       (unsigned long long)in->proc_events[FT_PROC_EXIT]);
	if (in->env_ranks)
		printf("ranks from env:  %llu processes (their launcher's PMI_RANK, RANK...: attached mid-run)\n",
		       (unsigned long long)in->env_ranks);
	if (in->env_jobs)
		printf("jobs from env:   %llu processes (PMIX_NAMESPACE, SLURM_JOB_ID, MASTER_ADDR:PORT...)\n",
		       (unsigned long long)in->env_jobs);
}

void info_print_text(const struct info *in)
{
	const struct ft_file_header *h = &in->hdr;
	char b1[128], b3[300];

	printf("file:            %s\n", in->path);
	printf("format version:  %u\n", (unsigned)h->version);
	if (in->state == CAPTURE_OK)
		printf("state:           complete\n");
	else
		printf("state:           %s at offset %llu\n", state_name(in->state),
		       (unsigned long long)in->good_off);
	printf("host:            %s\n", FIELD(h->hostname, b1));
	printf("kernel:          %s\n", FIELD(h->kernel, b1));
	printf("tool version:    %s\n", FIELD(h->tool_version, b1));
	printf("command:         %s\n", FIELD(h->command, b3));
	iso_time(in, b1, sizeof(b1));
	printf("start:           %s%s(monotonic %llu.%09llu s)\n", b1, b1[0] ? " " : "",
	       (unsigned long long)(start_ns(in) / 1000000000ull),
	       (unsigned long long)(start_ns(in) % 1000000000ull));
	printf("duration:        %s%s\n", fmt_ns(duration_ns(in), b1, sizeof(b1)),
	       in->have_end ? "" : " (up to the last record found)");
	printf("bin width:       %s\n", h->bin_ns ? fmt_ns(h->bin_ns, b1, sizeof(b1)) : "unknown");
	printf("profile:         %s\n", capture__profile(h));
	printf("CPUs:            %u\n", (unsigned)h->ncpus);
	clockinfo__print(&in->clk);
	triggerinfo__print(&in->trig, h->flags);
	if (in->have_end)
		printf("stop reason:     %s\n", capture__stop_reason_name(in->end.stop_reason));

	printf("probes:\n");
	if (in->nprobes) {
		for (size_t i = 0; i < in->nprobes; i++) {
			const struct ft_probe_info *p = &in->probes[i];
			char b2[128];

			printf("  %-14s %-40s ", rec_probe_name(p, b1, sizeof(b1)), FIELD(p->hook, b2));
			if (p->attached)
				printf("attached\n");
			else
				printf("not attached%s%s\n", p->why[0] ? ": " : "", FIELD(p->why, b3));
		}
	} else if (h->probes) {
		/* no PROBE records: fall back on the header's bitmap */
		for (int id = 0; id < 64; id++) {
			if (!(h->probes & (1ull << id)))
				continue;
			printf("  %-14s attached\n", capture__probe_name((uint32_t)id, NULL, b1, sizeof(b1)));
		}
	} else {
		printf("  (none recorded)\n");
	}

	printf("interfaces:\n");
	if (!in->nifaces)
		printf("  (none recorded)\n");
	for (size_t i = 0; i < in->nifaces; i++) {
		const struct ft_iface_info *f = &in->ifaces[i];
		char ns[40], name[20], kind[20], label[64];

		FIELD(f->netns_name, ns);
		FIELD(f->name, name);
		FIELD(f->kind, kind);
		snprintf(label, sizeof(label), "%s%s%s", ns, ns[0] ? "/" : "", name);
		printf("  %-24s ifindex %-4u netns %-10u  kind %s  mtu %u", label,
		       (unsigned)f->ifindex, (unsigned)f->netns, kind[0] ? kind : "device",
		       (unsigned)f->mtu);
		if (f->speed_mbps)
			printf("  speed %s", fmt_rate_bps(f->speed_mbps * 1e6, b1, sizeof(b1)));
		else
			printf("  speed unknown");
		if (f->tx_rate_kbps)
			printf("  tx limit %s", fmt_rate_bps(f->tx_rate_kbps * 1e3, b1, sizeof(b1)));
		printf("%s%s\n", (f->flags & FT_IFACE_UP) ? "" : "  down",
		       (f->flags & FT_IFACE_TRACED) ? "  traced" : "");
	}

	print_phase_slots(in);
	info_config__print(in->cfg, stdout);

	printf("records:         %llu\n", (unsigned long long)in->total);
	for (uint32_t t = 0; t < 65536; t++) {
		const char *name;

		if (!in->counts[t])
			continue;
		name = capture__rec_name((uint16_t)t);
		if (name)
			printf("  %-14s %llu\n", name, (unsigned long long)in->counts[t]);
		else
			printf("  type %-9u %llu (unknown, skipped)\n", (unsigned)t,
			       (unsigned long long)in->counts[t]);
	}
	printf("blocks:          %llu (%llu bytes)\n", (unsigned long long)in->blocks,
	       (unsigned long long)in->good_off);

	printf("lost events:     %llu (", (unsigned long long)lost_total(in));
	for (uint32_t s = 0; s < FT_SRC_MAX; s++)
		printf("%s%s %llu", s ? ", " : "", source_names[s],
		       (unsigned long long)lost_by_source(in, s));
	for (size_t i = 0; i < in->nlost; i++) {
		uint32_t s = in->lost[i].source;

		if (s < FT_SRC_MAX || unknown_source_seen_before(in, i))
			continue;
		printf(", unknown source %u: %llu", (unsigned)s, (unsigned long long)lost_by_source(in, s));
	}
	printf(")%s\n", in->lost_overflow ? " (too many CPUs; partial)" : "");
	print_coverage(in);
}

void info_print_json(const struct info *in, bool pretty)
{
	const struct ft_file_header *h = &in->hdr;
	char b1[128], b3[300];
	struct json j;

	json_init(&j, stdout, pretty);
	json_object_begin(&j);
	json_kv_string(&j, "file", in->path);
	json_kv_u64(&j, "format_version", h->version);
	json_kv_string(&j, "state", state_name(in->state));
	if (in->state != CAPTURE_OK) {
		json_kv_u64(&j, "state_offset", in->good_off);
		json_kv_string(&j, in->state == CAPTURE_CORRUPT ? "error" : "warning", in->error);
	}
	json_kv_string(&j, "host", FIELD(h->hostname, b1));
	json_kv_string(&j, "kernel", FIELD(h->kernel, b1));
	json_kv_string(&j, "tool_version", FIELD(h->tool_version, b1));
	json_kv_string(&j, "command", FIELD(h->command, b3));
	json_key(&j, "start");
	json_object_begin(&j);
	iso_time(in, b1, sizeof(b1));
	if (b1[0])
		json_kv_string(&j, "realtime", b1);
	else
		json_kv_string(&j, "realtime", NULL);
	json_kv_u64(&j, "monotonic_ns", start_ns(in));
	json_kv_i64(&j, "realtime_offset_ns", h->realtime_offset_ns);
	json_kv_i64(&j, "boottime_offset_ns", h->boottime_offset_ns);
	json_object_end(&j);
	json_kv_u64(&j, "duration_ns", duration_ns(in));
	json_kv_bool(&j, "duration_from_end_record", in->have_end);
	json_kv_u64(&j, "bin_ns", h->bin_ns);
	json_kv_u64(&j, "ncpus", h->ncpus);
	json_kv_bool(&j, "merged", (h->flags & FT_FILE_MERGED) != 0);
	json_kv_string(&j, "profile", capture__profile(h));
	clockinfo__json(&in->clk, &j);
	triggerinfo__json(&in->trig, h->flags, &j);
	/* "" without an END record, as report --json says it */
	json_kv_string(&j, "stop_reason", in->have_end ? capture__stop_reason_name(in->end.stop_reason) : "");

	json_key(&j, "probes");
	json_array_begin(&j);
	if (in->nprobes) {
		for (size_t i = 0; i < in->nprobes; i++) {
			const struct ft_probe_info *p = &in->probes[i];
			char b2[128];

			json_object_begin(&j);
			json_kv_u64(&j, "id", p->id);
			json_kv_string(&j, "name", rec_probe_name(p, b1, sizeof(b1)));
			json_kv_string(&j, "hook", FIELD(p->hook, b2));
			json_kv_bool(&j, "attached", p->attached != 0);
			json_kv_string(&j, "why", FIELD(p->why, b3));
			json_object_end(&j);
		}
	} else {
		for (int id = 0; id < 64; id++) {
			if (!(h->probes & (1ull << id)))
				continue;
			json_object_begin(&j);
			json_kv_u64(&j, "id", (uint64_t)id);
			json_kv_string(&j, "name",
				       id < FT_PROBE_MAX ? capture__probe_name((uint32_t)id, NULL, b1, sizeof(b1)) : NULL);
			json_kv_bool(&j, "attached", true);
			json_object_end(&j);
		}
	}
	json_array_end(&j);

	json_key(&j, "interfaces");
	json_array_begin(&j);
	for (size_t i = 0; i < in->nifaces; i++) {
		const struct ft_iface_info *f = &in->ifaces[i];

		json_object_begin(&j);
		json_kv_string(&j, "name", FIELD(f->name, b1));
		json_kv_u64(&j, "ifindex", f->ifindex);
		json_kv_u64(&j, "netns", f->netns);
		json_kv_string(&j, "netns_name", FIELD(f->netns_name, b1));
		json_kv_string(&j, "kind", FIELD(f->kind, b1));
		json_kv_u64(&j, "mtu", f->mtu);
		json_kv_u64(&j, "speed_mbps", f->speed_mbps);
		json_kv_u64(&j, "tx_rate_kbps", f->tx_rate_kbps);
		json_kv_bool(&j, "up", (f->flags & FT_IFACE_UP) != 0);
		json_kv_bool(&j, "traced", (f->flags & FT_IFACE_TRACED) != 0);
		json_object_end(&j);
	}
	json_array_end(&j);

	json_key(&j, "phase_slots");
	json_array_begin(&j);
	for (size_t i = 0; i < in->nslots; i++) {
		const struct ft_phase_slot *p = &in->slots[i];
		char b2[140], lk[24];

		json_object_begin(&j);
		json_kv_u64(&j, "slot", p->slot);
		json_kv_string(&j, "lib_kind", lib_name(p->lib_kind, lk, sizeof(lk)));
		json_kv_string(&j, "op", corr__op_name(p->op));
		json_kv_u64(&j, "op_id", p->op);
		json_kv_string(&j, "name", FIELD(p->name, b1));
		json_kv_string(&j, "symbol", FIELD(p->symbol, b2));
		json_kv_string(&j, "lib", FIELD(p->lib, b2));
		json_kv_u64(&j, "offset", p->offset);
		json_kv_bool(&j, "collective", (p->flags & FT_SLOT_COLLECTIVE) != 0);
		json_kv_bool(&j, "nonblocking", (p->flags & FT_SLOT_NONBLOCKING) != 0);
		json_kv_bool(&j, "enqueue_only", (p->flags & FT_SLOT_ENQUEUE_ONLY) != 0);
		json_kv_bool(&j, "completion", (p->flags & FT_SLOT_COMPLETION) != 0);
		json_kv_bool(&j, "marker", (p->flags & FT_SLOT_MARKER) != 0);
		json_kv_bool(&j, "plugin", (p->flags & FT_SLOT_PLUGIN) != 0);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_kv_bool(&j, "phase_slots_partial", in->slots_overflow);
	json_kv_bool(&j, "enqueue_only", any_enqueue_only(in));
	json_key(&j, "proc_events");
	json_object_begin(&j);
	for (int e = 0; e <= FT_PROC_EXIT + 1; e++)
		json_kv_u64(&j, proc_event_names[e], in->proc_events[e]);
	json_object_end(&j);
	json_kv_u64(&j, "env_ranks", in->env_ranks);
	json_kv_u64(&j, "env_jobs", in->env_jobs);
	info_config__json(in->cfg, &j);

	json_key(&j, "records");
	json_object_begin(&j);
	json_kv_u64(&j, "total", in->total);
	json_key(&j, "by_type");
	json_object_begin(&j);
	for (uint32_t t = 0; t < 65536; t++) {
		const char *name;

		if (!in->counts[t])
			continue;
		name = capture__rec_name((uint16_t)t);
		if (!name) {
			snprintf(b1, sizeof(b1), "type_%u", (unsigned)t);
			name = b1;
		}
		json_kv_u64(&j, name, in->counts[t]);
	}
	json_object_end(&j);
	json_object_end(&j);
	json_kv_u64(&j, "blocks", in->blocks);
	json_kv_u64(&j, "bytes", in->good_off);

	json_key(&j, "lost");
	json_object_begin(&j);
	json_kv_u64(&j, "total", lost_total(in));
	json_key(&j, "by_source");
	json_object_begin(&j);
	for (uint32_t s = 0; s < FT_SRC_MAX; s++)
		json_kv_u64(&j, source_names[s], lost_by_source(in, s));
	for (size_t i = 0; i < in->nlost; i++) {
		uint32_t s = in->lost[i].source;

		if (s < FT_SRC_MAX || unknown_source_seen_before(in, i))
			continue;
		snprintf(b1, sizeof(b1), "source_%u", (unsigned)s);
		json_kv_u64(&j, b1, lost_by_source(in, s));
	}
	json_object_end(&j);
	json_kv_bool(&j, "partial", in->lost_overflow);
	json_kv_string(&j, "coverage_status", capture__cov_state_name(in->cov_state));
	json_kv_u64(&j, "skipped_runs", in->cov_skipped);
	json_key(&j, "coverage");
	json_array_begin(&j);
	for (size_t i = 0; i < in->ncov; i++) {
		const struct capture_cov *c = &in->cov[i];

		json_object_begin(&j);
		json_kv_string(&j, "probe", cov_name(in, c->probe, b1, sizeof(b1)));
		json_kv_u64(&j, "probe_id", c->probe);
		json_kv_bool(&j, "known", c->known != 0);
		if (c->known)
			json_kv_u64(&j, "hits", c->hits);
		else
			json_kv_string(&j, "hits", NULL);
		json_kv_u64(&j, "runs", c->runs);
		if (c->known)
			json_kv_u64(&j, "skipped", c->skipped);
		else
			json_kv_string(&j, "skipped", NULL);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);

	json_object_end(&j);
	json_finish(&j);
}
