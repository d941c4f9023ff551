// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabtrace top: what the fabric is doing right now.
 *
 * The same session as `record` (userspace/record/session.h) feeds every record to
 * the live aggregator (userspace/live/live.h) and, with --record, to a capture.
 * A refresh timer in the session's loop closes a period and shows it: a
 * full-screen view (plain ANSI, no curses), or with --once/--json a
 * snapshot for scripts (userspace/top/top_view.h), with --headless nothing
 * (an exporter for --listen, userspace/live/metrics.h).
 *
 * This file is the command: options and --help, the session, the refresh
 * timer.  The live view's keys and window size are userspace/top/top_input.c.
 * The terminal (userspace/top/top_term.h) is restored on every way out:
 * normal exit, q, SIGINT/SIGTERM/SIGHUP (signalfd: a clean stop), exit()
 * (atexit), and crashes.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>

#include "userspace/cli/commands.h"
#include "userspace/live/live.h"
#include "userspace/live/metrics.h"
#include "userspace/top/top_input.h"
#include "userspace/top/top_term.h"
#include "userspace/top/top_view.h"
#include "userspace/record/session.h"
#include "lib/opt.h"
#include "lib/util.h"

struct top {
	struct session_opts o;
	struct top_view v;         /* the aggregator, the session, the metrics server; the view's state */
	/* options */
	bool once, json, headless, allow_remote;
	long count;                /* snapshots to print (--json/--once), 0 = until stopped */
	const char *listen;
	/* state */
	bool ui;
	struct top_input in;       /* the live view's keys and window */
	long printed;
	int tfd;
	int lfd;                    /* --listen's socket, bound before the probes load */
	bool out_failed;
	bool out_gone;              /* stdout's reader went away: stop, exit 0 */
	uint64_t last_snap_ns;      /* CLOCK_MONOTONIC of the last --json/--once snapshot */
	int argc;
	char **argv;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fabtrace top [OPTIONS]\n"
"\n"
"A live view of the fabric: per interface the current and peak rate (the peak\n"
"at bin resolution: the fullest --bin, not the 1 s average), microbursts per\n"
"second, utilisation against the link speed or tbf/htb rate, the largest qdisc\n"
"backlog and sojourn time, drops by reason, retransmits, CE marks, RDMA and\n"
"NIC congestion and pause counters, and a sparkline of the last minute; per\n"
"traced process (MPI, NCCL, Gloo, markers) the last collective, collectives\n"
"per second, the last duration and bus bandwidth, and the slowest rank (the\n"
"one the others wait for).  Lost events are always shown.\n"
"\n"
"With no option: every interface of every namespace, phase probes on every\n"
"process, a 1 s refresh, until q or Ctrl-C.\n"
"\n"
"Keys: q quit, s next sort key (rate, peak, bursts, backlog, drops, name),\n"
"      / or f filter interfaces by a substring of NAME@NETNS (Enter applies, an\n"
"      empty filter clears, Esc cancels), r reset the maxima, h help.\n"
"\n"
"Options:\n"
"  -r, --refresh DUR          refresh period (default 1s, 100ms..1h)\n"
"      --once                 print one snapshot as text after one period, exit\n"
"      --json                 print snapshots as JSON, one line each (one, or\n"
"                             -n COUNT); errors are JSON too\n"
"  -n, --count COUNT          snapshots to print with --json/--once (0: until\n"
"                             stopped)\n"
"      --headless             no screen and no snapshots (an exporter: --listen)\n"
"      --record FILE          also record everything into the capture FILE\n"
"      --format-version N     of that capture: 2 (default) or 1, for a fabtrace\n"
"                             older than 2026-11-28 (see record --help)\n"
"      --listen ADDR:PORT     serve metrics at http://ADDR:PORT/metrics (Prometheus text\n"
"                             0.0.4, or OpenMetrics when the scraper's Accept asks)\n"
"                             (PORT alone: 127.0.0.1; port 0: any free port)\n"
"      --allow-remote         allow --listen on a non-loopback address\n"
"      --sort KEY             initial sort key (rate, peak, bursts, backlog,\n"
"                             drops, name)\n"
"      --filter TEXT          initial interface filter\n"
"  -i, --iface [NETNS/]IFACE  only this interface (repeatable)\n"
"      --netns NAME           only this network namespace\n"
"  -d, --duration DURATION    stop after DURATION\n"
"      --bin WIDTH            microburst bin width (default 100us; 1us to 1s)\n"
"      --rtt-interval DUR     min gap between RTT/cwnd samples per flow\n"
"      --ringbuf SIZE         ring buffer of the network probes (default 4M; the\n"
"                             TCP probes get a quarter, the phase probes as much)\n"
"      --wakeup SIZE          wake the recorder each time SIZE more bytes wait\n"
"                             in a ring; it also drains every 20 ms (default:\n"
"                             ringbuf/8; 0: a wake-up per record, which about\n"
"                             doubles the probes' CPU time)\n"
"  -p, --pid PID[,PID...]     phase probes on these processes and their children\n"
"      --phase LIB:SYMBOL[=NAME]  also trace SYMBOL of LIB as phase NAME\n"
"      --no-phases            no phase probes\n"
"      --no-probes LIST       leave out probe families: bins, qdisc, drops, tcp,\n"
"                             rtt (costs: 'fabtrace features')\n"
"      --coverage MODE        auto, kernel, pid1 or counters (see record --help)\n"
"      --nice N               nice value of the draining thread (default -10)\n"
"      --counter-period DUR, --rdma-devices LIST, --rdma-counters GLOBS,\n"
"      --rdma-lifespan MS, --nic-stats GLOBS, --no-rdma, --no-nic-stats,\n"
"      --sampler-budget PCT, --sysfs-root DIR   as for record\n"
"  -v, --verbose              show libbpf and verifier messages\n"
"  -h, --help                 this help\n"
"\n"
"Examples:\n"
"  sudo fabtrace top\n"
"  sudo fabtrace top -i eth0 --bin 20us\n"
"  sudo fabtrace top --netns lab1h2 --record incident.ftr\n"
"  sudo fabtrace top --once\n"
"  sudo fabtrace top --json -n 10 -r 500ms | jq '.interfaces[0].tx.peak_bps'\n"
"  sudo fabtrace top --headless --listen 127.0.0.1:9464\n"
"  curl -s http://127.0.0.1:9464/metrics\n"
"\n"
"Needs root, or CAP_BPF + CAP_PERFMON + CAP_NET_ADMIN (+ CAP_SYS_ADMIN to\n"
"enter other network namespaces).  The metrics are documented in docs/top.md.\n"
"\n"
"Exit status: 0, 1 on an error (no terminal for the live view, missing\n"
"privileges, a probe that cannot load), 2 for usage errors.\n");
}

/* ---- events ---- */

/* Runs the kernel skipped (hits - runs of each hook): data lost without a lost count. */
static void refresh_skipped(struct top *t)
{
	uint64_t skipped[FT_PROBE_MAX];
	bool known[FT_PROBE_MAX];

	if (session__skipped(t->v.s, skipped, known) == 0)
		live__set_skipped(t->v.l, skipped, known);
}

/* A --json or --once snapshot on stdout; a failed write ends the command with 1, said once. */
static void snapshot(struct top *t)
{
	int e;

	if (t->out_failed || t->out_gone ||
	    !(t->json ? top_view__print_json(&t->v) : top_view__print_text(&t->v)))
		return;
	e = stream_errno(stdout);
	if (e == EPIPE) { /* its reader had enough (| head -1): the end, not an error */
		t->out_gone = true;
		return;
	}
	t->out_failed = true;
	/* to stderr even under --json: stdout is what failed */
	fprintf(stderr, "fabtrace: top: writing to the standard output: %s; check where it goes\n", strerror(e));
}

static void on_refresh(void *ctx, int fd, uint32_t events)
{
	struct top *t = ctx;
	uint64_t exp;

	(void)events;
	if (read(fd, &exp, sizeof(exp)) <= 0)
		return;
	session__drain(t->v.s);   /* everything up to now belongs to this period */
	refresh_skipped(t);
	live__tick(t->v.l, mono_ns());
	if (t->ui) {
		top_view__draw(&t->v);
		return;
	}
	if (t->headless)
		return;
	snapshot(t);
	t->printed++;
	t->last_snap_ns = mono_ns();
	if (t->out_failed || t->out_gone || (t->count && t->printed >= t->count))
		session__stop(t->v.s, t->out_failed ? FT_STOP_ERROR : FT_STOP_DURATION);
}

static void on_tick(void *ctx, uint64_t now, uint64_t ticks)
{
	struct top *t = ctx;

	(void)ticks;
	metrics_server__tick(t->v.ms, now);
}

/* ---- setup ---- */

static int parse_args(struct top *t, int argc, char **argv)
{
	enum { OPT_ONCE = SOPT_END, OPT_JSON, OPT_HEADLESS, OPT_RECORD, OPT_LISTEN, OPT_REMOTE,
	       OPT_SORT, OPT_FILTER };
	static const struct option opts[] = {
		SESSION_LONG_OPTS,
		{ "refresh", required_argument, NULL, 'r' },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "count", required_argument, NULL, 'n' },
		{ "headless", no_argument, NULL, OPT_HEADLESS },
		{ "record", required_argument, NULL, OPT_RECORD },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "allow-remote", no_argument, NULL, OPT_REMOTE },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "filter", required_argument, NULL, OPT_FILTER },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool count_set = false;
	int c;

	/* --json anywhere makes even the option errors JSON */
	util_json_from_args(argc, argv, (const char *const[]){ "--json", NULL });
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":" SESSION_SHORT_OPTS "r:n:h", opts, NULL)) != -1) {
		int h = session_opts__parse(&t->o, c, optarg);

		if (h < 0)
			return -1;
		if (h > 0)
			continue;
		switch (c) {
		case 'r':
			if (parse_duration(optarg, 1000000000ull, &t->v.refresh_ns) ||
			    t->v.refresh_ns < 100000000ull || t->v.refresh_ns > 3600000000000ull) {
				ft_err_bad_value("top", "--refresh", optarg, "an interval from 100ms to 1h", "e.g. 1s");
				return -1;
			}
			break;
		case 'n': {
			long v;

			if (parse_long(optarg, 0, 1000000000L, &v)) {
				ft_err_bad_value("top", "--count", optarg, "a count of snapshots", "e.g. 10 (0: until stopped)");
				return -1;
			}
			t->count = v;
			count_set = true;
			break;
		}
		case OPT_ONCE:
			t->once = true;
			break;
		case OPT_JSON:
			t->json = true;
			t->o.json = true;
			util_set_json(true);
			break;
		case OPT_HEADLESS:
			t->headless = true;
			break;
		case OPT_RECORD:
			if (!optarg[0]) {
				ft_err("top: --record needs a file name");
				return -1;
			}
			t->o.out_path = optarg;
			break;
		case OPT_LISTEN:
			t->listen = optarg;
			break;
		case OPT_REMOTE:
			t->allow_remote = true;
			break;
		case OPT_SORT:
			t->v.sort = -1;
			for (int i = 0; i < TOP_SORT_N; i++)
				if (!strcmp(optarg, top_sort_names[i]))
					t->v.sort = i;
			if (t->v.sort < 0) {
				ft_err_bad_value("top", "--sort", optarg, "a sort key", "rate, peak, bursts, backlog, drops or name");
				return -1;
			}
			break;
		case OPT_FILTER:
			str_copy(t->v.filter, optarg, sizeof(t->v.filter));
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			ft_err_bad_opt("top", c, optopt, argv[optind - 1], opts);
			return -1;
		}
	}
	if (optind < argc) {
		ft_err("top: unexpected argument '%s'; top does not run commands: use 'fabtrace record "
		       "-- COMMAND', or -p PID to follow a running one", argv[optind]);
		return -1;
	}
	if (t->headless && (t->once || t->json)) {
		ft_err("top: --headless prints nothing; drop --%s", t->once ? "once" : "json");
		return -1;
	}
	if (t->headless && !t->listen && !t->o.out_path) {
		ft_err("top: --headless shows nothing by itself; add --listen ADDR:PORT to serve metrics "
		       "(or --record FILE)");
		return -1;
	}
	if (count_set && !t->once && !t->json) {
		ft_err("top: -n counts --json or --once snapshots; add --json or --once");
		return -1;
	}
	if ((t->once || t->json) && !count_set)
		t->count = 1;
	if (t->allow_remote && !t->listen) {
		ft_err("top: --allow-remote goes with --listen ADDR:PORT");
		return -1;
	}
	if (t->o.format_set && !t->o.out_path) {
		ft_err("top: --format-version is the format of --record's capture; add --record FILE");
		return -1;
	}
	return session_opts__check(&t->o);
}

static int start_timer(struct top *t)
{
	struct itimerspec its = {
		.it_interval = { (time_t)(t->v.refresh_ns / 1000000000ull), (long)(t->v.refresh_ns % 1000000000ull) },
		.it_value = { (time_t)(t->v.refresh_ns / 1000000000ull), (long)(t->v.refresh_ns % 1000000000ull) },
	};

	t->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (t->tfd < 0 || timerfd_settime(t->tfd, 0, &its, NULL) ||
	    session__watch(t->v.s, t->tfd, EPOLLIN, on_refresh, t) < 0)
		return -1;
	return 0;
}

/* The sink: every record of the session, after the capture (if any). */
static int to_live(void *ctx, const struct ft_rec_hdr *rec)
{
	struct top *t = ctx;

	live__add(t->v.l, rec); /* a malformed record is counted there and skipped */
	return 0;
}

int cmd_top(int argc, char **argv)
{
	struct top *t = calloc(1, sizeof(*t));
	struct live_opts lo;
	struct metrics_info mi;
	char err[256];
	int ret = 1, rc;

	if (!t)
		return 1;
	t->v.refresh_ns = 1000000000ull;
	t->tfd = -1;
	t->lfd = -1;
	t->argc = argc;
	t->argv = argv;
	signal(SIGPIPE, SIG_IGN); /* a reader that goes away is an error, not a kill */
	if (session_opts__init(&t->o, "top"))
		goto out;
	if (parse_args(t, argc, argv)) {
		ret = 2; /* usage, as every other command says it */
		goto out;
	}
	t->v.recording = t->o.out_path;
	if (t->listen) { /* a bad address (usage) fails first: before the terminal check and the probes */
		struct sockaddr_storage ss;
		socklen_t len;

		if (metrics__parse_addr(t->listen, t->allow_remote, &ss, &len, err, sizeof(err))) {
			ft_err("top: %s", err);
			ret = 2;
			goto out;
		}
		/* bound now: a port in use fails before the probes load and --record writes */
		t->lfd = metrics__listen(t->listen, t->allow_remote, err, sizeof(err));
		if (t->lfd < 0) {
			ft_err("top: %s", err);
			goto out;
		}
	}
	t->ui = !t->once && !t->json && !t->headless;
	if (t->ui && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		ft_err("top: the live view needs a terminal; use --once or --json for scripts, "
		       "--headless with --listen for an exporter");
		goto out;
	}
	live_opts__init(&lo, t->o.bin_ns);
	t->v.l = live__new(&lo, mono_ns());
	if (!t->v.l) {
		ft_err("top: out of memory");
		goto out;
	}
	t->o.live = true; /* bins as they close: no batching (probes/netprobe.h) */
	cli_usr1_not_flight(); /* --record's capture, or the live view, is not to end without its END */
	if (session__open(&t->v.s, &t->o, to_live, t))
		goto out;
	rc = session__start(t->v.s, argc, argv);
	if (rc) {
		if (rc != -1)
			ft_err("top: writing %s failed: %s", t->o.out_path ? t->o.out_path : "the capture",
			       session__write_error(t->v.s)[0] ? session__write_error(t->v.s) : strerror(EIO));
		session__finish(t->v.s);
		goto out;
	}
	mi.hostname = session__hostname(t->v.s);
	mi.refresh_s = (double)t->v.refresh_ns / 1e9;
	if (t->listen) {
		int lfd = t->lfd;

		t->lfd = -1; /* the server's now, closed by it */
		if (metrics_server__open(&t->v.ms, t->v.s, lfd, t->v.l, &mi, err, sizeof(err))) {
			ft_err("top: %s", err);
			session__stop(t->v.s, FT_STOP_ERROR);
			session__finish(t->v.s);
			goto out;
		}
	}
	if (t->v.ms && !t->ui)
		fprintf(stderr, "fabtrace: serving metrics on http://%s/metrics\n",
			metrics_server__address(t->v.ms));
	if (t->headless)
		fprintf(stderr, "fabtrace: top running headless%s; Ctrl-C to stop\n",
			t->o.out_path ? ", recording" : "");
	session__on_tick(t->v.s, on_tick, t);
	/* the first period starts now: what the rings hold is from the probes' setup */
	session__drain(t->v.s);
	refresh_skipped(t);
	live__begin_period(t->v.l, mono_ns());
	if (start_timer(t)) {
		ft_err("top: cannot start the refresh timer: %s", strerror(errno));
		session__finish(t->v.s);
		goto out;
	}
	if (t->ui && top_input__start(&t->in, &t->v)) {
		session__finish(t->v.s);
		goto out;
	}
	rc = session__run(t->v.s);
	top_term__restore();
	/* stopped before the first snapshot (-d, a signal): show what there is; and
	 * -d ending with a period (-d 2s -r 1s) shows that period, whose refresh
	 * came together with the stop */
	if (!t->ui && !t->headless && !t->out_failed && !t->out_gone &&
	    (!t->printed || (session__stats(t->v.s)->stop_reason == FT_STOP_DURATION &&
			     !(t->count && t->printed >= t->count) &&
			     mono_ns() - t->last_snap_ns >= t->v.refresh_ns / 10 * 9))) {
		session__drain(t->v.s);
		refresh_skipped(t);
		live__tick(t->v.l, mono_ns());
		snapshot(t);
	}
	if (session__finish(t->v.s) || rc) {
		if (rc)
			ft_err("top: the event loop failed: %s", strerror(-rc));
		else if (session__write_error(t->v.s)[0])
			ft_err("top: %s", session__write_error(t->v.s));
		else
			ft_err("top: writing %s failed; the capture is valid up to its last complete block",
			       t->o.out_path ? t->o.out_path : "the capture");
		goto out;
	}
	if (t->o.out_path && !t->json)
		fprintf(stderr, "fabtrace: recorded to %s (%llu records, %llu lost events)\n", t->o.out_path,
			(unsigned long long)session__stats(t->v.s)->records_written,
			(unsigned long long)session__lost_total(t->v.s));
	ret = t->out_failed ? 1 : 0;
out:
	top_term__restore();
	metrics_server__close(t->v.ms);
	if (t->tfd >= 0)
		close(t->tfd);
	if (t->lfd >= 0)
		close(t->lfd);
	top_input__close(&t->in);
	session__close(t->v.s);
	live__free(t->v.l);
	session_opts__free(&t->o);
	free(t);
	return ret;
}
