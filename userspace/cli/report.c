// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The `fabtrace report` command: its options and --help, loading the
 * capture into a model, the timeline files (--svg, --html, --perfetto,
 * --speedscope, --folded; viz/) and the summary on stdout, which
 * report__write() writes (userspace/report/: text and JSON sections,
 * docs/report-json.md).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "userspace/capture/capture.h"
#include "userspace/cli/commands.h"
#include "userspace/correlate/correlate.h"
#include "userspace/model/model.h"
#include "userspace/report/report.h"
#include "userspace/report/report_windows.h"
#include "lib/opt.h"
#include "lib/util.h"
#include "viz/viz.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: fabtrace report [OPTIONS] CAPTURE\n"
		"\n"
		"Summarise a capture.  The first screen is the answer: the verdict counts,\n"
		"where the blame falls (a link and its queue, or a rank), the worst\n"
		"collectives with cause, place and time, and whether the data is whole.\n"
		"Then the details: per-interface rates against link speed, microbursts,\n"
		"queue depth and sojourn time, retransmits, congestion-state changes, drops\n"
		"by reason, ECN CE marks, the conservation check (binned bytes vs interface\n"
		"counters) and lost events.  With phase probes (MPI, NCCL, Gloo, markers):\n"
		"collectives per op with bus bandwidth, ranks and the time they waited,\n"
		"steps, and the slowest collectives with a verdict and its evidence\n"
		"(network-bound: which link or queue and which events; rank-bound: which\n"
		"rank entered late on a clean network; unknown).  Without them, phases\n"
		"are inferred from synchronised traffic and labelled \"inferred\".\n"
		"Times are shown relative to the capture start (+seconds) and as UTC wall\n"
		"clock.\n"
		"\n"
		"Options:\n"
		"  -b, --brief           the answer alone: the first screen (verdicts, where the\n"
		"                        blame falls, the worst collectives, whether data is whole)\n"
		"  -j, --json            one JSON document (keys: docs/report-json.md)\n"
		"  -p, --pretty          indented JSON (implies --json)\n"
		"  -t, --threshold PCT   a bin is part of a burst at >= PCT %% of the line rate (default 50)\n"
		"  -g, --gap DURATION    merge bursts separated by less than this (default: one bin)\n"
		"  -n, --top N           show the N largest bursts, the N slowest collectives,\n"
		"                        N counter spikes and (--windows) N late ranks\n"
		"                        (default 10, 0 = all)\n"
		"  -s, --sort KEY        order bursts by bytes (default), peak or time\n"
		"      --tolerance PCT   conservation: the difference allowed beyond 2 frames in\n"
		"                        flight, in %% of the counters (default 0: exact but for\n"
		"                        those 2 frames)\n"
		"      --phases MODE     auto (default: phase probes if the capture has any, else\n"
		"                        inferred), probes, or inferred (also compared with the\n"
		"                        probes' collective windows when the capture has them)\n"
		"Verdicts weigh each collective's time budget: waiting for a late rank,\n"
		"its expected transfer, the network's excess (queueing, a shaper, RTO and\n"
		"fast retransmits, real tail-loss probes, pause and CNP counters, each\n"
		"with an estimated cost) and what is unexplained; the largest share that\n"
		"made it slow names the verdict (docs/verdicts.md):\n"
		"      --slow FACTOR     a collective is slow at >= FACTOR x its time without\n"
		"                        those shares (default 1.5); else ok\n"
		"      --margin FACTOR   the largest share names the verdict at >= FACTOR x the\n"
		"                        next, else unknown (default 1.5)\n"
		"      --explains PCT    network items estimated at >= PCT %% of the excess\n"
		"                        transfer own all of it (default 20)\n"
		"      --rto-min DURATION  what an RTO retransmit costs beyond the RTT (the\n"
		"                        kernel's TCP_RTO_MIN, default 200ms)\n"
		"      --skew-min DURATION  the least a slow collective is over its usual, and\n"
		"                        a straggler's lateness (default 1ms)\n"
		"      --queue-delay DURATION  evidence: a queue delaying packets this long on\n"
		"                        a rank's link (default 1ms)\n"
		"      --skew PCT        evidence: a rank entering late by >= PCT %% of itself\n"
		"                        plus the transfer is a straggler (default 50)\n"
		"      --infer-gap DURATION  inferred phases: merge activity across gaps shorter\n"
		"                        than this (default: chosen from the idle gaps in the\n"
		"                        traffic, at least max(1ms, 10 bins))\n"
		"      --spike-rate N    counters (RDMA, NIC): a congestion, pause, retransmission\n"
		"                        or discard counter growing at >= N per second is a spike\n"
		"                        (default 1000; docs/rdma.md)\n"
		"      --windows DUR     a long or merged capture one window of DUR at a time\n"
		"                        (e.g. 60s): memory follows the windows being read;\n"
		"                        prints the job's answer and stragglers summed over\n"
		"                        the windows, then one line per window (with\n"
		"                        --from/--to: only that part); at most 100000 windows;\n"
		"                        a window holds a collective whole if it is at least\n"
		"                        twice as long (said when one is not)\n"
		"      --jobs N          with --windows: windows read at once, on N threads\n"
		"                        (default: the CPUs, at most 4); memory grows with N\n"
		"      --from T, --to T  report (and draw) only this window, in seconds since\n"
		"                        the capture start (1.25, 1250ms, +1.25s): only its\n"
		"                        records are kept, so memory follows the window, not the\n"
		"                        capture (long or merged captures, docs/multihost.md);\n"
		"                        times stay relative to the capture start; the\n"
		"                        conservation check is skipped\n"
		"  -h, --help            this help\n"
		"\n"
		"Timelines (docs/timelines.md); several may be given at once, each FILE is\n"
		"written whole or not at all (mode 0600), - writes it to stdout:\n"
		"      --svg FILE        static flame-style timeline of one window (default: the\n"
		"                        slowest collective with context) for tickets and docs\n"
		"      --html FILE       interactive timeline, one self-contained page\n"
		"      --perfetto FILE   Chrome trace event JSON for ui.perfetto.dev / chrome://tracing\n"
		"      --speedscope FILE\n"
		"                        evented profile per rank for speedscope.app\n"
		"      --folded FILE     folded stacks rank;collective;phase;cause weight for\n"
		"                        flamegraph.pl: where the collective time went.\n"
		"                        With --from/--to they show that window; without, the\n"
		"                        SVG shows the slowest collective, the others all\n"
		"      --weight KEY      folded stacks weighted by time (ns, default) or bytes\n"
		"  -q, --quiet           do not print the report: with timelines, only write\n"
		"                        them; alone, only read the capture (the exit status\n"
		"                        says whether it is readable)\n"
		"\n"
		"Examples:\n"
		"  fabtrace report incident.ftr\n"
		"  fabtrace report --brief incident.ftr\n"
		"  fabtrace report --json incident.ftr | jq '.headline.lines[]'\n"
		"  fabtrace report --threshold 80 --top 20 --sort peak incident.ftr\n"
		"  fabtrace report --json incident.ftr | jq '.microbursts.items[0]'\n"
		"  fabtrace report --json incident.ftr | jq '.lost.total_lost'\n"
		"  fabtrace report --json run.ftr | jq '.slowest.items[] | {op, verdict, summary}'\n"
		"  fabtrace report --phases inferred --json run.ftr | jq '.inferred_phases.comparison'\n"
		"  fabtrace report --json roce.ftr | jq '.counter_spikes.spikes[] | {counter, growth}'\n"
		"  fabtrace report --windows 60s job.ftr                  # a merged 64-node job\n"
		"  fabtrace report --from 300 --to 360 --brief job.ftr   # one minute of it\n"
		"  fabtrace report -q --svg slow.svg run.ftr\n"
		"  fabtrace report -q --from 12.5 --to 13.1 --svg w.svg --perfetto w.json run.ftr\n"
		"  fabtrace report -q --speedscope run.speedscope.json run.ftr\n"
		"  fabtrace report --folded - run.ftr | flamegraph.pl > where-time-went.svg\n"
		"\n"
		"Exit status: 0 (also for a truncated capture, with a warning), 1 when the\n"
		"capture cannot be read or is corrupt or an output cannot be written, 2 for\n"
		"usage errors.\n");
}

/* ---- timelines (viz/): --html, --svg, --perfetto, --speedscope, --folded ---- */

enum { TL_HTML, TL_SVG, TL_PERFETTO, TL_SPEEDSCOPE, TL_FOLDED, TL_N };

enum {
	OPT_TL = 0x100,             /* + TL_*: the output options */
	OPT_FROM = OPT_TL + TL_N,
	OPT_TO,
	OPT_WEIGHT,
	OPT_WINDOWS,
	OPT_JOBS,
};

static const struct {
	const char *opt, *what;
	int (*render)(const struct viz_ctx *v, FILE *f);
} tl_outputs[TL_N] = {
	[TL_HTML] = { "html", "HTML timeline", viz__html },
	[TL_SVG] = { "svg", "SVG timeline", viz__svg },
	[TL_PERFETTO] = { "perfetto", "Perfetto/Chrome trace", viz__perfetto },
	[TL_SPEEDSCOPE] = { "speedscope", "speedscope profile", viz__speedscope },
	[TL_FOLDED] = { "folded", "folded stacks", viz__folded },
};

struct timeline_opts {
	const char *out[TL_N];
	bool have_from, have_to, quiet;
	uint64_t from_rel, to_rel;  /* ns since the capture start */
	enum viz_weight weight;
};

/* "1.25" (seconds), "1250ms", "+1.25s" (as the report prints times), "0". */
static int parse_rel_time(const char *s, uint64_t *ns)
{
	return parse_offset(s[0] == '+' ? s + 1 : s, 1000000000ull, ns);
}

/* One of the timeline options; 0 or 2 (usage error, reported). */
static int timeline_opt(struct timeline_opts *t, int c, const char *arg)
{
	if (c >= OPT_TL && c < OPT_TL + TL_N) {
		if (t->out[c - OPT_TL]) {
			ft_err("report: --%s given twice; give one file per format", tl_outputs[c - OPT_TL].opt);
			return 2;
		}
		if (!arg[0]) {
			ft_err("report: --%s needs a file name (or - for stdout)", tl_outputs[c - OPT_TL].opt);
			return 2;
		}
		t->out[c - OPT_TL] = arg;
		return 0;
	}
	if (c == OPT_WEIGHT) {
		if (!strcmp(arg, "time"))
			t->weight = VIZ_WEIGHT_TIME;
		else if (!strcmp(arg, "bytes"))
			t->weight = VIZ_WEIGHT_BYTES;
		else {
			ft_err_bad_value("report", "--weight", arg, "a weight", "time or bytes");
			return 2;
		}
		return 0;
	}
	if (parse_rel_time(arg, c == OPT_FROM ? &t->from_rel : &t->to_rel)) {
		ft_err_bad_value("report", c == OPT_FROM ? "--from" : "--to", arg, "a time",
				 "seconds since the capture start, e.g. 1.25 or 1250ms");
		return 2;
	}
	if (c == OPT_FROM)
		t->have_from = true;
	else
		t->have_to = true;
	return 0;
}

static bool timeline_wanted(const struct timeline_opts *t)
{
	for (int k = 0; k < TL_N; k++)
		if (t->out[k])
			return true;
	return false;
}

/* Usage errors of the options together (before the capture is read); 0 or 2. */
static int timeline_check(struct timeline_opts *t)
{
	int nstdout = 0, nout = 0;

	for (int k = 0; k < TL_N; k++) {
		nout += t->out[k] != NULL;
		nstdout += t->out[k] && !strcmp(t->out[k], "-");
	}
	if (nstdout > 1) {
		ft_err("report: more than one output is - (stdout); write all but one to files");
		return 2;
	}
	if (nstdout)
		t->quiet = true;    /* the summary would corrupt the output on stdout */
	if (t->have_to && (t->have_from ? t->from_rel : 0) >= t->to_rel) {
		char f[32], to[32];

		/* in seconds to the µs, as the report gives times */
		ft_err("report: --from (%s s) is not before --to (%s s); give a window with from < to",
		       fmt_secs(t->have_from ? t->from_rel : 0, f, sizeof(f)), fmt_secs(t->to_rel, to, sizeof(to)));
		return 2;
	}
	if (!nout && t->weight != VIZ_WEIGHT_TIME) {
		ft_err("report: --weight applies to the timeline outputs; add --svg, --html, "
		       "--perfetto, --speedscope or --folded");
		return 2;
	}
	return 0;
}

/*
 * Render every requested timeline: all temporaries are created first (a bad
 * path fails before any work), then rendered, then renamed into place.
 * 0, or 1/2 after a one-line error (no output file left half-written).
 */
static int write_timelines(const struct model *m, const struct corr_opts *co, const struct timeline_opts *t,
			   struct corr **out)
{
	struct viz_ctx v = { .m = m, .weight = t->weight };
	struct outfile of[TL_N];
	struct corr *c = NULL;
	char err[512];
	int ret = 0, k;

	*out = NULL;
	memset(of, 0, sizeof(of));
	if (t->have_from || t->have_to) { /* the model spans the window (model_opts.window) */
		v.from_ns = m->start_ns;
		v.to_ns = m->end_ns > m->start_ns ? m->end_ns : m->start_ns + 1;
	}
	ret = corr__build(m, co, &c);
	if (ret) {
		ft_err("report: correlating the capture: %s; report it window by window (--windows 60s) or one "
		       "window (--from/--to)", strerror(-ret));
		return 1;
	}
	v.c = c;
	for (k = 0; k < TL_N && !ret; k++)
		if (t->out[k] && outfile_open(&of[k], t->out[k], err, sizeof(err))) {
			ft_err("report: --%s %s", tl_outputs[k].opt, err);
			ret = 1;
		}
	for (k = 0; k < TL_N && !ret; k++) {
		int r;

		if (!t->out[k])
			continue;
		r = tl_outputs[k].render(&v, of[k].f);
		if (r) {
			ft_err("report: writing the %s to %s: %s; nothing was written", tl_outputs[k].what, t->out[k],
			       strerror(r == -EIO ? outfile_errno(&of[k]) : -r));
			ret = 1;
		}
	}
	for (k = 0; k < TL_N && !ret; k++) {
		if (!t->out[k])
			continue;
		if (outfile_commit(&of[k], err, sizeof(err))) {
			ft_err("report: --%s %s", tl_outputs[k].opt, err);
			ret = 1;
		} else if (!t->quiet && strcmp(t->out[k], "-") != 0) {
			fprintf(stderr, "fabtrace: report: wrote the %s to %s\n", tl_outputs[k].what, t->out[k]);
		}
	}
	for (k = 0; k < TL_N; k++)
		if (of[k].f)
			outfile_abort(&of[k]);
	/* the summary uses the same correlation: an hour-long capture is correlated once */
	*out = c;
	return ret;
}

/* The one error line for a capture that could not be loaded; exit code 1. */
static int load_failed(const char *path, int ret, const char *err)
{
	return cli_load_failed("report", path, ret, err,
			       "report it window by window (--windows 60s) or one window (--from/--to)");
}

/* A capture this large (bytes) gets a hint that --windows keeps memory down. */
#define REPORT_BIG_CAPTURE (512ll << 20)

/* report --windows: the job's answer one window at a time (report_windows.h). */
static int report_by_windows(const struct report_opts *ro, const struct timeline_opts *tl,
			     const struct model_opts *mo, const struct corr_opts *co, uint64_t windows_ns,
			     unsigned jobs)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	struct report_windows_opts wo = {
		.window_ns = windows_ns,
		.from_rel_ns = tl->have_from ? tl->from_rel : 0,
		.to_rel_ns = tl->have_to ? tl->to_rel : 0,
		.model = mo,
		.corr = co,
		/* default: a window per CPU, at most 4 (memory: that many windows) */
		.jobs = jobs ? jobs : ncpu > 4 ? 4 : ncpu > 1 ? (unsigned)ncpu : 1,
		.progress = isatty(STDERR_FILENO) && !tl->quiet,
	};
	char err[512] = "";
	FILE *out;
	int ret;

	for (int k = 0; k < TL_N; k++)
		if (tl->out[k]) {
			ft_err("report: --windows writes the job's summary only; draw one window with "
			       "--from/--to and --%s instead", tl_outputs[k].opt);
			return 2;
		}
	if (!capture__rereadable(ro->path)) {
		ft_err("report: %s is a pipe; --windows reads the capture once per window: save it to a "
		       "file first", ro->path);
		return 2;
	}
	/* JSON escapes its strings itself; -q reads every window and prints nothing, as without --windows */
	out = tl->quiet ? fopen("/dev/null", "w") : ro->json ? errno_kept_stream(stdout) : text_safe_stream(stdout);
	if (!out)
		out = stdout;
	ret = report__windows(out, ro->path, &wo, ro, err, sizeof(err));
	if (out != stdout && fclose(out) && !ret) {
		ret = -EIO;
		snprintf(err, sizeof(err), "writing the report: %s", strerror(stream_errno(stdout)));
	}
	if (ret == -EIO && !strncmp(err, "writing the report", 18)) { /* the output failed, not the capture */
		ft_err("report: %s; check the output destination", err);
		return 1;
	}
	if (ret == -ERANGE) {
		ft_err("report: %s; give an earlier time", err);
		return 2;
	}
	if (ret == -ENOMEM) {
		ft_err("report: %s", err[0] ? err : "out of memory; give a shorter --windows");
		return 1;
	}
	if (ret)
		return load_failed(ro->path, ret, err);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "threshold", required_argument, NULL, 't' },
		{ "gap", required_argument, NULL, 'g' },
		{ "top", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "tolerance", required_argument, NULL, 'T' },
		{ "phases", required_argument, NULL, 'P' },
		{ "queue-delay", required_argument, NULL, 'Q' },
		{ "skew", required_argument, NULL, 'K' },
		{ "skew-min", required_argument, NULL, 'M' },
		{ "slow", required_argument, NULL, 'S' },
		{ "margin", required_argument, NULL, 'G' },
		{ "explains", required_argument, NULL, 'E' },
		{ "rto-min", required_argument, NULL, 'O' },
		{ "infer-gap", required_argument, NULL, 'I' },
		{ "spike-rate", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "brief", no_argument, NULL, 'b' },
		{ "html", required_argument, NULL, OPT_TL + TL_HTML },
		{ "svg", required_argument, NULL, OPT_TL + TL_SVG },
		{ "perfetto", required_argument, NULL, OPT_TL + TL_PERFETTO },
		{ "speedscope", required_argument, NULL, OPT_TL + TL_SPEEDSCOPE },
		{ "folded", required_argument, NULL, OPT_TL + TL_FOLDED },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "weight", required_argument, NULL, OPT_WEIGHT },
		{ "windows", required_argument, NULL, OPT_WINDOWS },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ NULL, 0, NULL, 0 },
	};
	struct timeline_opts tl = { .weight = VIZ_WEIGHT_TIME };
	struct corr *built = NULL;
	struct report_opts ro = { .top = 10, .sort = REPORT_SORT_BYTES };
	struct corr_opts co;
	struct model_opts mo;
	struct model *m = NULL;
	uint64_t windows_ns = 0;
	unsigned jobs = 0;
	char err[512];
	int c, ret;

	model_opts__init(&mo);
	corr_opts__init(&co);
	ro.corr = &co;
	/* --json must take effect before any error is printed */
	util_json_from_args(argc, argv, (const char *const[]){ "--json", "-j", "--pretty", "-p", NULL });
	optind = 0; /* glibc: full re-initialisation; 1 keeps a stopped call's state (freed argv) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jpt:g:n:s:hqb", lopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			ro.brief = true;
			break;
		case 'j':
			ro.json = true;
			break;
		case 'p':
			ro.json = ro.pretty = true;
			break;
		case 't':
			if (parse_pct(optarg, 1000, &mo.burst_threshold) || mo.burst_threshold <= 0) {
				ft_err_bad_value("report", "--threshold", optarg, "a percentage",
						 "e.g. 50 (%% of link capacity, > 0)");
				return 2;
			}
			break;
		case 'g':
			if (parse_duration(optarg, 0, &mo.burst_gap_ns)) {
				ft_err_bad_value("report", "--gap", optarg, "a duration", "e.g. 200us or 1ms");
				return 2;
			}
			break;
		case 'n': {
			long v;

			if (parse_long(optarg, 0, 1000000, &v)) {
				ft_err_bad_value("report", "--top", optarg, "a count", "e.g. 10 (0 = all)");
				return 2;
			}
			ro.top = (unsigned)v;
			break;
		}
		case 's':
			if (!strcmp(optarg, "bytes"))
				ro.sort = REPORT_SORT_BYTES;
			else if (!strcmp(optarg, "peak"))
				ro.sort = REPORT_SORT_PEAK;
			else if (!strcmp(optarg, "time"))
				ro.sort = REPORT_SORT_TIME;
			else {
				ft_err_bad_value("report", "--sort", optarg, "a sort key", "bytes, peak or time");
				return 2;
			}
			break;
		case 'T':
			if (parse_pct(optarg, 100, &mo.conserve_tol_frac)) {
				ft_err_bad_value("report", "--tolerance", optarg, "a percentage", "e.g. 0.1");
				return 2;
			}
			break;
		case 'P':
			if (!strcmp(optarg, "auto"))
				co.phases = CORR_PHASES_AUTO;
			else if (!strcmp(optarg, "probes"))
				co.phases = CORR_PHASES_PROBES;
			else if (!strcmp(optarg, "inferred"))
				co.phases = CORR_PHASES_INFERRED;
			else {
				ft_err_bad_value("report", "--phases", optarg, "a mode", "auto, probes or inferred");
				return 2;
			}
			ro.phases = co.phases;
			break;
		case 'Q':
			if (parse_duration(optarg, 0, &co.th.queue_delay_ns)) {
				ft_err_bad_value("report", "--queue-delay", optarg, "a duration", "e.g. 1ms or 500us");
				return 2;
			}
			break;
		case 'M':
			if (parse_duration(optarg, 0, &co.th.skew_min_ns)) {
				ft_err_bad_value("report", "--skew-min", optarg, "a duration", "e.g. 1ms or 500us");
				return 2;
			}
			break;
		case 'I':
			if (parse_duration(optarg, 0, &co.infer_gap_ns)) {
				ft_err_bad_value("report", "--infer-gap", optarg, "a duration", "e.g. 1ms or 500us");
				return 2;
			}
			break;
		case 'K':
			if (parse_pct(optarg, 100, &co.th.skew_frac) || co.th.skew_frac <= 0) {
				ft_err_bad_value("report", "--skew", optarg, "a percentage", "e.g. 50 (%% of the span, > 0)");
				return 2;
			}
			break;
		case 'S':
			if (parse_double(optarg, 1, 1e6, &co.th.slow_factor)) {
				ft_err_bad_value("report", "--slow", optarg, "a factor", "e.g. 1.5 (>= 1)");
				return 2;
			}
			break;
		case 'G':
			if (parse_double(optarg, 1, 1e6, &co.th.margin)) {
				ft_err_bad_value("report", "--margin", optarg, "a factor", "e.g. 2 (>= 1)");
				return 2;
			}
			break;
		case 'E':
			if (parse_pct(optarg, 100, &co.th.explains)) {
				ft_err_bad_value("report", "--explains", optarg, "a percentage", "e.g. 20 (%% of the excess, 0 to 100)");
				return 2;
			}
			break;
		case 'O':
			if (parse_duration(optarg, 0, &co.th.rto_min_ns)) {
				ft_err_bad_value("report", "--rto-min", optarg, "a duration", "e.g. 200ms or 5ms");
				return 2;
			}
			break;
		case 'R':
			if (parse_double(optarg, 0, 1e15, &mo.spike_rate) || mo.spike_rate <= 0) {
				ft_err_bad_value("report", "--spike-rate", optarg, "a rate",
						 "e.g. 1000 (counts per second, > 0)");
				return 2;
			}
			break;
		case 'q':
			tl.quiet = true;
			break;
		case OPT_JOBS: {
			long v;

			if (parse_long(optarg, 1, REPORT_WINDOWS_MAX_JOBS, &v)) {
				ft_err_bad_value("report", "--jobs", optarg, "a count of windows",
						 "1 to %d (the windows read at once)", REPORT_WINDOWS_MAX_JOBS);
				return 2;
			}
			jobs = (unsigned)v;
			break;
		}
		case OPT_WINDOWS:
			if (parse_duration(optarg, 1000000000ull, &windows_ns) || windows_ns < 1000000) {
				ft_err_bad_value("report", "--windows", optarg, "a duration of at least 1ms", "e.g. 60s");
				return 2;
			}
			break;
		case OPT_TL + TL_HTML:
		case OPT_TL + TL_SVG:
		case OPT_TL + TL_PERFETTO:
		case OPT_TL + TL_SPEEDSCOPE:
		case OPT_TL + TL_FOLDED:
		case OPT_FROM:
		case OPT_TO:
		case OPT_WEIGHT:
			if (timeline_opt(&tl, c, optarg))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default: /* also ':', a missing value */
			ft_err_bad_opt("report", c, optopt, argv[optind - 1], lopts);
			return 2;
		}
	}
	if (optind != argc - 1) {
		ft_err("report: %s; usage: fabtrace report [--json] CAPTURE (see --help)",
		       optind >= argc ? "no capture file given" : "more than one capture file given");
		return 2;
	}
	ro.path = argv[optind];
	if (timeline_check(&tl))
		return 2;
	for (int k = 0; k < TL_N; k++)
		if (tl.out[k] && strcmp(tl.out[k], "-") != 0 && ft_same_file(tl.out[k], ro.path)) {
			ft_err("report: --%s %s is the capture being read; choose another output",
			       tl_outputs[k].opt, tl.out[k]);
			return 2;
		} else if (tl.out[k]) {
			char opt[32];

			snprintf(opt, sizeof(opt), "--%s", tl_outputs[k].opt);
			if (cli_out_over_capture("report", opt, tl.out[k], "the timeline"))
				return 2;
		}
	if (jobs && !windows_ns) {
		ft_err("report: --jobs applies to --windows; add --windows DURATION");
		return 2;
	}
	if (windows_ns)
		return report_by_windows(&ro, &tl, &mo, &co, windows_ns, jobs);

	if (!tl.have_from && !tl.have_to) { /* measured: the whole model takes ~6x the capture's size */
		struct capture_reader *r = NULL;
		struct stat st;

		/* a capture (its header read), so that a damaged file gets its one error line alone */
		if (stat(ro.path, &st) == 0 && st.st_size > REPORT_BIG_CAPTURE &&
		    capture__open(&r, ro.path, err, sizeof(err)) == 0)
			ft_warn("report: %s is %.1f GB: the whole report holds it in memory, about 6 times that; "
				"--windows 60s or --from/--to keep memory to a window", ro.path,
				(double)st.st_size / 1e9);
		capture__free(r);
	}
	if (tl.have_from || tl.have_to) {
		mo.window = true;
		mo.window_from_ns = tl.have_from ? tl.from_rel : 0;
		mo.window_to_ns = tl.have_to ? tl.to_rel : 0;
	}
	ret = model__load(ro.path, &mo, &m, err, sizeof(err));
	if (ret) {
		return load_failed(ro.path, ret, err);
	}
	if (tl.have_from && tl.from_rel >= m->capture_end_ns - m->capture_start_ns) {
		char a[32];

		ft_err("report: --from is at or after the end of the capture (duration %s); give an earlier time",
		       fmt_ns(m->capture_end_ns - m->capture_start_ns, a, sizeof(a)));
		model__free(m);
		return 2;
	}
	if (m->truncated)
		ft_warn("report: %s: %s; reporting what is readable", ro.path,
			m->truncated_why[0] ? m->truncated_why : "capture truncated");
	ret = timeline_wanted(&tl) ? write_timelines(m, &co, &tl, &built) : 0;
	if (ret) {
		corr__free(built);
		model__free(m);
		return ret;
	}
	ro.built = built;
	if (!tl.quiet) {
		/* JSON escapes its strings itself */
		FILE *out = ro.json ? errno_kept_stream(stdout) : text_safe_stream(stdout);

		ret = report__write(out ? out : stdout, m, &ro);
		if (out && out != stdout && fclose(out) && !ret)
			ret = -EIO;
		if (ret == -EIO) /* the stream kept no errno: the output's own (a full disk), else EIO */
			ret = -stream_errno(stdout);
	}
	corr__free(built);
	model__free(m);
	if (ret == -ENOMEM) {
		ft_err("report: correlating the capture: out of memory; report it window by window (--windows 60s) "
		       "or one window (--from/--to)");
		return 1;
	}
	if (ret) {
		ft_err("report: writing the report: %s; check the output destination", strerror(-ret));
		return 1;
	}
	return 0;
}
