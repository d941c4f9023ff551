// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace info [--json] CAPTURE
 *
 * Describes a capture file: header, state (complete / truncated / corrupt),
 * probes, interfaces, record counts, blocks and lost events.  It reads the
 * whole file once with bounded memory (one block plus small tables).
 *
 * Exit: 0 complete or truncated (with a warning), 1 corrupt (after printing
 * what was readable) or unreadable, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "userspace/capture/capture.h"
#include "userspace/cli/commands.h"
#include "userspace/capture/clockinfo.h"
#include "userspace/capture/trigger.h"
#include "userspace/correlate/correlate.h"
#include "lib/json.h"
#include "lib/util.h"

#define MAX_IFACES 4096
#define MAX_PROBES 256
#define MAX_LOST   65536
#define MAX_SLOTS  4096

struct lost_ent {
	uint32_t source;
	uint32_t cpu;
	uint64_t lost;
};

struct info {
	const char *path;
	struct ft_file_header hdr;
	uint64_t *counts;      /* per record type, 65536 entries */
	uint64_t total;
	uint64_t min_ts, max_ts;
	bool have_ts;
	bool have_end;
	struct ft_end end;
	struct ft_probe_info *probes;
	size_t nprobes;
	struct ft_iface_info *ifaces;
	size_t nifaces;
	struct lost_ent *lost;
	size_t nlost;
	bool lost_overflow;
	struct ft_coverage cov[64]; /* by probe id; hdr.type = 0 where none */
	uint64_t cov_skip[64];      /* skipped runs, each host's clamped at 0, summed */
	struct ft_phase_slot *slots; /* FT_REC_PHASE_SLOT, by first appearance */
	size_t nslots;
	bool slots_overflow;
	uint64_t proc_events[FT_PROC_EXIT + 2]; /* by enum ft_proc_event; last: unknown */
	uint64_t env_ranks;         /* comm_info records from the launcher's environment (FT_COMM_ENV) */
	uint64_t env_jobs;          /* comm_info records naming a process's job (FT_SLOT_JOB) */
	struct clockinfo clk;  /* host identity, clock pairs, merged hosts */
	struct triggerinfo trig; /* a flight recorder's triggers */
	enum capture_state state;
	uint64_t good_off;
	uint64_t blocks;
	char error[400];
};

static const char *const probe_names[FT_PROBE_MAX] = {
	[FT_PROBE_IFACE_TX] = "iface_tx",
	[FT_PROBE_IFACE_RX] = "iface_rx",
	[FT_PROBE_QDISC_ENQ] = "qdisc_enq",
	[FT_PROBE_QDISC_DEQ] = "qdisc_deq",
	[FT_PROBE_DROP] = "drop",
	[FT_PROBE_RETRANS] = "retrans",
	[FT_PROBE_CONG_STATE] = "cong_state",
	[FT_PROBE_TCP_SAMPLE] = "tcp_sample",
};

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

static void note_ts(struct info *in, uint64_t ts)
{
	if (ts == 0)
		return;
	if (!in->have_ts || ts < in->min_ts)
		in->min_ts = ts;
	if (!in->have_ts || ts > in->max_ts)
		in->max_ts = ts;
	in->have_ts = true;
}

static void add_probe(struct info *in, const struct ft_probe_info *p)
{
	for (size_t i = 0; i < in->nprobes; i++) {
		if (in->probes[i].id == p->id &&
		    strncmp(in->probes[i].name, p->name, sizeof(p->name)) == 0) {
			in->probes[i] = *p; /* the latest word on it */
			return;
		}
	}
	if (in->nprobes < MAX_PROBES)
		in->probes[in->nprobes++] = *p;
}

static void add_iface(struct info *in, const struct ft_iface_info *f)
{
	for (size_t i = 0; i < in->nifaces; i++) {
		if (in->ifaces[i].netns == f->netns && in->ifaces[i].ifindex == f->ifindex) {
			in->ifaces[i] = *f;
			return;
		}
	}
	if (in->nifaces < MAX_IFACES)
		in->ifaces[in->nifaces++] = *f;
}

static void add_lost(struct info *in, const struct ft_lost *l)
{
	for (size_t i = 0; i < in->nlost; i++) {
		if (in->lost[i].source == l->source && in->lost[i].cpu == l->cpu) {
			/* cumulative: the final value is the one that counts */
			in->lost[i].lost = l->lost;
			return;
		}
	}
	if (in->nlost < MAX_LOST) {
		in->lost[in->nlost].source = l->source;
		in->lost[in->nlost].cpu = l->cpu;
		in->lost[in->nlost].lost = l->lost;
		in->nlost++;
	} else {
		in->lost_overflow = true;
	}
}

static void add_slot(struct info *in, const struct ft_phase_slot *p)
{
	for (size_t i = 0; i < in->nslots; i++) {
		if (in->slots[i].slot == p->slot) {
			in->slots[i] = *p; /* the latest word on it */
			return;
		}
	}
	if (in->nslots < MAX_SLOTS)
		in->slots[in->nslots++] = *p;
	else
		in->slots_overflow = true;
}

static void account(struct info *in, const struct ft_rec_hdr *r)
{
	const uint64_t *ts8 = (const uint64_t *)(const void *)((const uint8_t *)r + 8);

	in->counts[r->type]++;
	in->total++;
	clockinfo__add(&in->clk, r);
	triggerinfo__add(&in->trig, r);
	/* the reader guarantees a known type is at least its struct's size */
	switch (r->type) {
	case FT_REC_IFACE_BIN:
	case FT_REC_QDISC_BIN:
		note_ts(in, *ts8);
		if (in->hdr.bin_ns && *ts8 && *ts8 + in->hdr.bin_ns > *ts8)
			note_ts(in, *ts8 + in->hdr.bin_ns);
		break;
	case FT_REC_DROP:
	case FT_REC_RETRANS:
	case FT_REC_CONG_STATE:
	case FT_REC_TCP_SAMPLE:
	case FT_REC_IFACE_STATS:
	case FT_REC_LOST:
	case FT_REC_REQ_DONE:
	case FT_REC_COMM_INFO:
	case FT_REC_SOCK_OWNER:
		note_ts(in, *ts8);
		if (r->type == FT_REC_LOST)
			add_lost(in, (const struct ft_lost *)r);
		if (r->type == FT_REC_COMM_INFO && ((const struct ft_comm_info *)r)->comm == FT_COMM_ENV)
			in->env_ranks++;
		if (r->type == FT_REC_COMM_INFO && ((const struct ft_comm_info *)r)->slot == FT_SLOT_JOB)
			in->env_jobs++;
		break;
	case FT_REC_PHASE:
		note_ts(in, ((const struct ft_phase *)r)->start_ns);
		note_ts(in, ((const struct ft_phase *)r)->end_ns);
		break;
	case FT_REC_PROC: {
		const struct ft_proc *pr = (const struct ft_proc *)r;

		note_ts(in, pr->ts_ns);
		in->proc_events[pr->event <= FT_PROC_EXIT ? pr->event : FT_PROC_EXIT + 1]++;
		break;
	}
	case FT_REC_PHASE_SLOT:
		add_slot(in, (const struct ft_phase_slot *)r);
		break;
	case FT_REC_CE_FLOW:
		note_ts(in, ((const struct ft_ce_flow *)r)->first_ns);
		note_ts(in, ((const struct ft_ce_flow *)r)->last_ns);
		break;
	case FT_REC_IFACE:
		add_iface(in, (const struct ft_iface_info *)r);
		break;
	case FT_REC_PROBE:
		add_probe(in, (const struct ft_probe_info *)r);
		break;
	case FT_REC_COVERAGE: {
		const struct ft_coverage *cv = (const struct ft_coverage *)r;

		if (cv->probe < 64) {
			struct ft_coverage *e = &in->cov[cv->probe];

			if (e->hdr.type != FT_REC_COVERAGE) {
				memcpy(e, cv, sizeof(*cv));
			} else { /* another host of a merged capture: the sum (as report) */
				e->known = e->known && cv->known;
				e->hits = e->known ? e->hits + cv->hits : 0;
				e->runs += cv->runs;
			}
			in->cov_skip[cv->probe] += cv->hits > cv->runs ? cv->hits - cv->runs : 0;
		}
		break;
	}
	case FT_REC_END:
		in->have_end = true;
		memcpy(&in->end, r, sizeof(in->end));
		note_ts(in, in->end.ts_ns);
		break;
	default:
		break;
	}
}

/* ---- probe coverage (FT_REC_COVERAGE): tracepoint hits the programs did not see */

static uint64_t cov_skipped(const struct info *in, const struct ft_coverage *c)
{
	return c->known && c->probe < 64 ? in->cov_skip[c->probe] : 0;
}

static const char *cov_name(const struct info *in, uint32_t id, char *buf, size_t len)
{
	for (size_t i = 0; i < in->nprobes; i++)
		if (in->probes[i].id == id && in->probes[i].name[0]) {
			snprintf(buf, len, "%.*s", (int)sizeof(in->probes[i].name), in->probes[i].name);
			return buf;
		}
	if (id < FT_PROBE_MAX && probe_names[id])
		return probe_names[id];
	snprintf(buf, len, "probe %u", (unsigned)id);
	return buf;
}

/* "complete", "incomplete" (runs skipped), "partial" (some unknown), "unknown" */
static const char *cov_status(const struct info *in, uint64_t *skipped, size_t *unknown)
{
	size_t n = 0;

	*skipped = 0;
	*unknown = 0;
	for (int id = 0; id < 64; id++) {
		if (in->cov[id].hdr.type != FT_REC_COVERAGE)
			continue;
		n++;
		*skipped += cov_skipped(in, &in->cov[id]);
		*unknown += !in->cov[id].known;
	}
	if (!n)
		return "unknown";
	if (*skipped)
		return "incomplete";
	return *unknown ? "partial" : "complete";
}

static void print_coverage(const struct info *in)
{
	uint64_t skipped;
	size_t unknown;
	const char *st = cov_status(in, &skipped, &unknown);
	char nb[40];

	if (!strcmp(st, "unknown"))
		printf("probe coverage:  unknown (the capture has no coverage counters)\n");
	else if (!strcmp(st, "complete"))
		printf("probe coverage:  complete (every tracepoint hit ran its program)\n");
	else if (!strcmp(st, "partial"))
		printf("probe coverage:  complete for the probes counted, unknown for %zu\n", unknown);
	else
		printf("probe coverage:  incomplete: the kernel skipped %llu probe runs "
		       "(not in lost events)\n", (unsigned long long)skipped);
	for (int id = 0; id < 64; id++) {
		const struct ft_coverage *c = &in->cov[id];

		if (c->hdr.type != FT_REC_COVERAGE)
			continue;
		if (!c->known)
			printf("  %s probe coverage unknown (its tracepoint hits were not counted)\n",
			       cov_name(in, (uint32_t)id, nb, sizeof(nb)));
		else if (cov_skipped(in, c))
			printf("  kernel skipped %llu of %llu %s probe runs (tracepoint hits the program "
			       "did not see)\n", (unsigned long long)cov_skipped(in, c),
			       (unsigned long long)c->hits, cov_name(in, (uint32_t)id, nb, sizeof(nb)));
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
		printf("  (more than %d slots; the rest not listed)\n", MAX_SLOTS);
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

static void print_plain(const struct info *in)
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

			printf("  %-14s %-40s ", FIELD(p->name, b1), FIELD(p->hook, b2));
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
			if (id < FT_PROBE_MAX && probe_names[id])
				printf("  %-14s attached\n", probe_names[id]);
			else
				printf("  probe %-8d attached\n", id);
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

static void print_json(const struct info *in, bool pretty)
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
			json_kv_string(&j, "name", FIELD(p->name, b1));
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
			json_kv_string(&j, "name", id < FT_PROBE_MAX ? probe_names[id] : NULL);
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
	{
		uint64_t skipped;
		size_t unknown;

		json_kv_string(&j, "coverage_status", cov_status(in, &skipped, &unknown));
		json_kv_u64(&j, "skipped_runs", skipped);
	}
	json_key(&j, "coverage");
	json_array_begin(&j);
	for (int id = 0; id < 64; id++) {
		const struct ft_coverage *c = &in->cov[id];

		if (c->hdr.type != FT_REC_COVERAGE)
			continue;
		json_object_begin(&j);
		json_kv_string(&j, "probe", cov_name(in, (uint32_t)id, b1, sizeof(b1)));
		json_kv_u64(&j, "probe_id", (uint64_t)id);
		json_kv_bool(&j, "known", c->known != 0);
		if (c->known)
			json_kv_u64(&j, "hits", c->hits);
		else
			json_kv_string(&j, "hits", NULL);
		json_kv_u64(&j, "runs", c->runs);
		if (c->known)
			json_kv_u64(&j, "skipped", cov_skipped(in, c));
		else
			json_kv_string(&j, "skipped", NULL);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);

	json_object_end(&j);
	json_finish(&j);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fabtrace info [--json] CAPTURE\n"
		"\n"
		"Describe a capture file: its header (host, kernel, command, start time, bin\n"
		"width), whether it is complete, truncated or corrupt, the probes and\n"
		"interfaces it recorded, the phase probes (traced library functions),\n"
		"record counts per type, blocks and lost events.\n"
		"\n"
		"Options:\n"
		"  -j, --json   print one JSON document (errors stay valid JSON)\n"
		"  -h, --help   show this help\n"
		"\n"
		"Exit status: 0 complete or truncated (a warning says what is missing),\n"
		"1 corrupt (what was readable is printed first) or unreadable, 2 usage.\n"
		"\n"
		"Examples:\n"
		"  fabtrace info run.ftr\n"
		"  fabtrace info --json run.ftr | jq .lost.total\n");
}

int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct ft_rec_hdr *rec;
	struct capture_reader *r = NULL;
	struct info in;
	bool json = util_json();
	char err[320];
	int c, ret, rc = 1;

	optind = 0; /* glibc: full re-initialisation, main may have used getopt */
	opterr = 0;
	util_json_from_args(argc, argv, (const char *const[]){ "--json", "-j", NULL });
	while ((c = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			util_set_json(true);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			ft_err_bad_opt("info", c, optopt, argv[optind - 1], opts);
			return 2;
		}
	}
	if (optind != argc - 1) {
		ft_err("info: %s; usage: fabtrace info [--json] CAPTURE",
		       optind >= argc ? "no capture file given" : "too many arguments");
		return 2;
	}

	memset(&in, 0, sizeof(in));
	in.path = argv[optind];
	ret = capture__open(&r, in.path, err, sizeof(err));
	if (ret < 0) {
		if (ret == -EPROTONOSUPPORT || ret == -ENOENT || ret == -EACCES)
			ft_err("info: %s", err);
		else
			ft_err("info: %s; is this a file written by 'fabtrace record'?", err);
		return 1;
	}
	in.hdr = *capture__header(r);
	in.counts = calloc(65536, sizeof(*in.counts));
	in.probes = calloc(MAX_PROBES, sizeof(*in.probes));
	in.ifaces = calloc(MAX_IFACES, sizeof(*in.ifaces));
	in.lost = calloc(MAX_LOST, sizeof(*in.lost));
	in.slots = calloc(MAX_SLOTS, sizeof(*in.slots));
	if (!in.counts || !in.probes || !in.ifaces || !in.lost || !in.slots) {
		ft_err("info: out of memory");
		goto out;
	}

	while (capture__next(r, &rec) == 1)
		account(&in, rec);
	in.state = capture__state(r);
	in.good_off = capture__good_offset(r);
	in.blocks = capture__blocks(r);
	if (in.state != CAPTURE_OK)
		snprintf(in.error, sizeof(in.error), "%s: %s", in.path, capture__error(r));

	if (json)
		print_json(&in, true);
	else
		print_plain(&in);
	fflush(stdout);

	switch (in.state) {
	case CAPTURE_OK:
		rc = 0;
		break;
	case CAPTURE_TRUNCATED:
		/* stderr in both modes: stdout holds the document */
		fprintf(stderr, "fabtrace: warning: %s; the summary above covers the readable part\n",
			in.error);
		rc = 0;
		break;
	default:
		fprintf(stderr, "fabtrace: %s; only the data before offset %llu is shown\n",
			in.error, (unsigned long long)in.good_off);
		rc = 1;
		break;
	}
out:
	capture__free(r);
	free(in.counts);
	free(in.probes);
	free(in.ifaces);
	free(in.lost);
	free(in.slots);
	clockinfo__free(&in.clk);
	return rc;
}
