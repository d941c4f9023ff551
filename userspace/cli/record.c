// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace record: attach the probes and stream everything into a capture.
 *
 * The probes, the counter sampler and the event loop are a session
 * (userspace/record/session.h), shared with `top`; this file is the command: its
 * options, the status line (every second on a terminal) and the summary.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/wait.h>

#include "probes/netns.h"
#include "probes/netprobe.h"
#include "probes/probe_names.h"
#include "userspace/capture/capture.h"
#include "userspace/cli/commands.h"
#include "userspace/cli/record_flight.h"
#include "userspace/history/history.h"
#include "userspace/live/rules.h"
#include "userspace/record/flight.h"
#include "userspace/record/hostclock.h"
#include "lib/json.h"
#include "userspace/record/session.h"
#include "lib/opt.h"
#include "lib/util.h"

struct recorder {
	struct session_opts o;
	struct flight_opts fo;
	struct flight *f;   /* the flight recorder (--switch-output), NULL: one capture */
	struct rule rule[RULES_MAX]; /* --trigger */
	int nrules;
	struct rules *rules; /* their evaluator: a second sink beside the flight recorder's */
	uint64_t keep_summaries_ns; /* --keep-summaries (0: no bound) */
	bool no_summaries;  /* --no-summaries */
	bool summaries_opt; /* --keep-summaries or --no-summaries given */
	struct hist_worker *hist; /* the segments' summaries (userspace/history/) */
	struct session *s;
	bool tty;
	uint64_t last_bins, last_events, last_phases;
	char out[4096];     /* -o after its %h/%t/%p are expanded */
	char snap_dir[4096]; /* --snapshot-dir likewise */
	char error[1100];   /* the run's error, for the --json summary: one document, not two */
	bool started;       /* the recording began (session__start) */
};

/* The run's error, once its summary follows: with --json a key of the
 * summary (and the line on stderr, for the operator), else the error line. */
static void run_error(struct recorder *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void run_error(struct recorder *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	if (r->o.json)
		fprintf(stderr, "fabtrace: %s\n", r->error);
	else
		ft_err("%s", r->error);
}

/* *PATH with its %h, %t (NOW), %p expanded into BUF (and *PATH pointed there);
 * -1, said, for a bad pattern.  NULL and a path without '%' stay as they are. */
static int expand_pattern(const char **path, char *buf, size_t len, time_t now)
{
	char host[256] = "", err[512];

	if (!*path || !strchr(*path, '%'))
		return 0;
	gethostname(host, sizeof(host) - 1);
	if (hostclock__expand_path(*path, host, now, getpid(), buf, len, err, sizeof(err))) {
		ft_err("record: %s", err);
		return -1;
	}
	*path = buf;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabtrace record [OPTIONS] [-p PID[,PID...]] [-- COMMAND [ARGS...]]\n"
"\n"
"Trace the fabric: microburst bins per interface, qdisc depth and sojourn\n"
"time, drops with their reason, TCP retransmits and congestion state, ECN CE\n"
"marks.  Everything goes into one capture file; stop with Ctrl-C, -d, or when\n"
"COMMAND exits.  A COMMAND still running at the stop gets SIGTERM, with every\n"
"process it started (SIGKILL after 10 s).\n"
"\n"
"Collective phases: uprobes on MPI (Allreduce, Bcast, ..., the non-blocking\n"
"calls and their Wait/Test completions), NCCL (host-side enqueue only), Gloo,\n"
"the fabtrace marker library and --phase functions record every call with its\n"
"bytes, communicator and sequence number.  They follow COMMAND and all its\n"
"children (mpiexec -> ip netns exec -> ranks), or the -p processes and their\n"
"children, or with neither every process on the system.  Libraries loaded\n"
"later (dlopen) are picked up.  Without a phase library, phases are inferred\n"
"from the traffic.\n"
"\n"
"NCCL as the GPU runs it: COMMAND gets NCCL_PROFILER_PLUGIN set to fabtrace's\n"
"profiler plugin (libnccl-profiler-fabtrace.so, next to this binary or in\n"
"PREFIX/lib/fabtrace) unless it is set already; NCCL then reports each\n"
"collective's GPU start and end, and the report uses those instead of the\n"
"enqueue times (docs/phases.md).\n"
"\n"
"Options:\n"
"  -i, --iface [NETNS/]IFACE  trace only this interface (repeatable); NETNS is\n"
"                             a name from 'ip netns'.  Default: all interfaces.\n"
"                             Cheaper: receive bins then come from a tcx program\n"
"                             on these interfaces alone (kernel 6.6+), and other\n"
"                             devices cost nothing on receive.  A drop or flow\n"
"                             that names no device counts in their namespaces\n"
"                             only\n"
"      --netns NAME           trace only this network namespace: its interfaces\n"
"                             and, with neither -p nor COMMAND, the phases of\n"
"                             its processes only (one recorder per lab host)\n"
"  -d, --duration DURATION    stop after DURATION of tracing, from when every probe\n"
"                             is in place (e.g. 10s, 500ms, 2m)\n"
"  -o, --output FILE          capture file (default: fabtrace.ftr); created 0600,\n"
"                             never through a symlink.  FILE may hold %%h (host\n"
"                             name up to its first dot), %%H (full host name), %%t\n"
"                             (start, UTC YYYYmmddTHHMMSSZ), %%p (pid), %%%% ('%%'),\n"
"                             so one command line serves every node\n"
"      --bin WIDTH            microburst bin width (default 100us; 1us to 1s)\n"
"      --rtt-interval DUR     min gap between RTT/cwnd samples per flow (default 10ms)\n"
"      --ringbuf SIZE         ring buffer of the network probes (default 4M); the\n"
"                             TCP probes get a quarter, the phase probes as much\n"
"      --wakeup SIZE          wake the recorder each time SIZE more bytes wait\n"
"                             in a ring; it also drains every 20 ms (default:\n"
"                             ringbuf/8; 0: a wake-up per record, which about\n"
"                             doubles the probes' CPU time)\n"
"  -q, --quiet                no status line\n"
"  -v, --verbose              show libbpf and verifier messages\n"
"  -p, --pid PID[,PID...]     trace the phases of running processes and their\n"
"                             children (repeatable); without COMMAND the\n"
"                             recording ends within a second of the last one's\n"
"                             exit (stop reason 'processes exited')\n"
"      --phase LIB:SYMBOL[=NAME]  also trace SYMBOL of library LIB (a path or\n"
"                             soname; SYMBOL a C name or a demangled C++ prefix)\n"
"                             as phase NAME (repeatable)\n"
"      --no-phases            no phase probes: fabric only (phases are inferred)\n"
"      --profile NAME         which probes to load: full (default: every probe) or\n"
"                             always (what to leave on permanently: bins, with -i\n"
"                             as tcx programs on those interfaces' egress and\n"
"                             ingress (one clock read and one add per packet;\n"
"                             transmit bins then count what is offered to the\n"
"                             qdisc, not what leaves it), drops, retransmits,\n"
"                             congestion states, CE marks, counters (every 100ms\n"
"                             unless --counter-period says) and phases; no qdisc\n"
"                             sojourn/depth, RTT samples or socket owners).\n"
"                             The capture says which; see docs/performance.md\n"
"      --post-probes LIST     with the flight recorder: what the profile leaves\n"
"                             out (qdisc, rtt, owners: the socket owners) to\n"
"                             attach for each snapshot's post-window only\n"
"                             (within a second of the trigger); the capture\n"
"                             records when they ran\n"
"      --no-probes LIST       leave out probe families (comma list): bins, qdisc,\n"
"                             drops, tcp, rtt, or probe names ('fabtrace\n"
"                             features' lists them, with what each costs)\n"
"      --coverage MODE        how probe runs the kernel skipped are counted:\n"
"                             kernel (the programs' recursion_misses: free,\n"
"                             exact where the kernel counts skips), pid1\n"
"                             (kernel, plus a perf counter per tracepoint on\n"
"                             each thread of PID 1, for kernels patched to skip\n"
"                             PID 1's context uncounted: about half the cost of\n"
"                             counters), counters (a perf counter per CPU on\n"
"                             each tracepoint: ~0.4-1.3 us per packet on\n"
"                             veth), auto (default: kernel where a recursing\n"
"                             test program shows the kernel counts skips and\n"
"                             its BTF shows no patch; pid1 where it shows that\n"
"                             patch; else counters; 'fabtrace features' says\n"
"                             which; see docs/known-issues.md)\n"
"      --format-version N     write capture format N: 2 (default, zstd blocks) or\n"
"                             1 (zlib blocks), for a fabtrace older than\n"
"                             2026-11-28, which refuses version 2 as newer\n"
"      --nice N               nice value of the thread that drains the rings\n"
"                             (default -10, so that a job saturating the CPUs\n"
"                             does not starve it into losing events; the\n"
"                             traced command keeps its own)\n"
"\n"
"Flight recorder (rotating segments and snapshots; see docs/flight-recorder.md):\n"
"      --switch-output TIME|SIZE  run until stopped, writing segments into the\n"
"                             directory -o DIR, each a complete capture closed\n"
"                             after TIME (default 10s) or SIZE (e.g. 64M; m is\n"
"                             minutes, M megabytes); repeat for both\n"
"      --keep DUR             keep segments until the newer ones cover DUR\n"
"                             (default 5m; 0: no time bound)\n"
"      --keep-size SIZE       at most SIZE of segments on disk (default 1G;\n"
"                             0: no size bound)\n"
"      --switch-max-files N   at most N closed segments\n"
"      --snapshot-pre DUR     a trigger saves a snapshot of DUR before it\n"
"                             (default 30s) ...\n"
"      --snapshot-post DUR    ... and DUR after it (default 10s); a trigger\n"
"                             inside a post-window extends it (one file)\n"
"      --snapshot-max DUR     the longest a snapshot grows (default 5m)\n"
"      --snapshot-policy P    every:N (every Nth trigger of a rule saves) or\n"
"                             once-after:N (only its Nth); default all\n"
"      --snapshot-cooldown DUR  no new snapshot within DUR after one ends\n"
"      --snapshot-dir DIR     snapshots go here (default: -o DIR; %%h %%t %%p as in -o)\n"
"      --trigger RULE         save a snapshot when RULE holds (repeatable; quote\n"
"                             it): link.drops, link.retrans, link.ce,\n"
"                             link.pause or link.cnp > N/s\n"
"                             [over DUR] [on [NETNS/]IFACE] (rates over DUR,\n"
"                             default 1s), queue.sojourn > DUR, lost > N,\n"
"                             coll.slow > Kx [usual DUR] (K times its group's\n"
"                             usual: the median of its latest 32 calls, or of\n"
"                             its calls of the last DUR),\n"
"                             rank.late > DUR (both [on rank:N]), job.exit (a\n"
"                             process of the job exits non-zero: the COMMAND's,\n"
"                             -p's, else one that made a collective call),\n"
"                             job.timeout\n"
"                             (a NCCL call fails, ncclCommAbort, or a Gloo\n"
"                             timeout); once per episode of DUR; 'policy\n"
"                             every:N' (or once-after:N) after a rule: its own\n"
"                             rate policy\n"
"      --keep-summaries DUR   keep the per-collective summaries (one line per\n"
"                             collective: its verdict and time budget, in\n"
"                             DIR/summaries/DAY.jsonl; read them with 'fabtrace\n"
"                             history DIR') for DUR (default 7d; 0: no bound)\n"
"      --no-summaries         do not summarize the segments\n"
"      --control NAME         control socket @fabtrace/NAME (default flight) in\n"
"                             the recorded network namespace, for 'fabtrace\n"
"                             trigger'; SIGUSR1 triggers too\n"
"\n"
"Counters (RDMA ports and NIC statistics, on the same clock; see docs/rdma.md):\n"
"      --counter-period DUR   sample every DUR (default 10ms; 100ms with --profile\n"
"                             always); the sampler backs off (and says so)\n"
"                             above its CPU budget\n"
"      --rdma-devices LIST    only these RDMA devices/ports, e.g. mlx5_0,mlx5_1:1\n"
"      --rdma-counters GLOBS  only RDMA counters matching (comma list), e.g.\n"
"                             'np_cnp_*,rp_cnp_*,port_xmit_*'\n"
"      --rdma-lifespan MS     set hw_counters/lifespan to MS for the recording\n"
"                             (restored at the end; the driver caches hw\n"
"                             counters for lifespan ms, default 10)\n"
"      --nic-stats GLOBS      ethtool statistics to sample on the traced\n"
"                             interfaces (default: pause/PFC, buffer, discard\n"
"                             and ECN counters; 'all' for every one)\n"
"      --no-rdma, --no-nic-stats   turn either part off\n"
"      --sampler-budget PCT   CPU share of one core the sampler may use (default 5)\n"
"      --sysfs-root DIR       read RDMA devices under DIR/class/infiniband instead\n"
"                             of /sys (test fixtures; also $FABTRACE_SYSFS_ROOT)\n"
"      --json                 print the final summary as JSON on stdout (keys:\n"
"                             docs/record-json.md; status lines stay on\n"
"                             stderr; -q drops them)\n"
"  -h, --help                 this help\n"
"\n"
"Exit status: 0 when the capture (or every segment) is complete, whatever\n"
"COMMAND's own exit status (--json gives it); 127 when COMMAND could not be\n"
"run (the capture then holds the probes' records only); 1 on an error (a\n"
"full disk: every closed segment stays readable); 2 for usage errors.\n"
"\n"
"Examples:\n"
"  sudo fabtrace record -i eth0 -d 10s -o incident.ftr\n"
"  sudo fabtrace record -i lab1h2/eth0 -i lab1sw/p2 --bin 20us -d 5s\n"
"  sudo fabtrace record -o allreduce.ftr -- mpiexec -n 4 ./train\n"
"  sudo fabtrace record -p 4242,4243 -d 30s\n"
"  sudo fabtrace record --phase ./libsolver.so:solver_step=solve -- ./app\n"
"  sudo fabtrace record --phase 'libgloo.so.0:gloo::rendezvous::Context::connect' \\\n"
"      -- python train.py\n"
"  sudo fabtrace record --no-phases -i eth0 -d 10s\n"
"  sudo fabtrace record --profile always -i eth0 -i eth1 -o always.ftr\n"
"  srun --ntasks-per-node=1 --overlap sudo fabtrace record -o job-%%h.ftr -d 60s\n"
"      (then: fabtrace merge -o job.ftr job-*.ftr; see docs/multihost.md)\n"
"  sudo fabtrace record --rdma-lifespan 1 --counter-period 1ms -d 5s -o cnp.ftr\n"
"  sudo fabtrace record -i eth0 --switch-output 10s --keep 10m --keep-size 2G -o /var/lib/fabtrace\n"
"      (then: sudo fabtrace trigger --reason 'step 4100 slow', or kill -USR1 PID;\n"
"       a week later: fabtrace history --from -7d /var/lib/fabtrace)\n"
"  sudo fabtrace record --netns h1 --switch-output 5s --keep 2m --snapshot-pre 20s \\\n"
"      --snapshot-post 5s --snapshot-policy every:2 -o /tmp/ft-h1\n"
"  sudo fabtrace record --profile always --post-probes qdisc,rtt,owners -i eth0 \\\n"
"      --switch-output 10s -o /var/lib/fabtrace   (the deeper probes in post-windows only)\n"
"  sudo fabtrace record -i eth0 --switch-output 10s --trigger 'link.drops > 100/s on eth0' \\\n"
"      --trigger 'rank.late > 20ms' --trigger job.exit --snapshot-cooldown 1m -o /var/lib/fabtrace\n"
"\n"
"Needs root, or CAP_BPF + CAP_PERFMON + CAP_NET_ADMIN; other network\n"
"namespaces (--netns, -i NETNS/IFACE, or every namespace without -i) need\n"
"CAP_SYS_ADMIN as well, to enter them.  Without root, tracefs\n"
"(/sys/kernel/tracing, root's only) stays closed unless CAP_DAC_READ_SEARCH is\n"
"given too: the probes still run, but on a kernel that does not count every\n"
"skipped run itself (--coverage) the report says their coverage is unknown.\n");
}

static uint64_t bytes_written(const struct recorder *r)
{
	struct flight_stats fs;

	if (!r->f)
		return session__capture_bytes(r->s);
	flight__stats(r->f, &fs);
	return fs.disk_bytes;
}

static void status_line(void *ctx, uint64_t now, uint64_t ticks)
{
	struct recorder *r = ctx;
	const struct session_stats *st = session__stats(r->s);
	char b1[32];

	(void)ticks;
	if (r->f && session__has_post_probes(r->s)) {
		/* before the tick: a post-window that is over closes in the segment
		 * that ends now, and holds the probes' last records */
		uint32_t snap = flight__post_window(r->f, now);

		if (session__set_post_probes(r->s, snap != 0, snap))
			session__stop(r->s, FT_STOP_ERROR);
	}
	if (r->f)
		flight__tick(r->f, now);
	if (r->rules)
		rules__tick(r->rules, now);
	if (!r->tty || r->o.quiet)
		return;
	fprintf(stderr, "\r[%6.1fs] bins %7llu/s  events %6llu/s  phases %6llu/s  lost %llu  %s written   ",
		(now - st->start_ns) / 1e9,
		(unsigned long long)(st->bins - r->last_bins),
		(unsigned long long)(st->events - r->last_events),
		(unsigned long long)(st->phases - r->last_phases),
		(unsigned long long)session__lost_total(r->s),
		fmt_bytes((double)bytes_written(r), b1, sizeof(b1)));
	r->last_bins = st->bins;
	r->last_events = st->events;
	r->last_phases = st->phases;
}

/* What the summaries' thread did (userspace/history/). */
static void summaries_json(struct json *j, const struct recorder *r)
{
	struct hist_worker_stats hs;

	hist_worker__stats(r->hist, &hs);
	json_kv_object_begin(j, "summaries");
	json_kv_u64(j, "segments", hs.segments);
	json_kv_u64(j, "collectives", hs.lines);
	json_kv_u64(j, "failed", hs.failed);
	json_kv_u64(j, "dropped", hs.dropped);
	json_kv_u64(j, "days_deleted", hs.days_deleted);
	json_kv_string(j, "last_error", hs.last_error[0] ? hs.last_error : NULL);
	json_object_end(j);
}

static void summaries_text(const struct recorder *r)
{
	struct hist_worker_stats hs;

	hist_worker__stats(r->hist, &hs);
	fprintf(stderr, "fabtrace: summaries of %llu segments: %llu collectives in %s/%s\n",
		(unsigned long long)hs.segments, (unsigned long long)hs.lines, flight__dir(r->f), HIST_SUBDIR);
	if (hs.failed || hs.dropped)
		ft_warn("record: %llu segments could not be summarized (%s), %llu dropped (the queue was full)",
			(unsigned long long)hs.failed, hs.last_error[0] ? hs.last_error : "-",
			(unsigned long long)hs.dropped);
}

static void print_summary(struct recorder *r, uint64_t end_ns)
{
	const struct session_stats *st = session__stats(r->s);
	const double secs = (end_ns - st->start_ns) / 1e9;
	uint64_t lost = session__lost_total(r->s);

	if (r->o.json) {
		struct json j;
		uint64_t records = st->records_written;

		if (r->f) /* the flight recorder: every record its segments were given */
			for (int t = 0; t < 64; t++)
				records += st->counts[t];
		json_init(&j, stdout, true);
		json_object_begin(&j);
		json_kv_string(&j, "output", r->f ? flight__dir(r->f) : r->o.out_path);
		json_kv_double(&j, "duration_s", secs, 3);
		json_kv_string(&j, "stop_reason", capture__stop_reason_name(st->stop_reason));
		if (r->error[0])
			json_kv_string(&j, "error", r->error);
		json_kv_u64(&j, "bytes", r->f ? bytes_written(r) : st->bytes_written);
		json_kv_u64(&j, "records", records);
		json_kv_u64(&j, "bins", st->bins);
		json_kv_u64(&j, "events", st->events);
		json_kv_u64(&j, "phase_events", st->phases);
		json_kv_u64(&j, "phases", st->counts[FT_REC_PHASE]);
		json_kv_u64(&j, "phase_slots", st->counts[FT_REC_PHASE_SLOT]);
		json_kv_u64(&j, "lost_events", lost);
		json_kv_u64(&j, "ring_wakeups", st->ring_wakeups);
		json_kv_string(&j, "coverage", session__coverage(r->s));
		json_kv_u64(&j, "interfaces", (uint64_t)st->n_ifs);
		json_kv_u64(&j, "rdma_ports", st->counts[FT_REC_RDMA_PORT]);
		json_kv_u64(&j, "counter_groups", st->counts[FT_REC_CTR_GROUP]);
		json_kv_u64(&j, "counter_samples", st->counts[FT_REC_CTR_SAMPLE]);
		if (r->o.cmd) {
			json_kv_bool(&j, "command_ran", !st->command_not_run);
			json_kv_i64(&j, "command_exit_status",
				    WIFEXITED(st->child_status) ? WEXITSTATUS(st->child_status) : -1);
		}
		if (r->f)
			record_flight__json(&j, r->f);
		if (r->hist)
			summaries_json(&j, r);
		json_object_end(&j);
		json_finish(&j);
		return;
	}
	if (r->o.quiet)
		return;
	if (r->f) {
		record_flight__text(r->f, secs, capture__stop_reason_name(st->stop_reason), lost);
		if (r->hist)
			summaries_text(r);
	} else {
		char b[32];

		fprintf(stderr, "fabtrace: recorded %.1f s (%s) to %s: %s, %llu records (%llu bins, %llu events, "
			"%llu phase events), %llu lost events\n", secs, capture__stop_reason_name(st->stop_reason),
			r->o.out_path, fmt_bytes((double)st->bytes_written, b, sizeof(b)),
			(unsigned long long)st->records_written, (unsigned long long)st->bins,
			(unsigned long long)st->events, (unsigned long long)st->phases, (unsigned long long)lost);
	}
	if (session__has_phases(r->s))
		fprintf(stderr, "fabtrace: phases: %llu calls in %llu traced functions%s\n",
			(unsigned long long)st->counts[FT_REC_PHASE],
			(unsigned long long)st->counts[FT_REC_PHASE_SLOT],
			st->counts[FT_REC_PHASE_SLOT] ? "" : " (none found: phases will be inferred from traffic)");
	if (st->counts[FT_REC_CTR_GROUP])
		fprintf(stderr, "fabtrace: counters: %llu samples of %llu groups (%llu RDMA ports)\n",
			(unsigned long long)st->counts[FT_REC_CTR_SAMPLE],
			(unsigned long long)st->counts[FT_REC_CTR_GROUP],
			(unsigned long long)st->counts[FT_REC_RDMA_PORT]);
	if (lost)
		fprintf(stderr, "fabtrace: warning: %llu events were lost (ring buffer full); "
			"use a larger --ringbuf or a wider --bin\n", (unsigned long long)lost);
}

/* Every record to the flight recorder, then to the rules (which may trigger it). */
static int record_sink(void *ctx, const struct ft_rec_hdr *rec)
{
	struct recorder *r = ctx;
	int rc = flight__sink(r->f, rec);

	rules__sink(r->rules, rec);
	return rc;
}

static void rule_fired(void *ctx, const struct flight_trigger *t)
{
	struct recorder *r = ctx;
	struct flight_trigger_result res;

	flight__trigger(r->f, t, &res); /* says what it did, and records it */
}

/* A rule whose records nothing attached will make can never fire: a usage error, not silence. */
static int check_rules_can_fire(const struct recorder *r)
{
	uint64_t gone = r->o.no_probes | (netprobe__profile_skip(r->o.profile) & ~r->o.post_probes);

	for (int i = 0; i < r->nrules; i++) {
		const struct rule *ru = &r->rule[i];
		bool phases, counters;
		uint64_t need = rules__metric_probes(ru->metric, &phases, &counters);

		if (phases && r->o.no_phases) {
			ft_err("record: --trigger '%s' reads the phase probes' records; drop --no-phases", ru->text);
			return -1;
		}
		if (counters && r->o.so.no_rdma && r->o.so.no_nic) {
			ft_err("record: --trigger '%s' reads the RDMA and NIC counters; drop --no-rdma or --no-nic-stats",
			       ru->text);
			return -1;
		}
		if (need && !(need & ~gone)) {
			int id = __builtin_ctzll(need); /* the first of them: each metric reads one today */
			bool by_opt = (r->o.no_probes & (1ull << id)) != 0;

			ft_err("record: --trigger '%s' reads the %s probe's records, which %s%s leaves out; %s",
			       ru->text, probe__name((uint32_t)id), by_opt ? "--no-probes" : "--profile ",
			       by_opt ? "" : netprobe__profile_name(r->o.profile),
			       by_opt ? "drop it from --no-probes"
				      : "use --profile full, or --post-probes to have it after a trigger");
			return -1;
		}
	}
	return 0;
}

/* Whether -i ARG names an interface IFACE of namespace NS (NULL: of any
 * namespace, as the rule matches one by its name alone). */
static bool iface_arg_is(const char *arg, const char *ns, const char *iface, const char *netns_arg)
{
	const char *slash = strchr(arg, '/');
	const char *ans = slash ? arg : netns_arg;
	size_t nl = slash ? (size_t)(slash - arg) : ans ? strlen(ans) : 0;

	if (strcmp(slash ? slash + 1 : arg, iface) != 0)
		return false;
	return !ns || (ans && strlen(ns) == nl && !strncmp(ans, ns, nl));
}

static int ifindex_here(void *name)
{
	return (int)if_nametoindex(name);
}

/*
 * A rule on an interface: with -i, one of those, or it can never fire (a
 * usage error, as the typo in -i itself is).  Without -i, one that is not
 * there fires only if one of that name appears (a job may make it): said
 * now, not left to a silent never.  An RDMA port's label (link.pause,
 * link.cnp) is not looked up.
 */
static int check_rule_places(const struct recorder *r)
{
	for (int i = 0; i < r->nrules; i++) {
		const struct rule *u = &r->rule[i];
		const char *ns = u->on_netns[0] ? u->on_netns : r->o.netns_arg;
		char path[128], err[160];
		bool listed = false;

		if (!u->on || u->metric == RM_LINK_PAUSE || u->metric == RM_LINK_CNP)
			continue;
		for (int k = 0; k < r->o.n_iface_args && !listed; k++)
			listed = iface_arg_is(r->o.iface_args[k], u->on_netns[0] ? u->on_netns : NULL, u->on_iface,
					      r->o.netns_arg);
		if (r->o.n_iface_args && !listed) {
			ft_err("record: --trigger '%s': %s%s%s is not one of the -i interfaces, so the rule could never "
			       "fire; name one of them, or add it with -i", u->text, u->on_netns[0] ? u->on_netns : "",
			       u->on_netns[0] ? "/" : "", u->on_iface);
			return -1;
		}
		if (ns && (size_t)snprintf(path, sizeof(path), "/run/netns/%s", ns) < sizeof(path) &&
		    access(path, F_OK))
			ft_warn("record: --trigger '%s': no network namespace '%s' now (list them with 'ip netns "
				"list'); the rule fires only once it exists", u->text, ns);
		else if (!r->o.n_iface_args &&
			 netns__run_in(ns ? path : NULL, ifindex_here, (void *)u->on_iface, err, sizeof(err)) == 0)
			ft_warn("record: --trigger '%s': no interface '%s' %s%s now (list them with 'ip%s%s link'); "
				"the rule fires only once one of that name exists", u->text, u->on_iface,
				ns ? "in namespace " : "here", ns ? ns : "", ns ? " -n " : "", ns ? ns : "");
	}
	return 0;
}

static int add_rule(struct recorder *r, const char *arg)
{
	char err[256];

	if (r->nrules == RULES_MAX) {
		ft_err("record: more than %d --trigger rules", RULES_MAX);
		return -1;
	}
	if (rules__parse(&r->rule[r->nrules], arg, err, sizeof(err))) {
		ft_err("record: --trigger '%s': %s", arg, err);
		return -1;
	}
	r->nrules++;
	return 0;
}

static int parse_args(struct recorder *r, int argc, char **argv)
{
	enum { OPT_JSON = FOPT_END, OPT_TRIGGER, OPT_KEEP_SUMMARIES, OPT_NO_SUMMARIES };
	static const struct option opts[] = {
		SESSION_LONG_OPTS,
		FLIGHT_LONG_OPTS,
		{ "profile", required_argument, NULL, SOPT_PROFILE },
		{ "post-probes", required_argument, NULL, SOPT_POST_PROBES },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		{ "keep-summaries", required_argument, NULL, OPT_KEEP_SUMMARIES },
		{ "no-summaries", no_argument, NULL, OPT_NO_SUMMARIES },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	opterr = 0; /* our own one-line errors */
	/* "+": stop at the first non-option so COMMAND's own flags stay its own */
	util_json_from_args(argc, argv, (const char *const[]){ "--json", NULL });
	while ((c = getopt_long(argc, argv, "+:" SESSION_SHORT_OPTS "o:qh", opts, NULL)) != -1) {
		int h = session_opts__parse(&r->o, c, optarg);

		if (h < 0)
			return -1;
		if (h > 0 || (h = flight_opts__parse(&r->fo, c, optarg)) > 0)
			continue;
		if (h < 0)
			return -1;
		switch (c) {
		case 'o':
			if (!optarg[0]) {
				ft_err("record: -o needs a file name");
				return -1;
			}
			r->o.out_path = optarg;
			break;
		case 'q':
			r->o.quiet = true;
			break;
		case OPT_TRIGGER:
			if (add_rule(r, optarg))
				return -1;
			break;
		case OPT_KEEP_SUMMARIES:
			if (parse_offset(optarg, 1000000000ull, &r->keep_summaries_ns)) {
				ft_err_bad_value("record", "--keep-summaries", optarg, "a duration",
						 "e.g. 7d, 36h (0: no bound)");
				return -1;
			}
			r->summaries_opt = true;
			break;
		case OPT_NO_SUMMARIES:
			r->no_summaries = true;
			r->summaries_opt = true;
			break;
		case OPT_JSON:
			r->o.json = true;
			util_set_json(true);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			ft_err_bad_opt("record", c, optopt, argv[optind - 1], opts);
			return -1;
		}
	}
	/* the pre-scan's --json may have been the traced command's own (record -o x.ftr app --json) */
	util_set_json(r->o.json);
	if (optind < argc)
		r->o.cmd = &argv[optind];
	else if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		ft_err("record: -- but no command after it; give the command to run and trace (record ... -- CMD "
		       "[ARGS]), or leave out the --");
		return -1;
	}
	if (flight_opts__check(&r->fo, &r->o, r->o.out_path != NULL))
		return -1;
	if (r->nrules && !r->fo.on) {
		ft_err("record: --trigger needs the flight recorder: give --switch-output and -o DIR");
		return -1;
	}
	if (check_rules_can_fire(r))
		return -1;
	if (check_rule_places(r))
		return -1;
	if (r->summaries_opt && !r->fo.on) {
		ft_err("record: --keep-summaries and --no-summaries are the flight recorder's: give "
		       "--switch-output and -o DIR");
		return -1;
	}
	if (r->o.post_probes && !r->fo.on) {
		ft_err("record: --post-probes needs the flight recorder: give --switch-output and -o DIR");
		return -1;
	}
	return session_opts__check(&r->o);
}

int cmd_record(int argc, char **argv)
{
	struct recorder *r = calloc(1, sizeof(*r));
	int ret = 1, rc;
	time_t now;
	char buf[32];

	if (!r)
		return 1;
	if (session_opts__init(&r->o, "record"))
		goto out;
	flight_opts__init(&r->fo);
	r->keep_summaries_ns = 7 * 86400ull * 1000000000ull;
	if (parse_args(r, argc, argv)) {
		ret = 2; /* usage, as every other command says it */
		goto out;
	}
	if (!r->o.out_path)
		r->o.out_path = "fabtrace.ftr";
	/* %h, %t, %p: in -o, and in --snapshot-dir as well (one command line on every node) */
	now = time(NULL);
	if (expand_pattern(&r->o.out_path, r->out, sizeof(r->out), now) ||
	    expand_pattern(&r->fo.snap_dir, r->snap_dir, sizeof(r->snap_dir), now)) {
		ret = 2; /* the pattern given is wrong: usage */
		goto out;
	}
	if (r->fo.on) { /* the session writes no capture: the flight recorder writes segments */
		if (flight__open(&r->f, &r->fo, &r->o, r->o.out_path))
			goto out;
		if (!r->no_summaries) {
			char err[512];

			if (hist_worker__start(&r->hist, r->o.out_path, (int64_t)(r->keep_summaries_ns / 1000000000ull),
					       err, sizeof(err))) {
				ft_err("record: the summaries: %s", err);
				goto out;
			}
			flight__on_closed(r->f, hist_worker__segment_closed, r->hist);
		}
		r->o.out_path = NULL;
	}
	if (!r->fo.on)
		cli_usr1_not_flight();
	if (r->nrules && !(r->rules = rules__new(r->rule, r->nrules, r->o.bin_ns, rule_fired, r))) {
		ft_err("record: out of memory for the --trigger rules");
		goto out;
	}
	if (r->rules && !r->o.cmd && !r->o.npids) /* the probes follow every process (systemwide) */
		rules__job_from_calls(r->rules);
	if (session__open(&r->s, &r->o, r->rules ? record_sink : r->f ? flight__sink : NULL,
			  r->rules ? (void *)r : r->f))
		goto out;
	if (r->f)
		flight__attach(r->f, r->s);
	rc = session__start(r->s, argc, argv);
	if (rc == -1) {
		session__finish(r->s);
		goto out;
	}
	if (rc == 0) {
		const struct session_stats *st = session__stats(r->s);

		r->started = true;
		r->tty = isatty(STDERR_FILENO);
		session__on_tick(r->s, status_line, r);
		if (r->f && flight__start(r->f))
			session__stop(r->s, FT_STOP_ERROR);
		else if (r->f && !r->o.quiet)
			record_flight__started(r->f, &r->fo, st->n_ifs, r->o.duration_ns);
		/* also with --json (stdout): a script waits for this line on stderr */
		else if (!r->o.quiet)
			fprintf(stderr, "fabtrace: recording to %s (%d interfaces%s%s); Ctrl-C to stop\n",
				r->o.out_path, st->n_ifs, r->o.duration_ns ? ", for " : "",
				r->o.duration_ns ? fmt_ns(r->o.duration_ns, buf, sizeof(buf)) : "");
		session__phase_status(r->s);
		if (session__run(r->s))
			session__stop(r->s, FT_STOP_ERROR);
		if (r->rules)
			rules__stopping(r->rules);
		if (r->tty && !r->o.quiet)
			fputc('\n', stderr);
	}
	rc = session__finish(r->s);
	session__end_command(r->s); /* before the summary, which gives its exit status */
	if (r->f && flight__finish(r->f))
		rc = -1;
	hist_worker__stop(r->hist); /* the last segment's summary, written before the summary says so */
	if (r->f && rc) {
		run_error(r, "record: %s; every closed segment stays readable", flight__error(r->f)[0] ?
			  flight__error(r->f) : "the flight recorder failed");
		print_summary(r, mono_ns());
		goto out;
	}
	if (rc) {
		if (session__write_error(r->s)[0]) /* already names the file, the offset and what is kept */
			run_error(r, "record: %s", session__write_error(r->s));
		else
			run_error(r, "record: writing %s failed; the capture is valid up to its last complete block",
				  r->o.out_path);
		print_summary(r, mono_ns());
		goto out;
	}
	print_summary(r, mono_ns());
	ret = 0;
	if (session__stats(r->s)->command_not_run) {
		if (!r->o.json) /* the JSON summary says it: "command_ran": false */
			ft_err("record: the command could not be run (see above); %s holds the probes' records without it",
			       r->o.out_path);
		ret = 127; /* as a shell says it */
	}
out:
	session__close(r->s);
	rules__free(r->rules);
	hist_worker__free(r->hist);
	if (r->f && flight__made_dir(r->f) && !r->started) { /* nothing recorded: no tree left */
		char sub[4200];

		snprintf(sub, sizeof(sub), "%s/%s", flight__dir(r->f), HIST_SUBDIR);
		rmdir(sub);
		flight__abandon(r->f);
	}
	flight__free(r->f);
	session_opts__free(&r->o);
	free(r);
	return ret;
}
